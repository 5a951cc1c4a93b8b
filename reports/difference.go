package reports

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// WelchResult is a t-test of a difference of means: Welch's two-sample
// test (Welch) or the paired test on per-unit differences (PairedT).
type WelchResult struct {
	Diff          float64 // mean(a) - mean(b) (paired: mean of a[i] - b[i])
	SE            float64
	T, DF         float64
	CILow, CIHigh float64 // two-sided 95% interval of Diff
	PGreater      float64 // one-sided p for H1: mean(a) > mean(b)
	PLess         float64 // one-sided p for H1: mean(a) < mean(b)
	PTwoSided     float64
	NA, NB        int
	MeanA, MeanB  float64
	VarA, VarB    float64
}

// Welch runs Welch's unequal-variance t-test: t = (mean(a) - mean(b)) /
// sqrt(s_a²/n_a + s_b²/n_b) with sample variances, degrees of freedom by
// Welch-Satterthwaite, p from Student's t (gonum distuv). Both samples need
// at least 2 finite values. Samples constant up to rounding (standard
// error at most relRounding times the larger |mean|) are decided exactly:
// a difference within rounding is none (p = 1 both ways), a larger one has
// p = 0 in its direction.
func Welch(a, b []float64) (WelchResult, error) {
	if len(a) < 2 || len(b) < 2 {
		return WelchResult{}, fmt.Errorf("Welch's test needs at least 2 units per group, got %d and %d", len(a), len(b))
	}
	if !finite(a) || !finite(b) {
		return WelchResult{}, errors.New("Welch's test: a value is NaN or infinite")
	}
	r := WelchResult{NA: len(a), NB: len(b)}
	r.MeanA, r.VarA = stat.MeanVariance(a, nil)
	r.MeanB, r.VarB = stat.MeanVariance(b, nil)
	na, nb := float64(r.NA), float64(r.NB)
	se2 := r.VarA/na + r.VarB/nb
	df := na + nb - 2
	if se2 > 0 {
		df = se2 * se2 / ((r.VarA/na)*(r.VarA/na)/(na-1) + (r.VarB/nb)*(r.VarB/nb)/(nb-1))
	}
	r.finish(r.MeanA-r.MeanB, se2, df, math.Max(math.Abs(r.MeanA), math.Abs(r.MeanB)))
	return r, nil
}

// PairedT is the paired t-test of a[i] - b[i] (scipy.stats.ttest_rel):
// the one-sample t-test of the differences, n - 1 degrees of freedom. For
// units measured on both sides (the same graph under two settings), whose
// shared part then cancels. Needs equal lengths and at least 2 pairs;
// constant differences are decided as in Welch.
func PairedT(a, b []float64) (WelchResult, error) {
	if len(a) != len(b) {
		return WelchResult{}, fmt.Errorf("paired t-test: %d and %d values, need one of each per unit", len(a), len(b))
	}
	if len(a) < 2 {
		return WelchResult{}, fmt.Errorf("paired t-test needs at least 2 pairs, got %d", len(a))
	}
	if !finite(a) || !finite(b) {
		return WelchResult{}, errors.New("paired t-test: a value is NaN or infinite")
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	r := WelchResult{NA: len(a), NB: len(b), MeanA: stat.Mean(a, nil), MeanB: stat.Mean(b, nil)}
	md, vd := stat.MeanVariance(d, nil)
	r.VarA, r.VarB = vd, vd
	n := float64(len(d))
	r.finish(md, vd/n, n-1, math.Max(math.Abs(r.MeanA), math.Abs(r.MeanB)))
	return r, nil
}

// finish sets the test's t, p-values and 95% interval from the difference,
// its squared standard error, the degrees of freedom and the scale of the
// means (for the rounding rule of Welch).
func (r *WelchResult) finish(diff, se2, df, scale float64) {
	r.Diff, r.SE, r.DF = diff, math.Sqrt(se2), df
	if r.SE <= relRounding*scale {
		// Constant up to rounding: no sampling error to test against.
		if math.Abs(diff) <= relRounding*scale {
			r.Diff = 0
		}
		r.CILow, r.CIHigh = r.Diff, r.Diff
		r.PGreater, r.PLess, r.PTwoSided, r.T = 1, 1, 1, 0
		switch {
		case r.Diff > 0:
			r.PGreater, r.PTwoSided, r.T = 0, 0, math.Inf(1)
		case r.Diff < 0:
			r.PLess, r.PTwoSided, r.T = 0, 0, math.Inf(-1)
		}
		return
	}
	r.T = diff / r.SE
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	r.PGreater = t.Survival(r.T)
	r.PLess = t.CDF(r.T)
	r.PTwoSided = math.Min(1, 2*math.Min(r.PGreater, r.PLess))
	q := t.Quantile(1 - Alpha/2)
	r.CILow, r.CIHigh = diff-q*r.SE, diff+q*r.SE
}

// DifferenceCheck tests the claim mean(a) dir mean(b) (e.g. Greater: a's
// mean is larger) on independent units with Welch's one-sided test. The
// verdict is set by Judge (Holm's correction needs every p of the
// experiment); until then it is inconclusive. unit names the effect's unit
// for EffectLabel. Fewer than MinUnits units on a side is inconclusive.
func DifferenceCheck(label string, a, b []float64, dir Direction, unit string) Check {
	c := differenceCheck(label, "Welch's t-test", "difference of means "+unit, dir, []int{len(a), len(b)})
	if n := min(len(a), len(b)); n < MinUnits {
		return inconclusive(c, "%d and %d units: a verdict needs at least %d per side", len(a), len(b), MinUnits)
	}
	w, err := Welch(a, b)
	return c.withTest(w, err, dir)
}

// PairedDifferenceCheck tests mean(a[i] - b[i]) dir 0 with the paired
// t-test (PairedT), for sides measured on the same units (graph
// instances): a[i] and b[i] must be the same unit. Judged by Judge with
// the difference checks; fewer than MinUnits pairs is inconclusive.
func PairedDifferenceCheck(label string, a, b []float64, dir Direction, unit string) Check {
	c := differenceCheck(label, "paired t-test over shared units", "mean paired difference "+unit, dir, []int{len(a)})
	if len(a) != len(b) {
		return inconclusive(c, "paired check with %d and %d units", len(a), len(b))
	}
	if len(a) < MinUnits {
		return inconclusive(c, "%d pair(s): a verdict needs at least %d", len(a), MinUnits)
	}
	w, err := PairedT(a, b)
	return c.withTest(w, err, dir)
}

func differenceCheck(label, test, effect string, dir Direction, n []int) Check {
	return Check{Label: label, Kind: KindDifference, EffectLabel: strings.TrimSpace(effect),
		Rule:   fmt.Sprintf("%s, one-sided (mean %s), Holm-adjusted p < %.3g (so its 95%% CI is on the claimed side of 0), n >= %d per side", test, dir.word(), OneSided, MinUnits),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(),
		N: n, Verdict: Inconclusive, Reason: "not judged yet"}
}

// withTest fills a difference check from a t-test's result.
func (c Check) withTest(w WelchResult, err error, dir Direction) Check {
	if err != nil {
		return inconclusive(c, "%v", err)
	}
	c.Effect, c.CILow, c.CIHigh = w.Diff, w.CILow, w.CIHigh
	if dir == Greater {
		c.PRaw, c.PAgainst = w.PGreater, w.PLess
	} else {
		c.PRaw, c.PAgainst = w.PLess, w.PGreater
	}
	c.P, c.PLabel = c.PRaw, "unadjusted, claimed side"
	return c
}

// Holm returns Holm's step-down adjusted p-values (Holm 1979; R's
// p.adjust(method = "holm")): sort ascending, p_(i) * (m - i + 1) for the
// i-th smallest, made monotone by a running maximum and capped at 1. NaN
// entries are left NaN and do not count in m.
func Holm(ps []float64) []float64 {
	out := make([]float64, len(ps))
	var idx []int
	for i, p := range ps {
		out[i] = nan()
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(i, j int) bool { return ps[idx[i]] < ps[idx[j]] })
	m := len(idx)
	run := 0.0
	for rank, i := range idx {
		adj := math.Min(1, ps[i]*float64(m-rank))
		run = math.Max(run, adj)
		out[i] = run
	}
	return out
}

// Judge decides every difference check in checks (one experiment's family)
// with Holm's correction over their p-values: the claimed direction's
// adjusted p < OneSided holds; the opposite direction's adjusted p <
// OneSided (the same correction over the family's opposite p-values) does
// not hold; otherwise inconclusive. P is then the p that decided: the
// opposite direction's for "does not hold", the claimed one's otherwise.
// Checks of other kinds, and checks already inconclusive for lack of data,
// are left as they are.
func Judge(checks []*Check) {
	var fam []*Check
	for _, c := range checks {
		if c.Kind == KindDifference && !math.IsNaN(c.PRaw) {
			fam = append(fam, c)
		}
	}
	pf, pa := make([]float64, len(fam)), make([]float64, len(fam))
	for i, c := range fam {
		pf[i], pa[i] = c.PRaw, c.PAgainst
	}
	af, aa := Holm(pf), Holm(pa)
	for i, c := range fam {
		c.P, c.PLabel = af[i], "Holm-adjusted, claimed side"
		switch {
		case af[i] < OneSided:
			c.Verdict, c.Reason = Holds, fmt.Sprintf("significant in the claimed direction (Holm-adjusted one-sided p %.3g < %.3g, %d tests)", af[i], OneSided, len(fam))
		case aa[i] < OneSided:
			c.P, c.PLabel = aa[i], "Holm-adjusted, against the claim"
			c.Verdict, c.Reason = DoesNotHold, fmt.Sprintf("significant in the opposite direction (Holm-adjusted one-sided p %.3g < %.3g, %d tests)", aa[i], OneSided, len(fam))
		default:
			c.Verdict, c.Reason = Inconclusive, fmt.Sprintf("no significant difference (Holm-adjusted one-sided p %.3g >= %.3g, %d tests)", af[i], OneSided, len(fam))
		}
	}
}
