package harness

import (
	"math"
	"sort"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/infra/protocol"
)

// Placement is where each task ran, read from Nimbus: task id -> node
// (supervisor host name). Tasks of system components are left out, so
// traffic to ackers and metrics tasks does not count towards the cut rate.
type Placement map[int]string

// Measurement is what one run (or one window of it) measured.
type Measurement struct {
	WindowS    float64 `json:"window_s"`
	Acked      int64   `json:"acked"`
	Failed     int64   `json:"failed"`
	Throughput float64 `json:"throughput"` // acked tuples/s

	LatencyMean float64 `json:"latency_mean_ms"` // complete latency
	LatencyP50  float64 `json:"latency_p50_ms"`
	LatencyP95  float64 `json:"latency_p95_ms"`
	LatencyP99  float64 `json:"latency_p99_ms"`

	NodeCPU  map[string]float64 `json:"node_cpu"`  // mean CPU, percent of one core
	NodeUtil map[string]float64 `json:"node_util"` // mean CPU, percent of the node's capacity
	Balance  float64            `json:"balance"`   // population std dev of NodeUtil over all nodes

	Tuples        int64   `json:"tuples"`          // tuples between placed tasks
	CrossTuples   int64   `json:"cross_tuples"`    // of those, between different nodes
	CutRate       float64 `json:"cut_rate"`        // CrossTuples / Tuples
	InterNodeRate float64 `json:"inter_node_rate"` // CrossTuples per second

	Deadlines      int64              `json:"deadline_tuples"`
	DeadlineMisses int64              `json:"deadline_misses"`
	ProcessingMs   float64            `json:"processing_ms"` // mean processing time of deadline tuples
	QoSRate        float64            `json:"qos_rate"`      // mean processing time / deadline
	NodeQoS        map[string]float64 `json:"node_qos,omitempty"`
}

// Measure folds the reports received in [fromMs, toMs) into a Measurement.
// capacity maps every node to its CPU capacity (percent, 100 = one core);
// nodes without reports count as idle, which is what balance must see.
func Measure(reports []protocol.WorkerReport, place Placement, capacity map[string]float64, fromMs, toMs int64) Measurement {
	m := Measurement{WindowS: float64(toMs-fromMs) / 1000, NodeCPU: map[string]float64{}, NodeUtil: map[string]float64{}}
	var lat []float64
	cpuSec := map[string]float64{} // CPU-seconds per node, in units of one core
	qosSum, qosN := map[string]float64{}, map[string]int64{}
	var procSum, qosAll float64
	for _, r := range reports {
		if r.TimeMs < fromMs || r.TimeMs >= toMs {
			continue
		}
		m.Acked += r.Acked
		m.Failed += r.Failed
		lat = append(lat, r.CompleteLatencyMs...)
		cpuSec[r.Host] += r.WorkerCPUPercent / 100 * r.IntervalS
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
		for _, d := range r.Deadlines {
			m.Deadlines += d.Count
			m.DeadlineMisses += d.Missed
			procSum += d.SumProcessingMs
			qosAll += d.SumQoS
			qosSum[r.Host] += d.SumQoS
			qosN[r.Host] += d.Count
		}
	}
	if m.WindowS > 0 {
		m.Throughput = float64(m.Acked) / m.WindowS
		m.InterNodeRate = float64(m.CrossTuples) / m.WindowS
	}
	if m.Tuples > 0 {
		m.CutRate = float64(m.CrossTuples) / float64(m.Tuples)
	}
	if len(lat) > 0 {
		m.LatencyMean, _ = stats.Mean(lat)
		m.LatencyP50, _ = stats.Percentile(lat, 50)
		m.LatencyP95, _ = stats.Percentile(lat, 95)
		m.LatencyP99, _ = stats.Percentile(lat, 99)
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
	if m.Deadlines > 0 {
		m.ProcessingMs = procSum / float64(m.Deadlines)
		m.QoSRate = qosAll / float64(m.Deadlines)
		m.NodeQoS = map[string]float64{}
		for h, s := range qosSum {
			if qosN[h] > 0 {
				m.NodeQoS[h] = s / float64(qosN[h])
			}
		}
	}
	for _, v := range []*float64{&m.LatencyMean, &m.LatencyP50, &m.LatencyP95, &m.LatencyP99} {
		if math.IsNaN(*v) {
			*v = 0
		}
	}
	return m
}

// Series splits [fromMs, toMs) into windows of stepMs and measures each,
// for the papers' time-series figures (e.g. every 10 s).
func Series(reports []protocol.WorkerReport, place Placement, capacity map[string]float64, fromMs, toMs, stepMs int64) []Measurement {
	var out []Measurement
	for t := fromMs; t+stepMs <= toMs; t += stepMs {
		out = append(out, Measure(reports, place, capacity, t, t+stepMs))
	}
	return out
}
