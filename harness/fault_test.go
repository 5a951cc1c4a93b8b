package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/protocol"
)

func TestTimeline(t *testing.T) {
	start := time.UnixMilli(100_000)
	r := &RunResult{StartedAt: start, MeasureFrom: 110_000, MeasureTo: 120_000,
		Faults:         []FaultRecord{{Fault: fault.Fault{Kind: fault.RestartService, At: 2 * time.Second, Duration: 3 * time.Second}, StartMs: 112_000, EndMs: 115_000}},
		Decisions:      []protocol.DecisionRecord{{TimeMs: 101_000, Scheduler: "kpart", Kind: "schedule", Applied: true}},
		FaultFallbacks: []protocol.Fallback{{TimeMs: 113_000, Reason: "service down"}},
		Rounds:         []protocol.RoundTime{{TimeMs: 100_800, Executors: 4}, {TimeMs: 111_000, Executors: 4}},
		Reports: []protocol.WorkerReport{
			{Host: "s1", Port: 6700, TimeMs: 105_000, IntervalS: 5, Acked: 50, WorkerStartMs: 100_500, CompleteLatencyMs: []float64{2, 4}},
			{Host: "s1", Port: 6700, TimeMs: 120_000, IntervalS: 5, Acked: 100, WorkerStartMs: 100_500},
		}}
	ev := r.Timeline()
	count := map[string]int{}
	for i, e := range ev {
		count[e.Event]++
		if i > 0 && ev[i-1].TimeMs > e.TimeMs {
			t.Errorf("event %d (%s) out of time order", i, e.Event)
		}
	}
	// 4 throughput intervals of 5 s over [100 s, 120 s]; one worker incarnation.
	want := map[string]int{"round": 2, "window-open": 1, "window-close": 1, "fault-start": 1, "fault-end": 1, "decision": 1, "fallback": 1, "worker-start": 1, "throughput": 4}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%d %s events, want %d (all: %+v)", count[k], k, n, count)
		}
	}
	for _, e := range ev {
		if e.Event == "throughput" && e.TimeMs == 105_000 && (*e.Tput != 10 || e.LatencyMs == nil || *e.LatencyMs != 3) {
			t.Errorf("first interval %+v, want 50/5 s = 10 tuples/s, latency (2+4)/2 = 3 ms", e)
		}
	}
}

// TestDelayTopologyArgs: only a run with a delay fault changes the topology's transport.
func TestDelayTopologyArgs(t *testing.T) {
	if a := delayTopologyArgs([]fault.Fault{{Kind: fault.KillSupervisor, Arg: "s1"}}); a != nil {
		t.Errorf("without a delay fault: %q, want none", a)
	}
	got := strings.Join(delayTopologyArgs([]fault.Fault{{Kind: fault.RestartService}, {Kind: fault.Delay, Arg: "a-b=1ms"}}), " ")
	want := "--conf storm.messaging.transport=org.stormlab.net.DelayContext --conf stormlab.net.delay.file=/tmp/stormlab-delay"
	if got != want {
		t.Errorf("delayTopologyArgs = %q, want %q", got, want)
	}
}
