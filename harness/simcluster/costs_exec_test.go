package simcluster

import (
	"math"
	"slices"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/sim"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/topologies"
)

// bolt is an executor of Storm's statistics: a bolt's task on host, up for uptime seconds, its tuples
// executed and their mean execute latency (ms) since it started.
func bolt(comp string, task int, host string, uptime int, executed int64, ms float64) stormui.Executor {
	return stormui.Executor{Component: comp, TaskStart: task, TaskEnd: task, Host: host, Type: "bolt", UptimeSeconds: uptime, Executed: executed, ExecuteLatency: ms}
}

// TestExecuteOf: the window's mean is worked out from Storm's all-time means at the window's ends (by
// hand: 1,000 tuples at 0.050 ms, then 3,000 at 0.030 in all, so 2,000 in the window at
// (90 - 50) / 2,000 = 0.020 ms = 20 µs), the executors of a node pooled by their tuples, and the node
// where it is lowest taken with its CPU share. Executors that restarted or moved in the window, or
// were not there at its start, and runs whose readings failed, say nothing.
func TestExecuteOf(t *testing.T) {
	run := func(from, to []stormui.Executor, nodes ...diagnose.Node) *harness.RunResult {
		r := &harness.RunResult{}
		// a 30 s window: uptimes grow by 30 s unless an executor restarted
		r.Storm.From, r.Storm.To = &measure.Snapshot{TimeMs: 0, Executors: from}, &measure.Snapshot{TimeMs: 30000, Executors: to}
		r.Diagnosis = &harness.Diagnosis{Nodes: nodes}
		return r
	}
	busy, spare := diagnose.Node{Host: "sup1", UsedOfQuota: 0.98}, diagnose.Node{Host: "sup2", UsedOfQuota: 0.6}
	failed := run([]stormui.Executor{bolt("b", 1, "sup2", 10, 1000, 0.050)}, []stormui.Executor{bolt("b", 1, "sup2", 40, 3000, 0.030)}, spare)
	failed.Storm.From.Err = "topology page: 503"
	cases := []struct {
		name string
		r    *harness.RunResult
		want map[string]sim.StormExecute
	}{
		{"window from all-time means", run(
			[]stormui.Executor{bolt("b", 1, "sup2", 10, 1000, 0.050)},
			[]stormui.Executor{bolt("b", 1, "sup2", 40, 3000, 0.030)}, busy, spare),
			map[string]sim.StormExecute{"b": {Micros: 20, NodeUsed: 0.6}}},
		{"lowest node, its executors pooled", run(
			[]stormui.Executor{bolt("b", 1, "sup1", 10, 0, 0), bolt("b", 2, "sup2", 10, 0, 0), bolt("b", 3, "sup2", 10, 0, 0),
				bolt(topologies.AckerComponent, 4, "sup1", 10, 0, 0)},
			[]stormui.Executor{bolt("b", 1, "sup1", 40, 1000, 0.100), bolt("b", 2, "sup2", 40, 1000, 0.010), bolt("b", 3, "sup2", 40, 3000, 0.030),
				bolt(topologies.AckerComponent, 4, "sup1", 40, 500, 0.004)}, busy, spare),
			// sup2: (10 + 90) ms over 4,000 tuples = 25 µs; sup1's 100 µs is waiting for its CPU
			map[string]sim.StormExecute{"b": {Micros: 25, NodeUsed: 0.6}, topologies.AckerComponent: {Micros: 4, NodeUsed: 0.98}}},
		{"restarted, moved, new, spouts, idle bolts and unknown nodes left out", run(
			[]stormui.Executor{bolt("restarted", 1, "sup2", 100, 900, 0.02), bolt("moved", 2, "sup1", 10, 100, 0.02),
				bolt("idle", 3, "sup2", 10, 100, 0.02), bolt("elsewhere", 4, "sup9", 10, 0, 0)},
			[]stormui.Executor{bolt("restarted", 1, "sup2", 112, 1000, 0.02), bolt("moved", 2, "sup2", 40, 500, 0.02),
				bolt("idle", 3, "sup2", 40, 100, 0.02), bolt("elsewhere", 4, "sup9", 40, 100, 0.02), bolt("new", 5, "sup2", 20, 100, 0.02),
				{Component: "s", TaskStart: 6, Host: "sup2", Type: "spout", UptimeSeconds: 40}}, spare),
			map[string]sim.StormExecute{}},
		{"a failed reading", failed, nil},
		{"no readings of Storm", &harness.RunResult{Diagnosis: &harness.Diagnosis{Nodes: []diagnose.Node{spare}}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := executeOf(c.r)
			if (got == nil) != (c.want == nil) || len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for k, w := range c.want {
				g := got[k]
				if math.Abs(g.Micros-w.Micros) > 1e-9 || g.NodeUsed != w.NodeUsed {
					t.Errorf("%s: got %+v, want %+v", k, g, w)
				}
			}
		})
	}
}

// TestExecuteOfRecordedRuns: on the shipped model's runs (testdata/containers-runs.tar.gz, the
// topologies unpaced under EvenScheduler on heterogeneous-2) every bolt and the ackers have Storm's
// execute latency, and the Throughput chain's bolt2, alone on the 1-core node below its quota, spent in
// its execute() less than a third of the thread CPU per tuple that the model charges it (measured: 8.5
// against 30.8 µs; the rest is its wait strategy's spinning).
func TestExecuteOfRecordedRuns(t *testing.T) {
	runs := recordedRuns(t, "testdata/containers-runs.tar.gz")
	m, err := MeasureCosts("containers", runs, sim.CostProvenance{})
	if err != nil {
		t.Fatal(err)
	}
	for class, tc := range m.Topologies {
		for name, c := range tc.Components {
			if !c.Spout && c.Execute == nil {
				t.Errorf("%s %s: no execute latency", class, name)
			}
		}
		if tc.AckExecute == nil {
			t.Errorf("%s: no acker execute latency", class)
		}
	}
	want := []string{"ThroughputTopology bolt2: 30.8 µs of thread CPU a tuple (all its executors) against 8.54 µs in execute() where that was lowest, on a node at 85% of its CPU",
		"ThroughputTopology acker: 21.9 µs of thread CPU a tuple (all its executors) against 3.14 µs in execute() where that was lowest, on a node at 85% of its CPU"}
	if got := Spinning(m); !slices.Equal(got, want) {
		t.Errorf("Spinning: got %q, want %q", got, want)
	}
	b := m.Topologies[throughputClass()].Components["bolt2"]
	if b.Execute == nil || !(b.Execute.Micros < b.CPUMicros/3) || !(b.Execute.NodeUsed < busyShare) {
		t.Errorf("bolt2: execute %+v, thread CPU %v µs a tuple: want under a third of it, on a node below %v of its quota", b.Execute, b.CPUMicros, busyShare)
	}
}
