package measure

import (
	"fmt"
	"math"

	"github.com/stormlab/stormlab/infra/protocol"
)

// The latency cross-check's tolerance comes from how far the two means can differ with neither side
// wrong (docs/statistics.md, "Tolerance of the latency cross-check"):
//
//   - Storm's sampling: none. Every run the harness measures latency in carries the instrumentation,
//     which sets topology.stats.sample.rate 1.0, so Storm's mean is over every acked tuple.
//   - Rounding: none on Storm's side (per tuple both sides hold the acker's whole-millisecond delta;
//     LatencyStat keeps their exact sum and count, and the stormlab UI passes its mean as a double);
//     the harness's histograms hold 3 significant digits, a mean within 2^-11 of itself.
//   - The window's edges: the matched span (stormSpan) and Storm's readings can still disagree by up
//     to one report interval at each end (measured: over the matched span, runs one interval short of
//     Storm's count). The tuples of that interval count on one side only; how far their mean lies
//     from the span's is read from the run's own reports: at each end, per worker, the report near
//     the end whose tuples pull the mean furthest (count x distance of its mean from the span's), plus
//     three standard errors of a random sliver of that many tuples.
//
// A run is suspect on latency only where the means differ by more than the sum.

// latencyEdgeZ is how many standard errors of the edge tuples' mean the tolerance allows: three, a
// one-sided 0.13% chance under normality that chance alone marks a run suspect.
const latencyEdgeZ = 3

// histResolution is the relative resolution of a mean from HdrHistograms with 3 significant digits.
var histResolution = math.Pow(2, -11)

// latencyBlock is one worker report's share of the complete latency: its interval, count, mean and
// the sum of squared deviations about that mean.
type latencyBlock struct {
	worker     workerKey
	begin, end int64 // ms: (end - interval, end]
	n          float64
	mean, ss   float64
}

// latencyBlocks decodes the reports' latency histograms; reports without one (or an undecodable one)
// add nothing.
func latencyBlocks(reports []protocol.WorkerReport) []latencyBlock {
	var out []latencyBlock
	for _, r := range reports {
		if r.LatencyHist == "" {
			continue
		}
		h, err := protocol.DecodeHistogram(r.LatencyHist, protocol.LatencyHistHighest)
		if err != nil || h.TotalCount() == 0 {
			continue
		}
		n := float64(h.TotalCount())
		sd := h.StdDev()
		out = append(out, latencyBlock{worker: workerKey{r.Topology, r.Host, r.Port}, begin: r.TimeMs - int64(r.IntervalS*1000), end: r.TimeMs,
			n: n, mean: h.Mean(), ss: sd * sd * n})
	}
	return out
}

// latencyToleranceMs is how far (ms) the harness's mean over [fromMs, toMs] (mean over n tuples) and
// Storm's may differ by the window's edges and the histograms' resolution alone. edges are the times
// Storm's two readings were sent (stormSpan's ends less its widening). ok is false when the reports
// hold no latency inside the span.
func latencyToleranceMs(reports []protocol.WorkerReport, fromMs, toMs int64, edges [2]int64, mean float64, n int64) (tol float64, ok bool) {
	blocks := latencyBlocks(reports)
	var inN, inSS float64
	for _, b := range blocks {
		if b.begin >= fromMs && b.end <= toMs {
			inN += b.n
			inSS += b.ss + b.n*(b.mean-mean)*(b.mean-mean)
		}
	}
	if inN == 0 || n <= 0 {
		return 0, false
	}
	sd := math.Sqrt(inSS / inN) // per-tuple spread over the span, within and between reports
	var pull, sliver float64
	for _, at := range edges {
		p, k := edgePull(blocks, at, mean)
		pull += p
		sliver += k
	}
	edge := pull/float64(n) + latencyEdgeZ*sd*math.Sqrt(sliver)/float64(n)
	return edge + mean*histResolution, true
}

// edgePull is, summed over workers, the largest count x |report mean - mean| among a worker's reports
// whose interval's middle lies within one interval of at (where Storm's counting starts or ends), and the counts of those
// reports (the tuples that may lie on one side of the comparison only).
func edgePull(blocks []latencyBlock, at int64, mean float64) (pull, count float64) {
	type best struct{ pull, n float64 }
	byWorker := map[workerKey]best{}
	for _, b := range blocks {
		iv := b.end - b.begin
		if mid := (b.begin + b.end) / 2; mid < at-iv || mid > at+iv {
			continue
		}
		p := b.n * math.Abs(b.mean-mean)
		if cur, seen := byWorker[b.worker]; !seen || p > cur.pull || p == cur.pull && b.n > cur.n {
			byWorker[b.worker] = best{p, b.n}
		}
	}
	for _, b := range byWorker {
		pull += b.pull
		count += b.n
	}
	return pull, count
}

// latencyReason is the text of a latency disagreement beyond its tolerance.
func (c StormCheck) latencyReason() string {
	if c.LatencyTolerance > 0 {
		return fmt.Sprintf("disagrees with Storm's statistics beyond what the window's edges and the histograms' resolution allow (%.1f%%): mean complete latency %.2f ms vs Storm's %.2f ms (%.1f%% apart)",
			100*c.LatencyTolerance, c.OurLatencyMs, c.CompleteLatencyMs, 100*c.LatencyDiff)
	}
	return fmt.Sprintf("disagrees with Storm's statistics beyond %.0f%% (the window's latency; no reports to bound its edges): mean complete latency %.2f ms vs Storm's %.2f ms (%.1f%% apart)",
		100*stormTolerance, c.OurLatencyMs, c.CompleteLatencyMs, 100*c.LatencyDiff)
}

// latencyLimit is the relative latency difference beyond which the run is suspect: the tolerance
// from the run's reports, else (no reports over Storm's span, or a check read back from a run.json
// without its readings) stormTolerance.
func (c StormCheck) latencyLimit() float64 {
	if c.LatencyTolerance > 0 {
		return c.LatencyTolerance
	}
	return stormTolerance
}
