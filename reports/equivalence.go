package reports

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Equivalence checks: claims of no or of a small effect ("density does not
// markedly affect the cut rate"). A difference test can never support such
// a claim (no significant difference is absence of evidence), so these use
// the two one-sided tests (TOST) of Schuirmann ("A comparison of the two
// one-sided tests procedure and the power approach for assessing the
// equivalence of average bioavailability", 1987) against a margin the
// claim states: the effect holds as "within the margin" when both
// one-sided tests reject "beyond the margin" at OneSided (0.025), i.e. the
// 95% CI lies wholly inside the margin; it does not hold when the 95% CI
// lies wholly outside (the effect is significantly beyond the margin); else
// inconclusive. P is the TOST p, the larger of the two one-sided p-values;
// for "does not hold" the one-sided p of lying beyond the margin (bandP).
// Like threshold checks these are not Holm-corrected: each is an interval
// rule at the common 95% level.

// distribution is a standard test distribution (Student's t, the normal).
type distribution interface {
	CDF(float64) float64
	Survival(float64) float64
}

// bandP is the p that decides an interval rule: an estimate est with
// standard error se (statistic (est - bound)/se following dist) against
// the band [lo, hi] (±Inf for an open side). For "holds" and
// "inconclusive" it is the TOST p, the larger of the one-sided p-values
// of "above lo" and "below hi" (0 for an infinite bound); for "does not
// hold" it is the one-sided p of the estimate lying beyond the bound it
// crossed. The rule's verdict at OneSided agrees with the 95% interval
// est ± q·se. With se = 0 it is 0 or 1.
func bandP(est, se float64, dist distribution, lo, hi float64, v Verdict) (p float64, label string) {
	beyond := func(bound float64, above bool) float64 {
		switch {
		case math.IsInf(bound, 0):
			return 0
		case se == 0 && above == (est > bound):
			return 0
		case se == 0:
			return 1
		case above:
			return dist.Survival((est - bound) / se)
		}
		return dist.CDF((est - bound) / se)
	}
	if v == DoesNotHold {
		if est > hi {
			return beyond(hi, true), "beyond the upper bound"
		}
		return beyond(lo, false), "beyond the lower bound"
	}
	p = math.Max(beyond(lo, true), beyond(hi, false))
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return p, "one-sided, against the bound" // a threshold: one test, not two
	}
	return p, "TOST"
}

// EquivalenceCheck tests that mean(a) - mean(b) lies within ±margin:
// Welch's interval for independent units, the paired t interval (PairedT)
// when paired (a[i] and b[i] the same unit). margin > 0 in the metric's
// unit; fewer than MinUnits units (pairs) is inconclusive.
func EquivalenceCheck(label string, a, b []float64, margin float64, paired bool, unit string) Check {
	test, n := "Welch", []int{len(a), len(b)}
	if paired {
		test, n = "paired t", []int{len(a)}
	}
	band := Band{-margin, margin}
	c := Check{Label: label, Kind: KindEquivalence, EffectLabel: fmt.Sprintf("difference of means %s", unit),
		Rule:   fmt.Sprintf("equivalence (TOST, %s): 95%% CI of the difference wholly within ±%.4g, n >= %d", test, margin, MinUnits),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(), N: n, PLabel: "TOST"}
	if !(margin > 0) {
		return inconclusive(c, "equivalence margin %v: state a positive margin in the claim", margin)
	}
	if min(len(a), len(b)) < MinUnits {
		return inconclusive(c, "%d and %d units: a verdict needs at least %d", len(a), len(b), MinUnits)
	}
	var w WelchResult
	var err error
	if paired {
		w, err = PairedT(a, b)
	} else {
		w, err = Welch(a, b)
	}
	if err != nil {
		return inconclusive(c, "%v", err)
	}
	c.Effect, c.CILow, c.CIHigh = w.Diff, w.CILow, w.CIHigh
	se := w.SE
	if w.CILow == w.CIHigh {
		se = 0 // constant up to rounding (Welch, PairedT)
	}
	c.Verdict, c.Reason = IntervalVerdict(w.CILow, w.CIHigh, band)
	c.P, c.PLabel = bandP(w.Diff, se, distuv.StudentsT{Mu: 0, Sigma: 1, Nu: w.DF}, -margin, margin, c.Verdict)
	c.PRaw = c.P
	return c
}

// EquivalenceRatioCheck tests that the ratio of a to b lies within [lo,
// hi] (e.g. [0.8, 1.25]: within 25% either way on the log scale; or [1.01,
// 1.5] for "a small rise": at least 1%, under 50%), with the TOST p on the
// log scale. Independent units: the ratio of means with the delta-method
// interval of RatioCI. Paired (a[i] and b[i] the same unit): the geometric
// mean of the per-unit ratios with the interval of PairedRatioCI, whose
// TOST is the paired t TOST of the logs. Fewer than MinUnits units (pairs)
// is inconclusive.
func EquivalenceRatioCheck(label string, a, b []float64, lo, hi float64, paired bool) Check {
	band := Band{lo, hi}
	c := Check{Label: label, Kind: KindEquivalence, EffectLabel: "ratio of means",
		Rule:   fmt.Sprintf("equivalence (TOST on the log ratio, delta method): 95%% CI of the ratio of means wholly %s, n >= %d per side", band, MinUnits),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{len(a), len(b)}, PLabel: "TOST"}
	if paired {
		c.EffectLabel, c.N = "geometric mean of the paired ratios", []int{len(a)}
		c.Rule = fmt.Sprintf("equivalence (TOST, paired t on the log ratios): 95%% CI of the geometric mean ratio wholly %s, n >= %d pairs", band, MinUnits)
	}
	if !(lo > 0 && hi > lo) {
		return inconclusive(c, "equivalence margin [%v, %v]: state 0 < lo < hi in the claim", lo, hi)
	}
	if min(len(a), len(b)) < MinUnits {
		return inconclusive(c, "%d and %d units: a verdict needs at least %d per side", len(a), len(b), MinUnits)
	}
	l, se, df, err := logRatio(a, b)
	if paired {
		l, se, df, err = pairedLogRatio(a, b)
	}
	if err != nil {
		return inconclusive(c, "%v", err)
	}
	q := 0.0
	if se > 0 {
		q = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - Alpha/2)
	}
	c.Effect, c.CILow, c.CIHigh = math.Exp(l), math.Exp(l-q*se), math.Exp(l+q*se)
	c.Verdict, c.Reason = IntervalVerdict(c.CILow, c.CIHigh, band)
	c.P, c.PLabel = bandP(l, se, distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}, math.Log(lo), math.Log(hi), c.Verdict)
	c.PRaw = c.P
	return c
}

// pairedLogRatio is the mean of log(a[i]/b[i]) with its standard error and
// n - 1 degrees of freedom (PairedRatioCI); within rounding it is exact.
func pairedLogRatio(a, b []float64) (l, se, df float64, err error) {
	logs, err := pairedLogs(a, b)
	if err != nil {
		return nan(), nan(), nan(), err
	}
	m, v := stat.MeanVariance(logs, nil)
	n := float64(len(logs))
	se = math.Sqrt(v / n)
	if se <= relRounding {
		if math.Abs(m) <= relRounding {
			m = 0
		}
		se = 0
	}
	return m, se, n - 1, nil
}
