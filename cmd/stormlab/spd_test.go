package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spdCLI runs `stormlab spd args...` through the command tree.
func spdCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cli(t, append([]string{"spd"}, args...)...)
}

func TestSPDCmdHandChecked(t *testing.T) {
	// Chain of two tasks, w = 3 and 5, b = 2, c = 2 (hand computation as in
	// schedulers/spd_test.go): A^disc puts both on one resource (group size
	// ceil(2*2^(2/2)/1) = 4), so d(G) = 2*3 + 2*5 = 16; lower bound
	// (sqrt3+sqrt5)^2/2 = 7.873.
	dir := t.TempDir()
	file := filepath.Join(dir, "chain.json")
	os.WriteFile(file, []byte(`{"vertices":[{"id":0,"weight":3},{"id":1,"weight":5}],"edges":[{"from":0,"to":1,"weight":2}],
		"tree":{"op":"s","children":[{"task":0},{"task":1}]}}`), 0o644)
	code, out, errs := spdCLI(t, "--graph", file, "--resources", "2", "--scheduler", "spd")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var o spdOutput
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if math.Abs(o.StreamingCost-16) > 1e-9 || math.Abs(o.LowerBound-(8+2*math.Sqrt(15))/2) > 1e-9 || o.ResourcesUsed != 1 {
		t.Fatalf("output %+v, want streaming_cost 16, lower_bound 7.873, 1 resource used", o)
	}
	code, out, _ = spdCLI(t, "--graph", "random:50", "--resources", "4", "--scheduler", "spd", "--format", "table", "--seed", "3")
	if code != 0 || !strings.Contains(out, "streaming_cost") || !strings.Contains(out, "lower_bound") {
		t.Fatalf("table output (exit %d): %s", code, out)
	}
}

func TestSPDCmdBadInput(t *testing.T) {
	dir := t.TempDir()
	notSPD := filepath.Join(dir, "triangle.json")
	os.WriteFile(notSPD, []byte(`{"vertices":[{"id":0,"weight":1},{"id":1,"weight":1},{"id":2,"weight":1}],
		"edges":[{"from":0,"to":1,"weight":1},{"from":1,"to":2,"weight":1},{"from":0,"to":2,"weight":1}]}`), 0o644)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"graph missing", []string{"--resources", "2", "--scheduler", "spd"}, "--graph is required"},
		{"scheduler missing", []string{"--graph", "random:10", "--resources", "2"}, "--scheduler is required"},
		{"resources missing", []string{"--graph", "random:10", "--scheduler", "spd"}, "need at least 1 resource"},
		{"too many resources", []string{"--graph", "random:3", "--resources", "4", "--scheduler", "spd"}, "more than the 3 tasks"},
		{"bad random", []string{"--graph", "random:x", "--resources", "2", "--scheduler", "spd"}, "use random:N"},
		{"unknown scheduler", []string{"--graph", "random:10", "--resources", "2", "--scheduler", "nope"}, `unknown scheduler "nope"`},
		{"not a partitioner", []string{"--graph", "random:10", "--resources", "2", "--scheduler", "rstorm"}, "does not partition graphs"},
		{"not SPD", []string{"--graph", notSPD, "--resources", "2", "--scheduler", "spd"}, "not series-parallel"},
		{"no file", []string{"--graph", filepath.Join(dir, "absent.json"), "--resources", "2", "--scheduler", "spd"}, "no such file"},
		{"bad format", []string{"--graph", "random:10", "--resources", "2", "--scheduler", "spd", "--format", "xml"}, `unknown --format "xml"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := spdCLI(t, c.args...)
			if code != exitBadInput || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line containing %q", code, errs, c.want)
			}
		})
	}
}
