package measure

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// openReport is a worker report with open-loop fields: one spout task with
// the given totals, and histograms of latency from the intended time and
// send lag.
func openReport(t *testing.T, host string, timeMs, intervalMs, offered, emitted int64, intended, lag []int64) protocol.WorkerReport {
	return protocol.WorkerReport{
		Topology: "t", Host: host, Port: 6700, TimeMs: timeMs, IntervalS: float64(intervalMs) / 1000,
		WorkerStartMs: 100, AckedTotal: emitted,
		LatencyIntendedHist: hist(t, protocol.LatencyHistHighest, intended...),
		SendLagHist:         hist(t, protocol.LatencyHistHighest, lag...),
		SpoutLoad:           []protocol.SpoutLoad{{Task: 1, OfferedTotal: offered, EmittedTotal: emitted}},
	}
}

// A hand-computed open-loop window [1,000, 11,000] ms. Worker a reports at
// 1,000 (interval from its start at 100: outside the window), 6,000 and
// 11,000 (intervals inside); worker b (its spout task) likewise at 1,000,
// 6,000, 11,000. Histograms from the four reports inside: latency from the
// intended time {5, 7} + {2000} + {9} + {4, 1800} and send lag {0, 1} +
// {1990} + {0} + {3, 1700}.
//
//   - latency from intended: 6 values sorted 4, 5, 7, 9, 1800, 2000: p50 is
//     the 3rd value (HdrHistogram: the smallest value with at least 50% of
//     the count at or below it) = 7; p99 and max = 2000 (exact below 2048).
//   - send lag: 0, 0, 1, 3, 1700, 1990: p50 = 1, p99 = max = 1990.
//   - offered: a 10 -> 510, b 20 -> 420: 500 + 400 = 900 in 10 s each:
//     offered rate 50 + 40 = 90/s; emitted a 10 -> 500, b 20 -> 400: 490 +
//     380 = 870, achieved rate 49 + 38 = 87/s.
func TestOpenLoopMergeHandComputed(t *testing.T) {
	reports := []protocol.WorkerReport{
		openReport(t, "a", 1000, 900, 10, 10, []int64{99}, []int64{99}),
		openReport(t, "a", 6000, 5000, 260, 200, []int64{5, 7}, []int64{0, 1}),
		openReport(t, "a", 11000, 5000, 510, 500, []int64{2000}, []int64{1990}),
		openReport(t, "b", 1000, 900, 20, 20, []int64{99}, []int64{99}),
		openReport(t, "b", 6000, 5000, 220, 220, []int64{9}, []int64{0}),
		openReport(t, "b", 11000, 5000, 420, 400, []int64{4, 1800}, []int64{3, 1700}),
	}
	m := Window(reports, Placement{}, map[string]float64{"a": 100, "b": 100}, 1000, 11000)
	ol := m.OpenLoop
	if ol == nil {
		t.Fatalf("no open-loop measurement: %v", m.NotMeasured)
	}
	want := OpenLoop{IntendedCount: 6, IntendedP50: 7, IntendedP99: 2000, IntendedMax: 2000,
		SendLagCount: 6, SendLagP50: 1, SendLagP99: 1990, SendLagMax: 1990,
		Offered: 900, Emitted: 870, OfferedRate: 90, EmittedRate: 87}
	if *ol != want {
		t.Errorf("open loop:\n got %+v\nwant %+v", *ol, want)
	}
	if !m.isMeasured(metricOpenLoop) {
		t.Errorf("measured %v: want %s in it", m.Measured, metricOpenLoop)
	}
}

// A closed-loop run (no open-loop field in any report) has no open-loop
// measurement and no "not measured" note for it: its Measurement is as
// before.
func TestOpenLoopAbsentInClosedLoop(t *testing.T) {
	reports := []protocol.WorkerReport{
		{Topology: "t", Host: "a", Port: 6700, TimeMs: 6000, IntervalS: 5, WorkerStartMs: 100, AckedTotal: 10,
			LatencyHist: hist(t, protocol.LatencyHistHighest, 3)},
	}
	m := Window(reports, Placement{}, map[string]float64{"a": 100}, 1000, 11000)
	if m.OpenLoop != nil || m.isMeasured(metricOpenLoop) {
		t.Errorf("closed loop got an open-loop measurement: %+v", m.OpenLoop)
	}
	if _, ok := m.NotMeasured[metricOpenLoop]; ok {
		t.Errorf("closed loop names open_loop as not measured: %v", m.NotMeasured)
	}
}

// Open-loop reports whose histograms lie outside the window: not measured,
// with the reason.
func TestOpenLoopNotMeasured(t *testing.T) {
	reports := []protocol.WorkerReport{openReport(t, "a", 1000, 900, 10, 10, []int64{1}, []int64{1})}
	m := Window(reports, Placement{}, map[string]float64{"a": 100}, 1000, 11000)
	why, ok := m.NotMeasured[metricOpenLoop]
	if m.OpenLoop != nil || !ok || !strings.Contains(why, "intended") {
		t.Errorf("got %+v, not measured %q", m.OpenLoop, why)
	}
}
