package reports

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
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
//
// The checks live by kind: difference.go (t-tests, Holm's correction),
// trend.go (Spearman), interval.go (bands and means), ratio.go (ratios of
// means) and equivalence.go (TOST); this file holds the shared types.

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

// relRounding is the relative size below which a difference of means or
// a standard error is floating-point rounding, not a measurement: a mean of
// equal values can differ from that value in its last bits (mean of {0.1,
// 0.1, 0.1} is 0.1 + 1.39e-17), and averaging a graph's repetitions does the
// same. 1e-12 is far above the rounding of a sum of a million terms
// (about 1e6 · 1.1e-16) and far below any effect a claim is about.
const relRounding = 1e-12

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
