package reports

import (
	"math"
	"testing"
)

func TestTQuantile975(t *testing.T) {
	// Reference values: standard t tables (e.g. NIST/SEMATECH e-Handbook,
	// table 1.3.6.7.2, upper 0.025 critical values).
	for _, c := range []struct {
		df   int
		want float64
	}{{1, 12.706}, {4, 2.776}, {9, 2.262}, {29, 2.045}, {100, 1.984}} {
		if got := TQuantile975(c.df); math.Abs(got-c.want) > 0.001 {
			t.Errorf("t(0.975, %d) = %.4f, want %.3f", c.df, got, c.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	// Hand computation for 1..5: mean 3, sample variance 10/4 = 2.5,
	// std 1.58114, CI = 2.776445 * 1.58114 / sqrt(5) = 1.96324.
	s, err := Summarize([]float64{3, 1, 5, 2, 4})
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-4
	if s.N != 5 || s.Mean != 3 || s.Min != 1 || s.Max != 5 ||
		math.Abs(s.Std-1.58114) > tol || math.Abs(s.CI95-1.96324) > tol {
		t.Errorf("Summarize(1..5) = %+v", s)
	}
	if s.Low() != s.Mean-s.CI95 || s.High() != s.Mean+s.CI95 {
		t.Errorf("Low/High inconsistent: %+v", s)
	}
	one, err := Summarize([]float64{7})
	if err != nil || one.Mean != 7 || one.Std != 0 || one.CI95 != 0 {
		t.Errorf("Summarize(7) = %+v, %v; want mean 7, no interval", one, err)
	}
	for _, bad := range [][]float64{nil, {1, math.NaN()}, {math.Inf(1)}} {
		if _, err := Summarize(bad); err == nil {
			t.Errorf("Summarize(%v) gave no error", bad)
		}
	}
}

func TestPercentile(t *testing.T) {
	// Type-7 interpolation by hand on 10,20,30,40: rank = p/100*3.
	xs := []float64{40, 10, 30, 20}
	for _, c := range []struct{ p, want float64 }{{50, 25}, {100, 40}, {90, 37}, {25, 17.5}} {
		got, err := Percentile(xs, c.p)
		if err != nil || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Percentile(%v) = %v, %v; want %v", c.p, got, err, c.want)
		}
	}
	if _, err := Percentile(nil, 50); err == nil {
		t.Error("Percentile of empty sample gave no error")
	}
	if _, err := Percentile(xs, 0); err == nil {
		t.Error("Percentile 0 gave no error")
	}
}
