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

// Statistical inference for the experiments' claims: the rules are stated
// once in doc.go ("Verdicts") and each check's doc comment names its own.
//
// One convention decides every check kind: a claim holds when the data
// reject its negation at one-sided level Alpha/2 = 0.025, which is the same
// as its two-sided 95% confidence interval lying wholly on the claimed side
// of every boundary (Welch or paired difference: of 0; trend: of rho = 0 or
// inside the band; threshold: inside the band; equivalence: inside the
// margin). Every printed interval is that 95% interval, so a "holds" line
// never shows an interval that includes its boundary. Difference checks are
// in addition Holm-corrected over the experiment's family.
//
// Missing data, a NaN, fewer than MinUnits units, or any error makes a
// check inconclusive with the reason; it never yields "does not hold" and
// never panics (an exact check is refuted by one counter-example among at
// least 2 units). Merge combines the checks of one claim: any "does not
// hold" wins, then any "inconclusive", else "holds".

// Alpha is the two-sided level of every check: its 95% interval decides,
// and each one-sided boundary test is at Alpha/2.
const Alpha = 0.05

// OneSided is the level of each one-sided test (Alpha/2): a difference
// holds when its Holm-adjusted one-sided p is below it.
const OneSided = Alpha / 2

// MinUnits is the fewest independent units (per group; pairs for paired
// checks) on which any check may decide, either way. Two units give one
// degree of freedom (t quantile 12.7) and a spread that two equal units
// make zero; the team's rule is at least 3 independent units.
const MinUnits = 3

// MinTrendPoints is the fewest x values a trend check decides on: with n
// points the strongest possible evidence, a perfect rank order, has exact
// permutation p = 1/n! one-sided, which is above OneSided for n = 4
// (1/24 = 0.042) and below it from n = 5 (1/120 = 0.0083).
const MinTrendPoints = 5

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
	// KindEquivalence: a claim of no or small effect (TOST).
	KindEquivalence CheckKind = "equivalence"
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
	N           []int   // units per group (pairs for a paired check)
	P           float64 // the deciding p (PLabel says which); NaN if none
	PLabel      string  // what P is, e.g. "Holm-adjusted, against the claim"
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

// relRounding is the relative size below which a difference of means or
// a standard error is floating-point rounding, not a measurement: a mean of
// equal values can differ from that value in its last bits (mean of {0.1,
// 0.1, 0.1} is 0.1 + 1.39e-17), and averaging a graph's repetitions does the
// same. 1e-12 is far above the rounding of a sum of a million terms
// (about 1e6 · 1.1e-16) and far below any effect a claim is about.
const relRounding = 1e-12

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

// ExactCheck is a predicate on measured values (a sanity check, or a
// universal statement one counter-example refutes). n is the number of
// units it looked at: fewer than 2 is inconclusive either way, and a
// holding predicate needs at least minHold and at least MinUnits units (a
// universal statement seen true on a single run is not yet evidence).
func ExactCheck(label, rule string, ok bool, n, minHold int, reason string) Check {
	c := Check{Label: label, Kind: KindExact, Rule: rule, Effect: nan(), CILow: nan(), CIHigh: nan(),
		P: nan(), PRaw: nan(), PAgainst: nan(), N: []int{n}, Reason: reason}
	switch {
	case n < 2:
		return inconclusive(c, "%d unit(s): a verdict needs at least 2", n)
	case ok && n < max(minHold, MinUnits):
		return inconclusive(c, "holds on %d units, but holding needs at least %d (%s)", n, max(minHold, MinUnits), reason)
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
