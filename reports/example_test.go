package reports_test

import (
	"fmt"

	"github.com/stormlab/stormlab/reports"
)

// Summarize on 1..5, by hand: mean 3, sample std sqrt(10/4) = 1.5811,
// t(0.975, 4) = 2.7764 (Student's t table), so the 95% CI half width is
// 2.7764 * 1.5811 / sqrt(5) = 1.9632.
func ExampleSummarize() {
	s, err := reports.Summarize([]float64{1, 2, 3, 4, 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("n %d, mean %.4f, std %.4f, 95%% CI [%.4f, %.4f]\n", s.N, s.Mean, s.Std, s.Low(), s.High())
	// Output: n 5, mean 3.0000, std 1.5811, 95% CI [1.0368, 4.9632]
}
