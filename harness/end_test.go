package harness

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

func TestAckSpan(t *testing.T) {
	// Hand-made reports: acks in the intervals ending at 2,000 and 5,000 ms
	// (1 s intervals), none at 6,000 ms. The dataset spans from the start of
	// the first acked interval (1,000) to the last acked report (5,000).
	reports := []protocol.WorkerReport{
		{TimeMs: 2000, IntervalS: 1, Acked: 10},
		{TimeMs: 3000, IntervalS: 1},
		{TimeMs: 5000, IntervalS: 1, Acked: 3},
		{TimeMs: 6000, IntervalS: 1},
	}
	first, last, newest := ackSpan(reports)
	if first != 1000 || last != 5000 || newest != 6000 {
		t.Errorf("ackSpan = %d, %d, %d; want 1000, 5000, 6000", first, last, newest)
	}
	if f, l, n := ackSpan(nil); f != 0 || l != 0 || n != 0 {
		t.Errorf("ackSpan(nil) = %d, %d, %d; want zeros", f, l, n)
	}
}

func TestIntervalRates(t *testing.T) {
	// Two workers with unaligned 1 s and 2 s report intervals. Hand computation, oldest first:
	// interval 1: 100/1 + 300/2 = 250; interval 2: 110/1 + 280/2 = 250; interval 3: 90/1 + 320/2 = 250.
	// Worker a's oldest report (5 acks) is outside the three newest.
	reports := []protocol.WorkerReport{
		{Host: "sup1", Port: 6700, TimeMs: 1000, IntervalS: 1, Acked: 5},
		{Host: "sup1", Port: 6700, TimeMs: 4000, IntervalS: 1, Acked: 90},
		{Host: "sup1", Port: 6700, TimeMs: 2000, IntervalS: 1, Acked: 100},
		{Host: "sup1", Port: 6700, TimeMs: 3000, IntervalS: 1, Acked: 110},
		{Host: "sup2", Port: 6700, TimeMs: 2500, IntervalS: 2, Acked: 300},
		{Host: "sup2", Port: 6700, TimeMs: 4500, IntervalS: 2, Acked: 280},
		{Host: "sup2", Port: 6700, TimeMs: 6500, IntervalS: 2, Acked: 320},
	}
	rates, ok := intervalRates(reports, 3)
	if !ok {
		t.Fatal("intervalRates: not ok with three reports per worker")
	}
	want := []float64{250, 250, 250}
	for i := range want {
		if math.Abs(rates[i]-want[i]) > 1e-9 {
			t.Errorf("rates = %v, want %v", rates, want)
			break
		}
	}
	if _, ok := intervalRates(reports[:6], 3); ok {
		t.Error("intervalRates: ok although worker sup2 has only two reports")
	}
	if _, ok := intervalRates(nil, 3); ok {
		t.Error("intervalRates(nil): ok")
	}
}

// Without any ack in the reports the rates count the sink's executed tuples. Hand computation: task 1
// sends to 2 and 2 to 3, so 3 is the sink; one worker, 2 s intervals, 20, 22 and 18 tuples into task 3:
// 10, 11 and 9 tuples/s (the traffic 1 -> 2 does not count).
func TestIntervalRatesAtSinks(t *testing.T) {
	tr := func(n int64) []protocol.TaskTraffic {
		return []protocol.TaskTraffic{{Src: 1, Dst: 2, Count: 99}, {Src: 2, Dst: 3, Count: n}}
	}
	reports := []protocol.WorkerReport{
		{Host: "sup1", Port: 6700, TimeMs: 2000, IntervalS: 2, Traffic: tr(20)},
		{Host: "sup1", Port: 6700, TimeMs: 4000, IntervalS: 2, Traffic: tr(22)},
		{Host: "sup1", Port: 6700, TimeMs: 6000, IntervalS: 2, Traffic: tr(18)},
	}
	rates, ok := intervalRates(reports, 3)
	if !ok || len(rates) != 3 || math.Abs(rates[0]-10) > 1e-9 || math.Abs(rates[1]-11) > 1e-9 || math.Abs(rates[2]-9) > 1e-9 {
		t.Errorf("rates %v (ok %v), want [10 11 9]", rates, ok)
	}
}

func TestSteady(t *testing.T) {
	tests := []struct {
		rates []float64
		want  bool
	}{
		{[]float64{100, 105, 109}, true},  // spread 9 <= 10% of mean 104.7
		{[]float64{100, 105, 112}, false}, // spread 12 > 10.57
		{[]float64{0, 0, 0}, false},       // nothing acked yet is not steady
		{[]float64{200, 200, 200}, true},  // flat
		{[]float64{}, false},
	}
	for _, tc := range tests {
		if got := steady(tc.rates, steadyTolerance); got != tc.want {
			t.Errorf("steady(%v) = %v, want %v", tc.rates, got, tc.want)
		}
	}
}

// TestOfferedRate: the growth of the spout tasks' offered totals over the n newest intervals, per
// worker, summed (hand-computed: sup1 two tasks 2 x 300 tuples in 3 s = 200/s, sup2 one task 150 in
// 3 s = 50/s); workers without spout load do not count; too few reports is not open.
func TestOfferedRate(t *testing.T) {
	load := func(totals ...int64) []protocol.SpoutLoad {
		var l []protocol.SpoutLoad
		for i, n := range totals {
			l = append(l, protocol.SpoutLoad{Task: i, OfferedTotal: n, EmittedTotal: n})
		}
		return l
	}
	reports := []protocol.WorkerReport{
		{Host: "sup1", Port: 6700, TimeMs: 1000, SpoutLoad: load(100, 100)},
		{Host: "sup1", Port: 6700, TimeMs: 2000, SpoutLoad: load(200, 200)},
		{Host: "sup1", Port: 6700, TimeMs: 3000, SpoutLoad: load(300, 300)},
		{Host: "sup1", Port: 6700, TimeMs: 4000, SpoutLoad: load(400, 400)},
		{Host: "sup2", Port: 6700, TimeMs: 1500, SpoutLoad: load(0)},
		{Host: "sup2", Port: 6700, TimeMs: 2500, SpoutLoad: load(50)},
		{Host: "sup2", Port: 6700, TimeMs: 3500, SpoutLoad: load(100)},
		{Host: "sup2", Port: 6700, TimeMs: 4500, SpoutLoad: load(150)},
		{Host: "sup2", Port: 6701, TimeMs: 4500, Acked: 10}, // a bolt-only worker
	}
	rate, open := offeredRate(reports, 3)
	if !open || math.Abs(rate-250) > 1e-9 {
		t.Errorf("offeredRate = %v, %v; want 250, true", rate, open)
	}
	if _, open := offeredRate(reports[:7], 3); open {
		t.Error("open although sup2 has only three reports")
	}
	if _, open := offeredRate(reports[8:], 3); open {
		t.Error("open although no report has spout load")
	}
}

// TestDrained: within 10% of the offered rate either way; draining a backlog (above) is not drained.
func TestDrained(t *testing.T) {
	for _, tc := range []struct {
		rates   []float64
		offered float64
		want    bool
	}{
		{[]float64{95, 100, 105}, 100, true},
		{[]float64{150, 160, 155}, 100, false}, // working off the start-up backlog
		{[]float64{80, 85, 82}, 100, false},    // not keeping up
		{[]float64{100, 100, 100}, 0, false},
	} {
		if got := drained(tc.rates, tc.offered, steadyTolerance); got != tc.want {
			t.Errorf("drained(%v, %v) = %v, want %v", tc.rates, tc.offered, got, tc.want)
		}
	}
}

// The dataset end reads the spouts' done tasks from the reports: each task once, with its largest
// count (a task that resumed done reports it again from its new worker); 475 + 475 = 950.
func TestSpoutsDone(t *testing.T) {
	reports := []protocol.WorkerReport{
		{Host: "sup1", Port: 6700, TimeMs: 1000},
		{Host: "sup1", Port: 6700, TimeMs: 2000, SpoutDone: []protocol.SpoutDone{{Task: 9, Tuples: 475}}},
		{Host: "sup1", Port: 6700, TimeMs: 3000, SpoutDone: []protocol.SpoutDone{{Task: 9, Tuples: 475}}},
		{Host: "sup2", Port: 6701, TimeMs: 3500, SpoutDone: []protocol.SpoutDone{{Task: 10, Tuples: 475}, {Task: 9, Tuples: 475}}},
	}
	if tasks, emitted := spoutsDone(reports); tasks != 2 || emitted != 950 {
		t.Errorf("spoutsDone = %d tasks, %d tuples; want 2, 950", tasks, emitted)
	}
	if tasks, emitted := spoutsDone(reports[:1]); tasks != 0 || emitted != 0 {
		t.Errorf("no done task: %d, %d", tasks, emitted)
	}
}

// A worker slot with two incarnations is a restart; two slots each with one are not.
func TestRestarted(t *testing.T) {
	one := []protocol.WorkerReport{{Host: "a", Port: 6700, WorkerStartMs: 5}, {Host: "a", Port: 6700, WorkerStartMs: 5}, {Host: "b", Port: 6700, WorkerStartMs: 9}}
	if restarted(one) {
		t.Error("one incarnation per slot read as a restart")
	}
	two := append(one, protocol.WorkerReport{Host: "a", Port: 6700, WorkerStartMs: 20})
	if !restarted(two) {
		t.Error("a second incarnation of a:6700 not read as a restart")
	}
}

// A placement has settled once a dynamic scheduler, offered it after its last applied change, kept it.
func TestSettled(t *testing.T) {
	const id = "wc-1-1"
	sched := protocol.DecisionRecord{Topology: id, Kind: "schedule", Applied: true}
	moved := protocol.DecisionRecord{Topology: id, Kind: "reschedule", Applied: true}
	kept := protocol.DecisionRecord{Topology: id, Kind: "reschedule"}
	failed := protocol.DecisionRecord{Topology: id, Kind: "reschedule", Error: "no load yet"}
	other := protocol.DecisionRecord{Topology: "other-2-2", Kind: "reschedule"}
	for _, c := range []struct {
		name    string
		dynamic bool
		ds      []protocol.DecisionRecord
		want    bool
	}{
		{"static scheduler, placed once", false, []protocol.DecisionRecord{sched}, true},
		{"native scheduler, no decision", false, nil, true},
		{"dynamic, not yet offered again", true, []protocol.DecisionRecord{sched}, false},
		{"dynamic, kept its placement", true, []protocol.DecisionRecord{sched, kept}, true},
		{"dynamic, moved after keeping", true, []protocol.DecisionRecord{sched, kept, moved}, false},
		{"dynamic, kept after moving", true, []protocol.DecisionRecord{sched, moved, kept}, true},
		{"dynamic, a failed round is no answer", true, []protocol.DecisionRecord{sched, moved, failed}, false},
		{"dynamic, another topology's round", true, []protocol.DecisionRecord{sched, other}, false},
	} {
		st := &protocol.State{Dynamic: c.dynamic, Decisions: c.ds}
		if got := settled(st, id); got != c.want {
			t.Errorf("%s: settled = %v, want %v", c.name, got, c.want)
		}
	}
}

// Only decisions up to the window's opening count: a move after it does not unsettle the window.
func TestSettledAtWindow(t *testing.T) {
	r := &RunResult{TopologyID: "wc-1-1", MeasureFrom: 1000, Decisions: []protocol.DecisionRecord{
		{TimeMs: 100, Topology: "wc-1-1", Kind: "schedule", Applied: true},
		{TimeMs: 900, Topology: "wc-1-1", Kind: "reschedule"},
		{TimeMs: 1100, Topology: "wc-1-1", Kind: "reschedule", Applied: true},
	}}
	if !r.SettledAtWindow(true) {
		t.Error("kept at 900 ms, window at 1000 ms: want settled")
	}
	r.MeasureFrom = 800
	if r.SettledAtWindow(true) {
		t.Error("window at 800 ms, before the scheduler was offered the placement again: want not settled")
	}
	if !r.SettledAtWindow(false) {
		t.Error("a scheduler that does not reschedule is settled once placed")
	}
}

// TestNewestPerWorker keeps each worker's newest report, oldest first.
func TestNewestPerWorker(t *testing.T) {
	reps := []protocol.WorkerReport{
		{Host: "sup1", Port: 6700, TimeMs: 1000}, {Host: "sup1", Port: 6700, TimeMs: 3000},
		{Host: "sup2", Port: 6700, TimeMs: 2500}, {Host: "sup1", Port: 6700, TimeMs: 2000},
	}
	got := newestPerWorker(reps)
	if len(got) != 2 || got[0].Host != "sup2" || got[1].TimeMs != 3000 {
		t.Errorf("newestPerWorker = %+v", got)
	}
	l := Live{Phase: "window", ElapsedS: 42, AckedRate: 199.5, LatencyP99Ms: 12, OfferedRate: 200, Decisions: 1}
	if s := l.String(); !strings.Contains(s, "acked   199.5 tuples/s") || !strings.Contains(s, "offered 200.0") {
		t.Errorf("Live.String = %q", s)
	}
}

// A run placed by Storm's own scheduler is settled at once, without reading the service (whose state
// may be a dynamic scheduler's from an earlier run): the run here has no cluster to read, so a read
// would panic.
func TestPlacementSettledNative(t *testing.T) {
	for _, s := range NativeNames() {
		r := &running{spec: RunSpec{Scheduler: s, Settle: true}}
		if ok, err := placementSettled(context.Background(), r); !ok || err != nil {
			t.Errorf("%s: placementSettled = %v, %v; want true, nil", s, ok, err)
		}
	}
}
