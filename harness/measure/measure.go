package measure

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/infra/protocol"
)

// Metric names used in Measurement.Measured and Measurement.NotMeasured.
const (
	metricThroughput = "throughput"
	metricLatency    = "latency"    // complete latency percentiles
	metricProcessing = "processing" // per-tuple processing time percentiles
	metricDeadlines  = "deadlines"  // QoS rate, misses, mean processing time
	metricCutRate    = "cut_rate"
	metricNodeCPU    = "node_cpu" // NodeCPU, NodeUtil, Balance
	metricMemory     = "memory"
	metricTupleSize  = "tuple_size"
)

// Exported metric names, for readers of Measurement.NotMeasured outside the package.
const (
	MetricThroughput = metricThroughput
	MetricLatency    = metricLatency
	MetricCutRate    = metricCutRate
	MetricNodeCPU    = metricNodeCPU
)

// Measurement is what one run (or one window of it) measured. A metric
// the workers did not deliver is named in NotMeasured with the reason; its
// fields then hold 0, which is not a measured zero.
type Measurement struct {
	WindowS float64 `json:"window_s"`
	// Acked and Failed count the spout tuples acked (failed) inside the
	// window, from the workers' cumulative counters (see Measure).
	Acked      int64   `json:"acked"`
	Failed     int64   `json:"failed"`
	Throughput float64 `json:"throughput"` // acked tuples/s, or see ThroughputBasis
	// ThroughputBasis is what Throughput counts: "" for spout tuples acked (every topology that
	// anchors its tuples), BasisSinkExecuted for tuples executed by sink tasks when no spout tuple was
	// acked or failed in the whole run (a topology whose spouts do not anchor, or with acking off; see
	// measureSinks).
	ThroughputBasis string `json:"throughput_basis,omitempty"`
	// Restarts counts worker incarnations after a worker's first that
	// began inside the window (a restarted worker's counters start again
	// from 0).
	Restarts int `json:"restarts,omitempty"`

	// Complete latency (Storm's spout ack latency, ms) of every acked
	// tuple in the window, from the workers' merged HdrHistograms.
	LatencyCount int64   `json:"latency_count"`
	LatencyMean  float64 `json:"latency_mean_ms"`
	LatencyP50   float64 `json:"latency_p50_ms"`
	LatencyP95   float64 `json:"latency_p95_ms"`
	LatencyP99   float64 `json:"latency_p99_ms"`
	LatencyP999  float64 `json:"latency_p999_ms"`
	LatencyMax   float64 `json:"latency_max_ms"`

	// Processing time (now - T_start at a sink task, ms) of every tuple
	// that reached a sink in the window, from the merged HdrHistograms.
	ProcessingCount int64   `json:"processing_count"`
	ProcessingMean  float64 `json:"processing_mean_ms"`
	ProcessingP50   float64 `json:"processing_p50_ms"`
	ProcessingP95   float64 `json:"processing_p95_ms"`
	ProcessingP99   float64 `json:"processing_p99_ms"`
	ProcessingP999  float64 `json:"processing_p999_ms"`
	ProcessingMax   float64 `json:"processing_max_ms"`

	NodeCPU  map[string]float64 `json:"node_cpu"`  // mean CPU, percent of one core
	NodeUtil map[string]float64 `json:"node_util"` // mean CPU, percent of the node's capacity
	Balance  float64            `json:"balance"`   // population std dev of NodeUtil over all nodes
	// NodeMemoryMB is the workers' used heap + non-heap per node (sum over
	// a node's workers of each worker's mean over its reports).
	NodeMemoryMB map[string]float64 `json:"node_memory_mb,omitempty"`

	Tuples        int64   `json:"tuples"`          // tuples between placed tasks
	CrossTuples   int64   `json:"cross_tuples"`    // of those, between different nodes
	CutRate       float64 `json:"cut_rate"`        // CrossTuples / Tuples
	InterNodeRate float64 `json:"inter_node_rate"` // CrossTuples per second
	// TupleBytes is the mean serialized size of the sampled tuples the
	// tasks executed (what crosses a worker boundary), bytes.
	TupleBytes float64 `json:"tuple_bytes,omitempty"`

	// Deadline metrics count tuples at sink tasks (TaskDeadline.Sink): the
	// end-to-end processing time and QoS rate of the deadline-aware
	// scheduler paper.
	Deadlines      int64              `json:"deadline_tuples"`
	DeadlineMisses int64              `json:"deadline_misses"`
	ProcessingMs   float64            `json:"processing_ms"` // mean processing time of deadline tuples
	QoSRate        float64            `json:"qos_rate"`      // mean processing time / deadline
	NodeQoS        map[string]float64 `json:"node_qos,omitempty"`

	// Measured lists the metrics measured in the window (sorted);
	// NotMeasured gives, for each metric that was not, why.
	Measured    []string          `json:"measured"`
	NotMeasured map[string]string `json:"not_measured,omitempty"`
	// Warnings are measured-but-partial notes (e.g. a worker whose acks
	// could not be rated), one line each.
	Warnings []string `json:"warnings,omitempty"`

	OpenLoop *OpenLoop `json:"open_loop,omitempty"` // open-loop spouts only (openloop.go)
}

// notMeasured records that metric was not measured, keeping the first
// reason given.
func (m *Measurement) notMeasured(metric, reason string) {
	if m.NotMeasured == nil {
		m.NotMeasured = map[string]string{}
	}
	if _, ok := m.NotMeasured[metric]; !ok {
		m.NotMeasured[metric] = reason
	}
}

// isMeasured reports whether metric was measured in the window.
func (m *Measurement) isMeasured(metric string) bool {
	for _, x := range m.Measured {
		if x == metric {
			return true
		}
	}
	return false
}

// Window folds the reports received in [fromMs, toMs] into a Measurement.
// capacity maps every node to its CPU capacity (percent, 100 = one core);
// nodes without reports count as idle, which is what balance must see.
//
// Throughput counts only tuples acked inside the window, per worker
// (topology, host, port) from its cumulative counter AckedTotal: the acks
// between the worker's first and last counter reading inside the window,
// over the time between them; the topology's throughput is the sum of the
// workers' rates. A worker's incarnation starts at WorkerStartMs with its
// counter at 0, so an incarnation begun inside the window counts from its
// start. A restart (a new WorkerStartMs, or a counter lower than the one
// before) starts a new segment: its acks are added, never subtracted from
// the old incarnation's count, and the time from the old incarnation's
// last reading (or the window's start, if later) to the new start counts
// as time with no acks, so a restart can make the rate neither negative
// nor inflated. A lost report loses no acks (the next total has them).
// Reports without totals (WorkerStartMs 0) are summed into totals from
// their per-interval Acked, starting at the first report's interval.
//
// Latency and processing-time percentiles come from the HdrHistograms of
// the reports whose whole interval (from the worker's previous reading to
// this one) lies inside the window - the same reports whose acks are
// counted, so LatencyCount equals Acked up to the few acks that land while
// a worker builds a report - summed exactly: the merged histogram is the one a single
// recorder would have filled (3 significant digits: each percentile is
// within 1/1024 of its value, above by at most one bucket).
//
// Node CPU, traffic, memory, tuple sizes and deadline records come from
// the reports whose TimeMs lies in [fromMs, toMs).
func Window(reports []protocol.WorkerReport, place Placement, capacity map[string]float64, fromMs, toMs int64) Measurement {
	m := Measurement{WindowS: float64(toMs-fromMs) / 1000, NodeCPU: map[string]float64{}, NodeUtil: map[string]float64{}}
	in := inWindow(reports, fromMs, toMs)
	measureAcks(&m, reports, fromMs, toMs)
	measureCPU(&m, in, capacity)
	measureTraffic(&m, in, place)
	measureDeadlines(&m, in)
	measureMemory(&m, in)
	measureSizes(&m, in)
	if m.Acked == 0 && m.Failed == 0 && !anyAcks(reports) {
		measureSinks(&m, in, place)
	}
	for _, metric := range []string{metricThroughput, metricLatency, metricProcessing, metricDeadlines,
		metricCutRate, metricNodeCPU, metricMemory, metricTupleSize} {
		if _, no := m.NotMeasured[metric]; !no {
			m.Measured = append(m.Measured, metric)
		}
	}
	measureOpenLoop(&m, reports, fromMs, toMs)
	sort.Strings(m.Measured)
	return m
}

// BasisSinkExecuted is Measurement.ThroughputBasis for a throughput counted at the sink tasks.
const BasisSinkExecuted = "sink-executed"

// anyAcks reports whether any report of the run counted a spout tuple acked or failed.
func anyAcks(reports []protocol.WorkerReport) bool {
	for i := range reports {
		r := &reports[i]
		if r.Acked > 0 || r.Failed > 0 || r.AckedTotal > 0 || r.FailedTotal > 0 {
			return true
		}
	}
	return false
}

// measureSinks measures the throughput of a run in which no spout tuple was ever acked or failed (its
// spouts emit unanchored tuples, or acking is off, as with many topologies not written for stormlab):
// the tuples executed per second by the sink tasks, i.e. the tasks that received tuples from other
// placed tasks in the window and sent none to any. Each report counts its own interval: a worker's
// rate is its sink tuples over the sum of its reports' IntervalS (so a window holding one report more
// or less of a worker does not bias the rate), and the topology's is the sum over workers. Complete
// latency exists only for anchored, acked tuples, so it is marked not measured with that reason
// (replacing the histograms' generic one).
func measureSinks(m *Measurement, in []*protocol.WorkerReport, place Placement) {
	sent := map[int]bool{}
	for _, r := range in {
		for _, t := range r.Traffic {
			if _, ok := place[t.Dst]; ok && t.Src != t.Dst {
				sent[t.Src] = true
			}
		}
	}
	tuples, span := map[workerKey]int64{}, map[workerKey]float64{}
	for _, r := range in {
		k := workerKey{r.Topology, r.Host, r.Port}
		span[k] += r.IntervalS
		for _, t := range r.Traffic {
			if _, ok := place[t.Src]; ok && t.Src != t.Dst && !sent[t.Dst] {
				if _, ok := place[t.Dst]; ok {
					tuples[k] += t.Count
				}
			}
		}
	}
	rate, n := 0.0, int64(0)
	for k, c := range tuples {
		if span[k] > 0 {
			rate += float64(c) / span[k]
			n += c
		}
	}
	if n == 0 {
		return // nothing reached a sink: throughput stays a measured 0 (the run is invalid)
	}
	m.Throughput, m.ThroughputBasis = rate, BasisSinkExecuted
	delete(m.NotMeasured, metricThroughput)
	m.notMeasured(metricLatency, "")
	m.NotMeasured[metricLatency] = "no spout tuple was acked or failed in the run: the spouts do not anchor their tuples (or acking is off), and complete latency exists only for anchored, acked tuples"
}

// inWindow returns the reports with TimeMs in [fromMs, toMs).
func inWindow(reports []protocol.WorkerReport, fromMs, toMs int64) []*protocol.WorkerReport {
	var out []*protocol.WorkerReport
	for i := range reports {
		if r := &reports[i]; r.TimeMs >= fromMs && r.TimeMs < toMs {
			out = append(out, r)
		}
	}
	return out
}

// workerKey identifies a worker slot across restarts.
type workerKey struct {
	topology, host string
	port           int
}

func (k workerKey) String() string { return k.host + ":" + strconv.Itoa(k.port) }

// reading is one point of a worker's cumulative counters.
type reading struct {
	t              int64
	acked, failed  int64
	r              *protocol.WorkerReport // nil for a segment's start (counters 0)
	intervalBegins int64                  // t of the previous reading in the segment
}

// segments splits one worker's reports (sorted by time) into incarnations:
// each starts with a reading of 0 at its start time.
func segments(rs []*protocol.WorkerReport) [][]reading {
	var out [][]reading
	var cur []reading
	legacyAcked, legacyFailed := int64(0), int64(0)
	for i, r := range rs {
		acked, failed := r.AckedTotal, r.FailedTotal
		start := r.WorkerStartMs
		if start == 0 { // a sender without totals: sum its deltas
			if i == 0 || rs[i-1].WorkerStartMs != 0 {
				legacyAcked, legacyFailed = 0, 0
				start = r.TimeMs - int64(r.IntervalS*1000)
			}
			legacyAcked += r.Acked
			legacyFailed += r.Failed
			acked, failed = legacyAcked, legacyFailed
		}
		newSeg := len(cur) == 0
		if !newSeg {
			prev := cur[len(cur)-1]
			switch {
			case r.WorkerStartMs != 0 && r.WorkerStartMs != rs[i-1].WorkerStartMs:
				newSeg = true // a new incarnation
			case r.WorkerStartMs == 0 && rs[i-1].WorkerStartMs != 0:
				newSeg = true
			case acked < prev.acked || failed < prev.failed:
				newSeg = true // counters reset without a new start time
				start = prev.t
			}
		}
		if newSeg {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			if start > r.TimeMs || start == 0 {
				start = r.TimeMs - int64(r.IntervalS*1000)
			}
			cur = []reading{{t: start}}
		}
		cur = append(cur, reading{t: r.TimeMs, acked: acked, failed: failed, r: r, intervalBegins: cur[len(cur)-1].t})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// measureAcks sets Acked, Failed, Throughput, Restarts and the latency and
// processing histograms (see Window).
func measureAcks(m *Measurement, reports []protocol.WorkerReport, fromMs, toMs int64) {
	keys, byWorker := reportsByWorker(reports)
	lat := newMerger(protocol.LatencyHistHighest, protocol.FieldLatencyHist)
	proc := newMerger(protocol.ProcessingHistHighest, protocol.FieldProcHist)
	rated := 0
	for _, k := range keys {
		rs := byWorker[k]
		w := tallyWorker(m, k, rs, fromMs, toMs, lat, proc)
		if w.last > w.first {
			m.Acked += w.acked
			m.Failed += w.failed
			m.Throughput += float64(w.acked) / (float64(w.last-w.first) / 1000)
			rated++
		}
		if w.unrated {
			m.Warnings = append(m.Warnings, fmt.Sprintf("worker %s acked tuples in the window but has fewer than two counter readings in it: its acks are not counted", k))
		}
	}
	if rated == 0 {
		m.notMeasured(metricThroughput, "no worker has two counter readings inside the window (window shorter than a report interval, or no reports)")
	}
	setHistograms(m, lat, proc)
}

// reportsByWorker groups the reports by worker (topology, host, port), the workers in that order and
// each worker's reports in time order.
func reportsByWorker(reports []protocol.WorkerReport) ([]workerKey, map[workerKey][]*protocol.WorkerReport) {
	byWorker := map[workerKey][]*protocol.WorkerReport{}
	var keys []workerKey
	for i := range reports {
		r := &reports[i]
		k := workerKey{r.Topology, r.Host, r.Port}
		if _, ok := byWorker[k]; !ok {
			keys = append(keys, k)
		}
		byWorker[k] = append(byWorker[k], r)
	}
	for _, rs := range byWorker {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].TimeMs < rs[j].TimeMs })
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.topology != b.topology {
			return a.topology < b.topology
		}
		if a.host != b.host {
			return a.host < b.host
		}
		return a.port < b.port
	})
	return keys, byWorker
}

// workerTally is one worker's acks in the window, over the span [first, last] its counters cover;
// unrated: it acked in the window but some incarnation has fewer than two readings in it.
type workerTally struct {
	acked, failed int64
	first, last   int64
	unrated       bool
}

// tallyWorker counts one worker's acks over its incarnations (segments), adds the histograms of its
// reports whose interval lies in the window and counts its restarts in the window into m.
func tallyWorker(m *Measurement, k workerKey, rs []*protocol.WorkerReport, fromMs, toMs int64, lat, proc *merger) workerTally {
	w := workerTally{first: math.MaxInt64, last: math.MinInt64}
	segLast := int64(math.MinInt64)
	prevLast := int64(math.MinInt64) // last reading of the previous incarnation
	for si, seg := range segments(rs) {
		if si > 0 {
			prevLast = segLast
		}
		segLast = seg[len(seg)-1].t
		var pts []reading
		for _, p := range seg {
			if p.t >= fromMs && p.t <= toMs {
				pts = append(pts, p)
			}
		}
		if si > 0 && seg[0].t >= fromMs && seg[0].t <= toMs {
			m.Restarts++
		}
		for _, p := range pts {
			if p.r != nil && p.intervalBegins >= fromMs {
				lat.add(k, p.r, p.r.LatencyHist)
				proc.add(k, p.r, p.r.ProcessingHist)
			}
		}
		if len(pts) < 2 {
			for _, p := range pts {
				w.unrated = w.unrated || (p.r != nil && p.r.Acked > 0)
			}
			continue
		}
		w.acked += pts[len(pts)-1].acked - pts[0].acked
		w.failed += pts[len(pts)-1].failed - pts[0].failed
		begin := pts[0].t
		if si > 0 && pts[0].r == nil {
			// A restart inside the window: the worker was down since
			// its previous incarnation's last reading (or the window's
			// start), time that counts with no acks.
			begin = max(fromMs, min(begin, prevLast))
		}
		w.first = min(w.first, begin)
		w.last = max(w.last, pts[len(pts)-1].t)
	}
	return w
}

// setHistograms sets the latency and processing-time figures from the merged histograms, or marks
// each not measured with the reason.
func setHistograms(m *Measurement, lat, proc *merger) {
	if h, why := lat.result(); h == nil {
		m.notMeasured(metricLatency, why)
	} else {
		m.LatencyCount = h.TotalCount()
		m.LatencyMean = h.Mean()
		m.LatencyP50 = float64(h.ValueAtQuantile(50))
		m.LatencyP95 = float64(h.ValueAtQuantile(95))
		m.LatencyP99 = float64(h.ValueAtQuantile(99))
		m.LatencyP999 = float64(h.ValueAtQuantile(99.9))
		m.LatencyMax = float64(h.Max())
	}
	if h, why := proc.result(); h == nil {
		m.notMeasured(metricProcessing, why)
	} else {
		const us = 1000.0 // the histogram holds µs
		m.ProcessingCount = h.TotalCount()
		m.ProcessingMean = h.Mean() / us
		m.ProcessingP50 = float64(h.ValueAtQuantile(50)) / us
		m.ProcessingP95 = float64(h.ValueAtQuantile(95)) / us
		m.ProcessingP99 = float64(h.ValueAtQuantile(99)) / us
		m.ProcessingP999 = float64(h.ValueAtQuantile(99.9)) / us
		m.ProcessingMax = float64(h.Max()) / us
	}
}

// merger sums the histograms of many reports exactly.
type merger struct {
	highest int64
	field   string
	sum     *hdrhistogram.Histogram
	reports int // reports selected
	sent    int // of those, with a histogram
	errs    []string
}

func newMerger(highest int64, field string) *merger {
	return &merger{highest: highest, field: field, sum: protocol.NewHistogram(highest)}
}

func (g *merger) add(k workerKey, r *protocol.WorkerReport, enc string) {
	g.reports++
	if enc == "" || r.Lacks(g.field) {
		return
	}
	g.sent++
	h, err := protocol.DecodeHistogram(enc, g.highest)
	if err != nil {
		g.errs = append(g.errs, fmt.Sprintf("worker %s at %d ms: %v", k, r.TimeMs, err))
		return
	}
	if dropped := g.sum.Merge(h); dropped > 0 {
		g.errs = append(g.errs, fmt.Sprintf("worker %s at %d ms: %d values outside the histogram's range", k, r.TimeMs, dropped))
	}
}

// result is the merged histogram, or nil with the reason it is not a
// measurement: nothing selected, no histogram sent, a histogram that could
// not be merged exactly, or no value recorded.
func (g *merger) result() (*hdrhistogram.Histogram, string) {
	switch {
	case g.reports == 0:
		return nil, "no report interval lies wholly inside the window"
	case g.sent == 0:
		return nil, "no worker sent " + g.field + " in the window"
	case len(g.errs) > 0:
		return nil, "histograms not merged exactly: " + g.errs[0]
	case g.sum.TotalCount() == 0:
		return nil, "no value recorded in " + g.field + " inside the window"
	}
	return g.sum, ""
}

// measureCPU sets NodeCPU, NodeUtil and Balance from the workers' process
// CPU; a worker that could not measure it makes the metric not measured.
func measureCPU(m *Measurement, in []*protocol.WorkerReport, capacity map[string]float64) {
	cpuSec := map[string]float64{} // CPU-seconds per node, in units of one core
	for _, r := range in {
		if r.Lacks(protocol.FieldWorkerCPU) {
			m.notMeasured(metricNodeCPU, fmt.Sprintf("worker %s:%d could not measure its process CPU", r.Host, r.Port))
			continue
		}
		cpuSec[r.Host] += r.WorkerCPUPercent / 100 * r.IntervalS
	}
	if len(in) == 0 {
		m.notMeasured(metricNodeCPU, "no report in the window")
	}
	nodes := make([]string, 0, len(capacity))
	for n := range capacity {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	var util []float64
	for _, n := range nodes {
		cpu := 0.0
		if m.WindowS > 0 {
			cpu = 100 * cpuSec[n] / m.WindowS
		}
		m.NodeCPU[n] = cpu
		if capacity[n] > 0 {
			m.NodeUtil[n] = 100 * cpu / capacity[n]
			util = append(util, m.NodeUtil[n])
		}
	}
	if len(util) > 0 {
		m.Balance, _ = stats.StandardDeviationPopulation(util)
	}
}

// measureTraffic sets the cut rate from the task-to-task counts.
func measureTraffic(m *Measurement, in []*protocol.WorkerReport, place Placement) {
	for _, r := range in {
		for _, t := range r.Traffic {
			a, okA := place[t.Src]
			b, okB := place[t.Dst]
			if !okA || !okB || t.Src == t.Dst {
				continue
			}
			m.Tuples += t.Count
			if a != b {
				m.CrossTuples += t.Count
			}
		}
	}
	if m.WindowS > 0 {
		m.InterNodeRate = float64(m.CrossTuples) / m.WindowS
	}
	if m.Tuples > 0 {
		m.CutRate = float64(m.CrossTuples) / float64(m.Tuples)
	} else {
		m.notMeasured(metricCutRate, "no tuples between placed tasks in the window")
	}
}

// measureDeadlines sets the end-to-end deadline metrics from sink tasks.
func measureDeadlines(m *Measurement, in []*protocol.WorkerReport) {
	qosSum, qosN := map[string]float64{}, map[string]int64{}
	var procSum, qosAll float64
	withDeadline := int64(0)
	for _, r := range in {
		for _, d := range r.Deadlines {
			if !d.Sink {
				continue
			}
			m.Deadlines += d.Count
			m.DeadlineMisses += d.Missed
			procSum += d.SumProcessingMs
			if d.DeadlineMs > 0 {
				withDeadline += d.Count
				qosAll += d.SumQoS
				qosSum[r.Host] += d.SumQoS
				qosN[r.Host] += d.Count
			}
		}
	}
	if m.Deadlines == 0 {
		m.notMeasured(metricDeadlines, "no sink task reported a tuple carrying T_start in the window")
		return
	}
	m.ProcessingMs = procSum / float64(m.Deadlines)
	if withDeadline == 0 {
		m.notMeasured(metricDeadlines, "the sinks' tuples carry T_start but the topology set no deadline for them")
		return
	}
	m.QoSRate = qosAll / float64(withDeadline)
	m.NodeQoS = map[string]float64{}
	for h, s := range qosSum {
		if qosN[h] > 0 {
			m.NodeQoS[h] = s / float64(qosN[h])
		}
	}
}

// measureMemory sets NodeMemoryMB: per worker the mean of its readings,
// summed per node.
func measureMemory(m *Measurement, in []*protocol.WorkerReport) {
	type acc struct {
		sum float64
		n   int
	}
	byWorker := map[workerKey]*acc{}
	for _, r := range in {
		if r.Lacks(protocol.FieldWorkerMemory) || r.WorkerMemoryMB <= 0 {
			continue
		}
		k := workerKey{r.Topology, r.Host, r.Port}
		if byWorker[k] == nil {
			byWorker[k] = &acc{}
		}
		byWorker[k].sum += r.WorkerMemoryMB
		byWorker[k].n++
	}
	if len(byWorker) == 0 {
		m.notMeasured(metricMemory, "no worker reported its memory in the window")
		return
	}
	m.NodeMemoryMB = map[string]float64{}
	for k, a := range byWorker {
		m.NodeMemoryMB[k.host] += a.sum / float64(a.n)
	}
}

// measureSizes sets TupleBytes from the sampled sizes of executed tuples.
func measureSizes(m *Measurement, in []*protocol.WorkerReport) {
	var samples, bytes int64
	for _, r := range in {
		if r.Lacks(protocol.FieldTupleSizes) {
			m.notMeasured(metricTupleSize, fmt.Sprintf("worker %s:%d could not serialize tuples for their size", r.Host, r.Port))
			return
		}
		for _, s := range r.TupleSizes {
			samples += s.InSamples
			bytes += s.InBytes
		}
	}
	if samples == 0 {
		m.notMeasured(metricTupleSize, "no tuple size sampled in the window")
		return
	}
	m.TupleBytes = float64(bytes) / float64(samples)
}

// Series splits [fromMs, toMs) into windows of stepMs and measures each,
// for the papers' time-series figures (e.g. every 10 s).
func Series(reports []protocol.WorkerReport, place Placement, capacity map[string]float64, fromMs, toMs, stepMs int64) []Measurement {
	var out []Measurement
	for t := fromMs; t+stepMs <= toMs; t += stepMs {
		out = append(out, Window(reports, place, capacity, t, t+stepMs))
	}
	return out
}
