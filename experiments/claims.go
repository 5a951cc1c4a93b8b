package experiments

import (
	"fmt"
	"math"
	"strings"

	"github.com/montanaflynn/stats"
)

// Helpers the claim checks share. They work on measured numbers only.

// mean of xs; NaN for an empty slice (claims then report "does not hold"
// with the NaN visible rather than hiding a missing series).
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

// pooled is the mean of a metric over all runs of a series at the x values
// keep accepts (nil: all).
func pooled(r *Results, series, metric string, keep func(float64) bool) float64 {
	return mean(r.Values(series, metric, keep))
}

// spearman is the rank correlation of a series' per-x means with x; 0 when
// undefined (constant means).
func spearman(a *Aggregate, series, metric string) float64 {
	rho, err := stats.Spearman(a.Xs(series), a.Means(series, metric))
	if err != nil || math.IsNaN(rho) {
		return 0
	}
	return rho
}

// relRange is (max - min) / mean of a series' per-x means: how much the
// metric moves over the x axis relative to its size.
func relRange(a *Aggregate, series, metric string) float64 {
	ms := a.Means(series, metric)
	if len(ms) == 0 {
		return math.NaN()
	}
	lo, hi := ms[0], ms[0]
	for _, m := range ms {
		lo, hi = math.Min(lo, m), math.Max(hi, m)
	}
	if mu := mean(ms); mu != 0 {
		return (hi - lo) / math.Abs(mu)
	}
	return 0
}

// maxRelDev is the largest |mean(x) - overall| / overall over a series'
// per-x means.
func maxRelDev(a *Aggregate, series, metric string) float64 {
	ms := a.Means(series, metric)
	mu := mean(ms)
	if mu == 0 || len(ms) == 0 {
		return 0
	}
	d := 0.0
	for _, m := range ms {
		d = math.Max(d, math.Abs(m-mu)/math.Abs(mu))
	}
	return d
}

// best counts the x values at which series has the smallest per-x mean of
// metric among all series (ties count as best).
func best(a *Aggregate, series, metric string) (wins, total int, lost []string) {
	for _, x := range a.Xs(series) {
		mine, _ := a.Get(series, x, metric)
		ok := true
		for _, s := range a.Series {
			if s.Name == series {
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
			lost = append(lost, FormatX(x))
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
