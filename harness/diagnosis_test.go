package harness

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/protocol"
)

// TestLoadDiagnoses: a kept run is diagnosed when read back, from its own records: sup1 used 49 of its
// 50 (percent of a core), so its node is the bottleneck (98% of 0.50 core).
func TestLoadDiagnoses(t *testing.T) {
	r := &RunResult{TopologyID: "t-1", MeasureFrom: 0, MeasureTo: 10_000,
		Measurement: Measurement{Throughput: 1, NodeCPU: map[string]float64{"sup1": 49}, NodeUtil: map[string]float64{"sup1": 98}},
		Executors:   []ExecutorPlace{{Component: "split", Start: 1, End: 2, Host: "sup1", Port: 6700}},
		Reports: []protocol.WorkerReport{{Topology: "t-1", Host: "sup1", Port: 6700, TimeMs: 5_000, IntervalS: 5, CPU: []protocol.TaskCPU{{Task: 1, CPUNs: 1e9}}},
			{Topology: "t-1", Host: "sup1", Port: 6700, TimeMs: 10_000, IntervalS: 5, CPU: []protocol.TaskCPU{{Task: 1, CPUNs: 1e9}}}},
	}
	got := saveLoad(t, r)
	if d := got.Diagnosis; d == nil || d.Rule != "node at its quota" || !strings.Contains(d.Bottleneck, "sup1 CPU 98% of 0.50 core") {
		t.Errorf("diagnosis %+v: want sup1 at its quota", d)
	}
}

// TestLoadJudgesStarvation: a kept run whose cgroup samples show a node under its quota while its
// threads waited for a CPU on a busy host (sup1: 7.1 s of CPU in 10 s against 1 core = 0.71 of it, 5 s
// of run-queue wait = 0.5 s/s, over the 0.10 threshold; the host 1% idle, under 5%) is diagnosed
// host-starved and judged suspect when read back.
func TestLoadJudgesStarvation(t *testing.T) {
	i := func(x int64) *int64 { return &x }
	r := &RunResult{TopologyID: "t-1", MeasureFrom: 0, MeasureTo: 10_000, Measurement: Measurement{Throughput: 1},
		Spec: RunSpec{Scheduler: "storm-even"},
		NodeStats: &diagnose.NodeStats{Quota: map[string]float64{"sup1": 100},
			From: map[string]diagnose.Sample{"sup1": {TimeMs: 0, UsageNs: i(0), RunDelayNs: i(0), ThrottledNs: i(0), HostBusy: i(0), HostTotal: i(0)}},
			To:   map[string]diagnose.Sample{"sup1": {TimeMs: 10_000, UsageNs: i(7_100_000_000), RunDelayNs: i(5e9), ThrottledNs: i(0), HostBusy: i(1980), HostTotal: i(2000)}}},
		Reports: []protocol.WorkerReport{{Topology: "t-1", Host: "sup1", Port: 6700, TimeMs: 10_000, IntervalS: 10}},
	}
	got := saveLoad(t, r)
	want := "host-starved: sup1 got 0.71 of 1.00 core"
	if d := got.Diagnosis; d == nil || d.Rule != "host-starved" || !strings.HasPrefix(d.Bottleneck, want) {
		t.Errorf("diagnosis %+v: want %q", d, want)
	}
	if got.Validity.Level != Suspect || !strings.HasPrefix(got.Validity.Text(Suspect), want) {
		t.Errorf("validity %+v: want suspect, %q", got.Validity, want)
	}
}

// TestLoadJudgesAppliedLoad: a kept run whose straggler fault recorded its burner at 0.03 of the 0.40
// cores asked (a recorded straggler's figures) is suspect for it when read back; its other fault, with
// no load, adds nothing.
func TestLoadJudgesAppliedLoad(t *testing.T) {
	used := 0.03
	r := &RunResult{TopologyID: "t-1", MeasureFrom: 0, MeasureTo: 10_000, Measurement: Measurement{Throughput: 1},
		Spec:    RunSpec{Scheduler: "storm-even"},
		Faults:  []FaultRecord{{Applied: &diagnose.Applied{Host: "sup1", Kind: "straggler", Asked: 0.40, Used: &used, Reports: 9}}, {}},
		Reports: []protocol.WorkerReport{{Topology: "t-1", Host: "sup1", Port: 6700, TimeMs: 10_000, IntervalS: 10}},
	}
	got := saveLoad(t, r)
	want := "straggler on sup1 applied 0.03 of 0.40 cores asked (8%)"
	if got.Validity.Level != Suspect || got.Validity.Text(Suspect) != want || len(got.Diagnosis.Applied) != 1 {
		t.Errorf("validity %+v, applied %+v: want suspect, %q", got.Validity, got.Diagnosis.Applied, want)
	}
}

// TestLoadJudgesBackgroundLoad: a kept run under background load records each node's applied load
// (node_stats.background_load in run.json) and is judged by the same rule when read back: the deadline
// experiment's 80% run's burners used 0.08 of 0.20 cores on sup1 and 0.53 of 0.80 on sup4 (both more
// than 10% short: suspect, each named with its figure); 0.38 of 0.40 on sup2 is within 10%.
func TestLoadJudgesBackgroundLoad(t *testing.T) {
	u1, u2, u4 := 0.08, 0.38, 0.53
	r := &RunResult{TopologyID: "t-1", MeasureFrom: 0, MeasureTo: 10_000, Measurement: Measurement{Throughput: 1},
		Spec: RunSpec{Scheduler: "storm-even"},
		NodeStats: &diagnose.NodeStats{Background: []diagnose.Applied{{Host: "sup1", Kind: "cpu-load", Asked: 0.20, Used: &u1, Reports: 5},
			{Host: "sup2", Kind: "cpu-load", Asked: 0.40, Used: &u2, Reports: 5}, {Host: "sup4", Kind: "cpu-load", Asked: 0.80, Used: &u4, Reports: 5}}},
		Reports: []protocol.WorkerReport{{Topology: "t-1", Host: "sup1", Port: 6700, TimeMs: 10_000, IntervalS: 10}},
	}
	got := saveLoad(t, r)
	var texts []string
	for _, x := range got.Validity.Reasons {
		if x.Kind == measure.ReasonLoadShort {
			texts = append(texts, x.Text)
		}
	}
	want := []string{"cpu-load on sup1 applied 0.08 of 0.20 cores asked (40%)", "cpu-load on sup4 applied 0.53 of 0.80 cores asked (66%)"}
	if got.Validity.Level != Suspect || !slices.Equal(texts, want) || len(got.NodeStats.Background) != 3 || len(got.Diagnosis.Applied) != 3 {
		t.Errorf("validity %+v, applied %+v: want suspect for %q", got.Validity, got.Diagnosis.Applied, want)
	}
}

// TestLoadReadsPending: a kept run of one of the project's topologies in closed loop is read against its
// spouts' pending limit from its spec (TopologySetup's default 1,000 per task): 2,000 trees/s at a mean
// complete latency of 480 ms is 960 trees in flight (Little's law), at the limit of the one spout task
// (task 3, which sends and receives nothing); the same run open loop (--rate) has no limit to read.
func TestLoadReadsPending(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want *diagnose.Pending
	}{
		{nil, &diagnose.Pending{InFlight: 960, Limit: 1000, Share: 0.96}},
		{[]string{"--rate", "2000"}, nil},
	} {
		r := &RunResult{TopologyID: "t-1", MeasureFrom: 0, MeasureTo: 10_000,
			Spec:        RunSpec{Topology: TopologyRun{MainClass: "org.stormlab.topologies.ThroughputTopology", Args: tc.args}},
			Measurement: Measurement{Throughput: 2000, LatencyMean: 480, NodeCPU: map[string]float64{"sup1": 20}, NodeUtil: map[string]float64{"sup1": 40}},
			Executors:   []ExecutorPlace{{Component: "bolt1", Start: 1, End: 2, Host: "sup1", Port: 6700}, {Component: "spout", Start: 3, End: 3, Host: "sup1", Port: 6700}},
			Reports: []protocol.WorkerReport{{Topology: "t-1", Host: "sup1", Port: 6700, TimeMs: 10_000, IntervalS: 10,
				Traffic: []protocol.TaskTraffic{{Src: 3, Dst: 1, Count: 10}, {Src: 1, Dst: 2, Count: 10}}, CPU: []protocol.TaskCPU{{Task: 1, CPUNs: 1e9}}}},
		}
		got := saveLoad(t, r)
		p := got.Diagnosis.Pending
		if (p == nil) != (tc.want == nil) || (p != nil && (p.Limit != tc.want.Limit || math.Abs(p.InFlight-tc.want.InFlight) > 1e-9)) {
			t.Errorf("%v: pending %+v, want %+v", tc.args, p, tc.want)
		}
		if tc.want != nil && got.Diagnosis.Rule != "pending limit" {
			t.Errorf("%v: rule %q (%s), want the pending limit", tc.args, got.Diagnosis.Rule, got.Diagnosis.Bottleneck)
		}
	}
}

// saveLoad keeps r in a folder and reads it back, as a stored run is read (and diagnosed again).
func saveLoad(t *testing.T, r *RunResult) *RunResult {
	t.Helper()
	dir := t.TempDir()
	if err := Save(dir, r); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
