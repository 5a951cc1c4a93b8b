package measure

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stormlab/stormlab/infra/protocol"
)

// SteadySpan re-judges the warm-up doubt of a timed run whose figures an experiment takes over
// [fromMs, toMs] only, not over the whole window (kpart-cluster judges the second half, after the
// dynamic schedulers' first reschedule): then whether that span was steady matters, not how the window
// opened. A steady span drops the run's "unsteady" reason; an unsteady one replaces it with one that
// names what the span measured. Other reasons are kept. Open loop (the spouts reported a schedule in
// the span) it is judged by openSteady, closed loop by closedSteady.
func SteadySpan(v Validity, reports []protocol.WorkerReport, place Placement, capacity map[string]float64, fromMs, toMs int64) Validity {
	steadyNow, why := span{reports, place, capacity}.steady(fromMs, toMs)
	var keep []Reason
	for _, x := range v.Reasons {
		if x.Kind != ReasonUnsteady {
			keep = append(keep, x)
		}
	}
	if !steadyNow {
		keep = append(keep, Reason{ReasonUnsteady, Suspect, fmt.Sprintf("the %.0f s judged were not steady (%s)", float64(toMs-fromMs)/1000, why)})
	}
	return Validity{Level: Valid}.merge(keep...)
}

// SpanSteadiness is a span judged by SteadySpan's rules: whether it was steady and what was measured
// (with what failed, when it was not).
type SpanSteadiness struct {
	Steady bool
	Why    string
}

// WarmUpWindow judges the whole window [fromMs, toMs] of a timed run whose warm-up ended at its
// maximum by SteadySpan's rules (Records.Window); nil for any other run, or one without reports to
// judge it from. Steadiness needs throughput and latency only, so no capacities are asked.
func WarmUpWindow(timed bool, w WarmUp, reports []protocol.WorkerReport, place Placement, fromMs, toMs int64) *SpanSteadiness {
	if !w.atMaximum(timed) || len(reports) == 0 || toMs <= fromMs {
		return nil
	}
	steady, why := span{reports, place, nil}.steady(fromMs, toMs)
	return &SpanSteadiness{Steady: steady, Why: why}
}

// span is a run's reports with its placement and the supervisors' capacities: what a part of its
// window is measured from.
type span struct {
	reports  []protocol.WorkerReport
	place    Placement
	capacity map[string]float64
}

// window measures [fromMs, toMs] of the run.
func (s span) window(fromMs, toMs int64) Measurement {
	return Window(s.reports, s.place, s.capacity, fromMs, toMs)
}

// steady judges [fromMs, toMs] by SteadySpan's rules and says what it measured.
func (s span) steady(fromMs, toMs int64) (bool, string) {
	if m := s.window(fromMs, toMs); m.OpenLoop != nil && m.OpenLoop.OfferedRate > 0 {
		return s.openSteady(m, fromMs, toMs)
	}
	return s.closedSteady(fromMs, toMs)
}

// openSteady: the offered rate is fixed by construction, so the span is steady when no backlog built
// up or drained in it: its acked rate within 10% of its offered rate (the warm-up's drained rule), and
// its latency p50 from the intended send time flat (latencyFlat). The parts' acked rates are not
// compared: acks of a constant offered load land in report intervals with the jitter of their latency,
// so parts of a few report intervals swing by more than 10% with nothing unsteady (docs/results-log.md,
// kpart-cluster open loop). The acked rate alone lets a run through that drains a backlog a little
// faster than the offered rate (one online run acked 8% above it with seconds of latency). A backlog
// that builds or drains moves the latency by its size over the rate (5% of the rate over 7.5 s:
// 375 ms); the send lag alone, the capacity search's trend, misses a backlog queued past the spout.
func (s span) openSteady(m Measurement, fromMs, toMs int64) (bool, string) {
	offered := m.OpenLoop.OfferedRate
	rates := fmt.Sprintf("acked %.0f of the %.0f tuples/s offered", m.Throughput, offered)
	if !drained([]float64{m.Throughput}, offered, steadyTolerance) {
		return false, rates
	}
	mid := fromMs + (toMs-fromMs)/2
	flat, lat := latencyFlat(s.window(fromMs, mid).OpenLoop, s.window(mid, toMs).OpenLoop)
	return flat, rates + "; " + lat
}

// closedSteady: at saturation nothing fixes the rate, so the span is steady when
//   - no worker started in it (a restart or a migration, which need not make a linear trend),
//   - no part of it fell below 80% of the parts' mean (a dip or a collapse), and
//   - its acked rate has no trend: a line fitted over its parts changes by at most 10% of their mean
//     over the span, or its slope is not significant (trend).
//
// A range rule (max - min <= 10% of the mean, the warm-up's) is not used: the parts' acked rates swing
// with the acks' jitter, without a direction, and it read most kpart-cluster quick runs as unsteady
// (docs/results-log.md), while a ramp or a decline runs one way through every part.
func (s span) closedSteady(fromMs, toMs int64) (bool, string) {
	if at, ok := s.workerStarted(fromMs, toMs); ok {
		return false, fmt.Sprintf("a worker started %.0f s into it", float64(at-fromMs)/1000)
	}
	n := trendParts(s.reports, toMs-fromMs)
	if n < minJudgedParts {
		return false, fmt.Sprintf("%.0f s, too short to judge: fewer than %d report intervals", float64(toMs-fromMs)/1000, minJudgedParts)
	}
	rates := partRates(s.reports, fromMs, toMs, n)
	mean := stat.Mean(rates, nil)
	text := fmt.Sprintf("acked rates of its %d parts %s tuples/s", n, ratesText(rates))
	switch change, significant := trend(rates); {
	case mean <= 0:
		return false, text + ": nothing acked"
	case slices.Min(rates) < (1-2*steadyTolerance)*mean:
		return false, fmt.Sprintf("%s: a part below %.0f%% of their mean", text, 100*(1-2*steadyTolerance))
	case significant && math.Abs(change) > steadyTolerance:
		return false, fmt.Sprintf("%s: a significant trend of %+.0f%% over the span", text, 100*change)
	}
	return true, text
}

// workerStarted reports the first start of a worker incarnation inside [fromMs, toMs]: a restart or a
// migration, the transient the span must not hold.
func (s span) workerStarted(fromMs, toMs int64) (int64, bool) {
	first, ok := int64(0), false
	for _, rep := range s.reports {
		if s := rep.WorkerStartMs; s > fromMs && s <= toMs && (!ok || s < first) {
			first, ok = s, true
		}
	}
	return first, ok
}

// Parts of a closed-loop span for its trend: two report intervals each, between minTrendParts (fewer
// leave Student's t little power: with 3 parts a 30% monotone decline is not significant) and
// maxTrendParts, but none shorter than one interval (partRates reads a part from the readings around
// it, so a shorter one only repeats its neighbours); a span too short for minJudgedParts of one interval
// is not judged.
const (
	minTrendParts  = 5
	maxTrendParts  = 10
	minJudgedParts = 3
)

// trendParts is how many equal parts a closed-loop span of spanMs is cut into (see minTrendParts).
func trendParts(reports []protocol.WorkerReport, spanMs int64) int64 {
	interval := 0.0
	for _, rep := range reports {
		interval = max(interval, rep.IntervalS)
	}
	if interval <= 0 {
		return minTrendParts
	}
	spanS := float64(spanMs) / 1000
	return min(maxTrendParts, max(minTrendParts, int64(spanS/(2*interval))), int64(spanS/interval))
}

// partRates is the acked rate of each of n equal parts of [fromMs, toMs], summed over the workers: each
// worker's acked total is read at the parts' bounds by linear interpolation between its counter
// readings, so a part holding one reading of a worker, or none, reads its share of the intervals
// around it, not nothing (Window rates a worker only from two readings inside its span). The readings
// are those of the incarnation the span runs in (no worker starts inside it: closedSteady); a bound
// past them reads the nearest.
func partRates(reports []protocol.WorkerReport, fromMs, toMs, n int64) []float64 {
	rates := make([]float64, n)
	keys, byWorker := reportsByWorker(reports)
	for _, k := range keys {
		var pts []reading
		for _, seg := range segments(byWorker[k]) {
			if seg[0].t <= fromMs {
				pts = seg
			}
		}
		if len(pts) == 0 {
			continue
		}
		for i := range n {
			a, b := fromMs+i*(toMs-fromMs)/n, fromMs+(i+1)*(toMs-fromMs)/n
			rates[i] += (ackedAt(pts, b) - ackedAt(pts, a)) / (float64(b-a) / 1000)
		}
	}
	return rates
}

// ackedAt is the acked total at t, linear between the readings around it (pts sorted by time), the
// nearest reading's outside them.
func ackedAt(pts []reading, t int64) float64 {
	i := sort.Search(len(pts), func(i int) bool { return pts[i].t >= t })
	switch {
	case i == 0:
		return float64(pts[0].acked)
	case i == len(pts):
		return float64(pts[len(pts)-1].acked)
	}
	p, q := pts[i-1], pts[i]
	return float64(p.acked) + float64(q.acked-p.acked)*float64(t-p.t)/float64(q.t-p.t)
}

// trend fits the rates by least squares over their index and returns the fitted change over the whole
// span (n parts: slope times n) as a fraction of the mean, and whether the slope is significant
// (two-sided, 5%, Student's t with n-2 degrees of freedom). Fewer than 3 rates, or a mean <= 0, give no
// trend.
func trend(rates []float64) (change float64, significant bool) {
	n := len(rates)
	mean := stat.Mean(rates, nil)
	if n < 3 || !(mean > 0) {
		return 0, false
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	alpha, beta := stat.LinearRegression(xs, rates, nil, false)
	var ssr, sxx float64
	xm := float64(n-1) / 2
	for i, y := range rates {
		e := y - (alpha + beta*xs[i])
		ssr += e * e
		sxx += (xs[i] - xm) * (xs[i] - xm)
	}
	se := math.Sqrt(ssr / float64(n-2) / sxx)
	tCrit := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}.Quantile(0.975)
	return beta * float64(n) / mean, beta != 0 && math.Abs(beta) > tCrit*se
}

// latencyDriftMs and latencyDriftRel bound how far the latency p50 from the intended send time may move
// between the halves of an open-loop span: 100 ms, or 25% of the lower half's p50 when that is more (a cluster whose tuples
// take a second on throttled CPU quotas jitters by more than 100 ms with nothing building up).
const (
	latencyDriftMs  = 100
	latencyDriftRel = 0.25
)

// latencyFlat reports whether the p50 latency from the intended send time of b (a span's second half)
// is within latencyDriftMs (or latencyDriftRel) of a's (its first half), and says what it measured.
func latencyFlat(a, b *OpenLoop) (bool, string) {
	if a == nil || b == nil || a.IntendedCount == 0 || b.IntendedCount == 0 {
		return false, "no latency from the intended send time in one of its halves"
	}
	bound := max(latencyDriftMs, latencyDriftRel*min(a.IntendedP50, b.IntendedP50))
	text := fmt.Sprintf("latency p50 from the intended send time %.0f then %.0f ms", a.IntendedP50, b.IntendedP50)
	return math.Abs(b.IntendedP50-a.IntendedP50) <= bound, text
}
