package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/sim"
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
		{[]string{"sim", "costs", "--cluster", "containers:heterogeneous-2", "--transfer-rate", "0", "--out", out}, "a rate > 0"},
		{[]string{"sim", "costs", "--cluster", "containers:heterogeneous-2", "--topology-conf", "level2", "--out", out}, `--topology-conf: topology setting "level2"`},
		{[]string{"sim", "costs", "--from", empty, "--topology-conf", "a=1", "--out", out}, "recorded runs (--from) keep the settings"},
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

// TestSimCostsFlag: --sim-costs charges a simulated cluster by a cost-model file of the user's: a run
// on it names that model in run.json and is not validated (no validation beside the file), and with a
// validation written beside it (FILE.validation.json) its standing is read from there. A cost model for
// a cluster that is not simulated, a missing file and a malformed one are refused (exit 2, one line
// naming the fix), before anything runs.
func TestSimCostsFlag(t *testing.T) {
	m, err := simcluster.ContainersCosts()
	if err != nil {
		t.Fatal(err)
	}
	m.Name = "mine"
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.json")
	var b bytes.Buffer
	if err := sim.WriteCostModel(&b, m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format": "nope"`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--cluster", "heterogeneous-2", "--sim-costs", file, "--topology", "wordcount", "--scheduler", "even"}, "give --cluster sim:NAME"},
		{[]string{"experiment", "comm-cost", "--sim-costs", file, "--out", dir}, "give --cluster sim:NAME"},
		{[]string{"run", "--cluster", "sim:heterogeneous-2", "--sim-costs", filepath.Join(dir, "none.json"), "--topology", "wordcount", "--scheduler", "even"}, "--sim-costs"},
		{[]string{"capacity", "--cluster", "sim:heterogeneous-2", "--sim-costs", bad, "--topology", "wordcount", "--scheduler", "even"}, "stormlab sim costs"},
	} {
		code, _, stderr := cli(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	simulated := func() (model, validation string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "run")
		code, stdout, stderr := cli(t, "run", "--cluster", "sim:heterogeneous-2", "--sim-costs", file, "--topology", "wordcount",
			"--scheduler", "even", "--measure", "10s", "--out", out)
		if code != 0 {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		var run struct {
			Simulated struct {
				CostModel  string `json:"cost_model"`
				Validation string
			}
		}
		readJSON(t, filepath.Join(out, "run.json"), &run)
		return run.Simulated.CostModel, run.Simulated.Validation
	}
	if model, v := simulated(); model != "mine" || !strings.HasPrefix(v, "not validated: no sim-validation results") {
		t.Errorf("run.json: cost model %q, validation %q; want mine, not validated", model, v)
	}
	// A record of the user's own validation of "mine" (one configuration on four nodes), beside the file:
	// the run on two nodes stands on it.
	rec := simcluster.Validation{CostModel: "mine", CostCommit: m.Provenance.Commit, Results: "my-validation", Date: "2026-12-05",
		Commit: m.Provenance.Commit, RealCluster: "target:mine.yaml", Configurations: []simcluster.ValidatedConfiguration{{
			Name: "wordcount x mine x saturation x 0 ms", Topology: "wordcount", Shape: "mine", Load: "saturation",
			Schedulers: []string{"storm-even", "kpart", "online"}, Size: simcluster.ClusterSize{Nodes: 4, Cores: 4}, Throughput: 0.1}}}
	rec.Summarize()
	b.Reset()
	if err := simcluster.WriteValidation(&b, rec); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine.validation.json"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, v := simulated(); strings.HasPrefix(v, "not validated") || !strings.Contains(v, "my-validation") {
		t.Errorf("run.json validation %q: want the record beside the file (my-validation) standing behind the run", v)
	}
}

// TestProvenanceHostCores: a cost model measured on this project's containers names the cores of the
// host they shared (a simulated container node bursts to them under its quota); one with a run on a
// target's cluster (no images started) names none.
func TestProvenanceHostCores(t *testing.T) {
	container := &harness.RunResult{Cluster: "heterogeneous-2", Images: map[string]string{"storm": "stormlab/storm:x"}}
	target := &harness.RunResult{Cluster: "mycluster"}
	if got := provenance([]*harness.RunResult{container, container}).HostCores; got != runtime.NumCPU() {
		t.Errorf("containers' runs: host cores %d, want this machine's %d", got, runtime.NumCPU())
	}
	if got := provenance([]*harness.RunResult{container, target}).HostCores; got != 0 {
		t.Errorf("a target's run among them: host cores %d, want 0 (unknown)", got)
	}
}

// TestExperimentTopologyConf: --topology-conf reaches every topology of a cluster experiment after its
// own arguments and is recorded in the manifest (smoke on a simulated cluster, no Docker engine); a
// setting that is not KEY=VALUE, or one given to a graph experiment, is refused before anything runs.
func TestExperimentTopologyConf(t *testing.T) {
	const conf = "topology.bolt.wait.progressive.level2.count=0"
	out := t.TempDir()
	code, _, stderr := cli(t, "experiment", "smoke", "--cluster", "sim:heterogeneous-2", "--scale", "ci", "--out", out, "--topology-conf", conf)
	if code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	var man struct {
		TopologyConf []string `json:"topology_conf"`
	}
	b, err := os.ReadFile(filepath.Join(out, "smoke", "manifest.json"))
	if err == nil {
		err = json.Unmarshal(b, &man)
	}
	if err != nil || len(man.TopologyConf) != 1 || man.TopologyConf[0] != conf {
		t.Errorf("manifest topology_conf %v (%v), want [%s]", man.TopologyConf, err, conf)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "smoke", "runs", "*", "run.json"))
	if len(runs) != 2 {
		t.Fatalf("kept runs %v, want smoke's two", runs)
	}
	for _, f := range runs {
		var r struct {
			Spec harness.RunSpec `json:"spec"`
		}
		b, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(b, &r)
		}
		args := r.Spec.Topology.Args
		if err != nil || len(args) < 2 || args[len(args)-2] != "--conf" || args[len(args)-1] != conf {
			t.Errorf("%s: topology args %v (%v), want --conf %s last", f, args, err, conf)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"smoke", "--topology-conf", "level2"}, `topology setting "level2": give KEY=VALUE`},
		{[]string{"kpart-mul", "--topology-conf", conf}, "--topology-conf applies to the cluster experiments"},
	} {
		dir := t.TempDir()
		code, _, errs := cli(t, append([]string{"experiment", "--out", dir}, c.args...)...)
		if entries, _ := os.ReadDir(dir); code != exitBadInput || !strings.Contains(errs, c.want) || len(entries) != 0 {
			t.Errorf("%v: exit %d, stderr %q, %d entries written; want exit %d, %q and nothing", c.args, code, errs, len(entries), exitBadInput, c.want)
		}
	}
}

// TestWaitConf: a cost model's provenance names the runs' wait-strategy settings (wait_conf) and no
// other --conf; none for Storm's defaults.
func TestWaitConf(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workers", "4", "--conf", "topology.component.cpu.pcore.percent=5"}, ""},
		{[]string{"--conf", "topology.bolt.wait.progressive.level2.count=0", "--conf", "topology.component.cpu.pcore.percent=5"}, "topology.bolt.wait.progressive.level2.count=0"},
		{[]string{"--conf", "topology.spout.wait.strategy=X", "--conf", "topology.bolt.wait.progressive.level3.sleep.millis=2"}, "topology.spout.wait.strategy=X topology.bolt.wait.progressive.level3.sleep.millis=2"},
		{[]string{"--conf"}, ""},
	} {
		if got := waitConf(tc.args); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
}
