package reports

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// RatioCI is mean(a)/mean(b) with a 95% interval by the delta method on
// the log scale: var(log R) ≈ s_a²/(n_a m_a²) + s_b²/(n_b m_b²), degrees of
// freedom by Welch-Satterthwaite on the two terms, interval exp(log R ±
// t · se). Both means must be positive and both samples have >= 2 values.
func RatioCI(a, b []float64) (ratio, lo, hi float64, err error) {
	l, se, df, err := logRatio(a, b)
	if err != nil {
		return nan(), nan(), nan(), err
	}
	if se == 0 {
		return math.Exp(l), math.Exp(l), math.Exp(l), nil
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - Alpha/2)
	return math.Exp(l), math.Exp(l - q*se), math.Exp(l + q*se), nil
}

// logRatio is log(mean(a)/mean(b)) with its delta-method standard error
// and Welch-Satterthwaite degrees of freedom (RatioCI). A standard error or
// log ratio within rounding (relRounding) is 0.
func logRatio(a, b []float64) (l, se, df float64, err error) {
	if len(a) < 2 || len(b) < 2 {
		return nan(), nan(), nan(), fmt.Errorf("a ratio interval needs at least 2 units per group, got %d and %d", len(a), len(b))
	}
	if !finite(a) || !finite(b) {
		return nan(), nan(), nan(), errors.New("ratio: a value is NaN or infinite")
	}
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	if ma <= 0 || mb <= 0 {
		return nan(), nan(), nan(), fmt.Errorf("a ratio of means needs positive means, got %.4g and %.4g", ma, mb)
	}
	l = math.Log(ma / mb)
	ta, tb := va/(float64(len(a))*ma*ma), vb/(float64(len(b))*mb*mb)
	se = math.Sqrt(ta + tb)
	if se <= relRounding {
		if math.Abs(l) <= relRounding {
			l = 0
		}
		return l, 0, float64(len(a) + len(b) - 2), nil
	}
	df = (ta + tb) * (ta + tb) / (ta*ta/float64(len(a)-1) + tb*tb/float64(len(b)-1))
	return l, se, df, nil
}

// RatioCheck tests that mean(a)/mean(b) of independent units lies in band
// (RatioCI); fewer than MinUnits units on a side is inconclusive.
func RatioCheck(label string, a, b []float64, band Band) Check {
	c := Check{Label: label, Kind: KindThreshold, EffectLabel: "ratio of means",
		Rule:   fmt.Sprintf("95%% CI of the ratio of means (delta method, log scale) wholly %s, n >= %d per side", band, MinUnits),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{len(a), len(b)}}
	if min(len(a), len(b)) < MinUnits {
		return inconclusive(c, "%d and %d units: a verdict needs at least %d per side", len(a), len(b), MinUnits)
	}
	c = inBand(c, band)(RatioCI(a, b))
	if l, se, df, err := logRatio(a, b); err == nil {
		lo, hi := logBand(band)
		c.withBandP(l, se, df, lo, hi)
	}
	return c
}

// PairedRatioCI is the geometric mean of the per-pair ratios a[i]/b[i]
// with the 95% interval of Student's t on their logarithms: exp(mean(log
// r) ± t(n-1) · sd(log r)/√n). For paired designs (both arms measured side
// by side, so the pair shares every disturbance of the machine): the
// interval then reflects only how the ratio varies, not how each arm does.
// Needs >= 2 pairs, equal lengths and positive values.
func PairedRatioCI(a, b []float64) (ratio, lo, hi float64, err error) {
	logs, err := pairedLogs(a, b)
	if err != nil {
		return nan(), nan(), nan(), err
	}
	m, l, h, err := MeanCI(logs)
	if err != nil {
		return nan(), nan(), nan(), fmt.Errorf("paired ratio: %w", err)
	}
	return math.Exp(m), math.Exp(l), math.Exp(h), nil
}

// pairedLogs is log(a[i]/b[i]) for each pair; unequal lengths or a value that is not positive and
// finite is an error naming the pair.
func pairedLogs(a, b []float64) ([]float64, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("paired ratio: %d and %d values, need one of each per pair", len(a), len(b))
	}
	logs := make([]float64, len(a))
	for i := range a {
		if !(a[i] > 0) || !(b[i] > 0) || math.IsInf(a[i], 0) || math.IsInf(b[i], 0) {
			return nil, fmt.Errorf("paired ratio: pair %d has %v and %v, need positive finite values", i, a[i], b[i])
		}
		logs[i] = math.Log(a[i] / b[i])
	}
	return logs, nil
}

// PairedRatioCheck tests that the geometric mean of the per-pair ratios
// a[i]/b[i] lies in band (PairedRatioCI); fewer than MinUnits pairs is
// inconclusive.
func PairedRatioCheck(label string, a, b []float64, band Band) Check {
	c := Check{Label: label, Kind: KindThreshold, EffectLabel: "geometric mean of the paired ratios",
		Rule:   fmt.Sprintf("95%% CI of the geometric mean of the paired ratios (Student's t on the logs) wholly %s, n >= %d pairs", band, MinUnits),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{len(a)}}
	if len(a) < MinUnits {
		return inconclusive(c, "%d pair(s): a verdict needs at least %d", len(a), MinUnits)
	}
	c = inBand(c, band)(PairedRatioCI(a, b))
	if l, se, df, err := pairedLogRatio(a, b); err == nil && len(a) >= 2 {
		lo, hi := logBand(band)
		c.withBandP(l, se, df, lo, hi)
	}
	return c
}

// CrossoverRatioCI is PairedRatioCI for a two-period crossover: each pair
// ran its two arms side by side, in two positions (first[i]: a held the
// first position in pair i), and the positions alternate because a
// position may favour its arm. The log ratios are analysed as the AB/BA
// crossover of Jones and Kenward ("Design and Analysis of Cross-Over
// Trials", 2003, ch. 2): log(a/b) = mu + beta*s + e with s = +1 when a held
// the first position and -1 when not; mu is the arms' effect (the mean of the
// two position groups' means), beta the position's, and the interval is
// Student's t on n - 2 degrees of freedom with the pooled within-group
// variance: Var(mu) = s²/4 · (1/n1 + 1/n2). Compared with PairedRatioCI
// this takes the position's share out of the spread instead of counting it
// as noise (with equal groups the estimate is the same). position is the
// ratio exp(2 beta): how much the first position favours its arm. Needs at
// least one pair in each position and 3 pairs.
func CrossoverRatioCI(a, b []float64, first []bool) (ratio, lo, hi, position float64, err error) {
	if len(a) != len(b) || len(a) != len(first) {
		return nan(), nan(), nan(), nan(), fmt.Errorf("crossover ratio: %d, %d and %d values, need one of each per pair", len(a), len(b), len(first))
	}
	var groups [2][]float64 // [0]: a first, [1]: b first
	for i := range a {
		if !(a[i] > 0) || !(b[i] > 0) || math.IsInf(a[i], 0) || math.IsInf(b[i], 0) {
			return nan(), nan(), nan(), nan(), fmt.Errorf("crossover ratio: pair %d has %v and %v, need positive finite values", i, a[i], b[i])
		}
		g := 1
		if first[i] {
			g = 0
		}
		groups[g] = append(groups[g], math.Log(a[i]/b[i]))
	}
	n1, n2 := len(groups[0]), len(groups[1])
	if n1 == 0 || n2 == 0 || n1+n2 < 3 {
		return nan(), nan(), nan(), nan(), fmt.Errorf("crossover ratio: %d pair(s) with the first arm first and %d with it second; need both positions and at least 3 pairs", n1, n2)
	}
	m1, m2 := stat.Mean(groups[0], nil), stat.Mean(groups[1], nil)
	ss := 0.0
	for g, m := range []float64{m1, m2} {
		for _, d := range groups[g] {
			ss += (d - m) * (d - m)
		}
	}
	df := float64(n1 + n2 - 2)
	se := math.Sqrt(ss / df / 4 * (1/float64(n1) + 1/float64(n2)))
	mu := (m1 + m2) / 2
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - Alpha/2)
	return math.Exp(mu), math.Exp(mu - q*se), math.Exp(mu + q*se), math.Exp(m1 - m2), nil
}

// CrossoverRatioCheck tests that the arms' ratio a/b of a two-period
// crossover (CrossoverRatioCI) lies in band.
func CrossoverRatioCheck(label string, a, b []float64, first []bool, band Band) Check {
	c := Check{Label: label, Kind: KindThreshold, EffectLabel: "ratio of the arms, position taken out",
		Rule:   fmt.Sprintf("95%% CI of the arms' geometric mean ratio in an AB/BA crossover (Student's t on the logs, n-2 df, position effect removed) wholly %s", band),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{len(a)}}
	ratio, lo, hi, _, err := CrossoverRatioCI(a, b, first)
	return inBand(c, band)(ratio, lo, hi, err)
}
