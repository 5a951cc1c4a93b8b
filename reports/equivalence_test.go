package reports

import (
	"math"
	"strings"
	"testing"
)

// Reference values: SciPy 1.17.1 and statsmodels 0.15.0 (pip install scipy
// statsmodels), each with the exact Python call beside it.

// Two identical constant samples are never significant, and the mean of
// equal values that differs from them in the last bit is no difference.
// np.mean([0.1]*3) - np.mean([0.1]*2) = 1.3877787807814457e-17. SciPy is no
// authority here: scipy.stats.ttest_ind([0.1]*3, [0.1]*2, equal_var=False,
// alternative='greater') gives t = 1.414213562373095, p =
// 0.14644660940672627 from a rounding-noise variance; the rule (relRounding)
// decides it exactly: difference 0, p = 1 both ways.
func TestWelchConstantEqualSamples(t *testing.T) {
	tenth := func(n int) []float64 { // the mean of n repetitions of 0.1
		s := 0.0
		for i := 0; i < n; i++ {
			s += 0.1
		}
		return []float64{s / float64(n), s / float64(n), s / float64(n)}
	}
	for name, c := range map[string][2][]float64{
		"0.1 three times vs twice": {{0.1, 0.1, 0.1}, {0.1, 0.1}},
		"graph averages (10 vs 7)": {tenth(10), tenth(7)}, // 0.1 and 0.09999999999999999
		"mixed last bits":          {{0.1, tenth(10)[0], 0.1}, tenth(7)},
	} {
		w, err := Welch(c[0], c[1])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w.Diff != 0 || w.PGreater != 1 || w.PLess != 1 || w.PTwoSided != 1 {
			t.Errorf("%s: diff %g, p greater %g, less %g, two-sided %g; want 0 and p = 1", name, w.Diff, w.PGreater, w.PLess, w.PTwoSided)
		}
		checks := []Check{DifferenceCheck("", c[0], c[1], Greater, ""), DifferenceCheck("", c[0], c[1], Less, ""),
			PairedDifferenceCheck("", c[0][:2], c[1][:2], Greater, "")}
		checks[2] = PairedDifferenceCheck("", []float64{c[0][0], c[0][1], c[0][0]}, []float64{c[1][0], c[1][0], c[1][0]}, Greater, "")
		ptrs := []*Check{&checks[0], &checks[1], &checks[2]}
		Judge(ptrs)
		for i, ch := range checks {
			if ch.Verdict != Inconclusive {
				t.Errorf("%s check %d: %s (%s), want inconclusive", name, i, ch.Verdict, ch.Reason)
			}
		}
		if r, lo, hi, err := RatioCI(c[0], c[1]); err != nil || r != 1 || lo != 1 || hi != 1 {
			t.Errorf("%s: ratio %v [%v, %v] %v, want exactly 1", name, r, lo, hi, err)
		}
	}
	// A real difference between constant samples is still exact.
	w, err := Welch([]float64{2, 2}, []float64{1, 1})
	if err != nil || w.PGreater != 0 || w.PLess != 1 {
		t.Errorf("constant samples 2 vs 1: %+v, %v", w, err)
	}
}

// pa, pb: six graphs measured under two settings.
var pa, pb = []float64{0.42, 0.45, 0.40, 0.47, 0.44, 0.43}, []float64{0.40, 0.44, 0.37, 0.45, 0.43, 0.40}

// scipy.stats.ttest_rel(pa, pb, alternative='greater'): statistic =
// 5.477225575051661, pvalue = 0.0013824801506524779, df = 5;
// scipy.stats.ttest_rel(pa, pb).confidence_interval(0.95) = (0.01061356228472635,
// 0.02938643771527363). The unpaired test on the same data,
// scipy.stats.ttest_ind(pa, pb, equal_var=False, alternative='greater'),
// has p = 0.11792601681038926: the graphs' shared spread hides the effect.
func TestPairedTMatchesSciPy(t *testing.T) {
	w, err := PairedT(pa, pb)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "t", w.T, 5.477225575051661, 1e-9)
	near(t, "df", w.DF, 5, 0)
	near(t, "p greater", w.PGreater, 0.0013824801506524779, 1e-12)
	near(t, "p less", w.PLess, 0.9986175198493475, 1e-12)
	near(t, "CI low", w.CILow, 0.01061356228472635, 1e-12)
	near(t, "CI high", w.CIHigh, 0.02938643771527363, 1e-12)
	paired, unpaired := PairedDifferenceCheck("", pa, pb, Greater, ""), DifferenceCheck("", pa, pb, Greater, "")
	Judge([]*Check{&paired})
	Judge([]*Check{&unpaired})
	near(t, "unpaired p", unpaired.PRaw, 0.11792601681038926, 1e-12)
	if paired.Verdict != Holds || unpaired.Verdict != Inconclusive {
		t.Errorf("paired %s, unpaired %s; want holds and inconclusive", paired.Verdict, unpaired.Verdict)
	}
	if _, err := PairedT(pa, pb[:5]); err == nil {
		t.Error("unequal lengths: no error")
	}
}

// A "does not hold" line prints the p that decided it: the Holm-adjusted p
// of the opposite direction. Family of two checks, x > y (false) and hi >
// lo (true). scipy.stats.ttest_ind(.., equal_var=False, alternative=...)
// gives claimed p [0.9999436807254366, 1.650425270187371e-06] and opposite p
// [5.631927456343448e-05, 0.9999983495747298];
// statsmodels.stats.multitest.multipletests(p, method='holm')[1] adjusts
// them to claimed [0.9999436807254366, 3.300850540374742e-06] and opposite
// [0.00011263854912686896, 0.9999983495747298].
func TestJudgePrintsDecidingP(t *testing.T) {
	x, y := []float64{5.0, 5.2, 4.9, 5.1, 5.3}, []float64{5.6, 5.9, 5.7, 6.0, 5.8}
	hi, lo := []float64{10, 11, 12, 10.5, 11.5}, []float64{5, 6, 5.5, 6.5, 5}
	against, holds := DifferenceCheck("", x, y, Greater, ""), DifferenceCheck("", hi, lo, Greater, "")
	Judge([]*Check{&against, &holds})
	if against.Verdict != DoesNotHold || holds.Verdict != Holds {
		t.Fatalf("verdicts %s, %s; want does not hold, holds", against.Verdict, holds.Verdict)
	}
	near(t, "deciding p (against)", against.P, 0.00011263854912686896, 1e-12)
	near(t, "deciding p (holds)", holds.P, 3.300850540374742e-06, 1e-12)
	if !strings.Contains(against.PLabel, "against") || !strings.Contains(against.Reason, "0.000113") {
		t.Errorf("label %q reason %q: want the opposite side's Holm p", against.PLabel, against.Reason)
	}
}

// One convention: a check that holds has its printed 95% interval wholly
// on the claimed side of its boundary, for every kind.
func TestHoldsNeverPrintsIntervalOverBoundary(t *testing.T) {
	// One-sided p between 0.025 and 0.05 (scipy.stats.ttest_ind(a, b,
	// equal_var=False, alternative='greater').pvalue = 0.0287...): the old
	// rule (one-sided 5%) held while the 95% interval included 0.
	a := []float64{1.3, 2.1, 1.9, 2.6, 1.6}
	b := []float64{1.0, 1.4, 1.1, 1.8, 1.2}
	c := DifferenceCheck("", a, b, Greater, "")
	Judge([]*Check{&c})
	if c.PRaw <= OneSided || c.PRaw >= 2*OneSided {
		t.Fatalf("test data: p %v, want in (0.025, 0.05)", c.PRaw)
	}
	if c.CILow > 0 || c.Verdict == Holds {
		t.Errorf("CI [%v, %v], %s: want an interval over 0 and no holds", c.CILow, c.CIHigh, c.Verdict)
	}
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	for i := 0; i < 200; i++ {
		y := make([]float64, len(x))
		for j := range y {
			y[j] = float64(j) + float64((i*7+j*13)%11)/3
		}
		for _, ch := range []Check{TrendCheck("", x, y, Greater), MeanCheck("", y, Above(3), ""),
			RatioCheck("", y, x, Above(1)), EquivalenceRatioCheck("", y, x, 0.8, 1.25, false)} {
			if ch.Verdict == Holds && ch.CILow <= 0 && ch.Kind == KindTrend {
				t.Errorf("trend holds with CI low %v", ch.CILow)
			}
			if ch.Verdict == Holds && ch.Kind == KindThreshold && ch.CILow < 1 && ch.EffectLabel == "ratio of means" {
				t.Errorf("ratio holds with CI low %v", ch.CILow)
			}
			if ch.Verdict == Holds && ch.Kind == KindEquivalence && !(ch.P < OneSided) {
				t.Errorf("equivalence holds with TOST p %v", ch.P)
			}
		}
	}
}

// statsmodels.stats.weightstats.ttost_ind(refA, refB, low, upp,
// usevar='unequal')[0]: ±4 -> 0.07073972545078927, ±2 ->
// 0.8679156228734034; ttost_paired(pa, pb, -0.05, 0.05)[0] =
// 0.00021748871563239457; the paired ratio TOST is
// ttost_paired(np.log(pa), np.log(pb), np.log(lo), np.log(hi))[0]:
// 0.005437428687786398 for [1.01, 1.5], 4.640129959020194e-06 for [0.8,
// 1.25], 0.9977779065136851 for [1.1, 1.5] (95% interval of the geometric
// mean ratio [1.0234970695371726, 1.0754953593162127], wholly below 1.1:
// does not hold, and the printed p is the deciding one, of lying below 1.1:
// scipy.stats.ttest_1samp(np.log(pa/pb), np.log(1.1),
// alternative='less').pvalue = 0.002222093486314838). Ratio TOST by hand with scipy.stats.t on the
// delta-method log ratio (se and df as RatioCI): max(t.sf((l - log(lo))/se,
// df), t.cdf((l - log(hi))/se, df)) = 0.024674841399801563 for [0.8, 1.25]
// and 0.8530571862668281 for [0.9, 1/0.9]; the 95% interval is [1.0648,
// 1.2496] (TestRatioAndMeanCIMatchSciPy), inside [0.8, 1.25].
func TestEquivalenceMatchesStatsmodels(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Check
		p    float64
		want Verdict
	}{
		{"Welch ±4", EquivalenceCheck("", refA, refB, 4, false, ""), 0.07073972545078927, Inconclusive},
		{"Welch ±2", EquivalenceCheck("", refA, refB, 2, false, ""), 0.8679156228734034, Inconclusive},
		{"paired ±0.05", EquivalenceCheck("", pa, pb, 0.05, true, ""), 0.00021748871563239457, Holds},
		{"ratio [0.8, 1.25]", EquivalenceRatioCheck("", refA, refB, 0.8, 1.25, false), 0.024674841399801563, Holds},
		{"ratio [0.9, 1/0.9]", EquivalenceRatioCheck("", refA, refB, 0.9, 1/0.9, false), 0.8530571862668281, Inconclusive},
		{"paired ratio [1.01, 1.5]", EquivalenceRatioCheck("", pa, pb, 1.01, 1.5, true), 0.005437428687786398, Holds},
		{"paired ratio [0.8, 1.25]", EquivalenceRatioCheck("", pa, pb, 0.8, 1.25, true), 4.640129959020194e-06, Holds},
		{"paired ratio [1.1, 1.5]", EquivalenceRatioCheck("", pa, pb, 1.1, 1.5, true), 0.002222093486314838, DoesNotHold},
		{"ratio beyond", EquivalenceRatioCheck("", []float64{20, 21, 22}, []float64{10, 10.5, 11}, 0.8, 1.25, false), math.NaN(), DoesNotHold},
		{"paired beyond", EquivalenceCheck("", []float64{5, 6, 7}, []float64{1, 2, 3.1}, 1, true, ""), math.NaN(), DoesNotHold},
		{"no margin", EquivalenceCheck("", pa, pb, 0, true, ""), math.NaN(), Inconclusive},
		{"two units", EquivalenceCheck("", pa[:2], pb[:2], 1, true, ""), math.NaN(), Inconclusive},
		{"constant equal", EquivalenceCheck("", []float64{0.1, 0.1, 0.1}, []float64{0.1, 0.1, 0.1}, 0.01, false, ""), 0, Holds},
	} {
		if !math.IsNaN(tc.p) {
			near(t, tc.name+" TOST p", tc.c.P, tc.p, 1e-9)
		}
		if strings.HasPrefix(tc.name, "paired ratio") {
			near(t, tc.name+" low", tc.c.CILow, 1.0234970695371726, 1e-12)
			near(t, tc.name+" high", tc.c.CIHigh, 1.0754953593162127, 1e-12)
		}
		if tc.c.Verdict != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, tc.c.Verdict, tc.c.Reason, tc.want)
		}
		if tc.want == DoesNotHold && !strings.Contains(tc.c.PLabel, "beyond") {
			t.Errorf("%s: p labelled %q, want the p of lying beyond the margin", tc.name, tc.c.PLabel)
		}
	}
}

// Spearman's perfect order: scipy.stats.spearmanr(range(n), 2*range(n))
// gives p = 0.0 (n = 4) from its t approximation; the exact permutation p,
// scipy.stats.permutation_test((y,), lambda y: spearmanr(x, y).statistic,
// permutation_type='pairings', alternative='two-sided').pvalue, is
// 0.08333333333333333 (n = 4), 0.016666666666666666 (5),
// 0.002777777777777778 (6) = 2/n!. Inner interval end:
// np.tanh(np.arctanh(1 - 12/(n*(n*n-1))) - stats.norm.ppf(0.975)*np.sqrt(1.06/(n-3)))
// = -0.725563319875188 (4), 0.045313119182581386 (5), 0.5357257394868672 (6).
func TestSpearmanPerfectOrder(t *testing.T) {
	for _, tc := range []struct {
		n        int
		p, inner float64
	}{{4, 0.08333333333333333, -0.725563319875188}, {5, 0.016666666666666666, 0.045313119182581386}, {6, 0.002777777777777778, 0.5357257394868672}} {
		x, y := make([]float64, tc.n), make([]float64, tc.n)
		for i := range x {
			x[i], y[i] = float64(i), 2*float64(i)
		}
		s, err := Spearman(x, y)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "perfect p", s.P, tc.p, 1e-12)
		near(t, "perfect low", s.CILow, tc.inner, 1e-12)
		near(t, "perfect high", s.CIHigh, 1, 0)
		for i := range y {
			y[i] = -y[i]
		}
		s, _ = Spearman(x, y)
		near(t, "perfect falling high", s.CIHigh, -tc.inner, 1e-12)
		near(t, "perfect falling low", s.CILow, -1, 0)
	}
}

// A trend check prints the p of its own rule (Fisher z against the band's
// bound, so it agrees with the 95% interval), for every verdict: rising
// data, rho = 0.9636363636363635 (n = 10, se = sqrt(1.06/7)):
// scipy.stats.norm.sf((np.arctanh(rho) - np.arctanh(1e-12)) / se) =
// 1.4844753388336937e-07, the p that decides both "rises" (holds) and
// "falls" (does not hold: beyond the bound -1e-12, 1.4844753387931934e-07);
// the tied data (rho 0.3914537831560393) gives 0.14397151770394045.
func TestTrendPrintsDecidingP(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	y := []float64{2.1, 1.9, 3.5, 3.9, 3.7, 5.2, 6.8, 6.1, 7.9, 9.5}
	rises, falls := TrendCheck("", x, y, Greater), TrendCheck("", x, y, Less)
	near(t, "rises p", rises.P, 1.4844753388336937e-07, 1e-15)
	near(t, "falls p", falls.P, 1.4844753387931934e-07, 1e-15)
	if rises.Verdict != Holds || falls.Verdict != DoesNotHold || !strings.Contains(falls.PLabel, "beyond") {
		t.Errorf("rises %s, falls %s (%s); want holds and does not hold beyond the bound", rises.Verdict, falls.Verdict, falls.PLabel)
	}
	ties := TrendCheck("", x, []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3}, Greater)
	near(t, "ties p", ties.P, 0.14397151770394045, 1e-12)
	if ties.Verdict != Inconclusive {
		t.Errorf("ties: %s, want inconclusive", ties.Verdict)
	}
}

// Threshold checks print the p of their interval rule too.
// scipy.stats.ttest_1samp(hi, 9, alternative='greater').pvalue =
// 0.002406339165022112 (holds above 9); against 11 it is 0.5 (straddles);
// ttest_1samp(lo, 9, alternative='less').pvalue = 0.00015454283392483508
// (lo's mean lies below 9: does not hold, beyond the bound). The ratio
// refA/refB against <= 1.1, by hand with the delta-method se and df of
// RatioCI: scipy.stats.t.cdf((l - np.log(1.1)) / se, df) =
// 0.9023748540697415. Paired ratios pa/pb against >= 1.1:
// ttest_1samp(np.log(pa/pb), np.log(1.1), alternative='less').pvalue =
// 0.002222093486314838.
func TestThresholdPrintsDecidingP(t *testing.T) {
	hi, lo := []float64{10, 11, 12, 10.5, 11.5}, []float64{5, 6, 5.5, 6.5, 5}
	for _, tc := range []struct {
		name string
		c    Check
		p    float64
		want Verdict
	}{
		{"mean above 9", MeanCheck("", hi, Above(9), ""), 0.002406339165022112, Holds},
		{"mean above 11", MeanCheck("", hi, Above(11), ""), 0.5, Inconclusive},
		{"mean of lo above 9", MeanCheck("", lo, Above(9), ""), 0.00015454283392483508, DoesNotHold},
		{"ratio below 1.1", RatioCheck("", refA, refB, Below(1.1)), 0.9023748540697415, Inconclusive},
		{"paired ratio above 1.1", PairedRatioCheck("", pa, pb, Above(1.1)), 0.002222093486314838, DoesNotHold},
	} {
		near(t, tc.name+" p", tc.c.P, tc.p, 1e-12)
		if tc.c.Verdict != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, tc.c.Verdict, tc.c.Reason, tc.want)
		}
	}
}
