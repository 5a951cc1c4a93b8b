package measure

import (
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stormlab/stormlab/infra/protocol"
)

// metricOpenLoop names the open-loop measurement (OpenLoop) in
// Measurement.Measured and NotMeasured; it appears only in runs whose
// spouts ran open loop (topology flag --rate).
const metricOpenLoop = "open_loop"

// OpenLoop is what an open-loop run measured in the window besides the
// closed-loop metrics: the complete latency from each tuple's intended
// send time (its schedule's, not its actual emit: the correction for
// coordinated omission), the send lag (actual emit minus intended send
// time), and the offered and achieved (emitted) rates of the spouts. The
// complete latency from the actual emit stays in Measurement.Latency*.
// Latencies in ms, rates in tuples/s.
type OpenLoop struct {
	IntendedCount int64   `json:"latency_intended_count"`
	IntendedP50   float64 `json:"latency_intended_p50_ms"`
	IntendedP99   float64 `json:"latency_intended_p99_ms"`
	IntendedMax   float64 `json:"latency_intended_max_ms"`
	SendLagCount  int64   `json:"send_lag_count"`
	SendLagP50    float64 `json:"send_lag_p50_ms"`
	SendLagP99    float64 `json:"send_lag_p99_ms"`
	SendLagMax    float64 `json:"send_lag_max_ms"`
	// Offered and Emitted count the tuples the spouts' schedules made due
	// and the tuples they emitted between each worker's first and last
	// counter reading in the window; the rates divide by that time and
	// sum over workers, as Measurement.Throughput does for acks.
	Offered     int64   `json:"offered"`
	Emitted     int64   `json:"emitted"`
	OfferedRate float64 `json:"offered_rate"`
	EmittedRate float64 `json:"achieved_rate"`
}

// measureOpenLoop sets m.OpenLoop from the open-loop fields of the reports
// (nothing when no report has them: a closed-loop run is left as it was).
// Histograms are merged from the same reports as the complete latency's
// (whole interval inside the window), exactly.
func measureOpenLoop(m *Measurement, reports []protocol.WorkerReport, fromMs, toMs int64) {
	ol, why := mergeOpenLoop(reports, fromMs, toMs)
	switch {
	case ol != nil:
		m.OpenLoop = ol
		m.Measured = append(m.Measured, metricOpenLoop)
	case why != "":
		m.notMeasured(metricOpenLoop, why)
	}
}

// OpenLoopMissing is why m has no open-loop measurement: the workers' reason, or that no spout reported
// open-loop load (a closed-loop run); "" when m has one.
func (m Measurement) OpenLoopMissing() string {
	if m.OpenLoop != nil {
		return ""
	}
	if why := m.NotMeasured[metricOpenLoop]; why != "" {
		return why
	}
	return "the spouts reported no open-loop load (did the topology get --rate?)"
}

// isOpenLoop reports whether a worker report carries open-loop fields.
func isOpenLoop(r *protocol.WorkerReport) bool {
	return len(r.SpoutLoad) > 0 || r.LatencyIntendedHist != "" || r.SendLagHist != ""
}

// mergeOpenLoop folds the open-loop fields of the reports in [fromMs,
// toMs]. It returns nil and "" when no report is open loop, nil and the
// reason when the open-loop metrics could not be measured.
func mergeOpenLoop(reports []protocol.WorkerReport, fromMs, toMs int64) (*OpenLoop, string) {
	byWorker := map[workerKey][]*protocol.WorkerReport{}
	any := false
	for i := range reports {
		r := &reports[i]
		any = any || isOpenLoop(r)
		k := workerKey{r.Topology, r.Host, r.Port}
		byWorker[k] = append(byWorker[k], r)
	}
	if !any {
		return nil, ""
	}
	intended := newMerger(protocol.LatencyHistHighest, protocol.FieldLatencyIntendedHist)
	lag := newMerger(protocol.LatencyHistHighest, protocol.FieldSendLagHist)
	ol := &OpenLoop{}
	for k, rs := range byWorker {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].TimeMs < rs[j].TimeMs })
		if !slicesAny(rs, isOpenLoop) {
			continue // a worker without spout tasks
		}
		var offered, emitted, spanMs int64
		for _, seg := range segments(rs) {
			var pts []reading
			for _, p := range seg {
				if p.t >= fromMs && p.t <= toMs {
					pts = append(pts, p)
				}
			}
			for _, p := range pts {
				if p.r != nil && p.intervalBegins >= fromMs {
					intended.add(k, p.r, p.r.LatencyIntendedHist)
					lag.add(k, p.r, p.r.SendLagHist)
				}
			}
			if len(pts) < 2 {
				continue
			}
			o0, e0 := loadTotals(pts[0].r)
			o1, e1 := loadTotals(pts[len(pts)-1].r)
			offered += o1 - o0
			emitted += e1 - e0
			spanMs += pts[len(pts)-1].t - pts[0].t
		}
		ol.Offered += offered
		ol.Emitted += emitted
		if spanMs > 0 {
			ol.OfferedRate += float64(offered) / (float64(spanMs) / 1000)
			ol.EmittedRate += float64(emitted) / (float64(spanMs) / 1000)
		}
	}
	hi, why := intended.result()
	if hi == nil {
		return nil, "latency from the intended send time: " + why
	}
	hl, why := lag.result()
	if hl == nil {
		return nil, "send lag: " + why
	}
	ol.IntendedCount, ol.IntendedP50, ol.IntendedP99, ol.IntendedMax = quantiles(hi)
	ol.SendLagCount, ol.SendLagP50, ol.SendLagP99, ol.SendLagMax = quantiles(hl)
	return ol, ""
}

// loadTotals sums a report's offered and emitted totals over its spout
// tasks; a segment's start (nil) has both at 0.
func loadTotals(r *protocol.WorkerReport) (offered, emitted int64) {
	if r == nil {
		return 0, 0
	}
	for _, s := range r.SpoutLoad {
		offered += s.OfferedTotal
		emitted += s.EmittedTotal
	}
	return offered, emitted
}

// quantiles are a histogram's count, p50, p99 and max.
func quantiles(h *hdrhistogram.Histogram) (n int64, p50, p99, hi float64) {
	return h.TotalCount(), float64(h.ValueAtQuantile(50)), float64(h.ValueAtQuantile(99)), float64(h.Max())
}

func slicesAny(rs []*protocol.WorkerReport, f func(*protocol.WorkerReport) bool) bool {
	for _, r := range rs {
		if f(r) {
			return true
		}
	}
	return false
}
