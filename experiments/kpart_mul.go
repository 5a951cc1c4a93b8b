package experiments

import (
	"context"
	"fmt"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// KPartMul reproduces Fig. 5 of Jian, Lu and Zhang 2018 (sec. 3.2, "self
// comparison"): 10 random G(24,36) graphs (seeds 1..10), k = 3, K-PART with
// balance-adjustment multiplier Mul = 0..9, 10 partitions per graph with
// different K-PART seeds (the same seeds at every Mul, so the comparison is
// paired).
func KPartMul() *Spec {
	sweep := PartitionSweep{
		Graphs: 10, Reps: 10,
		Graph: func(_ float64, i int) (*topologies.Graph, uint64, error) {
			seed := uint64(1 + i)
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
	return &Spec{
		Name:        "kpart-mul",
		Description: "K-PART balance adjustment: partition quality vs the iteration multiplier Mul, and its cut over the proven optimum",
		Paper:       paperKPart,
		Source:      Cite(paperKPart, "Fig. 5"),
		Setup:       "10 random G(24,36) graphs (vertex and edge weights uniform 1..100, seeds 1..10), k = 3, Mul = 0..9, 10 K-PART runs per graph and Mul (seeds derived from graph seed and repetition, equal across Mul). Reference rows: the proven minimum cut at max deviation <= 0.05 (exact: branch and bound, CBC fallback) per graph, and every row's cut / that optimum (cut_ratio).",
		SeriesLabel: "algorithm", XName: "Mul", XLabel: "iteration multiplier Mul",
		Metrics: append(PartitionMetrics(), CutRatioMetric),
		Run: func(ctx context.Context, env Env) (*Results, error) {
			return sweep.Run(ctx, env, "kpart-mul")
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
func kpartMulClaims(r *Results, a *Aggregate) []Claim {
	const s = "K-PART"
	zero := func(row Row) bool { return row.X == 0 }
	pos := func(row Row) bool { return row.X > 0 }
	pair := func(metric string) (mulPos, mul0 []float64) {
		return pairedUnits(r, metric, false, side(s, pos), side(s, zero))
	}
	var out []Claim

	c1, c0 := pair("cut_rate")
	out = append(out, Claim{
		Statement: "Mul>0 raises the cut rate a little (equivalence margin: the per-graph ratio Mul=1..9 / Mul=0 in [1.01, 1.5], i.e. a rise of at least 1% and under 50%)",
		Source:    Cite(paperKPart, "Fig. 5a"),
		Evidence:  fmt.Sprintf("cut rate Mul=0 %.4f, Mul=1..9 %.4f (%s)", mean(c0), mean(c1), pct(mean(c0), mean(c1))),
		Checks: []reports.Check{
			reports.EquivalenceRatioCheck("cut rate Mul=1..9 / Mul=0 in [1.01, 1.5] (\"a little\")", c1, c0, 1.01, 1.5, true),
		},
	})
	for _, m := range []struct{ name, label, fig string }{{"std", "std dev of subset weights", "5b"}, {"max_dev", "max deviation rate", "5c"}} {
		v1, v0 := pair(m.name)
		out = append(out, Claim{
			Statement: fmt.Sprintf("Mul>0 lowers the %s sharply (by at least 30%%)", m.label),
			Source:    Cite(paperKPart, "Fig. "+m.fig),
			Evidence:  fmt.Sprintf("%s Mul=0 %.4g, Mul=1..9 %.4g (%s)", m.name, mean(v0), mean(v1), pct(mean(v0), mean(v1))),
			Checks:    []reports.Check{reports.PairedRatioCheck(m.name+" Mul=1..9 / Mul=0 <= 0.7 (paired by graph)", v1, v0, reports.Below(0.7))},
		})
	}
	xs, ys := xMeans(r, s, "std", pos, false)
	out = append(out, Claim{
		Statement: "more iterations give a more balanced partition (std dev keeps falling over Mul = 1..9)",
		Source:    Cite(paperKPart, "conclusion 3, Fig. 5b"),
		Evidence:  fmt.Sprintf("per-Mul mean std dev over Mul=1..9: %s", floats(ys)),
		Checks:    []reports.Check{reports.TrendCheck("std dev falls with Mul (per-Mul means, n = Mul values)", xs, ys, reports.Less)},
	})
	return out
}

// floats prints values compactly.
func floats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.4g", x)
	}
	return list(s)
}
