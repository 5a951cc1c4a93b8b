package experiments

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/reports"
)

// Helpers the claim checks share. They work on measured numbers only.

// mean of xs; NaN for an empty slice (evidence then shows the NaN rather
// than hiding a missing series; the checks report it inconclusive).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// best counts the x values at which series has the smallest per-x mean of
// metric among all series but the references (optimum, mlfm) (ties count as best).
func best(a *lab.Aggregate, series, metric string) (wins, total int, lost []string) {
	for _, x := range a.Xs(series) {
		mine, _ := a.Get(series, x, metric)
		ok := true
		for _, s := range a.Series {
			if s.Name == series || referenceSeries(s.Name) {
				continue
			}
			if o, has := a.Get(s.Name, x, metric); has && o.Mean < mine.Mean {
				ok = false
				break
			}
		}
		total++
		if ok {
			wins++
		} else {
			lost = append(lost, lab.FormatX(x))
		}
	}
	return wins, total, lost
}

func pct(from, to float64) string {
	if from == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", 100*(to-from)/math.Abs(from))
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// unitSide is one side of a paired comparison (lab.UnitSide).
type unitSide = lab.UnitSide

// side is one side of a paired comparison: series, and the rows that count
// (nil: all).
func side(series string, keep func(lab.Row) bool) unitSide {
	return lab.UnitSide{Series: series, Keep: keep}
}

// pairedUnits are the graph units of two sides measured on the same graph
// instances, aligned so that a[i] and b[i] are one graph (the input of the
// paired checks). The graph experiments run every series on the same
// graphs, so a graph on one side only means a run is missing; it is left
// out, and the check's n (pairs) shows it.
func pairedUnits(r *lab.Results, metric string, perX bool, a, b unitSide) (x, y []float64) {
	x, y, _ = lab.PairedGraphUnits(r, metric, perX, a, b)
	return x, y
}

// partitionKStability is the claim "the std dev stays relatively stable
// over k, except for M-PART" (see partitionKClaims for the margin).
func partitionKStability(r *lab.Results, a *lab.Aggregate) []lab.Claim {
	algs := []string{labelKPart0, labelKPart5, labelTPart, labelMPart}
	ks := a.Xs(labelKPart0)
	third := func(high bool) func(lab.Row) bool {
		return func(row lab.Row) bool {
			n := len(ks) / 3
			if n == 0 {
				return false
			}
			if high {
				return row.X >= ks[len(ks)-n]
			}
			return row.X <= ks[n-1]
		}
	}
	var checks []reports.Check
	var ev []string
	for _, s := range algs[:3] {
		hi, lo := pairedUnits(r, "std", false, side(s, third(true)), side(s, third(false)))
		c := reports.EquivalenceRatioCheck(s+": std largest / smallest third of k in [0.8, 1.25]", hi, lo, 0.8, 1.25, true)
		checks = append(checks, c)
		ev = append(ev, fmt.Sprintf("%s ratio %.2f", s, c.Effect))
	}
	rel := relRangeUnits(r)
	for _, s := range algs[:3] {
		mp, o := alignSeeds(rel[labelMPart], rel[s])
		checks = append(checks, reports.PairedDifferenceCheck("relative range of std over k: M-PART > "+s, mp, o, reports.Greater, ""))
		ev = append(ev, fmt.Sprintf("relative range %s %.2f vs M-PART %.2f", s, mean(o), mean(mp)))
	}
	return []lab.Claim{{
		Statement: "the std dev of subset weights stays relatively stable over k, except for M-PART (equivalence margin: largest / smallest third of k within 25% either way, [0.8, 1.25])",
		Source:    lab.Cite(paperKPart, "Fig. 6b"), Checks: checks,
		Evidence: "geometric mean over graphs of the std ratio largest / smallest third of k, and mean over graphs of (max - min) / mean of the per-k std dev: " + list(ev),
	}}
}

// relRangeUnits is, per series and graph seed, the relative range over k
// of the graph's std dev: (max - min) / mean of its per-k mean std dev.
func relRangeUnits(r *lab.Results) map[string]map[uint64]float64 {
	per := map[string]map[uint64]map[float64][]float64{}
	for _, row := range r.Rows {
		if per[row.Series] == nil {
			per[row.Series] = map[uint64]map[float64][]float64{}
		}
		g := per[row.Series]
		if g[row.InstanceSeed] == nil {
			g[row.InstanceSeed] = map[float64][]float64{}
		}
		g[row.InstanceSeed][row.X] = append(g[row.InstanceSeed][row.X], row.Values["std"])
	}
	out := map[string]map[uint64]float64{}
	for s, graphs := range per {
		out[s] = map[uint64]float64{}
		for seed, byK := range graphs {
			var ms []float64
			for _, v := range byK {
				ms = append(ms, mean(v))
			}
			lo, hi := ms[0], ms[0]
			for _, m := range ms {
				lo, hi = math.Min(lo, m), math.Max(hi, m)
			}
			out[s][seed] = math.NaN()
			if mu := mean(ms); mu != 0 {
				out[s][seed] = (hi - lo) / math.Abs(mu)
			}
		}
	}
	return out
}

// alignSeeds pairs two per-seed maps on their common seeds, in seed order.
func alignSeeds(a, b map[uint64]float64) (x, y []float64) {
	var seeds []uint64
	for s := range a {
		if _, ok := b[s]; ok {
			seeds = append(seeds, s)
		}
	}
	sort.Slice(seeds, func(i, j int) bool { return seeds[i] < seeds[j] })
	for _, s := range seeds {
		x, y = append(x, a[s]), append(y, b[s])
	}
	return x, y
}

// spdPaired is spdUnits of two sides aligned by SPD graph (regime, n,
// graph number), so that a[i] and b[i] are one graph (averaged over the c
// values each side's keep accepts).
func spdPaired(r *lab.Results, sa, sb string, keepA, keepB func(lab.Row) bool) (a, b []float64) {
	ka, ma := spdGraphMeans(r, sa, keepA)
	_, mb := spdGraphMeans(r, sb, keepB)
	for _, k := range ka {
		if v, ok := mb[k]; ok {
			a, b = append(a, ma[k]), append(b, v)
		}
	}
	return a, b
}
