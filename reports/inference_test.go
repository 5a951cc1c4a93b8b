package reports

import (
	"math"
	"testing"
)

// Reference values below were computed with SciPy 1.17.1 (python3 in a
// venv: scipy.stats.ttest_ind(equal_var=False) with alternative and
// confidence_interval, scipy.stats.spearmanr, scipy.stats.t.interval and
// scipy.stats.norm/t quantiles for the Fisher z and log-ratio intervals);
// Holm's adjustment matches R's p.adjust(method = "holm") by hand.

var (
	refA = []float64{20.1, 22.3, 19.8, 21.5, 23.0}
	refB = []float64{18.2, 19.1, 17.9, 18.8}
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10g, want %.10g (tolerance %g)", name, got, want, tol)
	}
}

func TestWelchMatchesSciPy(t *testing.T) {
	w, err := Welch(refA, refB)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "t", w.T, 4.2075228417163135, 1e-9)
	near(t, "df", w.DF, 5.44962770179073, 1e-9)
	near(t, "p two-sided", w.PTwoSided, 0.0069770539502388585, 1e-9)
	near(t, "p greater", w.PGreater, 0.0034885269751194293, 1e-9)
	near(t, "p less", w.PLess, 0.9965114730248805, 1e-9)
	near(t, "CI low", w.CILow, 1.1470914580841765, 1e-7)
	near(t, "CI high", w.CIHigh, 4.532908541915823, 1e-7)
}

func TestWelchBadInput(t *testing.T) {
	for name, c := range map[string][2][]float64{
		"one unit": {{1}, {1, 2}},
		"empty":    {nil, {1, 2}},
		"NaN":      {{1, math.NaN()}, {1, 2}},
	} {
		if _, err := Welch(c[0], c[1]); err == nil {
			t.Errorf("%s: no error", name)
		}
		ch := DifferenceCheck("x", c[0], c[1], Greater, "")
		Judge([]*Check{&ch})
		if ch.Verdict != Inconclusive || ch.Reason == "" {
			t.Errorf("%s: verdict %q reason %q, want inconclusive with a reason", name, ch.Verdict, ch.Reason)
		}
	}
	// Constant samples: the difference is exact.
	w, err := Welch([]float64{2, 2}, []float64{1, 1})
	if err != nil || w.PGreater != 0 || w.PLess != 1 {
		t.Errorf("constant samples: %+v, %v", w, err)
	}
}

func TestHolmMatchesR(t *testing.T) {
	// p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02:
	// sorted 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 -> max 0.06.
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	for i, want := range []float64{0.03, 0.06, 0.06, 0.02} {
		near(t, "holm", got[i], want, 1e-12)
	}
	got = Holm([]float64{math.NaN(), 0.02, 0.5})
	if !math.IsNaN(got[0]) {
		t.Errorf("NaN p adjusted to %v", got[0])
	}
	near(t, "holm with NaN", got[1], 0.04, 1e-12) // m = 2
	near(t, "holm with NaN", got[2], 0.5, 1e-12)
}

func TestSpearmanMatchesSciPy(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	s, err := Spearman(x, []float64{2.1, 1.9, 3.5, 3.9, 3.7, 5.2, 6.8, 6.1, 7.9, 9.5})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "rho", s.Rho, 0.9636363636363635, 1e-12)
	near(t, "p", s.P, 7.3209748095299185e-06, 1e-10)
	near(t, "CI low", s.CILow, 0.8430992209236774, 1e-9)
	near(t, "CI high", s.CIHigh, 0.9919754612239332, 1e-9)
	// With ties (average ranks).
	s, err = Spearman(x, []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "rho ties", s.Rho, 0.3914537831560393, 1e-12)
	near(t, "p ties", s.P, 0.2632875529923413, 1e-9)
	near(t, "CI low ties", s.CILow, -0.335649178800824, 1e-9)
	near(t, "CI high ties", s.CIHigh, 0.8262536340237434, 1e-9)
	if _, err := Spearman([]float64{1, 2, 3}, []float64{1, 2, 3}); err == nil {
		t.Error("3 points: no error")
	}
	if _, err := Spearman(x, make([]float64, 10)); err == nil {
		t.Error("constant y: no error")
	}
}

func TestRatioAndMeanCIMatchSciPy(t *testing.T) {
	r, lo, hi, err := RatioCI(refA, refB)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "ratio", r, 1.1535135135135135, 1e-12)
	near(t, "ratio low", lo, 1.0648134283353368, 1e-9)
	near(t, "ratio high", hi, 1.2496024096338247, 1e-9)
	m, lo, hi, err := MeanCI(refA)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "mean", m, 21.34, 1e-12)
	near(t, "mean low", lo, 19.627133627838855, 1e-9)
	near(t, "mean high", hi, 23.052866372161144, 1e-9)
	if _, _, _, err := RatioCI([]float64{-1, 0}, refB); err == nil {
		t.Error("non-positive mean: no error")
	}
}

// TestPairedRatioCI by hand (Python's math and statistics modules): pairs
// 110/100, 90/100, 100/100, 121/110 have logs with mean 0.021315 and sample
// sd 0.093436; t(3, 0.975) = 3.182446305284263 (tables); the interval is
// exp(mean ± t·sd/2).
func TestPairedRatioCI(t *testing.T) {
	a, b := []float64{110, 90, 100, 121}, []float64{100, 100, 100, 110}
	r, lo, hi, err := PairedRatioCI(a, b)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "paired ratio", r, 1.021543747401728, 1e-12)
	near(t, "paired ratio low", lo, 0.877306465031289, 1e-9)
	near(t, "paired ratio high", hi, 1.189494970629616, 1e-9)
	for _, bad := range [][2][]float64{{{1, 2}, {1}}, {{1}, {1}}, {{1, 0}, {1, 1}}} {
		if _, _, _, err := PairedRatioCI(bad[0], bad[1]); err == nil {
			t.Errorf("%v / %v: no error", bad[0], bad[1])
		}
	}
	// Pairs with a common disturbance: each arm varies by a factor of 2,
	// the ratio by 1%; the paired interval is narrow where the unpaired
	// ratio of means is not.
	on, off := []float64{1000, 2000, 1500, 1200}, []float64{1010, 2000, 1520, 1200}
	if c := PairedRatioCheck("", on, off, Above(0.95)); c.Verdict != Holds {
		t.Errorf("paired: %s (%s), want holds", c.Verdict, c.Reason)
	}
	if c := RatioCheck("", on, off, Above(0.95)); c.Verdict != Inconclusive {
		t.Errorf("unpaired: %s, want inconclusive", c.Verdict)
	}
}

// Hand computation: log(a/b) = -0.1, -0.2 with a first and 0.1, 0.0 with b
// first. Group means -0.15 and 0.05: mu = -0.05, position ratio exp(-0.2).
// Within-group SS 0.005 + 0.005 = 0.01 on 2 df; se = sqrt(0.01/2/4 ·
// (1/2 + 1/2)) = 0.0353553; t(2, 0.975) = 4.302653 (tables): mu ± 0.152122.
// The paired interval over the same logs (sd 0.129099, t(3) = 3.182446) is
// ± 0.205426: the position's share counted as noise.
func TestCrossoverRatioCI(t *testing.T) {
	logs := []float64{-0.1, 0.1, -0.2, 0.0}
	first := []bool{true, false, true, false}
	a, b := make([]float64, 4), []float64{1, 1, 1, 1}
	for i, l := range logs {
		a[i] = math.Exp(l)
	}
	r, lo, hi, pos, err := CrossoverRatioCI(a, b, first)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "crossover ratio", r, math.Exp(-0.05), 1e-12)
	near(t, "crossover low", lo, math.Exp(-0.05-0.152122), 1e-6)
	near(t, "crossover high", hi, math.Exp(-0.05+0.152122), 1e-6)
	near(t, "position ratio", pos, math.Exp(-0.2), 1e-12)
	_, plo, _, _ := PairedRatioCI(a, b)
	near(t, "paired low", plo, math.Exp(-0.05-0.205426), 1e-5)
	for _, bad := range []struct {
		a, b  []float64
		first []bool
	}{
		{[]float64{1, 2, 3}, []float64{1, 1, 1}, []bool{true, true, true}},  // one position only
		{[]float64{1, 2}, []float64{1, 1}, []bool{true, false}},             // 2 pairs: no df left
		{[]float64{1, 2, 3}, []float64{1, 1}, []bool{true, false, true}},    // lengths differ
		{[]float64{1, 0, 3}, []float64{1, 1, 1}, []bool{true, false, true}}, // a zero
	} {
		if _, _, _, _, err := CrossoverRatioCI(bad.a, bad.b, bad.first); err == nil {
			t.Errorf("%v / %v (%v): no error", bad.a, bad.b, bad.first)
		}
		if c := CrossoverRatioCheck("", bad.a, bad.b, bad.first, Above(0.95)); c.Verdict != Inconclusive {
			t.Errorf("%v / %v (%v): %s, want inconclusive", bad.a, bad.b, bad.first, c.Verdict)
		}
	}
	// A position effect of 20% with arms equal within 1%: the crossover
	// check holds where the paired one cannot decide.
	on, off := []float64{900, 1110, 905, 1100, 898, 1112}, []float64{1000, 1000, 1000, 1000, 1000, 1000}
	firstOn := []bool{true, false, true, false, true, false}
	if c := CrossoverRatioCheck("", on, off, firstOn, Above(0.95)); c.Verdict != Holds {
		t.Errorf("crossover: %s (%s), want holds", c.Verdict, c.Reason)
	}
	if c := PairedRatioCheck("", on, off, Above(0.95)); c.Verdict != Inconclusive {
		t.Errorf("paired: %s, want inconclusive", c.Verdict)
	}
}

func TestCheckVerdicts(t *testing.T) {
	hi := []float64{10, 11, 12, 10.5, 11.5}
	lo := []float64{5, 6, 5.5, 6.5, 5}
	same := []float64{10, 12, 11, 10.5, 11.5}
	x := []float64{1, 2, 3, 4, 5, 6}
	tests := []struct {
		name string
		c    Check
		want Verdict
	}{
		{"difference holds", DifferenceCheck("", hi, lo, Greater, ""), Holds},
		{"difference against", DifferenceCheck("", lo, hi, Greater, ""), DoesNotHold},
		{"difference none", DifferenceCheck("", hi, same, Greater, ""), Inconclusive},
		{"difference n=1", DifferenceCheck("", hi, []float64{1}, Greater, ""), Inconclusive},
		{"difference n=2", DifferenceCheck("", hi, []float64{1, 1.1}, Greater, ""), Inconclusive},
		{"paired n=2", PairedDifferenceCheck("", []float64{5, 6}, []float64{1, 2}, Greater, ""), Inconclusive},
		{"trend rises", TrendCheck("", x, []float64{1, 2, 3, 4, 5, 6}, Greater), Holds},
		{"trend falls", TrendCheck("", x, []float64{6, 5, 4, 3, 2, 1}, Greater), DoesNotHold},
		{"trend noisy", TrendCheck("", x, []float64{3, 1, 4, 1, 5, 2}, Greater), Inconclusive},
		{"trend constant y", TrendCheck("", x, []float64{2, 2, 2, 2, 2, 2}, Less), DoesNotHold},
		{"trend constant y in band", TrendBandCheck("", x, []float64{2, 2, 2, 2, 2, 2}, Band{-0.5, 0.5}), Holds},
		{"trend NaN", TrendCheck("", x, []float64{1, 2, math.NaN(), 4, 5, 6}, Greater), Inconclusive},
		{"mean above", MeanCheck("", hi, Above(9), ""), Holds},
		{"mean below", MeanCheck("", lo, Above(9), ""), DoesNotHold},
		{"mean straddles", MeanCheck("", hi, Above(11), ""), Inconclusive},
		{"mean one unit", MeanCheck("", []float64{3}, Above(1), ""), Inconclusive},
		{"mean two identical units", MeanCheck("", []float64{3, 3}, Above(1), ""), Inconclusive},
		{"mean three identical units", MeanCheck("", []float64{3, 3, 3}, Above(1), ""), Holds},
		{"ratio two units", RatioCheck("", []float64{10, 10}, []float64{5, 5}, Band{1.5, 2.5}), Inconclusive},
		{"paired ratio two pairs", PairedRatioCheck("", []float64{10, 10}, []float64{5, 5}, Band{1.5, 2.5}), Inconclusive},
		{"trend perfect n=4", TrendCheck("", x[:4], []float64{1, 2, 3, 4}, Greater), Inconclusive},
		{"trend perfect n=5", TrendCheck("", x[:5], []float64{1, 2, 3, 4, 5}, Greater), Holds},
		{"trend constant y n=4", TrendCheck("", x[:4], []float64{2, 2, 2, 2}, Greater), Inconclusive},
		{"ratio in band", RatioCheck("", hi, lo, Band{1.5, 2.5}), Holds},
		{"ratio outside", RatioCheck("", hi, lo, Band{3, 4}), DoesNotHold},
		{"ratio straddles", RatioCheck("", hi, lo, Band{2, 3}), Inconclusive},
		{"exact ok", ExactCheck("", "", true, 3, 3, ""), Holds},
		{"exact refuted", ExactCheck("", "", false, 3, 3, ""), DoesNotHold},
		{"exact refuted on 2", ExactCheck("", "", false, 2, 3, ""), DoesNotHold},
		{"exact ok on too few", ExactCheck("", "", true, 2, 3, ""), Inconclusive},
		{"exact ok on 2 with minHold 2", ExactCheck("", "", true, 2, 2, ""), Inconclusive},
		{"exact one unit", ExactCheck("", "", false, 1, 1, ""), Inconclusive},
		{"exact no data", ExactCheck("", "", false, 0, 0, ""), Inconclusive},
	}
	var ptrs []*Check
	for i := range tests {
		ptrs = append(ptrs, &tests[i].c)
	}
	Judge(ptrs)
	for _, tc := range tests {
		if tc.c.Verdict != tc.want {
			t.Errorf("%s: %q (%s), want %q", tc.name, tc.c.Verdict, tc.c.Reason, tc.want)
		}
	}
}

func TestHolmChangesAVerdict(t *testing.T) {
	// A one-sided p between alpha/3 and alpha holds alone but not among 3
	// equal tests (Holm multiplies the smallest by 3).
	// scipy.stats.ttest_ind(a, b, equal_var=False, alternative='greater')
	// .pvalue = 0.019992791854758586.
	a := []float64{1.3, 2.1, 1.9, 2.6, 1.8}
	b := []float64{1.0, 1.4, 1.1, 1.8, 1.2}
	one := DifferenceCheck("", a, b, Greater, "")
	Judge([]*Check{&one})
	near(t, "raw p", one.PRaw, 0.019992791854758586, 1e-9)
	if one.PRaw <= OneSided/3 || one.PRaw >= OneSided {
		t.Fatalf("test data: raw p %v, want in (alpha/3, alpha) at one-sided %v", one.PRaw, OneSided)
	}
	if one.Verdict != Holds {
		t.Fatalf("alone: %s (%s)", one.Verdict, one.Reason)
	}
	c1 := DifferenceCheck("", a, b, Greater, "")
	c2 := DifferenceCheck("", a, b, Greater, "")
	c3 := DifferenceCheck("", a, b, Greater, "")
	Judge([]*Check{&c1, &c2, &c3})
	if c1.Verdict != Inconclusive {
		t.Errorf("with 3 tests: %s (%s), want inconclusive", c1.Verdict, c1.Reason)
	}
}

func TestMerge(t *testing.T) {
	h, n, i := Check{Verdict: Holds, P: 0.01}, Check{Verdict: DoesNotHold}, Check{Verdict: Inconclusive}
	for _, tc := range []struct {
		in   []Check
		want Verdict
		at   int
	}{
		{nil, Inconclusive, -1},
		{[]Check{h, h}, Holds, 0},
		{[]Check{h, i, n}, DoesNotHold, 2},
		{[]Check{h, i}, Inconclusive, 1},
	} {
		if v, at := Merge(tc.in); v != tc.want || at != tc.at {
			t.Errorf("Merge(%v) = %s at %d, want %s at %d", tc.in, v, at, tc.want, tc.at)
		}
	}
}

func TestCV(t *testing.T) {
	near(t, "cv", CV([]float64{9, 11}), math.Sqrt2/10, 1e-12) // std sqrt(2), mean 10
	if !math.IsNaN(CV([]float64{1})) || !math.IsNaN(CV([]float64{-1, 1})) {
		t.Error("CV of one value or zero mean is not NaN")
	}
}
