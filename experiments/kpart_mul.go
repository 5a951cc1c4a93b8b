package experiments

import (
	"context"
	"fmt"

	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// KPartMul reproduces Fig. 5 of 000_1e4e00aeded315e8.txt (sec. 3.2, "self
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
	}
	for mul := 0; mul <= 9; mul++ {
		sweep.Xs = append(sweep.Xs, float64(mul))
	}
	return &Spec{
		Name:        "kpart-mul",
		Description: "K-PART balance adjustment: partition quality vs the iteration multiplier Mul",
		Source:      "000_1e4e00aeded315e8.txt Fig. 5",
		Setup:       "10 random G(24,36) graphs (vertex and edge weights uniform 1..100, seeds 1..10), k = 3, Mul = 0..9, 10 K-PART runs per graph and Mul (seeds derived from graph seed and repetition, equal across Mul).",
		SeriesLabel: "algorithm", XName: "Mul", XLabel: "iteration multiplier Mul",
		Metrics: PartitionMetrics(),
		Run: func(ctx context.Context, env Env) (*Results, error) {
			return sweep.Run(ctx, env, "kpart-mul")
		},
		Claims: kpartMulClaims,
	}
}

func kpartMulClaims(r *Results, a *Aggregate) []Claim {
	const s = "K-PART"
	zero := func(x float64) bool { return x == 0 }
	pos := func(x float64) bool { return x > 0 }
	var out []Claim

	c0, c1 := pooled(r, s, "cut_rate", zero), pooled(r, s, "cut_rate", pos)
	out = append(out, Claim{
		Statement: "Mul>0 raises the cut rate a little (Fig. 5a)",
		Test:      "mean cut rate over Mul=1..9 is above Mul=0 by less than 50% relative",
		Holds:     c1 > c0 && c1 < 1.5*c0,
		Evidence:  fmt.Sprintf("cut rate Mul=0 %.4f, Mul=1..9 %.4f (%s)", c0, c1, pct(c0, c1)),
	})
	for _, m := range []struct{ name, label, fig string }{{"std", "std dev of subset weights", "5b"}, {"max_dev", "max deviation rate", "5c"}} {
		v0, v1 := pooled(r, s, m.name, zero), pooled(r, s, m.name, pos)
		out = append(out, Claim{
			Statement: fmt.Sprintf("Mul>0 lowers the %s sharply (Fig. %s)", m.label, m.fig),
			Test:      fmt.Sprintf("mean %s over Mul=1..9 is at least 30%% below Mul=0", m.name),
			Holds:     v1 <= 0.7*v0,
			Evidence:  fmt.Sprintf("%s Mul=0 %.4g, Mul=1..9 %.4g (%s)", m.name, v0, v1, pct(v0, v1)),
		})
	}
	means := a.Means(s, "std")
	rising := []string{}
	for i := 1; i < len(means); i++ {
		if means[i] > means[i-1]*1.01 {
			rising = append(rising, FormatX(a.Xs(s)[i]))
		}
	}
	s1 := pooled(r, s, "std", func(x float64) bool { return x == 1 })
	s9 := pooled(r, s, "std", func(x float64) bool { return x == 9 })
	out = append(out, Claim{
		Statement: "more iterations give a more balanced partition (conclusion 3; Fig. 5b keeps falling)",
		Test:      "the per-Mul mean std dev never rises by more than 1% from one Mul to the next, and Mul=9 is at least 5% below Mul=1",
		Holds:     len(rising) == 0 && s9 <= 0.95*s1,
		Evidence:  fmt.Sprintf("std at Mul=1 %.4g, Mul=9 %.4g (%s); rises at Mul: %s", s1, s9, pct(s1, s9), list(rising)),
	})
	return out
}
