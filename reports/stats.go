package reports

import (
	"fmt"
	"math"

	"github.com/montanaflynn/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Summary describes a sample of repeated measurements.
type Summary struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`  // sample standard deviation (n-1); 0 when N < 2
	CI95 float64 `json:"ci95"` // half width of the 95% confidence interval of the mean; 0 when N < 2
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// Low is the lower end of the 95% confidence interval.
func (s Summary) Low() float64 { return s.Mean - s.CI95 }

// High is the upper end of the 95% confidence interval.
func (s Summary) High() float64 { return s.Mean + s.CI95 }

// Summarize computes a Summary. The confidence interval is
// mean ± t(0.975, n-1) · s / √n with Student's t, which is right for the small
// samples of experiments (n = 5..10) where the normal 1.96 would be too
// narrow. An empty sample or one holding NaN or ±Inf is an error: a metric
// that is not a number means something upstream went wrong.
func Summarize(xs []float64) (Summary, error) {
	if len(xs) == 0 {
		return Summary{}, fmt.Errorf("summarize: empty sample")
	}
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Summary{}, fmt.Errorf("summarize: value %d is %v, not a finite number", i, x)
		}
	}
	data := stats.Float64Data(xs)
	s := Summary{N: len(xs)}
	var err error
	if s.Mean, err = data.Mean(); err != nil {
		return Summary{}, fmt.Errorf("summarize: mean: %w", err)
	}
	if s.Min, err = data.Min(); err != nil {
		return Summary{}, fmt.Errorf("summarize: min: %w", err)
	}
	if s.Max, err = data.Max(); err != nil {
		return Summary{}, fmt.Errorf("summarize: max: %w", err)
	}
	if s.N >= 2 {
		if s.Std, err = data.StandardDeviationSample(); err != nil {
			return Summary{}, fmt.Errorf("summarize: std: %w", err)
		}
		s.CI95 = TQuantile975(s.N-1) * s.Std / math.Sqrt(float64(s.N))
	}
	return s, nil
}

// TQuantile975 is the 0.975 quantile of Student's t distribution with df
// degrees of freedom (two-sided 95%). montanaflynn/stats has no t quantile,
// so this uses gonum's distuv.StudentsT.
func TQuantile975(df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
}

// Percentile returns the p-th percentile (0 < p <= 100) of xs, linearly
// interpolated between closest ranks (Hyndman & Fan type 7, as NumPy and R),
// which is montanaflynn/stats' rule.
func Percentile(xs []float64, p float64) (float64, error) {
	v, err := stats.Percentile(stats.Float64Data(xs), p)
	if err != nil {
		return 0, fmt.Errorf("percentile %v of %d values: %w", p, len(xs), err)
	}
	return v, nil
}
