package measure

import (
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// A run whose spouts never ack is measured at its sinks. Hand computation: tasks 1 (spout) -> 2, 3
// (counters) -> 4 (global); in the window [5 s, 15 s) worker b (task 4) sent two 5 s reports, with 50 +
// 50 and 55 + 45 tuples into task 4 from tasks 2 and 3. Task 4 sends to no task, so it is the one sink:
// 200 tuples over the reports' 10 s = 20 tuples/s (worker a's reports at 5 s and 10 s carry only the
// spout's traffic, and its report at 15 s lies outside the window). Latency is not measured, with the
// reason; the cut rate is still measured.
func TestMeasureSinks(t *testing.T) {
	place := Placement{1: "a", 2: "a", 3: "b", 4: "b"}
	reports := []protocol.WorkerReport{
		{Topology: "t", Host: "a", Port: 1, TimeMs: 5_000, IntervalS: 5, WorkerStartMs: 1,
			Traffic: []protocol.TaskTraffic{{Src: 1, Dst: 2, Count: 50}, {Src: 1, Dst: 3, Count: 50}}},
		{Topology: "t", Host: "b", Port: 2, TimeMs: 5_000, IntervalS: 5, WorkerStartMs: 1,
			Traffic: []protocol.TaskTraffic{{Src: 2, Dst: 4, Count: 50}, {Src: 3, Dst: 4, Count: 50}}},
		{Topology: "t", Host: "a", Port: 1, TimeMs: 10_000, IntervalS: 5, WorkerStartMs: 1,
			Traffic: []protocol.TaskTraffic{{Src: 1, Dst: 2, Count: 60}, {Src: 1, Dst: 3, Count: 40}}},
		{Topology: "t", Host: "b", Port: 2, TimeMs: 10_000, IntervalS: 5, WorkerStartMs: 1,
			Traffic: []protocol.TaskTraffic{{Src: 2, Dst: 4, Count: 55}, {Src: 3, Dst: 4, Count: 45}}},
		{Topology: "t", Host: "a", Port: 1, TimeMs: 15_000, IntervalS: 5, WorkerStartMs: 1},
	}
	m := Window(reports, place, map[string]float64{"a": 100, "b": 100}, 5_000, 15_000)
	if m.ThroughputBasis != BasisSinkExecuted || math.Abs(m.Throughput-20) > 1e-9 {
		t.Errorf("throughput %v basis %q: want 20 tuples/s at the sinks", m.Throughput, m.ThroughputBasis)
	}
	if _, no := m.NotMeasured[metricLatency]; !no || m.isMeasured(metricLatency) {
		t.Errorf("latency: measured %v, not measured %v: want not measured", m.Measured, m.NotMeasured)
	}
	if !m.isMeasured(metricThroughput) || !m.isMeasured(metricCutRate) {
		t.Errorf("measured %v: want throughput and cut rate", m.Measured)
	}
	// One ack anywhere in the run: the topology anchors, and throughput is acked tuples again.
	reports[0].AckedTotal, reports[0].Acked = 1, 1
	m = Window(reports, place, map[string]float64{"a": 100, "b": 100}, 5_000, 15_000)
	if m.ThroughputBasis != "" {
		t.Errorf("basis %q after an ack: want acked tuples", m.ThroughputBasis)
	}
}

// The Flux word count with one acker alone on a worker (oneAckerAlone): the acker's worker reports and
// moves nothing. The warm-up still sees steady throughput at the sink (20 tuples/s in each of the 3
// intervals: 50 + 50 tuples into task 4 per 5 s report, see wordCountReport), and the window [5 s, 15 s)
// measures 200 sink tuples over the reports' 10 s = 20 tuples/s, latency not measured because no spout
// anchors; the acker's worker contributes no traffic and no sink.
func TestMeasureSinksAckerAlone(t *testing.T) {
	var reports []protocol.WorkerReport
	for ms := int64(5_000); ms <= 15_000; ms += 5_000 {
		reports = append(reports, wordCountReport("s1", ms, true), wordCountReport("s2", ms, false))
	}
	rates, ok := intervalRates(reports, SteadyIntervals)
	if !ok || !steady(rates, steadyTolerance) || math.Abs(rates[0]-20) > 1e-9 {
		t.Errorf("warm-up rates %v (ok %v): want 3 steady intervals of 20 tuples/s", rates, ok)
	}
	m := Window(reports, PlacementOf(oneAckerAlone), map[string]float64{"s1": 100, "s2": 100}, 5_000, 15_000)
	if m.ThroughputBasis != BasisSinkExecuted || math.Abs(m.Throughput-20) > 1e-9 {
		t.Errorf("throughput %v basis %q: want 20 tuples/s at the sinks", m.Throughput, m.ThroughputBasis)
	}
	if why := m.NotMeasured[metricLatency]; m.isMeasured(metricLatency) || !strings.Contains(why, "anchor") {
		t.Errorf("latency: measured %v, not measured %q: want not measured, naming anchoring", m.Measured, why)
	}
}

// wordCountReport is one 5 s report of topology "t" from host:6700 at ms: with work, the word count's
// traffic at 20 tuples/s into the sink (task 4), else nothing moved (an empty report of a running worker).
func wordCountReport(host string, ms int64, work bool) protocol.WorkerReport {
	r := protocol.WorkerReport{Topology: "t", Host: host, Port: 6700, TimeMs: ms, IntervalS: 5, WorkerStartMs: 1}
	if work {
		r.Traffic = []protocol.TaskTraffic{{Src: 5, Dst: 2, Count: 50}, {Src: 6, Dst: 3, Count: 50}, {Src: 2, Dst: 4, Count: 50}, {Src: 3, Dst: 4, Count: 50}}
	}
	return r
}

// The Flux word count with one acker (cmd/stormlab/testdata/flux/wordcount-one-acker.yaml) as kpart
// places it: the word count's tasks on one worker, the acker alone with Storm's __system executor on the
// other. Tasks: 1 acker, 2-3 count, 4 global, 5-6 words.
var oneAckerAlone = []ExecutorPlace{
	{Component: "words", Start: 5, End: 5, Host: "s1", Port: 6700},
	{Component: "words", Start: 6, End: 6, Host: "s1", Port: 6700},
	{Component: "count", Start: 2, End: 2, Host: "s1", Port: 6700},
	{Component: "count", Start: 3, End: 3, Host: "s1", Port: 6700},
	{Component: "global", Start: 4, End: 4, Host: "s1", Port: 6700},
	{Component: "__system", Start: -1, End: -1, Host: "s1", Port: 6700},
	{Component: "__acker", Start: 1, End: 1, Host: "s2", Port: 6700},
	{Component: "__system", Start: -1, End: -1, Host: "s2", Port: 6700},
}
