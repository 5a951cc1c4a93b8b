package experiments

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/experiments/lab"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// KPartMul reproduces Fig. 5 of Jian, Lu and Zhang 2018 (sec. 3.2, "self
// comparison"): 10 random G(24,36) graphs (seeds 1..10), k = 3, K-PART with
// balance-adjustment multiplier Mul = 0..9, 10 partitions per graph with
// different K-PART seeds (the same seeds at every Mul, so the comparison is
// paired).
func KPartMul() *lab.Spec {
	sweep := PartitionSweep{
		Graphs: 10, Reps: 10,
		Graph: func(_ float64, i int, offset uint64) (*topologies.Graph, uint64, error) {
			seed := offset + uint64(1+i)
			g, err := topologies.RandomGraph(24, 36, seed)
			return g, seed, err
		},
		K: func(float64) int { return 3 },
		Algorithms: []Algorithm{{
			Label: "K-PART", Scheduler: "kpart",
			Options: func(x float64) schedulers.Options { return schedulers.Options{Mul: int(x)} },
		}},
		Optimum: true,
	}
	for mul := 0; mul <= 9; mul++ {
		sweep.Xs = append(sweep.Xs, float64(mul))
	}
	return &lab.Spec{
		Name:        "kpart-mul",
		Description: "K-PART balance adjustment: partition quality vs the iteration multiplier Mul, and its cut over the proven optimum",
		Paper:       paperKPart,
		Source:      lab.Cite(paperKPart, "Fig. 5"),
		Setup: "10 random G(24,36) graphs (vertex and edge weights uniform 1..100, seeds 1..10), k = 3, Mul = " +
			"0..9, 10 K-PART runs per graph and Mul (seeds derived from graph seed and repetition, equal across " +
			"Mul). Reference rows: the proven minimum cut at max deviation <= 0.05 (exact: branch and bound, CBC " +
			"fallback) per graph, and every row's cut / that optimum (cut_ratio).",
		SeriesLabel: "algorithm", XName: "Mul", XLabel: "iteration multiplier Mul",
		Metrics: append(PartitionMetrics(), CutRatioMetric),
		Unit:    lab.UnitInstance, // a graph: its repetitions are averaged
		// Cost: measured with `stormlab experiment NAME --scale S` (the
		// work does not depend on the scale), rounded up.
		Cost:  lab.Cost{CI: "< 1 s", Quick: "< 1 s", Full: "< 1 s"},
		Needs: lab.Needs{Need: lab.NeedsNothing, Why: "it runs the schedulers in process on generated graphs"},
		Run: func(ctx context.Context, env lab.Env) (*lab.Results, error) {
			res, err := sweep.Run(ctx, env, "kpart-mul")
			if err != nil {
				return nil, err
			}
			return res, addBalanceTrace(ctx, env, res, sweep)
		},
		Claims: kpartMulClaims,
	}
}

// kpartMulClaims: the unit is a graph (mean over its 10 runs and the Mul
// values compared), n = 10 graphs. Both sides of every comparison are the
// same 10 graphs, so the checks are paired by graph (the graph's own
// difficulty cancels).
//
// The paper's conclusion 3 says more iterations "lose some" of the cut
// rate: a small effect, tested as equivalence to a band, the geometric
// mean of the per-graph ratios Mul=1..9 / Mul=0 within [1.01, 1.5]: at
// least a 1% rise (a smaller one is not "losing" anything a reader of Fig.
// 5a could see) and under 50% (more is no longer "a little"). A 95%
// interval wholly below 1.01 shows there is no such loss.
func kpartMulClaims(r *lab.Results, a *lab.Aggregate) []lab.Claim {
	const s = "K-PART"
	zero := func(row lab.Row) bool { return row.X == 0 }
	pos := func(row lab.Row) bool { return row.X > 0 }
	pair := func(metric string) (mulPos, mul0 []float64) {
		return pairedUnits(r, metric, false, side(s, pos), side(s, zero))
	}
	var out []lab.Claim

	c1, c0 := pair("cut_rate")
	out = append(out, lab.Claim{
		Statement: "Mul>0 raises the cut rate a little (equivalence margin: the per-graph ratio Mul=1..9 / Mul=0 in [1.01, 1.5], i.e. a rise of at least 1% and under 50%)",
		Source:    lab.Cite(paperKPart, "Fig. 5a"),
		Evidence:  fmt.Sprintf("cut rate Mul=0 %.4f, Mul=1..9 %.4f (%s)", mean(c0), mean(c1), pct(mean(c0), mean(c1))),
		Checks: []reports.Check{
			reports.EquivalenceRatioCheck("cut rate Mul=1..9 / Mul=0 in [1.01, 1.5] (\"a little\")", c1, c0, 1.01, 1.5, true),
		},
	})
	for _, m := range []struct{ name, label, fig string }{{"std", "std dev of subset weights", "5b"}, {"max_dev", "max deviation rate", "5c"}} {
		v1, v0 := pair(m.name)
		out = append(out, lab.Claim{
			Statement: fmt.Sprintf("Mul>0 lowers the %s sharply (by at least 30%%)", m.label),
			Source:    lab.Cite(paperKPart, "Fig. "+m.fig),
			Evidence:  fmt.Sprintf("%s Mul=0 %.4g, Mul=1..9 %.4g (%s)", m.name, mean(v0), mean(v1), pct(mean(v0), mean(v1))),
			Checks:    []reports.Check{reports.PairedRatioCheck(m.name+" Mul=1..9 / Mul=0 <= 0.7 (paired by graph)", v1, v0, reports.Below(0.7))},
		})
	}
	xs, ys := lab.XMeans(r, s, "std", pos, false)
	out = append(out, lab.Claim{
		Statement: "more iterations give a more balanced partition (std dev keeps falling over Mul = 1..9)",
		Source:    lab.Cite(paperKPart, "conclusion 3, Fig. 5b"),
		Evidence:  fmt.Sprintf("per-Mul mean std dev over Mul=1..9: %s. %s", floats(ys), balanceCycleNote(r)),
		Checks:    []reports.Check{reports.TrendCheck("std dev falls with Mul (per-Mul means, n = Mul values)", xs, ys, reports.Less)},
	})
	return out
}

// traceMul is the Mul of the traced balance adjustment: the largest of
// the sweep, the longest run of moves.
const traceMul = 9

// balanceCycle is where the balance adjustment of one graph starts to
// repeat itself: the partition after move Onset+Period equals the one after
// move Onset (Period 0: no repeat within the moves run).
type balanceCycle struct {
	N             int       // vertices: moves per unit of Mul
	Std           []float64 // population std dev of the subset weights after each move (index 0: before any)
	Onset, Period int
}

// traceBalance runs K-PART with Mul = traceMul on g and records its
// balance adjustment move by move (KPart.Trace).
func traceBalance(ctx context.Context, g *topologies.Graph, k int, seed uint64) (balanceCycle, error) {
	bc := balanceCycle{N: g.N()}
	seen := map[string]int{}
	kp := &schedulers.KPart{Seed: seed, Mul: traceMul, Trace: func(move int, part []int, w []float64) {
		mean, ss := 0.0, 0.0
		for _, x := range w {
			mean += x / float64(len(w))
		}
		for _, x := range w {
			ss += (x - mean) * (x - mean)
		}
		bc.Std = append(bc.Std, math.Sqrt(ss/float64(len(w))))
		if bc.Period > 0 {
			return
		}
		key := fmt.Sprint(part)
		if first, ok := seen[key]; ok {
			bc.Onset, bc.Period = first, move-first
			return
		}
		seen[key] = move
	}}
	_, err := kp.Partition(ctx, g, k)
	return bc, err
}

// addBalanceTrace traces the balance adjustment on every graph of the
// sweep (first K-PART seed), keeps where each starts cycling in the
// run's knobs (for the claim's note and manifest.json) and draws the
// first graph's std dev per move as the figure balance-trace.
func addBalanceTrace(ctx context.Context, env lab.Env, res *lab.Results, sweep PartitionSweep) error {
	var cycles []balanceCycle
	graphs := sweep.Graphs
	if env.Instances > 0 {
		graphs = env.Instances
	}
	for i := 0; i < graphs; i++ {
		g, gseed, err := sweep.Graph(0, i, env.Seed)
		if err != nil {
			return err
		}
		bc, err := traceBalance(ctx, g, sweep.K(0), partitionSeed(gseed, 0))
		if err != nil {
			return fmt.Errorf("balance trace on graph %d: %w", i, err)
		}
		cycles = append(cycles, bc)
	}
	if res.Knobs == nil {
		res.Knobs = map[string]any{}
	}
	res.Knobs["balance_cycles"] = cycleText(cycles)
	first := cycles[0]
	ts := reports.TimeSeries{Name: "K-PART, graph 1"}
	// The first two units of Mul show the cycle; the rest repeats it.
	for m, v := range first.Std[:min(len(first.Std), 2*first.N+1)] {
		ts.T = append(ts.T, float64(m))
		ts.Y = append(ts.Y, v)
	}
	res.Figures = append(res.Figures, lab.Figure{Name: "balance-trace", Plot: &reports.TimeSeriesPlot{
		XLabel: fmt.Sprintf("balance-adjustment move (%d per unit of Mul)", first.N), YLabel: "std dev of subset weights", Series: []reports.TimeSeries{ts},
		Title: fmt.Sprintf("kpart-mul: K-PART's balance adjustment on graph 1, k = 3, moves 0 to %d of the %d at Mul = %d", 2*first.N, traceMul*first.N, traceMul),
		Caption: fmt.Sprintf("Each move takes the best-gain vertex of the heaviest subset to the lightest, as Jian, Lu and Zhang (2018) describe it, with no stopping rule. "+
			"From move %d on, the partition repeats every %d moves, so every Mul >= 1 ends in the same few partitions. All %d graphs: %s.",
			first.Onset, first.Period, len(cycles), cycleText(cycles)),
	}})
	return nil
}

// cycleText sums up the cycles: their periods and the latest onset.
func cycleText(cs []balanceCycle) string {
	periods := map[int]int{}
	latest, none, moves := 0, 0, 0
	for _, c := range cs {
		moves = traceMul * c.N
		if c.Period == 0 {
			none++
			continue
		}
		periods[c.Period]++
		latest = max(latest, c.Onset)
	}
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(periods)) {
		parts = append(parts, fmt.Sprintf("period %d on %d", p, periods[p]))
	}
	s := fmt.Sprintf("cycle of %s of %d graphs, entered by move %d at the latest", strings.Join(parts, ", "), len(cs), latest)
	if none > 0 {
		s += fmt.Sprintf("; %d graphs without a repeat in %d moves", none, moves)
	}
	return s
}

// balanceCycleNote explains the trend claim's verdict from the traced
// balance adjustment (the claim's note).
func balanceCycleNote(r *lab.Results) string {
	return fmt.Sprintf("Why: the balance adjustment exactly as the paper describes it (always move the best-gain vertex of the heaviest "+
		"subset to the lightest, Mul x |V| times, no stopping rule) falls into a back-and-forth cycle (%s; figure balance-trace), "+
		"so every Mul >= 1 ends in the same partitions: a faithful implementation, not a bug", traced(r))
}

// traced is the run's balance_cycles knob, or "not traced".
func traced(r *lab.Results) string {
	if s, ok := r.Knobs["balance_cycles"].(string); ok {
		return s
	}
	return "not traced"
}

// floats prints values compactly.
func floats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.4g", x)
	}
	return list(s)
}
