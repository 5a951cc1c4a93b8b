package harness

import (
	"context"
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

// TestLiveString: the live line shows the acked and offered rates.
func TestLiveString(t *testing.T) {
	l := Live{Phase: "window", ElapsedS: 42, AckedRate: 199.5, LatencyP99Ms: 12, OfferedRate: 200, Decisions: 1}
	if s := l.String(); !strings.Contains(s, "acked   199.5 tuples/s") || !strings.Contains(s, "offered 200.0") {
		t.Errorf("Live.String = %q", s)
	}
}
