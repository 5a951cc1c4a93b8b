package capacity

import (
	"errors"
	"fmt"

	"github.com/stormlab/stormlab/reports"
)

// Summary is the capacity over one or more independent searches, with its 95% CI.
type Summary struct {
	Capacity float64    `json:"capacity_tuples_per_s"`
	CI95     [2]float64 `json:"ci95"`
	// CIOver says what the interval is over: the searches' capacities (independent units, when there
	// are at least two), or else the acked rate in the windows of the one search's capacity step
	// (consecutive windows of one run: window-to-window noise only, not run-to-run).
	CIOver  string `json:"ci_over"`
	AtLeast bool   `json:"at_least,omitempty"` // some search reached the maximum rate
}

// Summarize combines searches. It fails when a search found no capacity (below its first step).
func Summarize(rs []*Result) (Summary, error) {
	if len(rs) == 0 {
		return Summary{}, errors.New("no search")
	}
	caps := make([]float64, len(rs))
	var s Summary
	for i, r := range rs {
		if r.BelowFirstStep {
			return Summary{}, fmt.Errorf("search %d: capacity below the first step (%.0f tuples/s was not sustainable): give a lower start rate", i+1, r.Failed)
		}
		caps[i] = r.Capacity
		s.AtLeast = s.AtLeast || r.AtLeast
	}
	if len(rs) >= 2 {
		sum, err := reports.Summarize(caps)
		if err != nil {
			return Summary{}, err
		}
		s.Capacity, s.CI95, s.CIOver = sum.Mean, [2]float64{sum.Low(), sum.High()}, fmt.Sprintf("capacities of %d independent searches", len(rs))
		return s, nil
	}
	st := rs[0].CapacityStep()
	acked := make([]float64, len(st.Windows))
	for i, w := range st.Windows {
		acked[i] = w.AckedRate
	}
	sum, err := reports.Summarize(acked)
	if err != nil {
		return Summary{}, err
	}
	s.Capacity, s.CI95 = rs[0].Capacity, [2]float64{sum.Low(), sum.High()}
	s.CIOver = fmt.Sprintf("acked rate in the %d consecutive windows of the capacity step (one run: not run-to-run noise; use more searches for that)", len(acked))
	return s, nil
}
