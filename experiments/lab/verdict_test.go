package lab

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/reports"
)

// Graph experiments measure every series on the same graphs: the units of
// two sides are aligned by graph (seed, and x when perX), whatever the row
// order, and a graph on one side only is left out and counted.
func TestPairedGraphUnits(t *testing.T) {
	r := &Results{}
	add := func(series string, x float64, seed uint64, v float64) {
		r.Add(Row{Series: series, X: x, InstanceSeed: seed, Values: map[string]float64{"m": v}})
	}
	// Side A: graphs 1, 2, 3 (two repetitions of graph 1); side B in another
	// order, with graph 4 that A lacks.
	add("A", 0, 1, 1.0)
	add("A", 0, 1, 3.0)
	add("A", 0, 2, 5.0)
	add("A", 0, 3, 7.0)
	add("B", 0, 3, 70)
	add("B", 0, 4, 90)
	add("B", 0, 1, 10)
	add("B", 0, 2, 50)
	a, b, unmatched := PairedGraphUnits(r, "m", false, UnitSide{Series: "A"}, UnitSide{Series: "B"})
	want := [][2]float64{{2, 10}, {5, 50}, {7, 70}}
	if len(a) != len(want) || unmatched != 1 {
		t.Fatalf("a %v, b %v, unmatched %d; want %v and 1 unmatched", a, b, unmatched, want)
	}
	for i, w := range want {
		if a[i] != w[0] || b[i] != w[1] {
			t.Errorf("pair %d: %v, %v; want %v", i, a[i], b[i], w)
		}
	}
	// The same series at two x values (kpart-mul's Mul=0 against Mul>0).
	add("A", 1, 1, 4.0)
	add("A", 1, 2, 6.0)
	a, b, _ = PairedGraphUnits(r, "m", false, UnitSide{"A", func(row Row) bool { return row.X == 0 }}, UnitSide{"A", func(row Row) bool { return row.X == 1 }})
	if len(a) != 2 || a[0] != 2 || b[0] != 4 || a[1] != 5 || b[1] != 6 {
		t.Errorf("x sides: %v, %v; want [2 5] and [4 6]", a, b)
	}
}

// A "does not hold" line prints the p that decided it (the Holm-adjusted
// p against the claim, here the single test's 5.631927456343448e-05 from
// scipy.stats.ttest_ind(x, y, equal_var=False, alternative='less')), not
// the claimed direction's p (0.99994).
func TestLinePrintsDecidingP(t *testing.T) {
	x, y := []float64{5.0, 5.2, 4.9, 5.1, 5.3}, []float64{5.6, 5.9, 5.7, 6.0, 5.8}
	cs := []Claim{{Statement: "x > y", Checks: []reports.Check{reports.DifferenceCheck("x > y", x, y, reports.Greater, "")}}}
	JudgeClaims(cs, "")
	line := cs[0].Line()
	if cs[0].Verdict != reports.DoesNotHold || !strings.Contains(line, "p = 5.63e-05 (Holm-adjusted, against the claim)") || strings.Contains(line, "p = 1") {
		t.Errorf("line %q: want does not hold with p = 5.63e-05 against the claim", line)
	}
}

// Identical results averaged over different numbers of repetitions differ
// in their last bits (summed in order, ten 0.1s average to
// 0.09999999999999999, three to 0.10000000000000002; Python: s = 0.0; for
// _ in range(n): s += 0.1; s / n): the graph units of two sides then differ by about 1e-17 with zero
// spread. That is no difference, so no check may find one.
func TestConstantUnitsThroughAveraging(t *testing.T) {
	r := &Results{}
	for g := uint64(1); g <= 5; g++ {
		for rep := 0; rep < 10; rep++ {
			r.Add(Row{Series: "A", InstanceSeed: g, Rep: rep, Values: map[string]float64{"m": 0.1}})
		}
		for rep := 0; rep < 3; rep++ {
			r.Add(Row{Series: "B", InstanceSeed: g, Rep: rep, Values: map[string]float64{"m": 0.1}})
		}
	}
	a, b := GraphUnits(r, "A", "m", nil, false), GraphUnits(r, "B", "m", nil, false)
	if a[0] == b[0] {
		t.Fatalf("test data: units %v and %v are bit-equal; the probe needs a rounding difference", a[0], b[0])
	}
	pa, pb, _ := PairedGraphUnits(r, "m", false, UnitSide{Series: "A"}, UnitSide{Series: "B"})
	checks := []reports.Check{
		reports.DifferenceCheck("A > B", a, b, reports.Greater, ""),
		reports.DifferenceCheck("A < B", a, b, reports.Less, ""),
		reports.PairedDifferenceCheck("A > B paired", pa, pb, reports.Greater, ""),
		reports.PairedDifferenceCheck("A < B paired", pa, pb, reports.Less, ""),
	}
	cs := []Claim{{Statement: "differs", Checks: checks}}
	JudgeClaims(cs, "")
	for _, c := range cs[0].Checks {
		if c.Verdict != reports.Inconclusive || c.Effect != 0 {
			t.Errorf("%s: %s, effect %g (%s); want inconclusive with effect 0", c.Label, c.Verdict, c.Effect, c.Reason)
		}
	}
	// An equivalence check supports "no difference" on the same units.
	eq := reports.EquivalenceRatioCheck("A / B in [0.99, 1.01]", pa, pb, 0.99, 1.01, true)
	if eq.Verdict != reports.Holds {
		t.Errorf("equivalence: %s (%s), want holds", eq.Verdict, eq.Reason)
	}
}

// TestEvidenceNoUnits: a figure over no valid unit (a NaN mean) reads "n/a", its sign and unit with it;
// other figures and words are left alone.
func TestEvidenceNoUnits(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Even NaN%, K-PART 42.0% (+NaN pt)", "Even n/a, K-PART 42.0% (n/a)"},
		{"recovery online NaN s vs storm-even 12 s", "recovery online n/a vs storm-even 12 s"},
		{"K-PART -NaN ms, Even 3 ms; NaN tuples/s", "K-PART n/a, Even 3 ms; n/a"},
		{"NaNo spans stay", "NaNo spans stay"},
	} {
		cs := []Claim{{Statement: "s", Evidence: tc.in}}
		JudgeClaims(cs, "")
		if cs[0].Evidence != tc.want {
			t.Errorf("%q -> %q, want %q", tc.in, cs[0].Evidence, tc.want)
		}
	}
}

// The counts a reader sees: a claim without a kind is a paper's; this project's own claims are counted
// apart and named only when there are some (before, an experiment of only own claims read "0 hold, 0
// do not hold, 0 inconclusive").
func TestVerdictCounts(t *testing.T) {
	claim := func(k ClaimKind, v reports.Verdict) Claim { return Claim{Kind: k, Verdict: v} }
	for _, tc := range []struct {
		name   string
		claims []Claim
		want   string
	}{
		{"paper only", []Claim{claim("", reports.Holds), claim(PaperClaim, reports.DoesNotHold), claim(PaperClaim, reports.Inconclusive)},
			"paper claims: 1 hold, 1 do not hold, 1 inconclusive; 0 sanity checks"},
		{"own only", []Claim{claim(ProjectClaim, reports.Holds), claim(ProjectClaim, reports.Holds), claim(ProjectClaim, reports.Inconclusive)},
			"paper claims: 0 hold, 0 do not hold, 0 inconclusive; this project's claims: 2 hold, 0 do not hold, 1 inconclusive; 0 sanity checks"},
		{"all kinds", []Claim{claim(PaperClaim, reports.Holds), claim(ProjectClaim, reports.DoesNotHold), claim(SanityCheck, reports.Holds)},
			"paper claims: 1 hold, 0 do not hold, 0 inconclusive; this project's claims: 0 hold, 1 do not hold, 0 inconclusive; 1 sanity checks"},
	} {
		if got := VerdictCounts(tc.claims); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
