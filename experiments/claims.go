package experiments

import (
	"fmt"
	"math"
	"strings"
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
func best(a *Aggregate, series, metric string) (wins, total int, lost []string) {
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
