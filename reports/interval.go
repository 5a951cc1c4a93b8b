package reports

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Band is an interval [Lo, Hi] of claimed values; ±Inf for one-sided.
type Band struct{ Lo, Hi float64 }

// Above and Below are the one-sided bands.
func Above(v float64) Band { return Band{v, math.Inf(1)} }

// Below is the band (-Inf, v].
func Below(v float64) Band { return Band{math.Inf(-1), v} }

func (b Band) String() string {
	switch {
	case math.IsInf(b.Lo, -1):
		return fmt.Sprintf("<= %.4g", b.Hi)
	case math.IsInf(b.Hi, 1):
		return fmt.Sprintf(">= %.4g", b.Lo)
	}
	return fmt.Sprintf("in [%.4g, %.4g]", b.Lo, b.Hi)
}

// IntervalVerdict is the rule of trend, threshold and equivalence checks:
// the 95% interval [lo, hi] inside the band holds, disjoint from it does
// not hold, else inconclusive (the common convention: one-sided 0.025 at
// each bound).
func IntervalVerdict(lo, hi float64, b Band) (Verdict, string) {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return Inconclusive, "no interval"
	}
	switch {
	case lo >= b.Lo && hi <= b.Hi:
		return Holds, fmt.Sprintf("95%% CI [%.4g, %.4g] lies wholly %s", lo, hi, b)
	case hi < b.Lo || lo > b.Hi:
		return DoesNotHold, fmt.Sprintf("95%% CI [%.4g, %.4g] lies wholly outside %s", lo, hi, b)
	}
	return Inconclusive, fmt.Sprintf("95%% CI [%.4g, %.4g] straddles a bound of %s", lo, hi, b)
}

// MeanCI is the mean of xs and its two-sided 95% Student's t interval; it
// needs 2 finite values.
func MeanCI(xs []float64) (mean, lo, hi float64, err error) {
	if len(xs) < 2 {
		return nan(), nan(), nan(), fmt.Errorf("a confidence interval needs at least 2 units, got %d", len(xs))
	}
	s, err := Summarize(xs)
	if err != nil {
		return nan(), nan(), nan(), err
	}
	return s.Mean, s.Low(), s.High(), nil
}

// MeanCheck tests that the mean of xs lies in band: its 95% CI wholly
// inside holds, wholly outside does not hold. Fewer than MinUnits units is
// inconclusive either way.
func MeanCheck(label string, xs []float64, band Band, unit string) Check {
	c := Check{Label: label, Kind: KindThreshold, EffectLabel: strings.TrimSpace("mean " + unit),
		Rule:   fmt.Sprintf("95%% CI of the mean (Student's t) wholly %s, n >= %d", band, MinUnits),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{len(xs)}}
	if len(xs) < MinUnits {
		return inconclusive(c, "%d unit(s): a verdict needs at least %d", len(xs), MinUnits)
	}
	c = inBand(c, band)(MeanCI(xs))
	if !math.IsNaN(c.Effect) {
		m, v := stat.MeanVariance(xs, nil)
		se := math.Sqrt(v / float64(len(xs)))
		if se <= relRounding*math.Abs(m) {
			se = 0
		}
		c.withBandP(m, se, float64(len(xs)-1), band.Lo, band.Hi)
	}
	return c
}

// withBandP sets the check's p to that of its interval rule (bandP) for
// an estimate on the interval's own scale, with Student's t on df degrees
// of freedom.
func (c *Check) withBandP(est, se, df, lo, hi float64) {
	if math.IsNaN(est) || math.IsNaN(se) {
		return
	}
	c.P, c.PLabel = bandP(est, se, distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}, lo, hi, c.Verdict)
	c.PRaw = c.P
}

// logBand is band on the log scale (a bound <= 0 is -Inf).
func logBand(b Band) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Log(b.Hi)
	if b.Lo > 0 {
		lo = math.Log(b.Lo)
	}
	if b.Hi <= 0 {
		hi = math.Inf(-1)
	}
	return lo, hi
}

// inBand returns a function that completes c from an estimate and its 95%
// interval: the verdict of the interval against band, or inconclusive with
// err. It takes an interval function's four results as they come.
func inBand(c Check, band Band) func(est, lo, hi float64, err error) Check {
	return func(est, lo, hi float64, err error) Check {
		if err != nil {
			return inconclusive(c, "%v", err)
		}
		c.Effect, c.CILow, c.CIHigh = est, lo, hi
		c.Verdict, c.Reason = IntervalVerdict(lo, hi, band)
		return c
	}
}
