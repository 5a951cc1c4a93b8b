package measure

import (
	"math"
	"testing"
)

// TestTrend: the fitted change over the span (slope times the number of parts, over the mean) and the
// slope's significance (Student's t, 5%, n-2 degrees of freedom). Reference values by hand: a perfect
// line has zero residuals, so any non-zero slope is significant; 100, 110, ..., 140 has slope 10,
// mean 120, change 10 * 5 / 120 = 0.4167.
func TestTrend(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rates       []float64
		change      float64
		significant bool
	}{
		{"perfect line", []float64{100, 110, 120, 130, 140}, 0.4167, true},
		{"constant", []float64{100, 100, 100, 100, 100}, 0, false},
		{"two rates: no trend", []float64{100, 200}, 0, false},
		{"all zero", []float64{0, 0, 0, 0, 0}, 0, false},
		{"noise without direction", []float64{100, 130, 90, 125, 95}, -0.0694, false},                         // Sxy -15, Sxx 10: slope -1.5, mean 108
		{"collapse in the last part: not a significant line", []float64{100, 100, 100, 100, 0}, -1.25, false}, // slope -20, mean 80; t = -1.73
	} {
		change, significant := trend(tc.rates)
		if math.Abs(change-tc.change) > 0.001 || significant != tc.significant {
			t.Errorf("%s: trend(%v) = %.4f, %v; want %.4f, %v", tc.name, tc.rates, change, significant, tc.change, tc.significant)
		}
	}
}
