package reports

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/montanaflynn/stats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Statistical inference for the experiments' claims.
//
// A claim is judged by one or more Checks. Every check has one of three
// verdicts, decided by a stated rule (Jepsen's checker shape: valid? true,
// false or unknown):
//
//   - Difference (a claim "A > B" or "A < B" on independent units): Welch's
//     unequal-variance t-test, one-sided in the claimed direction, at
//     Alpha = 0.05 after Holm's step-down correction over every difference
//     check of one experiment (Judge). Holds when the Holm-adjusted p of the
//     claimed direction is < Alpha; does not hold when the Holm-adjusted p of
//     the opposite one-sided test is < Alpha (a significant effect against
//     the claim); inconclusive otherwise.
//   - Trend (a claim "y rises / falls with x"): Spearman's rho with a 95%
//     confidence interval from Fisher's z transform, z = atanh(rho) with
//     standard error sqrt(1.06 / (n - 3)) (Fieller, Hartley and Pearson 1957,
//     the variant for rank correlation). Holds when the interval lies wholly
//     on the claimed side of 0 (or inside the claimed band); does not hold
//     when it lies wholly on the other side (or outside the band);
//     inconclusive otherwise. Needs n >= 4 points. A y that is exactly
//     constant over x counts as rho = 0 with an empty interval (no
//     dependence at all: a "rises" claim does not hold).
//   - Threshold (a claim "the mean / the ratio of means is above, below or
//     within a bound"): the 95% confidence interval (Student's t for a mean;
//     for a ratio of two means the delta method on the log scale with
//     Welch-Satterthwaite degrees of freedom) lies wholly inside the claimed
//     region: holds; wholly outside it: does not hold; straddles a bound:
//     inconclusive.
//   - Exact (a sanity check or a universal statement such as "no deadline
//     is missed"): a plain predicate on the measured values; one observed
//     counter-example is positive evidence against it.
//
// Missing data, a NaN, fewer than 2 units on a side, or any error makes a
// check inconclusive with the reason; it never yields "does not hold" and
// never panics. Merge combines the checks of one claim: any "does not hold"
// wins, then any "inconclusive", else "holds" (a claim that is a
// conjunction fails on one refuted part and is undecided on one undecided
// part).

// Alpha is the significance level of every test.
const Alpha = 0.05

// Verdict is the three-valued outcome of a check or a claim.
type Verdict string

// The three verdicts.
const (
	Holds        Verdict = "holds"
	DoesNotHold  Verdict = "does not hold"
	Inconclusive Verdict = "inconclusive"
)

// CheckKind says which rule decides a check.
type CheckKind string

// Check kinds.
const (
	KindDifference CheckKind = "difference"
	KindTrend      CheckKind = "trend"
	KindThreshold  CheckKind = "threshold"
	KindExact      CheckKind = "exact"
)

// Direction of a claim: the first quantity is greater or less than the
// second (or than 0 for a trend).
type Direction int

// Directions.
const (
	Greater Direction = 1
	Less    Direction = -1
)

func (d Direction) word() string {
	if d == Greater {
		return ">"
	}
	return "<"
}

// Check is one statistical check of a claim. Effect, CILow, CIHigh and P
// are NaN when the rule has none (or the data did not allow one).
type Check struct {
	Label       string // what is compared, e.g. "K-PART vs Even, throughput"
	Kind        CheckKind
	Rule        string // the decision rule in words
	Effect      float64
	EffectLabel string // e.g. "mean difference (tuples/s)", "Spearman rho", "ratio of means"
	CILow       float64
	CIHigh      float64
	N           []int   // units per group
	P           float64 // p of the claimed direction (Holm-adjusted after Judge)
	PRaw        float64 // unadjusted one-sided p of the claimed direction
	PAgainst    float64 // unadjusted one-sided p of the opposite direction
	Verdict     Verdict
	Reason      string
}

func nan() float64 { return math.NaN() }

func inconclusive(c Check, format string, a ...any) Check {
	c.Verdict = Inconclusive
	c.Reason = fmt.Sprintf(format, a...)
	return c
}

// finite reports whether every value is a finite number.
func finite(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// WelchResult is Welch's two-sample t-test of mean(a) - mean(b).
type WelchResult struct {
	Diff          float64 // mean(a) - mean(b)
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
// at least 2 finite values. Two constant samples (standard error 0) give
// p = 0 for the direction of a non-zero difference and 1 otherwise.
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
	r.Diff = r.MeanA - r.MeanB
	se2 := r.VarA/na + r.VarB/nb
	r.SE = math.Sqrt(se2)
	if se2 == 0 {
		r.DF, r.CILow, r.CIHigh = na+nb-2, r.Diff, r.Diff
		r.PGreater, r.PLess, r.PTwoSided = 1, 1, 1
		switch {
		case r.Diff > 0:
			r.PGreater, r.PTwoSided, r.T = 0, 0, math.Inf(1)
		case r.Diff < 0:
			r.PLess, r.PTwoSided, r.T = 0, 0, math.Inf(-1)
		}
		return r, nil
	}
	r.T = r.Diff / r.SE
	r.DF = se2 * se2 / ((r.VarA/na)*(r.VarA/na)/(na-1) + (r.VarB/nb)*(r.VarB/nb)/(nb-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
	r.PGreater = t.Survival(r.T)
	r.PLess = t.CDF(r.T)
	r.PTwoSided = math.Min(1, 2*math.Min(r.PGreater, r.PLess))
	q := t.Quantile(0.975)
	r.CILow, r.CIHigh = r.Diff-q*r.SE, r.Diff+q*r.SE
	return r, nil
}

// DifferenceCheck tests the claim mean(a) dir mean(b) (e.g. Greater: a's
// mean is larger) with Welch's one-sided test. The verdict is set by Judge
// (Holm's correction needs every p of the experiment); until then it is
// inconclusive. unit names the effect's unit for EffectLabel.
func DifferenceCheck(label string, a, b []float64, dir Direction, unit string) Check {
	c := Check{Label: label, Kind: KindDifference, EffectLabel: "difference of means " + unit,
		Rule:   fmt.Sprintf("Welch's t-test, one-sided (mean %s), Holm-adjusted, alpha %.2f", dir.word(), Alpha),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(),
		N: []int{len(a), len(b)}, Verdict: Inconclusive, Reason: "not judged yet"}
	c.EffectLabel = strings.TrimSpace(c.EffectLabel)
	w, err := Welch(a, b)
	if err != nil {
		return inconclusive(c, "%v", err)
	}
	c.Effect, c.CILow, c.CIHigh = w.Diff, w.CILow, w.CIHigh
	if dir == Greater {
		c.PRaw, c.PAgainst = w.PGreater, w.PLess
	} else {
		c.PRaw, c.PAgainst = w.PLess, w.PGreater
	}
	c.P = c.PRaw
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
// with Holm's correction over their p-values: claimed direction's adjusted
// p < Alpha holds; the opposite direction's adjusted p < Alpha (the same
// correction over the family's opposite p-values) does not hold; otherwise
// inconclusive. Checks of other kinds are left as they are. Checks already
// inconclusive for lack of data stay so.
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
		c.P = af[i]
		switch {
		case af[i] < Alpha:
			c.Verdict, c.Reason = Holds, fmt.Sprintf("significant in the claimed direction (Holm-adjusted p %.3g < %.2f, %d tests)", af[i], Alpha, len(fam))
		case aa[i] < Alpha:
			c.Verdict, c.Reason = DoesNotHold, fmt.Sprintf("significant in the opposite direction (Holm-adjusted p %.3g < %.2f, %d tests)", aa[i], Alpha, len(fam))
		default:
			c.Verdict, c.Reason = Inconclusive, fmt.Sprintf("no significant difference (Holm-adjusted p %.3g >= %.2f, %d tests)", af[i], Alpha, len(fam))
		}
	}
}

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
	if math.Abs(rho) >= 1 {
		r.CILow, r.CIHigh, r.P = rho, rho, 0
		return r, nil
	}
	z, se := math.Atanh(rho), math.Sqrt(1.06/(n-3))
	q := distuv.UnitNormal.Quantile(0.975)
	r.CILow, r.CIHigh = math.Tanh(z-q*se), math.Tanh(z+q*se)
	t := rho * math.Sqrt((n-2)/(1-rho*rho))
	r.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 2}.Survival(math.Abs(t))
	return r, nil
}

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

// IntervalVerdict is the rule of trend and threshold checks: the interval
// [lo, hi] inside the band holds, disjoint from it does not hold, else
// inconclusive.
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

// TrendCheck tests that y rises (Greater) or falls (Less) with x: the
// 95% CI of Spearman's rho lies wholly above (below) 0.
func TrendCheck(label string, x, y []float64, dir Direction) Check {
	// Strictly on one side: rho = 0 is no trend.
	const eps = 1e-12
	b := Above(eps)
	if dir == Less {
		b = Below(-eps)
	}
	c := TrendBandCheck(label, x, y, b)
	c.Rule = fmt.Sprintf("Spearman's rho %s 0: 95%% CI (Fisher z, se sqrt(1.06/(n-3))) wholly on that side", dir.word())
	return c
}

// TrendBandCheck tests that Spearman's rho of y on x lies in band (e.g.
// (-0.5, 0.5) for "no strong monotone dependence").
func TrendBandCheck(label string, x, y []float64, band Band) Check {
	c := Check{Label: label, Kind: KindTrend, EffectLabel: "Spearman rho",
		Rule:   fmt.Sprintf("Spearman's rho %s: 95%% CI (Fisher z, se sqrt(1.06/(n-3))) wholly inside", band),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{len(x)}}
	if len(x) == len(y) && len(y) >= 4 && finite(x) && finite(y) && constant(y) && !constant(x) {
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
	c.Effect, c.CILow, c.CIHigh, c.P, c.PRaw = s.Rho, s.CILow, s.CIHigh, s.P, s.P
	c.Verdict, c.Reason = IntervalVerdict(s.CILow, s.CIHigh, band)
	return c
}

func constant(xs []float64) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return true
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
// inside holds, wholly outside does not hold.
func MeanCheck(label string, xs []float64, band Band, unit string) Check {
	c := Check{Label: label, Kind: KindThreshold, EffectLabel: strings.TrimSpace("mean " + unit),
		Rule:   fmt.Sprintf("95%% CI of the mean (Student's t) wholly %s", band),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{len(xs)}}
	return inBand(c, band)(MeanCI(xs))
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

// RatioCI is mean(a)/mean(b) with a 95% interval by the delta method on
// the log scale: var(log R) ≈ s_a²/(n_a m_a²) + s_b²/(n_b m_b²), degrees of
// freedom by Welch-Satterthwaite on the two terms, interval exp(log R ±
// t · se). Both means must be positive and both samples have >= 2 values.
func RatioCI(a, b []float64) (ratio, lo, hi float64, err error) {
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
	ratio = ma / mb
	ta, tb := va/(float64(len(a))*ma*ma), vb/(float64(len(b))*mb*mb)
	se2 := ta + tb
	if se2 == 0 {
		return ratio, ratio, ratio, nil
	}
	df := se2 * se2 / (ta*ta/float64(len(a)-1) + tb*tb/float64(len(b)-1))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	se := math.Sqrt(se2)
	return ratio, ratio * math.Exp(-q*se), ratio * math.Exp(q*se), nil
}

// RatioCheck tests that mean(a)/mean(b) lies in band.
func RatioCheck(label string, a, b []float64, band Band) Check {
	c := Check{Label: label, Kind: KindThreshold, EffectLabel: "ratio of means",
		Rule:   fmt.Sprintf("95%% CI of the ratio of means (delta method, log scale) wholly %s", band),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{len(a), len(b)}}
	return inBand(c, band)(RatioCI(a, b))
}

// PairedRatioCI is the geometric mean of the per-pair ratios a[i]/b[i]
// with the 95% interval of Student's t on their logarithms: exp(mean(log
// r) ± t(n-1) · sd(log r)/√n). For paired designs (both arms measured side
// by side, so the pair shares every disturbance of the machine): the
// interval then reflects only how the ratio varies, not how each arm does.
// Needs >= 2 pairs, equal lengths and positive values.
func PairedRatioCI(a, b []float64) (ratio, lo, hi float64, err error) {
	if len(a) != len(b) {
		return nan(), nan(), nan(), fmt.Errorf("paired ratio: %d and %d values, need one of each per pair", len(a), len(b))
	}
	logs := make([]float64, len(a))
	for i := range a {
		if !(a[i] > 0) || !(b[i] > 0) || math.IsInf(a[i], 0) || math.IsInf(b[i], 0) {
			return nan(), nan(), nan(), fmt.Errorf("paired ratio: pair %d has %v and %v, need positive finite values", i, a[i], b[i])
		}
		logs[i] = math.Log(a[i] / b[i])
	}
	m, l, h, err := MeanCI(logs)
	if err != nil {
		return nan(), nan(), nan(), fmt.Errorf("paired ratio: %w", err)
	}
	return math.Exp(m), math.Exp(l), math.Exp(h), nil
}

// PairedRatioCheck tests that the geometric mean of the per-pair ratios
// a[i]/b[i] lies in band (PairedRatioCI).
func PairedRatioCheck(label string, a, b []float64, band Band) Check {
	c := Check{Label: label, Kind: KindThreshold, EffectLabel: "geometric mean of the paired ratios",
		Rule:   fmt.Sprintf("95%% CI of the geometric mean of the paired ratios (Student's t on the logs) wholly %s", band),
		Effect: nan(), CILow: nan(), CIHigh: nan(), P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{len(a)}}
	return inBand(c, band)(PairedRatioCI(a, b))
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
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
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

// ExactCheck is a predicate on measured values (a sanity check, or a
// universal statement one counter-example refutes). n is the number of
// units it looked at: fewer than 2 is inconclusive either way, and a
// holding predicate needs at least minHold units (a universal statement
// seen true on a single run is not yet evidence).
func ExactCheck(label, rule string, ok bool, n, minHold int, reason string) Check {
	c := Check{Label: label, Kind: KindExact, Rule: rule, Effect: nan(), CILow: nan(), CIHigh: nan(),
		P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{n}, Reason: reason}
	switch {
	case n < 2:
		return inconclusive(c, "%d unit(s): a verdict needs at least 2", n)
	case ok && n < minHold:
		return inconclusive(c, "holds on %d units, but holding needs at least %d (%s)", n, minHold, reason)
	case ok:
		c.Verdict = Holds
	default:
		c.Verdict = DoesNotHold
	}
	return c
}

// Missing is an inconclusive check for data that is not there.
func Missing(label, reason string) Check {
	return Check{Label: label, Kind: KindExact, Rule: "needs data", Effect: nan(), CILow: nan(), CIHigh: nan(),
		P: nan(), PRaw: nan(), PAgainst: nan(), Verdict: Inconclusive, Reason: reason}
}

// Merge combines checks Jepsen-style: any "does not hold" wins, then any
// "inconclusive", else "holds"; no checks is inconclusive. It returns the
// merged verdict and the index of the check that decided it (the first
// refuting or undecided check; for "holds", the check with the largest p,
// or the first).
func Merge(checks []Check) (Verdict, int) {
	if len(checks) == 0 {
		return Inconclusive, -1
	}
	for i, c := range checks {
		if c.Verdict == DoesNotHold {
			return DoesNotHold, i
		}
	}
	for i, c := range checks {
		if c.Verdict != Holds {
			return Inconclusive, i
		}
	}
	worst := 0
	for i, c := range checks {
		if !math.IsNaN(c.P) && (math.IsNaN(checks[worst].P) || c.P > checks[worst].P) {
			worst = i
		}
	}
	return Holds, worst
}

// CV is the coefficient of variation (sample std / |mean|) of xs; NaN
// for fewer than 2 values or a zero mean.
func CV(xs []float64) float64 {
	if len(xs) < 2 || !finite(xs) {
		return nan()
	}
	m, v := stat.MeanVariance(xs, nil)
	if m == 0 {
		return nan()
	}
	return math.Sqrt(v) / math.Abs(m)
}
