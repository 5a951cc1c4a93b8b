package harness

import (
	"testing"

	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
)

// hist, spout and spanRun are package measure's test helpers, for the run records tested here.
func hist(t *testing.T, highest int64, values ...int64) string {
	t.Helper()
	h := protocol.NewHistogram(highest)
	for _, v := range values {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	s, err := protocol.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func spout(comp string, start int, uptime int, acked int64, latency float64) stormui.Executor {
	return stormui.Executor{Component: comp, TaskStart: start, TaskEnd: start, Type: "spout", UptimeSeconds: uptime, Acked: acked, CompleteLatency: latency}
}

// spanRun is the run of TestCrossCheckLatencyOverStormSpan: one worker's reports at 98, 100, ...,
// 110 s (10 tuples each) and Storm's readings at 100 s and 110 s.
func spanRun(t *testing.T) (reports []protocol.WorkerReport, from, to *measure.Snapshot) {
	t.Helper()
	for i, l := range []int64{5, 20, 5, 5, 5, 8, 8} {
		vals := make([]int64, 10)
		for j := range vals {
			vals[j] = l
		}
		reports = append(reports, protocol.WorkerReport{Host: "w", Port: 6700, TimeMs: int64(98_000 + 2_000*i), IntervalS: 2,
			WorkerStartMs: 50_000, Acked: 10, AckedTotal: int64(1_000 + 10*i), LatencyHist: hist(t, protocol.LatencyHistHighest, vals...)})
	}
	from = &measure.Snapshot{TimeMs: 100_000, Executors: []stormui.Executor{spout("s", 1, 60, 1000, 4)}}
	to = &measure.Snapshot{TimeMs: 110_000, Executors: []stormui.Executor{spout("s", 1, 70, 1050, (4000+310)/1050.0)}}
	return reports, from, to
}
