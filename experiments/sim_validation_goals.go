package experiments

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/reports"
)

// svSource is where the validation goals are stated.
const svSource = "stormlab's simulator, its validation goals (docs/simulator.md)"

// svMinCells is the fewest cells a goal holds on: a share or a median over fewer says little.
const svMinCells = 3

// simValClaims judges the simulator's validation goals over the cells (a configuration under one
// scheduler) that have at least 2 real runs and a simulated one. Each goal is a stated acceptance
// rule on the observed figure (a share, a mean or a median over cells), checked as a predicate: it
// holds when the figure meets the goal on at least svMinCells cells, does not hold when it misses,
// and is inconclusive on fewer cells.
func simValClaims(r *lab.Results, _ *lab.Aggregate) []lab.Claim {
	cells := valCells(r)
	return []lab.Claim{
		svInside(cells),
		svMAPE(cells),
		svMedianErr(cells, "latency_p50_ms", 0.20),
		svMedianErr(cells, "latency_p99_ms", 0.30),
		svSpread(cells),
		svDecisions(cells),
		svBeats(cells, "throughput"),
		svBeats(cells, "latency_mean_ms"),
	}
}

// comparable are the cells' errors on metric where a goal can read them: 2 real runs and a simulated one.
func comparable(cells []valCell, metric string) (errs []valError, names []string) {
	for _, c := range cells {
		if e := c.errorOf(metric); e.N >= 2 && e.M >= 1 && !math.IsNaN(e.SimErr) {
			errs = append(errs, e)
			names = append(names, fmt.Sprintf("c%d %s", c.Config, c.Scheduler))
		}
	}
	return errs, names
}

func svClaim(statement, evidence string, check reports.Check) lab.Claim {
	return lab.Claim{Statement: statement, Source: svSource, Kind: lab.ProjectClaim, Evidence: evidence, Checks: []reports.Check{check}}
}

func svInside(cells []valCell) lab.Claim {
	errs, names := comparable(cells, "throughput")
	var out []string
	for i, e := range errs {
		if !e.Inside {
			out = append(out, fmt.Sprintf("%s (%.0f against %.0f to %.0f)", names[i], e.SimMean, e.PILo, e.PIHi))
		}
	}
	share := 1 - float64(len(out))/float64(max(1, len(errs)))
	ev := fmt.Sprintf("%d of %d cells inside (%.0f%%)", len(errs)-len(out), len(errs), 100*share)
	if len(out) > 0 {
		ev += "; outside: " + strings.Join(out, ", ")
	}
	return svClaim("the simulated mean throughput lies inside the real runs' 95% prediction interval in at least 80% of the cells", ev,
		reports.ExactCheck("share of cells inside >= 0.8", "share >= 0.8 over cells", share >= 0.8, len(errs), svMinCells, ev))
}

// svMAPE: throughput's mean absolute percentage error within max(10%, twice the real runs' median CV).
func svMAPE(cells []valCell) lab.Claim {
	errs, names := comparable(cells, "throughput")
	mape, cv := meanAbs(errs), medianCV(errs)
	bound := math.Max(0.10, 2*cv)
	ev := fmt.Sprintf("MAPE %s over %d cells, bound %.1f%% (the real runs' median CV %s)%s", svPct(mape), len(errs), 100*bound, svPct(cv), worse(errs, names, bound, cpuWhy(cells)))
	return svClaim("the simulator's throughput error (MAPE) is at most max(10%, twice the real runs' coefficient of variation)", ev,
		reports.ExactCheck("throughput MAPE <= bound", "MAPE over cells <= max(0.10, 2 x median CV)", mape <= bound, len(errs), svMinCells, ev))
}

// svMedianErr: a latency percentile's median absolute error within max(goal, twice the median CV).
func svMedianErr(cells []valCell, metric string, goal float64) lab.Claim {
	errs, names := comparable(cells, metric)
	var abs []float64
	for _, e := range errs {
		abs = append(abs, math.Abs(e.SimErr))
	}
	med := median(abs)
	cv := medianCV(errs)
	bound := math.Max(goal, 2*cv)
	ev := fmt.Sprintf("median absolute error %s over %d cells, bound %.0f%% (the real runs' median CV %s)%s", svPct(med), len(errs), 100*bound, svPct(cv), worse(errs, names, bound, inFlightWhy(cells)))
	return svClaim(fmt.Sprintf("the simulated %s is within %.0f%% of the real one (median over cells; or twice the real CV where that is larger)", svLabel(metric), 100*goal), ev,
		reports.ExactCheck(metric+" median |error| <= bound", fmt.Sprintf("median |error| over cells <= max(%.2f, 2 x median CV)", goal), med <= bound, len(errs), svMinCells, ev))
}

// svSpread: the simulated runs' spread within a factor of 2 of the real runs' (median over cells). An
// open-loop cell whose real runs carried their offered load (carried) is left out: its throughput is
// that load in every run, real or simulated, and the ratio of what is left (counting noise of a few
// tuples a second against none) says nothing of how the model's runs vary.
func svSpread(cells []valCell) lab.Claim {
	var ratios []float64
	left := 0
	for _, c := range cells {
		e := c.errorOf("throughput")
		if e.N < 2 || e.M < 2 || math.IsNaN(e.SpreadRate) {
			continue
		}
		if carried(c.Offered, e.RealMean) {
			left++
			continue
		}
		ratios = append(ratios, e.SpreadRate)
	}
	med := median(ratios)
	ev := fmt.Sprintf("simulated / real standard deviation of throughput: median %.2f over %d cells (%d open-loop cells that carried their offered load left out)", med, len(ratios), left)
	return svClaim("the simulated repetitions spread as the real ones do: their standard deviation within a factor of 2 of the real runs' (median over cells whose throughput is not their offered load)", ev,
		reports.ExactCheck("median SD ratio in [0.5, 2]", "median over cells of SD_sim / SD_real in [0.5, 2], open-loop cells whose real mean is within 2% of their offered rate left out", med >= 0.5 && med <= 2, len(ratios), svMinCells, ev))
}

// offeredRate reads the open-loop rate at the end of a cell's offered load ("... open loop at 468.09
// tuples/s", "... open loop at 50% of capacity: 663 tuples/s"); false for a closed loop.
var offeredRate = regexp.MustCompile(`open loop at .*?([0-9.]+) tuples/s$`)

// carried says whether an open-loop cell's real runs carried its offered rate: their mean within 2%.
func carried(offered string, realMean float64) bool {
	m := offeredRate.FindStringSubmatch(offered)
	if m == nil {
		return false
	}
	rate, err := strconv.ParseFloat(m[1], 64)
	return err == nil && rate > 0 && math.Abs(realMean-rate) <= 0.02*rate
}

// svDecisions: where the real runs of a configuration tell two schedulers apart (Welch, two-sided
// p < 0.05, on throughput or mean latency), the simulator orders them the same way in >= 90% of pairs.
func svDecisions(cells []valCell) lab.Claim {
	agree, pairs, against := 0, 0, []string(nil)
	for i, a := range cells {
		for _, b := range cells[i+1:] {
			if a.Config != b.Config {
				continue
			}
			for _, m := range []string{"throughput", "latency_mean_ms"} {
				dir, ok := realDirection(a.of(svReal, m), b.of(svReal, m))
				sa, sb := a.of(svSim, m), b.of(svSim, m)
				if !ok || len(sa) == 0 || len(sb) == 0 {
					continue
				}
				pairs++
				if math.Signbit(mean(sa)-mean(sb)) == math.Signbit(dir) {
					agree++
				} else {
					against = append(against, fmt.Sprintf("c%d %s vs %s (%s)", a.Config, a.Scheduler, b.Scheduler, m))
				}
			}
		}
	}
	share := float64(agree) / float64(max(1, pairs))
	ev := fmt.Sprintf("%d of %d pairs the real runs tell apart ordered alike (%.0f%%)", agree, pairs, 100*share)
	if len(against) > 0 {
		ev += "; reversed: " + strings.Join(against, ", ")
	}
	return svClaim("where the real runs tell two schedulers apart, the simulator orders them the same way in at least 90% of the pairs", ev,
		reports.ExactCheck("share of pairs ordered alike >= 0.9", "share >= 0.9 over pairs told apart (Welch two-sided p < 0.05)", share >= 0.9, pairs, svMinCells, ev))
}

// realDirection is the sign of mean(a) - mean(b) when Welch's test tells them apart.
func realDirection(a, b []float64) (float64, bool) {
	w, err := reports.Welch(a, b)
	if err != nil || !(w.PTwoSided < 0.05) {
		return 0, false
	}
	return w.MeanA - w.MeanB, true
}

// svBeats: the simulator's MAPE on metric below the analytic baseline's, over the cells that have both.
func svBeats(cells []valCell, metric string) lab.Claim {
	var se, ae []float64
	for _, c := range cells {
		if e := c.errorOf(metric); e.N >= 2 && !math.IsNaN(e.SimErr) && !math.IsNaN(e.AnaErr) {
			se, ae = append(se, math.Abs(e.SimErr)), append(ae, math.Abs(e.AnaErr))
		}
	}
	s, a := mean(se), mean(ae)
	ev := fmt.Sprintf("%s MAPE: simulator %s, analytic Jackson network %s, over %d cells", metric, svPct(s), svPct(a), len(se))
	return svClaim(fmt.Sprintf("the simulator predicts the %s better than a plain analytic queueing model of the same costs (lower MAPE)", svLabel(metric)), ev,
		reports.ExactCheck(metric+": simulator MAPE < analytic MAPE", "MAPE_sim < MAPE_analytic over cells with both", s < a, len(se), svMinCells, ev))
}

func meanAbs(errs []valError) float64 {
	var abs []float64
	for _, e := range errs {
		abs = append(abs, math.Abs(e.SimErr))
	}
	return mean(abs)
}

func medianCV(errs []valError) float64 {
	var cvs []float64
	for _, e := range errs {
		if !math.IsNaN(e.RealCV) {
			cvs = append(cvs, e.RealCV)
		}
	}
	return median(cvs)
}

// median of xs; NaN when empty.
func median(xs []float64) float64 {
	m, err := stats.Median(slices.Clone(xs))
	if err != nil {
		return math.NaN()
	}
	return m
}

// worse lists the cells whose error is more than twice bound: each needs a stated reason, why[name]
// where one was measured.
func worse(errs []valError, names []string, bound float64, why map[string]string) string {
	var out []string
	for i, e := range errs {
		if math.Abs(e.SimErr) > 2*bound {
			out = append(out, fmt.Sprintf("%s %+.0f%%%s", names[i], 100*e.SimErr, why[names[i]]))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; worse than twice the bound: " + strings.Join(out, ", ")
}

// cpuWhy is, per cell with real and simulated runs that read their nodes' CPU, the error of the
// simulated CPU per acked tuple: where a saturated cell's throughput is off, this is most often why
// (the model charges the tuples more or less CPU than the real nodes spent on them).
func cpuWhy(cells []valCell) map[string]string {
	why := map[string]string{}
	for _, c := range cells {
		if e := c.errorOf(svCPUPerTuple); e.N >= 1 && e.M >= 1 && !math.IsNaN(e.SimErr) {
			why[fmt.Sprintf("c%d %s", c.Config, c.Scheduler)] = fmt.Sprintf(" (CPU per tuple %.0f µs against %.0f, %+.0f%%)", e.SimMean, e.RealMean, 100*e.SimErr)
		}
	}
	return why
}

// inFlightWhy is, per cell with real and simulated latencies, its tuple trees in flight, simulated
// against real, by Little's law on the cell's means (throughput x mean complete latency; both Storm's,
// the acker's span of a tree, so a lower bound of the trees pending at the spouts): where the latency
// is off at the right throughput, the trees wait elsewhere in the model than in Storm.
func inFlightWhy(cells []valCell) map[string]string {
	why := map[string]string{}
	for _, c := range cells {
		tp, lat := c.errorOf("throughput"), c.errorOf("latency_mean_ms")
		real, sim := tp.RealMean*lat.RealMean/1000, tp.SimMean*lat.SimMean/1000
		if !math.IsNaN(real) && !math.IsNaN(sim) && lat.N >= 1 && lat.M >= 1 {
			why[fmt.Sprintf("c%d %s", c.Config, c.Scheduler)] = fmt.Sprintf(" (trees in flight %.0f against %.0f)", sim, real)
		}
	}
	return why
}

func svPct(f float64) string {
	if math.IsNaN(f) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}

// svLabel is metric's name in a claim's statement.
func svLabel(metric string) string {
	return map[string]string{"throughput": "throughput", "latency_mean_ms": "mean latency", "latency_p50_ms": "latency p50",
		"latency_p99_ms": "latency p99"}[metric]
}
