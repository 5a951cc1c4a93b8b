package simcluster

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/topologies"
)

func open(t *testing.T, name string, seed uint64) *Cluster {
	t.Helper()
	c, err := Open(harness.ClusterSpec{Where: clusterref.Ref{Kind: KindName, Arg: name}, Seed: seed}, "even")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// spec is a short timed run of one of the project's topologies (its main's defaults, then args).
func spec(t *testing.T, topology, scheduler, name string, args ...string) harness.RunSpec {
	t.Helper()
	m, err := topologies.LookupStormMain(topology)
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--report-interval-secs", "2"}, args...)
	return harness.RunSpec{Scheduler: scheduler, Topology: harness.TopologyRun{Name: name, MainClass: m.Class, Args: args},
		WarmUp: 20 * time.Second, Measure: 30 * time.Second, Step: 10 * time.Second}
}

func run(t *testing.T, c *Cluster, s harness.RunSpec) *harness.RunResult {
	t.Helper()
	res, err := c.Run(context.Background(), s)
	if err != nil {
		t.Fatalf("%s: %v", s.Scheduler, err)
	}
	return res
}

// TestSchedulersRunAndAreMeasured runs WordCount under a Go scheduler, a dynamic one and Storm's own,
// and checks what every run must give: a valid, measured run whose self-checks pass, node CPU
// within capacity and the run's figures within their definitions.
func TestSchedulersRunAndAreMeasured(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	for _, sched := range []string{"even", "kpart", "kpart-dynamic", "storm-even", "storm-default"} {
		res := run(t, c, spec(t, "wordcount", sched, "wc-"+sched, "--workers", "4", "--parallelism", "2"))
		m := res.Measurement
		if res.Validity.Level != harness.Valid || m.Throughput <= 0 || m.LatencyCount == 0 {
			t.Errorf("%s: validity %+v, throughput %v, %d latencies: want a valid measured run", sched, res.Validity, m.Throughput, m.LatencyCount)
		}
		for _, ch := range res.Simulated.Checks {
			if !isOK(ch) {
				t.Errorf("%s: self-check %s", sched, ch)
			}
		}
		// A window out of step with a node's quota periods can take up to two periods' quota more: the
		// ones under way as it opens and as it closes (2 x 100 ms in 30 s: 0.67%).
		for host, u := range m.NodeUtil {
			if u > 100*(1+2*dockerCPUPeriod/m.WindowS)+1e-6 || u < 0 {
				t.Errorf("%s: %s at %.2f%% of its capacity", sched, host, u)
			}
		}
		if m.CutRate < 0 || m.CutRate > 1 || len(res.Executors) != 4*2+4 {
			t.Errorf("%s: cut rate %v, %d executors placed (want 12: 8 and 4 ackers)", sched, m.CutRate, len(res.Executors))
		}
		if res.Diagnosis == nil || res.Diagnosis.Bottleneck == "" {
			t.Errorf("%s: no diagnosis", sched)
		}
		checkSpin(t, sched, res.Reports)
	}
}

// checkSpin: the reports tell each task's spinning apart within its CPU, and some task spun (the
// shipped model charges idle spinning).
func checkSpin(t *testing.T, sched string, reports []protocol.WorkerReport) {
	t.Helper()
	var spun int64
	for _, rep := range reports {
		for _, c := range rep.CPU {
			if c.SpinNs < 0 || c.SpinNs > c.CPUNs {
				t.Errorf("%s: task %d spun %d ns of %d", sched, c.Task, c.SpinNs, c.CPUNs)
			}
			spun += c.SpinNs
		}
	}
	if spun == 0 {
		t.Errorf("%s: no task spun", sched)
	}
}

// TestLittlesLaw: in a closed loop at saturation every spout holds max.spout.pending trees, so
// throughput x mean residence = spouts x pending (Little, "A proof for the queuing formula L = lambda W",
// 1961). Without ackers the complete latency the twin reports is the residence from the emit; with
// them it is Storm's, the acker's span of a tree, which leaves out the tree's wait before its acker
// first sees it and the ack's way back: a lower bound there. Tolerance 5%: the window's edges cut trees
// in flight.
func TestLittlesLaw(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	for _, tc := range []struct {
		ackers string
		exact  bool
	}{{"0", true}, {"2", false}} {
		res := run(t, c, spec(t, "wordcount", "even", "wc-little", "--workers", "4", "--parallelism", "2", "--max-spout-pending", "200", "--ackers", tc.ackers))
		m := res.Measurement
		got, want := m.Throughput*m.LatencyMean/1000, 2.0*200
		if tc.exact && math.Abs(got-want)/want > 0.05 || !tc.exact && !(got > 0 && got < want*1.05) {
			t.Errorf("%s ackers: throughput %.1f/s x latency %.1f ms = %.1f trees in flight, want %.0f (2 spouts x 200) within 5%% (exact %v, else at most)",
				tc.ackers, m.Throughput, m.LatencyMean, got, want, tc.exact)
		}
	}
}

// TestSameSeedSameRun: one seed and one topology name give one run.json, but for the fields that
// record wall-clock time; another name (another repetition) draws other inputs.
func TestSameSeedSameRun(t *testing.T) {
	s := spec(t, "kmeans", "kpart", "km-r0", "--workers", "4", "--parallelism", "2")
	a, b := run(t, open(t, "heterogeneous-2", 7), s), run(t, open(t, "heterogeneous-2", 7), s)
	for _, r := range []*harness.RunResult{a, b} {
		r.StartedAt, r.Phases = time.Time{}, harness.Phases{}
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("two runs of one seed differ:\n%s\n%s", ja, jb)
	}
	s.Topology.Name = "km-r1"
	if c := run(t, open(t, "heterogeneous-2", 7), s); c.Measurement.Throughput == a.Measurement.Throughput {
		t.Errorf("another repetition gave the same throughput %v: its inputs were not drawn anew", c.Measurement.Throughput)
	}
}

// TestRefusals: what the model cannot run is refused before it starts, naming what to do.
func TestRefusals(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	user := spec(t, "wordcount", "even", "user")
	user.Topology.MainClass = "com.example.Mine"
	kmeans16 := spec(t, "kmeans", "even", "km16", "--k", "16")
	faulty := spec(t, "wordcount", "even", "faulty")
	faulty.Faults = []fault.Fault{{Kind: fault.KillSupervisor, At: time.Second, Duration: time.Second, Arg: "sup1"}}
	dataset := spec(t, "wordcount", "even", "data")
	dataset.End = harness.Dataset{Spout: "sentence", Max: time.Minute}
	for _, tc := range []struct {
		name string
		s    harness.RunSpec
		want string
	}{
		{"user topology", user, "stormlab capture"},
		{"costs at other work flags", kmeans16, "--k 8"},
		{"faults", faulty, "does not model this fault"},
		{"dataset without one", dataset, "give --size-mb > 0"},
		{"unknown scheduler", spec(t, "wordcount", "nope", "x"), "unknown scheduler"},
	} {
		_, err := c.Run(context.Background(), tc.s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := Open(harness.ClusterSpec{Where: clusterref.Ref{Kind: KindName, Arg: "moon"}}, "even"); err == nil || !strings.Contains(err.Error(), "kpart-paper") {
		t.Errorf("unknown cluster: %v, want an error listing the known ones", err)
	}
}

// TestDynamicSchedulerGetsRounds: a dynamic scheduler is offered the running topology on the
// simulated clock (the service's reschedule period), as the bridge offers it on a real cluster.
func TestDynamicSchedulerGetsRounds(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	c.cs.RescheduleEvery = 10 * time.Second
	res := run(t, c, spec(t, "wordcount", "kpart-dynamic", "wc-dyn", "--workers", "4", "--parallelism", "2"))
	kinds := map[string]int{}
	for _, d := range res.Decisions {
		kinds[d.Kind]++
	}
	if kinds["schedule"] != 1 || kinds["reschedule"] < 2 {
		t.Errorf("decisions %v: want the first placement and a reschedule round every 10 s of the run", kinds)
	}
}

// TestRestartedWorkers: a new placement restarts the workers whose executors changed (Storm's
// supervisor relaunches such a worker) and keeps the others running.
func TestRestartedWorkers(t *testing.T) {
	a, b, c := slot{0, 6700}, slot{1, 6700}, slot{1, 6701}
	r := &simRun{slots: []slot{a, b}, execSlot: []int{0, 0, 1, 1}} // executors 0,1 on a; 2,3 on b
	for _, tc := range []struct {
		name     string
		slots    []slot
		execSlot []int
		want     []int
	}{
		{"same placement", []slot{a, b}, []int{0, 0, 1, 1}, nil},
		{"same, slots listed in another order", []slot{b, a}, []int{1, 1, 0, 0}, nil},
		{"executor 1 moves to b", []slot{a, b}, []int{0, 1, 1, 1}, []int{0, 1, 2, 3}},
		{"b's executors move to a new slot c", []slot{a, c}, []int{0, 0, 1, 1}, []int{2, 3}},
	} {
		if got := r.restarted(tc.slots, tc.execSlot); !slices.Equal(got, tc.want) {
			t.Errorf("%s: restarted %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestReplayOfACapture: a captured topology's replay runs on the model with the capture's own costs,
// its spouts offering the captured rate open loop (topologies/testdata/replay-small.json: 200 trees/s
// from two source tasks), or --rate, scaled together; within 2% (the window's edges).
func TestReplayOfACapture(t *testing.T) {
	c, _, err := topologies.ReadReplay("../../topologies/testdata/replay-small.json")
	if err != nil {
		t.Fatal(err)
	}
	args, err := topologies.ReplayArgs(c)
	if err != nil {
		t.Fatal(err)
	}
	cl := open(t, "heterogeneous-2", 1)
	for _, tc := range []struct {
		extra []string
		want  float64
	}{{nil, 200}, {[]string{"--rate", "100"}, 100}} {
		s := harness.RunSpec{Scheduler: "kpart", Topology: harness.TopologyRun{Name: "replay", MainClass: topologies.ReplayClass,
			Args: append(append([]string{"--report-interval-secs", "2"}, args...), tc.extra...)}, WarmUp: 10 * time.Second, Measure: 30 * time.Second}
		res := run(t, cl, s)
		if got := res.Measurement.Throughput; math.Abs(got-tc.want)/tc.want > 0.02 {
			t.Errorf("replay %v: %.1f trees/s, want %v within 2%%", tc.extra, got, tc.want)
		}
		if res.Measurement.OpenLoop == nil {
			t.Errorf("replay %v: not measured as open loop", tc.extra)
		}
	}
}

// TestAgainstRecordedRealRuns is the CI's real-against-simulated check: two configurations run on real
// containers (heterogeneous-2, WordCount with its main's defaults, -XX:TieredStopAtLevel=1, 40 s
// maximum warm-up, 60 s window, seeds 1 and 2; docs/results-log.md, "The simulator's first cost model",
// 2026-12-04), each the mean of its two runs, against the model's two seeds. Both are held out of the
// shipped costs (measured from other runs: testdata/containers-runs.tar.gz). Bounds: throughput within
// 25% (the real pairs themselves differ by up to 58%), cut rate within 0.05 (the placement is the same
// code's).
func TestAgainstRecordedRealRuns(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	for _, ref := range []struct {
		scheduler       string
		throughput, cut float64 // real: mean of two runs
	}{
		{"even", (498.3 + 908.0) / 2, (0.278 + 0.240) / 2},
		{"kpart", (745 + 684) / 2, (0.238 + 0.472) / 2},
	} {
		var tput, cut float64
		for _, seed := range []string{"1", "2"} {
			s := spec(t, "wordcount", ref.scheduler, "stormlab-wordcount", "--seed", seed, "--worker-childopts", "-XX:TieredStopAtLevel=1", "--report-interval-secs", "5")
			s.WarmUp, s.Measure, s.Step = 40*time.Second, 60*time.Second, 0
			cl := *c
			cl.cs.Seed = map[string]uint64{"1": 1, "2": 2}[seed]
			res := run(t, &cl, s)
			tput += res.Measurement.Throughput / 2
			cut += res.Measurement.CutRate / 2
		}
		t.Logf("%s: simulated %.0f tuples/s, cut %.3f; real %.0f, %.3f", ref.scheduler, tput, cut, ref.throughput, ref.cut)
		if math.Abs(tput-ref.throughput)/ref.throughput > 0.25 || math.Abs(cut-ref.cut) > 0.05 {
			t.Errorf("%s: simulated %.0f tuples/s, cut %.3f; real %.0f, %.3f: want within 25%% and 0.05",
				ref.scheduler, tput, cut, ref.throughput, ref.cut)
		}
	}
}

// TestStragglerAndLoad: a straggler fault takes CPU from its node for its duration, and the run
// records it with its recovery, as on a real cluster; background load (Nemesis: fault.Load) lowers a
// saturated run's throughput. The load's threads run at nice -20, as the real burners' do, so it
// gets what it asks where the node's cores suffice (docs/simulator.md). Throughput
// chain unpaced on homogeneous-2 (0.5 core per node): a straggler of 80% on sup1 costs the run more
// than one second of its pre-fault throughput over its 20 s; 50% background load on both nodes
// lowers the run's throughput by more than 15%.
func TestStragglerAndLoad(t *testing.T) {
	c := open(t, "homogeneous-2", 1)
	s := spec(t, "throughput", "even", "tp-straggler", "--interval-ms", "0", "--workers", "2", "--parallelism", "2")
	s.Measure = 60 * time.Second
	base := run(t, c, s)
	s.Faults = []fault.Fault{{Kind: fault.Straggler, At: 20 * time.Second, Duration: 20 * time.Second, Arg: "sup1=80"}}
	s.Topology.Name = "tp-straggler-2"
	res := run(t, c, s)
	if len(res.Faults) != 1 || res.Faults[0].StartMs == 0 || res.Faults[0].EndMs <= res.Faults[0].StartMs {
		t.Fatalf("fault records %+v: want the straggler started and ended", res.Faults)
	}
	if rec := res.Faults[0].Recovery; !rec.Measured || !rec.Dip || !(rec.LostTuples > rec.PreTput) {
		t.Errorf("straggler: %.0f tuples/s before, %.0f tuples lost, dip %v: want more than 1 s of it lost", rec.PreTput, rec.LostTuples, rec.Dip)
	}
	undo, err := c.Nemesis().Inject(context.Background(), fault.Load(50))
	if err != nil {
		t.Fatal(err)
	}
	s.Faults, s.Topology.Name = nil, "tp-loaded"
	loaded := run(t, c, s)
	if err := undo(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !(loaded.Measurement.Throughput < 0.85*base.Measurement.Throughput) {
		t.Errorf("50%% background load: %.0f tuples/s against %.0f without: want below 85%%", loaded.Measurement.Throughput, base.Measurement.Throughput)
	}
}
