package experiments

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/infra/clusterref"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/target"
)

// runOrResume reads back a kept run only under Resume, and runs the rest.
func TestRunOrResume(t *testing.T) {
	raw := t.TempDir()
	kept := &harness.RunResult{TopologyID: "kept", Measurement: harness.Measurement{Throughput: 42}}
	if err := harness.Save(filepath.Join(raw, "r0"), kept); err != nil {
		t.Fatal(err)
	}
	// A kept run that does not count (its collect step failed: nothing acked).
	if err := harness.Save(filepath.Join(raw, "r2"), &harness.RunResult{TopologyID: "failed"}); err != nil {
		t.Fatal(err)
	}
	calls := 0
	run := func() (*harness.RunResult, error) {
		calls++
		return &harness.RunResult{TopologyID: "fresh"}, nil
	}
	for _, c := range []struct {
		name          string
		resume        bool
		wantID        string
		wantResumed   bool
		wantCallsUpTo int
	}{
		{"r0", false, "fresh", false, 1}, // no --resume: run again
		{"r0", true, "kept", true, 1},    // kept and resumed: not run
		{"r1", true, "fresh", false, 2},  // nothing kept: run
		{"r2", true, "fresh", false, 3},  // kept but does not count: run again
	} {
		env := lab.Env{Log: io.Discard, RawDir: raw, Resume: c.resume}
		r, resumed, err := runOrResume(env, c.name, run)
		if err != nil || r.TopologyID != c.wantID || resumed != c.wantResumed || calls != c.wantCallsUpTo {
			t.Errorf("%s resume=%v: id %q resumed %v calls %d err %v; want %q %v %d",
				c.name, c.resume, r.TopologyID, resumed, calls, err, c.wantID, c.wantResumed, c.wantCallsUpTo)
		}
	}
	// A kept run that does not count is removed, so that it runs again.
	if _, err := os.Stat(filepath.Join(raw, "r2")); !os.IsNotExist(err) {
		t.Errorf("the kept run that does not count is still there (stat: %v)", err)
	}
	// Unless the experiment takes such a run as a result (recovery: nothing flowed in the window).
	dry := &harness.RunResult{TopologyID: "dry"}
	if err := harness.Save(filepath.Join(raw, "r3"), dry); err != nil {
		t.Fatal(err)
	}
	env := lab.Env{Log: io.Discard, RawDir: raw, Resume: true}
	r, resumed, err := runOrResumeAccepting(env, "r3", nothingFlowed, run)
	if err != nil || !resumed || r.TopologyID != "dry" {
		t.Errorf("a kept run in which nothing flowed, accepted: %v resumed %v err %v; want it read back", r, resumed, err)
	}
	if err := keepRun(env, "r3", r, nil, true); !nothingFlowed(r, err) {
		t.Errorf("keepRun of the dry run: %v, want the no-throughput error nothingFlowed takes", err)
	}
	// A resumed run is not saved again (its storm-stats.json keeps the raw readings).
	other := t.TempDir()
	if err := keepRun(lab.Env{Log: io.Discard, RawDir: other}, "x", kept, nil, true); err != nil {
		t.Errorf("keepRun of a resumed valid run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "x")); err == nil {
		t.Error("keepRun saved a resumed run again")
	}
}

// A session starts its cluster on first use: resuming runs that are all
// kept starts none (no Docker engine needed); a failed start is returned to
// every later call and nothing is left to tear down.
func TestSessionStartsOnFirstUse(t *testing.T) {
	raw := t.TempDir()
	if err := harness.Save(filepath.Join(raw, "k-r0"), &harness.RunResult{TopologyID: "kept", Measurement: harness.Measurement{Throughput: 1}}); err != nil {
		t.Fatal(err)
	}
	env := lab.Env{Log: io.Discard, RawDir: raw, Resume: true}
	ctx := context.Background()
	var started bool
	err := withCluster(ctx, env, harness.ClusterSpec{Shape: "heterogeneous-2"}, "storm-even", func(s *clusterView) error {
		s.onStart = func(harness.Cluster) (func() error, error) { started = true; return nil, nil }
		r, resumed, err := runOrResume(env, "k-r0", func() (*harness.RunResult, error) { return s.Run(ctx, harness.RunSpec{}) })
		if err != nil || !resumed || r.TopologyID != "kept" {
			t.Errorf("runOrResume: %v resumed %v err %v; want the kept run", r, resumed, err)
		}
		// Before a start, the capacity is the shape's (heterogeneous-2: sup1 0.5 core, sup2 1 core).
		c, err := s.Capacity()
		if err != nil || len(c) != 2 || c["sup1"] != 50 || c["sup2"] != 100 {
			t.Errorf("Capacity() = %v, %v; want map[sup1:50 sup2:100]", c, err)
		}
		if s.s != nil || started {
			t.Error("the cluster started although every run was kept")
		}
		return nil
	})
	if err != nil {
		t.Errorf("withSession: %v", err)
	}
	// A start that fails (an unknown scheduler, before any container) fails Run and Nemesis alike.
	err = withCluster(ctx, env, harness.ClusterSpec{}, "no-such-scheduler", func(s *clusterView) error {
		if _, err := s.Nemesis(); err == nil || !strings.Contains(err.Error(), "no-such-scheduler") {
			t.Errorf("Nemesis() error = %v, want the unknown scheduler named", err)
		}
		_, err := s.Run(ctx, harness.RunSpec{})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "start cluster (heterogeneous-2): unknown scheduler \"no-such-scheduler\"") || strings.Contains(err.Error(), "<nil>") {
		t.Errorf("withSession error = %v, want the failed start", err)
	}
}

// A user's cluster is not described by a shape: before a start, Capacity opens it (here: a target
// whose UI does not answer, so the error names it) instead of answering the shape's.
func TestSessionCapacityOfTarget(t *testing.T) {
	tg := &target.Target{Name: "gone", UI: "http://127.0.0.1:1"}
	env := lab.Env{Log: io.Discard, Cluster: clusterref.Ref{Kind: clusterref.Target, File: "gone.yaml", Target: tg}}
	err := withCluster(context.Background(), env, harness.ClusterSpec{Shape: "heterogeneous-2"}, "storm-even", func(s *clusterView) error {
		c, err := s.Capacity()
		if err == nil || !strings.Contains(err.Error(), "target UI http://127.0.0.1:1 does not answer") {
			t.Errorf("Capacity() = %v, %v; want an error naming the target's UI", c, err)
		}
		return nil
	})
	if err != nil {
		t.Errorf("withSession: %v", err)
	}
}

// TestCheckKeptRate: a run read back with --resume must have offered the rate this run asks for (to
// the 2 decimals openLoopArgs writes); a fresh run and an unpaced kept run at rate 0 pass.
func TestCheckKeptRate(t *testing.T) {
	kept := func(args ...string) *harness.RunResult {
		return &harness.RunResult{Spec: harness.RunSpec{Topology: harness.TopologyRun{Args: args}}}
	}
	for _, c := range []struct {
		name    string
		r       *harness.RunResult
		resumed bool
		rate    float64
		ok      bool
	}{
		{"same rate", kept(append([]string{"--workers", "4"}, openLoopArgs(527.349)...)...), true, 527.349, true},
		{"another calibration", kept(openLoopArgs(527.35)...), true, 600, false},
		{"unpaced, kept unpaced", kept("--interval-ms", "0"), true, 0, true},
		{"unpaced kept, open loop asked", kept("--interval-ms", "0"), true, 500, false},
		{"a fresh run is not checked", kept(openLoopArgs(1)...), false, 500, true},
	} {
		if err := checkKeptRate("x", c.r, c.resumed, c.rate); (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// TestResumeTopologyConf: a kept run is read back only if it ran with the user's Storm settings asked
// now (--topology-conf), and with no wait-strategy setting that is not asked now; the experiments' own
// settings (the demands, the delay transport) do not matter.
func TestResumeTopologyConf(t *testing.T) {
	const sleep = "topology.bolt.wait.progressive.level2.count=0"
	own := []string{"--workers", "4", "--conf", "topology.component.cpu.pcore.percent=5"}
	for _, tc := range []struct {
		name       string
		kept, conf []string
		want       string
	}{
		{"neither", own, nil, ""},
		{"both", append(own, "--conf", sleep), []string{sleep}, ""},
		{"asked, kept without", own, []string{sleep}, "ran without --topology-conf " + sleep},
		{"kept with, not asked", append(own, "--conf", sleep), nil, "ran with --topology-conf " + sleep},
	} {
		raw := t.TempDir()
		kept := &harness.RunResult{TopologyID: "kept", Measurement: harness.Measurement{Throughput: 42}, Spec: harness.RunSpec{Topology: harness.TopologyRun{Args: tc.kept}}}
		if err := harness.Save(filepath.Join(raw, "r0"), kept); err != nil {
			t.Fatal(err)
		}
		env := lab.Env{Log: io.Discard, RawDir: raw, Resume: true, TopologyConf: tc.conf}
		r, resumed, err := runOrResume(env, "r0", func() (*harness.RunResult, error) { t.Fatal("ran again"); return nil, nil })
		switch {
		case tc.want == "" && (err != nil || !resumed || r == nil):
			t.Errorf("%s: resumed %v, %v; want the kept run read back", tc.name, resumed, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
