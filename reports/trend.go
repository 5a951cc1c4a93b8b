package reports

import (
	"errors"
	"fmt"
	"math"

	"github.com/montanaflynn/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// SpearmanResult is Spearman's rank correlation with its 95% interval.
type SpearmanResult struct {
	Rho           float64
	CILow, CIHigh float64 // Fisher z with standard error sqrt(1.06/(n-3))
	P             float64 // two-sided, t approximation with n-2 df (as scipy.stats.spearmanr)
	N             int
}

// Spearman computes rho (montanaflynn/stats: Pearson correlation of the
// average ranks, so ties are handled), its 95% CI tanh(atanh(rho) ± 1.96 ·
// sqrt(1.06/(n-3))) and a two-sided p from t = rho·sqrt((n-2)/(1-rho²)).
// It needs n >= 4 finite pairs and y not constant.
//
// A perfect rank order (|rho| = 1) has no Fisher z (atanh(1) is infinite),
// and an interval [1, 1] would claim certainty from n points. Its p is the
// exact permutation p 2/n! (two-sided: one order of n! in each direction),
// and its interval's inner end is the Fisher interval's of the nearest
// attainable rho, one adjacent swap from perfect: 1 - 12/(n(n²-1)); the
// outer end is ±1. At n = 4 that interval includes 0 (as the exact one-sided
// p 1/24 exceeds 0.025), from n = 5 it does not.
func Spearman(x, y []float64) (SpearmanResult, error) {
	if len(x) != len(y) {
		return SpearmanResult{}, fmt.Errorf("Spearman: %d x values and %d y values", len(x), len(y))
	}
	if len(x) < 4 {
		return SpearmanResult{}, fmt.Errorf("Spearman's interval needs at least 4 points, got %d", len(x))
	}
	if !finite(x) || !finite(y) {
		return SpearmanResult{}, errors.New("Spearman: a value is NaN or infinite")
	}
	rho, err := stats.Spearman(x, y)
	if err != nil || math.IsNaN(rho) {
		return SpearmanResult{}, fmt.Errorf("Spearman's rho is undefined (a constant variable?)")
	}
	n := float64(len(x))
	r := SpearmanResult{Rho: rho, N: len(x)}
	q := distuv.UnitNormal.Quantile(1 - Alpha/2)
	se := math.Sqrt(1.06 / (n - 3))
	if math.Abs(rho) >= 1-relRounding { // perfect up to rounding
		rho = math.Copysign(1, rho)
		r.Rho = rho
		next := 1 - 12/(n*(n*n-1))
		inner := math.Tanh(math.Atanh(next) - q*se)
		r.CILow, r.CIHigh, r.P = inner, 1, math.Min(1, 2/math.Gamma(n+1))
		if rho < 0 {
			r.CILow, r.CIHigh = -1, -inner
		}
		return r, nil
	}
	z := math.Atanh(rho)
	r.CILow, r.CIHigh = math.Tanh(z-q*se), math.Tanh(z+q*se)
	t := rho * math.Sqrt((n-2)/(1-rho*rho))
	r.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 2}.Survival(math.Abs(t))
	return r, nil
}

// TrendCheck tests that y rises (Greater) or falls (Less) with x: the
// 95% CI of Spearman's rho lies wholly above (below) 0 (TrendBandCheck).
func TrendCheck(label string, x, y []float64, dir Direction) Check {
	// Strictly on one side: rho = 0 is no trend.
	const eps = 1e-12
	b := Above(eps)
	if dir == Less {
		b = Below(-eps)
	}
	c := TrendBandCheck(label, x, y, b)
	c.Rule = fmt.Sprintf("Spearman's rho %s 0: 95%% CI (Fisher z, se sqrt(1.06/(n-3))) wholly on that side, n >= %d", dir.word(), MinTrendPoints)
	return c
}

// TrendBandCheck tests that Spearman's rho of y on x lies in band (e.g.
// (-0.5, 0.5) for "no strong monotone dependence"): its 95% CI wholly
// inside holds, wholly outside does not hold. Fewer than MinTrendPoints
// points is inconclusive either way.
func TrendBandCheck(label string, x, y []float64, band Band) Check {
	c := Check{Label: label, Kind: KindTrend, EffectLabel: "Spearman rho",
		Rule:   fmt.Sprintf("Spearman's rho %s: 95%% CI (Fisher z, se sqrt(1.06/(n-3))) wholly inside, n >= %d", band, MinTrendPoints),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{len(x)}}
	if len(x) < MinTrendPoints {
		return inconclusive(c, "%d points: a trend verdict needs at least %d (below that even a perfect order is not significant)", len(x), MinTrendPoints)
	}
	if len(x) == len(y) && finite(x) && finite(y) && constant(y) && !constant(x) {
		// y does not move at all over x: rho is undefined, but the data shows
		// exactly no dependence; take rho = 0 with an empty interval.
		c.Effect, c.CILow, c.CIHigh = 0, 0, 0
		c.Verdict, c.Reason = IntervalVerdict(0, 0, band)
		c.Reason = "y is constant over x (no dependence at all): " + c.Reason
		return c
	}
	s, err := Spearman(x, y)
	if err != nil {
		return inconclusive(c, "%v", err)
	}
	c.Effect, c.CILow, c.CIHigh = s.Rho, s.CILow, s.CIHigh
	c.Verdict, c.Reason = IntervalVerdict(s.CILow, s.CIHigh, band)
	if math.Abs(s.Rho) == 1 {
		c.P, c.PLabel = s.P, "exact permutation, two-sided"
	} else {
		// The p of the rule itself: Fisher z against the band's bounds.
		z := func(r float64) float64 { return math.Atanh(math.Max(-1, math.Min(1, r))) }
		c.P, c.PLabel = bandP(z(s.Rho), math.Sqrt(1.06/float64(len(x)-3)), distuv.UnitNormal, z(band.Lo), z(band.Hi), c.Verdict)
		c.PLabel = "Fisher z, " + c.PLabel
	}
	c.PRaw = c.P
	return c
}

// constant reports whether xs is constant up to rounding (relRounding of
// its largest magnitude): per-x means of identical results can differ in
// their last bits, and must not make a rank order.
func constant(xs []float64) bool {
	lo, hi, scale := math.Inf(1), math.Inf(-1), 0.0
	for _, x := range xs {
		lo, hi, scale = math.Min(lo, x), math.Max(hi, x), math.Max(scale, math.Abs(x))
	}
	return len(xs) == 0 || hi-lo <= relRounding*scale
}
