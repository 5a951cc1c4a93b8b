package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunOnSimulatedCluster: stormlab run on a simulated cluster needs no Docker engine, prints the
// row and keeps run.json marked simulated, with the model's self-checks passed.
func TestRunOnSimulatedCluster(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := cli(t, "run", "--cluster", "sim:heterogeneous-2", "--topology", "wordcount", "--scheduler", "kpart",
		"--measure", "20s", "--out", out, "--", "--workers", "4", "--parallelism", "2")
	if code != 0 || !strings.Contains(stdout, "kpart") || !strings.Contains(stdout, "sim:heterogeneous-2") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Simulated struct {
			Cluster   string
			CostModel string `json:"cost_model"`
			Checks    []string
		}
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	s := run.Simulated
	if s.Cluster != "heterogeneous-2" || s.CostModel != "containers" || len(s.Checks) == 0 {
		t.Errorf("run.json simulated = %+v, want the cluster, the cost model and the self-checks", s)
	}
	for _, c := range s.Checks {
		if !strings.HasSuffix(c, ": ok") {
			t.Errorf("self-check %s", c)
		}
	}
}

// TestSimCommands: the clusters are listed; bad input to sim costs and to --cluster sim: exits 2
// with one line naming the fix, and writes nothing.
func TestSimCommands(t *testing.T) {
	code, stdout, _ := cli(t, "sim", "clusters")
	for _, want := range []string{"sim:kpart-paper", "sim:deadline-paper", "sim:nodes-256", "sim:heterogeneous-2"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("sim clusters: exit %d, no %s in\n%s", code, want, stdout)
		}
	}
	empty := t.TempDir()
	out := filepath.Join(t.TempDir(), "costs.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "costs", "--out", out}, "needs one of --cluster"},
		{[]string{"sim", "costs", "--from", empty, "--out", out}, "no recorded run"},
		{[]string{"run", "--cluster", "sim:moon", "--topology", "wordcount", "--scheduler", "even"}, "known: kpart-paper"},
		{[]string{"run", "--cluster", "sim:paper", "--topology", "wordcount", "--scheduler", "even"}, "each experiment's paper cluster"},
		{[]string{"experiment", "smoke", "--cluster", "sim:paper", "--scale", "ci", "--out", empty}, "smoke has no paper's cluster"},
		{[]string{"run", "--cluster", "sim:heterogeneous-2", "--topology", "wordcount", "--scheduler", "even", "--fault", "kill-supervisor@5s+5s:sup1"}, "does not model this fault"},
		{[]string{"run", "--cluster", "sim:heterogeneous-2", "--topology", "wordcount", "--scheduler", "even", "--fault", "straggler@5s+5s:sup9=50"}, "not a supervisor of this cluster"},
	} {
		code, _, stderr := cli(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused sim costs wrote %s", out)
	}
}
