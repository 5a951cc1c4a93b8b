package capacity

import (
	"context"
	"fmt"
	"time"
)

// Step is one offered rate tried, with its windows and the judgement.
type Step struct {
	Rate        float64  `json:"offered_tuples_per_s"`
	Phase       string   `json:"phase"` // "step up" or "bisect"
	Windows     []Window `json:"windows"`
	Sustainable bool     `json:"sustainable"`
	Why         string   `json:"why,omitempty"`
	WallS       float64  `json:"wall_s"`
}

// Result of a search.
type Result struct {
	// Capacity is the highest sustainable offered rate found (0 when BelowFirstStep).
	Capacity float64 `json:"capacity_tuples_per_s"`
	// Failed is the lowest unsustainable rate tried (0 when none failed: AtLeast).
	Failed float64 `json:"lowest_unsustainable_tuples_per_s"`
	// BelowFirstStep: the start rate already failed; the capacity is below it.
	BelowFirstStep bool `json:"below_first_step,omitempty"`
	// AtLeast: the maximum rate was sustainable; the capacity is at least Capacity.
	AtLeast bool    `json:"at_least,omitempty"`
	Steps   []Step  `json:"steps"`
	WallS   float64 `json:"wall_s"`
}

// CapacityStep is the step that found Capacity (nil when BelowFirstStep).
func (r *Result) CapacityStep() *Step {
	for i := range r.Steps {
		if s := &r.Steps[i]; s.Sustainable && s.Rate == r.Capacity {
			return s
		}
	}
	return nil
}

// Search finds the maximum sustainable rate of p (see the package doc). A probe's error ends the
// search and is returned with the partial result.
func Search(ctx context.Context, p Prober, o Options) (*Result, error) {
	o = o.withDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	s := &searcher{p: p, o: o, r: &Result{}}
	err := s.run(ctx)
	s.r.WallS = time.Since(t0).Seconds()
	return s.r, err
}

type searcher struct {
	p Prober
	o Options
	r *Result
}

func (s *searcher) run(ctx context.Context) error {
	lo, hi := 0.0, 0.0 // highest sustainable, lowest unsustainable
	for rate := s.o.Start; ; rate = min(rate*s.o.Factor, s.o.Max) {
		ok, err := s.try(ctx, rate, "step up")
		if err != nil {
			return err
		}
		if !ok {
			hi = rate
			break
		}
		lo = rate
		if rate >= s.o.Max {
			s.r.Capacity, s.r.AtLeast = lo, true
			return nil
		}
	}
	if lo == 0 {
		s.r.BelowFirstStep, s.r.Failed = true, hi
		return nil
	}
	for (hi-lo)/lo > s.o.Precision {
		mid := (lo + hi) / 2
		ok, err := s.try(ctx, mid, "bisect")
		if err != nil {
			s.r.Capacity, s.r.Failed = lo, hi
			return err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	s.r.Capacity, s.r.Failed = lo, hi
	return nil
}

// try probes one rate and records the step.
func (s *searcher) try(ctx context.Context, rate float64, phase string) (bool, error) {
	t0 := time.Now()
	ws, err := s.p.Probe(ctx, rate)
	st := Step{Rate: rate, Phase: phase, Windows: ws, WallS: time.Since(t0).Seconds()}
	if err != nil {
		st.Why = "probe failed: " + err.Error()
		s.r.Steps = append(s.r.Steps, st)
		return false, fmt.Errorf("probe %.0f tuples/s: %w", rate, err)
	}
	st.Sustainable, st.Why = s.o.Criteria.Judge(ws)
	s.r.Steps = append(s.r.Steps, st)
	verdict := "sustainable"
	if !st.Sustainable {
		verdict = "not sustainable: " + st.Why
	}
	s.o.Logf("%s %.0f tuples/s: %s (%.0f s)", phase, rate, verdict, st.WallS)
	return st.Sustainable, nil
}
