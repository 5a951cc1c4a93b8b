package experiments

import (
	"context"
	"fmt"

	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// Series labels of the K-PART paper's comparison (sec. 3.2, "control group").
const (
	labelKPart0 = "K-PART Mul=0"
	labelKPart5 = "K-PART Mul=5"
	labelTPart  = "T-PART (online)"
	labelMPart  = "M-PART (mpart)"
)

// comparisonAlgorithms are the four series of Figs. 6 and 7.
func comparisonAlgorithms() []Algorithm {
	return []Algorithm{
		{Label: labelKPart0, Scheduler: "kpart", Options: func(float64) schedulers.Options { return schedulers.Options{Mul: 0} }},
		{Label: labelKPart5, Scheduler: "kpart", Options: func(float64) schedulers.Options { return schedulers.Options{Mul: 5} }},
		{Label: labelTPart, Scheduler: "online"},
		{Label: labelMPart, Scheduler: "mpart"},
	}
}

// PartitionK reproduces Fig. 6 of 000_1e4e00aeded315e8.txt: 10 random
// G(24,36) graphs (seeds 101..110), k = 2..24, each graph partitioned 10
// times by each algorithm.
func PartitionK() *Spec {
	sweep := PartitionSweep{
		Graphs: 10, Reps: 10,
		Graph: func(_ float64, i int) (*topologies.Graph, uint64, error) {
			seed := uint64(101 + i)
			g, err := topologies.RandomGraph(24, 36, seed)
			return g, seed, err
		},
		K:          func(x float64) int { return int(x) },
		Algorithms: comparisonAlgorithms(),
	}
	for k := 2; k <= 24; k++ {
		sweep.Xs = append(sweep.Xs, float64(k))
	}
	return &Spec{
		Name:        "partition-k",
		Description: "K-PART (Mul=0, 5), T-PART and M-PART: partition quality vs the number of parts k",
		Source:      "000_1e4e00aeded315e8.txt Fig. 6",
		Setup:       "10 random G(24,36) graphs (weights uniform 1..100, seeds 101..110), k = 2..24, 10 runs per graph, k and algorithm (seeds derived from graph seed and repetition).",
		SeriesLabel: "algorithm", XName: "k", XLabel: "number of parts k",
		Metrics: PartitionMetrics(),
		Run: func(ctx context.Context, env Env) (*Results, error) {
			return sweep.Run(ctx, env, "partition-k")
		},
		Claims: partitionKClaims,
	}
}

func partitionKClaims(r *Results, a *Aggregate) []Claim {
	algs := []string{labelKPart0, labelKPart5, labelTPart, labelMPart}
	var out []Claim
	for _, m := range []struct{ name, label, fig string }{{"cut_rate", "cut rate", "6a"}, {"max_dev", "max deviation rate", "6c"}} {
		holds := true
		var ev []string
		for _, s := range algs {
			rho := spearman(a, s, m.name)
			holds = holds && rho > 0.5
			ev = append(ev, fmt.Sprintf("%s rho=%.2f", s, rho))
		}
		out = append(out, Claim{
			Statement: fmt.Sprintf("the %s rises as k grows, for every algorithm (Fig. %s)", m.label, m.fig),
			Test:      fmt.Sprintf("Spearman rank correlation of k with the per-k mean %s is > 0.5 for all four", m.name),
			Holds:     holds, Evidence: list(ev),
		})
	}

	mp := relRange(a, labelMPart, "std")
	holds := true
	var ev []string
	for _, s := range algs {
		rr := relRange(a, s, "std")
		ev = append(ev, fmt.Sprintf("%s %.2f", s, rr))
		if s != labelMPart && rr >= mp {
			holds = false
		}
	}
	out = append(out, Claim{
		Statement: "the std dev of subset weights stays relatively stable over k, except for M-PART (Fig. 6b)",
		Test:      "(max - min) / mean of the per-k mean std dev is largest for M-PART",
		Holds:     holds, Evidence: "relative range " + list(ev),
	})

	half := func(x float64) bool { return x <= 12 }
	k0, k5, tp := pooled(r, labelKPart0, "cut_rate", half), pooled(r, labelKPart5, "cut_rate", half), pooled(r, labelTPart, "cut_rate", half)
	out = append(out, Claim{
		Statement: "for k <= |V|/2, K-PART (Mul=0) partitions best, K-PART (Mul=5) and T-PART next (cut rate)",
		Test:      "mean cut rate over k=2..12 of K-PART Mul=0 is below both K-PART Mul=5 and T-PART",
		Holds:     k0 < k5 && k0 < tp,
		Evidence:  fmt.Sprintf("k=2..12 cut rate: Mul=0 %.4f, Mul=5 %.4f, T-PART %.4f, M-PART %.4f", k0, k5, tp, pooled(r, labelMPart, "cut_rate", half)),
	})

	last, _ := a.Get(labelKPart5, 24, "cut_rate")
	out = append(out, Claim{
		Statement: "as k approaches |V|, K-PART (Mul=5)'s cut rate tends to 1",
		Test:      "mean cut rate of K-PART Mul=5 at k = |V| = 24 is >= 0.95",
		Holds:     last.Mean >= 0.95,
		Evidence:  fmt.Sprintf("K-PART Mul=5 at k=24: %.4f ± %.4f", last.Mean, last.CI95),
	})

	em := pooled(r, labelMPart, "empty_parts", nil)
	holds = em > 0
	ev = nil
	for _, s := range algs {
		e := pooled(r, s, "empty_parts", nil)
		ev = append(ev, fmt.Sprintf("%s %.2f", s, e))
		if s != labelMPart && e >= em {
			holds = false
		}
	}
	out = append(out, Claim{
		Statement: "M-PART trades balance for cut rate and leaves many empty subsets",
		Test:      "mean number of empty subsets over all k is > 0 and highest for M-PART",
		Holds:     holds, Evidence: "empty subsets " + list(ev),
	})

	s0, s5 := pooled(r, labelKPart0, "std", nil), pooled(r, labelKPart5, "std", nil)
	c0, c5 := pooled(r, labelKPart0, "cut_rate", nil), pooled(r, labelKPart5, "cut_rate", nil)
	out = append(out, Claim{
		Statement: "Mul>0 wins on balance, Mul=0 on cut rate (conclusion 1)",
		Test:      "over all k: std dev of Mul=5 < Mul=0 and cut rate of Mul=0 < Mul=5",
		Holds:     s5 < s0 && c0 < c5,
		Evidence:  fmt.Sprintf("std Mul=0 %.4g, Mul=5 %.4g; cut rate Mul=0 %.4f, Mul=5 %.4f", s0, s5, c0, c5),
	})
	return out
}
