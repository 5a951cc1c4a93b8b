package measure

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// hist encodes values into a wire histogram with the shared layout.
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

// A hand-computed run over the window [0, 10 s]: tasks 1,2 on node a;
// task 3 on node b; task 9 is a system task (not in the placement).
//
// Worker a:6700 started at 500 ms (inside the window) and reads 40 acks at
// 5,500 ms: 40 acks in 5 s, 8/s; its 10,500 ms reading is outside. Worker
// b:6700 started long before; it reads 1,000 at 1,000 ms and 1,060 at
// 6,000 ms: 60 acks in 5 s, 12/s. Throughput 8 + 12 = 20/s, 100 acked.
//
// Histograms come from the reports whose interval lies in the window:
// a@5,500 (interval from 500) and b@6,000 (from 1,000), not b@1,000 (its
// interval began before the window): latency {1,2,3} + {4}.
func TestMeasureHandComputed(t *testing.T) {
	place := Placement{1: "a", 2: "a", 3: "b"}
	capacity := map[string]float64{"a": 100, "b": 200, "c": 100}
	const lat, proc = protocol.LatencyHistHighest, protocol.ProcessingHistHighest
	reports := []protocol.WorkerReport{
		{Host: "a", Port: 6700, TimeMs: 5500, IntervalS: 5, WorkerStartMs: 500, Acked: 40, AckedTotal: 40, WorkerCPUPercent: 50,
			WorkerMemoryMB: 100,
			LatencyHist:    hist(t, lat, 1, 2, 3), ProcessingHist: hist(t, proc, 5000, 15000),
			Traffic: []protocol.TaskTraffic{{Src: 1, Dst: 2, Count: 30}, {Src: 9, Dst: 2, Count: 1000}},
			Deadlines: []protocol.TaskDeadline{
				{Task: 3, Count: 10, Missed: 1, SumProcessingMs: 50, SumQoS: 5, DeadlineMs: 100, Sink: true},
				{Task: 2, Count: 999, Missed: 999, SumProcessingMs: 1e6, SumQoS: 1e6, DeadlineMs: 1}, // not a sink
			},
			TupleSizes: []protocol.TaskTupleSize{{Task: 2, InSamples: 2, InBytes: 300}}},
		{Host: "b", Port: 6700, TimeMs: 1000, IntervalS: 5, WorkerStartMs: -20_000, AckedTotal: 1000, WorkerMemoryMB: 200,
			LatencyHist: hist(t, lat, 1000)},
		{Host: "b", Port: 6700, TimeMs: 6000, IntervalS: 5, WorkerStartMs: -20_000, Acked: 60, AckedTotal: 1060, WorkerCPUPercent: 100,
			WorkerMemoryMB: 300, LatencyHist: hist(t, lat, 4),
			Traffic:    []protocol.TaskTraffic{{Src: 2, Dst: 3, Count: 10}},
			TupleSizes: []protocol.TaskTupleSize{{Task: 3, InSamples: 1, InBytes: 150, OutSamples: 5, OutBytes: 1}}},
		// Outside the window: ignored.
		{Host: "a", Port: 6700, TimeMs: 10500, IntervalS: 5, WorkerStartMs: 500, Acked: 1000, AckedTotal: 1040, WorkerCPUPercent: 100},
	}
	m := Window(reports, place, capacity, 0, 10000)
	const tol = 1e-9
	cases := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"throughput = 40/5 s + 60/5 s", m.Throughput, 20, tol},
		{"acked = 40 + 60", float64(m.Acked), 100, 0},
		{"cut rate = 10/(30+10); system task 9 ignored", m.CutRate, 0.25, tol},
		{"inter-node rate = 10/10 s", m.InterNodeRate, 1, tol},
		{"latency count", float64(m.LatencyCount), 4, 0},
		{"latency mean = (1+2+3+4)/4 (values < 2048 are exact)", m.LatencyMean, 2.5, tol},
		{"latency p50: rank round(0.5*4) = 2nd value", m.LatencyP50, 2, 0},
		{"latency p99: rank round(0.99*4) = 4th value", m.LatencyP99, 4, 0},
		{"latency max", m.LatencyMax, 4, 0},
		// 5,000 and 15,000 µs lie in buckets of width 4 and 8: the
		// percentiles report the bucket's highest value (5,003, 15,007) and
		// the mean the bucket middles (5,002 + 15,004) / 2 = 10,003 µs.
		{"processing p50 (ms)", m.ProcessingP50, 5.003, tol},
		{"processing max (ms)", m.ProcessingMax, 15.007, tol},
		{"processing mean (ms)", m.ProcessingMean, 10.003, tol},
		// node a: 50% of a core for 5 s over a 10 s window = 25% of a core;
		// capacity 100 -> 25% util. node b: 100% for 5 s -> 50% of a core, cap 200 -> 25%.
		{"node a cpu", m.NodeCPU["a"], 25, tol},
		{"node b util", m.NodeUtil["b"], 25, tol},
		{"node c idle", m.NodeUtil["c"], 0, tol},
		// util {25, 25, 0}: mean 50/3, pop. variance ((25-50/3)^2*2+(50/3)^2)/3 = 138.88.., std 11.785..
		{"balance", m.Balance, math.Sqrt((2*math.Pow(25-50.0/3, 2) + math.Pow(50.0/3, 2)) / 3), tol},
		{"node b memory = mean(200, 300)", m.NodeMemoryMB["b"], 250, tol},
		{"node a memory", m.NodeMemoryMB["a"], 100, tol},
		{"tuple bytes = (300 + 150)/(2 + 1)", m.TupleBytes, 150, tol},
		{"qos rate = 5/10 (sink only)", m.QoSRate, 0.5, tol},
		{"processing ms = 50/10 (sink only)", m.ProcessingMs, 5, tol},
		{"deadline misses (sink only)", float64(m.DeadlineMisses), 1, 0},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if len(m.NotMeasured) != 0 {
		t.Errorf("not measured: %v, want everything measured", m.NotMeasured)
	}
	if m.Restarts != 0 { // worker a's first incarnation began inside the window: a start, not a restart
		t.Errorf("restarts = %d, want 0", m.Restarts)
	}
}

// TestThroughputWorkerRestart: a worker (same host and port) dies and comes
// back. Its first incarnation started at 1 s and reads 100, 200, 300 acks
// at 6, 11, 16 s; the second started at 19 s and reads 40 at 24 s and 90
// at 29 s. The acks inside [1 s, 31 s] are 300 + 90 = 390 over the 28 s
// from the first start to the last reading (the 3 s gap counts as no
// acks): 13.93/s. Naive differences of the cumulative counter would give
// 90 - 0 = 90 acks, or with the reset read as a drop a negative rate; a
// rate over the incarnations' live time only would be 390/25 = 15.6/s
// (inflated). The same holds when the reset comes without a new start
// time (the counter simply goes down; the new segment starts at the last
// reading before it, 16 s), and when a report is lost (the total has its
// acks). No rate may exceed the fastest real rate, 20/s.
func TestThroughputWorkerRestart(t *testing.T) {
	rep := func(tMs, start, total int64) protocol.WorkerReport {
		return protocol.WorkerReport{Topology: "t", Host: "h", Port: 6700, TimeMs: tMs, IntervalS: 5, WorkerStartMs: start, AckedTotal: total}
	}
	first := []protocol.WorkerReport{rep(6000, 1000, 100), rep(11000, 1000, 200), rep(16000, 1000, 300)}
	restarted := append(slices.Clone(first), rep(24000, 19000, 40), rep(29000, 19000, 90))
	reset := append(slices.Clone(first), rep(24000, 1000, 40), rep(29000, 1000, 90))
	tests := []struct {
		name     string
		reports  []protocol.WorkerReport
		from, to int64
		acked    int64
		rate     float64
		restarts int
	}{
		{"restart with a new start time", restarted, 1000, 31000, 390, 390 / 28.0, 1},
		{"counter reset without a new start time", reset, 1000, 31000, 390, 390 / 28.0, 1},
		{"lost report: the total still has its acks", []protocol.WorkerReport{first[0], first[2]}, 1000, 31000, 300, 300 / 15.0, 0},
		// The old incarnation's last reading (16 s) is before the window:
		// the worker was down from the window's start (17 s) to 19 s.
		{"window after the restart only", restarted, 17000, 31000, 90, 90 / 12.0, 1},
		{"window before the restart: acks before the first reading inside are not counted", restarted, 5000, 17000, 200, 200 / 10.0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := Window(tc.reports, Placement{}, nil, tc.from, tc.to)
			if m.Acked != tc.acked || math.Abs(m.Throughput-tc.rate) > 1e-9 || m.Restarts != tc.restarts {
				t.Errorf("acked %d, throughput %v, restarts %d; want %d, %v, %d", m.Acked, m.Throughput, m.Restarts, tc.acked, tc.rate, tc.restarts)
			}
			if m.Throughput < 0 || m.Throughput > 20 {
				t.Errorf("throughput %v outside [0, 20]: a restart made it negative or inflated", m.Throughput)
			}
		})
	}
}

// TestMergedHistogramP99 merges two workers' latency histograms of very
// different rates - worker A 100,000 tuples around 5 ms, worker B 2,000
// around 400 ms - and checks p50, p99, p99.9 and max against the exact
// values of the pooled raw samples (same rank rule as HdrHistogram: the
// round(q*N)-th smallest). Tolerance = the histogram's precision: 3
// significant digits put every value in a bucket no wider than 1/1024 of
// it, and a percentile reports its bucket's highest value, so exact <= got
// <= exact*(1 + 1/1024). Averaging the two workers' p99 instead (the old
// per-worker way) is far off, which this test would catch.
func TestMergedHistogramP99(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	draw := func(n int, medianMs float64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(math.Round(medianMs * math.Exp(0.6*rng.NormFloat64())))
		}
		return out
	}
	a, b := draw(100_000, 5), draw(2_000, 400)
	const lat = protocol.LatencyHistHighest
	reports := []protocol.WorkerReport{
		{Topology: "t", Host: "a", Port: 6700, TimeMs: 10_000, IntervalS: 10, WorkerStartMs: 1, AckedTotal: 100_000, LatencyHist: hist(t, lat, a...)},
		{Topology: "t", Host: "b", Port: 6700, TimeMs: 10_000, IntervalS: 10, WorkerStartMs: 1, AckedTotal: 2_000, LatencyHist: hist(t, lat, b...)},
	}
	m := Window(reports, Placement{}, nil, 0, 10_000)
	pooled := append(slices.Clone(a), b...)
	slices.Sort(pooled)
	exact := func(q float64) float64 {
		rank := int(q/100*float64(len(pooled)) + 0.5)
		return float64(pooled[max(rank, 1)-1])
	}
	for _, c := range []struct {
		q   float64
		got float64
	}{{50, m.LatencyP50}, {99, m.LatencyP99}, {99.9, m.LatencyP999}, {100, m.LatencyMax}} {
		want := exact(c.q)
		if c.got < want || c.got > want*(1+1.0/1024) {
			t.Errorf("p%v = %v, want %v within +%v (histogram precision)", c.q, c.got, want, want/1024)
		}
	}
	if m.LatencyCount != 102_000 {
		t.Errorf("count %d, want 102,000", m.LatencyCount)
	}
	// The per-worker shortcut the merge replaces: mean of the two p99s.
	slices.Sort(a)
	slices.Sort(b)
	avg := (float64(a[98_999]) + float64(b[1979])) / 2
	if math.Abs(avg-exact(99)) < 0.1*exact(99) {
		t.Fatalf("test data do not tell merging from averaging (avg p99 %v vs exact %v)", avg, exact(99))
	}
}

// TestNotMeasured: absent metrics are named, never silent zeros.
func TestNotMeasured(t *testing.T) {
	tests := []struct {
		name    string
		reports []protocol.WorkerReport
		want    map[string]string // metric -> part of the reason
	}{
		{"no reports", nil, map[string]string{
			metricThroughput: "two counter readings", metricLatency: "no report interval", metricNodeCPU: "no report",
			metricCutRate: "no tuples", metricDeadlines: "no sink", metricMemory: "memory", metricTupleSize: "no tuple size"}},
		{"worker without histograms or CPU", []protocol.WorkerReport{
			{Topology: "t", Host: "a", Port: 1, TimeMs: 5000, IntervalS: 5, WorkerStartMs: 1, AckedTotal: 10,
				NotMeasured: []string{protocol.FieldWorkerCPU, protocol.FieldTupleSizes}},
			{Topology: "t", Host: "a", Port: 1, TimeMs: 10000, IntervalS: 5, WorkerStartMs: 1, AckedTotal: 20,
				NotMeasured: []string{protocol.FieldWorkerCPU, protocol.FieldTupleSizes}},
		}, map[string]string{
			metricLatency: "no worker sent latency_hist", metricProcessing: "no worker sent processing_hist",
			metricNodeCPU: "could not measure its process CPU", metricTupleSize: "could not serialize"}},
		{"malformed histogram", []protocol.WorkerReport{
			{Topology: "t", Host: "a", Port: 1, TimeMs: 5000, IntervalS: 5, WorkerStartMs: 1, AckedTotal: 10, LatencyHist: "SElTVA=="},
		}, map[string]string{metricLatency: "not merged exactly"}},
		{"sinks without a deadline", []protocol.WorkerReport{
			{Topology: "t", Host: "a", Port: 1, TimeMs: 5000, IntervalS: 5, WorkerStartMs: 1,
				Deadlines: []protocol.TaskDeadline{{Task: 3, Count: 4, SumProcessingMs: 8, Sink: true}}},
		}, map[string]string{metricDeadlines: "no deadline"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := Window(tc.reports, Placement{}, map[string]float64{"a": 100}, 0, 10000)
			for metric, reason := range tc.want {
				got, ok := m.NotMeasured[metric]
				if !ok || !strings.Contains(got, reason) {
					t.Errorf("not_measured[%s] = %q (present %v), want a reason containing %q", metric, got, ok, reason)
				}
				if m.isMeasured(metric) {
					t.Errorf("%s listed as measured", metric)
				}
			}
		})
	}
}

func TestSeriesWindows(t *testing.T) {
	// Worker a started at 5 s and acks 10 a second: totals 60 at 11 s, 70
	// at 12 s, ... Worker b sends legacy reports without totals, summed from
	// their deltas: 30 per second from its first interval's start (10 s).
	var reports []protocol.WorkerReport
	for s := int64(1); s <= 4; s++ {
		reports = append(reports,
			protocol.WorkerReport{Host: "a", TimeMs: 10_000 + 1000*s, IntervalS: 1, WorkerStartMs: 5000, AckedTotal: 50 + 10*s, Acked: 10},
			protocol.WorkerReport{Host: "b", TimeMs: 10_000 + 1000*s, IntervalS: 1, Acked: 30})
	}
	s := Series(reports, Placement{}, map[string]float64{"a": 100}, 10_000, 14_000, 2000)
	if len(s) != 2 || math.Abs(s[0].Throughput-40) > 1e-9 || math.Abs(s[1].Throughput-40) > 1e-9 {
		t.Fatalf("series = %+v; want two windows of 10 + 30 = 40 tuples/s", s)
	}
}
