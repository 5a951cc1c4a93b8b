package capacity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Window is one measurement window of a step. Rates in tuples/s, times in ms.
type Window struct {
	OfferedRate  float64 `json:"offered_tuples_per_s"`
	AckedRate    float64 `json:"acked_tuples_per_s"`
	LatencyP99Ms float64 `json:"latency_intended_p99_ms"` // complete latency from the intended send time
	SendLagP50Ms float64 `json:"send_lag_p50_ms"`
}

// Criteria decide whether a step's windows show a sustainable rate.
type Criteria struct {
	MinAchieved  float64       // acked / offered, e.g. 0.98
	P99Bound     time.Duration // latency p99 from the intended send time
	MaxLagGrowth time.Duration // send lag p50, last window minus first
}

// DefaultCriteria are the stated defaults: 98% of the offered rate acked, p99 under 2 s, send lag
// growing by at most 100 ms over the step. Two seconds is well below Storm's 30 s message timeout and
// above what a cluster that keeps up shows here: WordCount on heterogeneous-2 (0.5 and 1 core) has a
// p99 near 1 s even at 50 tuples/s, from CPU-quota throttling on every hop (docs/results-log.md).
var DefaultCriteria = Criteria{MinAchieved: 0.98, P99Bound: 2 * time.Second, MaxLagGrowth: 100 * time.Millisecond}

// Judge reports whether ws show a sustainable rate and, when not, why (the first broken criterion).
// The acked share is taken over the whole step (acked over offered tuples, all windows): a single
// window's count moves by a few percent with where the workers' report intervals fall on its edges
// (measured: 101.6, 104.1 and 97.5 acked tuples/s in three 10 s windows at 100 offered, latency flat),
// while a cluster that falls behind loses the same share in every window. Latency must stay under the
// bound in every window.
func (c Criteria) Judge(ws []Window) (ok bool, why string) {
	if len(ws) == 0 {
		return false, "no measurement window"
	}
	var offered, acked float64
	for i, w := range ws {
		switch {
		case w.OfferedRate <= 0:
			return false, fmt.Sprintf("window %d: nothing offered", i+1)
		case w.LatencyP99Ms > ms(c.P99Bound):
			return false, fmt.Sprintf("window %d: latency p99 from the intended send time %.0f ms > %.0f ms", i+1, w.LatencyP99Ms, ms(c.P99Bound))
		}
		offered, acked = offered+w.OfferedRate, acked+w.AckedRate
	}
	if acked < c.MinAchieved*offered {
		n := float64(len(ws))
		return false, fmt.Sprintf("acked %.1f of %.1f tuples/s offered over the step (%.1f%% < %.0f%%)", acked/n, offered/n, 100*acked/offered, 100*c.MinAchieved)
	}
	if g := ws[len(ws)-1].SendLagP50Ms - ws[0].SendLagP50Ms; g > ms(c.MaxLagGrowth) {
		return false, fmt.Sprintf("send lag p50 grew by %.0f ms over the step (> %.0f ms)", g, ms(c.MaxLagGrowth))
	}
	return true, ""
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Prober offers rate tuples/s open loop and returns the step's consecutive measurement windows.
type Prober interface {
	Probe(ctx context.Context, rate float64) ([]Window, error)
}

// ProberFunc adapts a function to Prober.
type ProberFunc func(ctx context.Context, rate float64) ([]Window, error)

// Probe calls f.
func (f ProberFunc) Probe(ctx context.Context, rate float64) ([]Window, error) { return f(ctx, rate) }

// Options of a search. Zero fields take the defaults of DefaultOptions.
type Options struct {
	Start     float64 // first offered rate, tuples/s
	Factor    float64 // exponential step up, > 1
	Precision float64 // stop when (failed - sustainable) / sustainable <= Precision
	Max       float64 // highest rate tried; reaching it sustainably ends the search with AtLeast
	Criteria  Criteria
	// Logf, if set, gets one line per step.
	Logf func(format string, a ...any)
}

// DefaultOptions: start at 100 tuples/s, double, to 5%, at most 100,000 tuples/s (the spouts' bound).
var DefaultOptions = Options{Start: 100, Factor: 2, Precision: 0.05, Max: 100_000, Criteria: DefaultCriteria}

func (o Options) withDefaults() Options {
	d := DefaultOptions
	if o.Start == 0 {
		o.Start = d.Start
	}
	if o.Factor == 0 {
		o.Factor = d.Factor
	}
	if o.Precision == 0 {
		o.Precision = d.Precision
	}
	if o.Max == 0 {
		o.Max = d.Max
	}
	if o.Criteria == (Criteria{}) {
		o.Criteria = d.Criteria
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o
}

// Validate names the first option that cannot be searched with. It checks o as given (Search fills
// zero fields with the defaults first), so an explicit 0 from a user is refused.
func (o Options) Validate() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 }
	switch {
	case bad(o.Start):
		return fmt.Errorf("start rate %v is not a rate: give tuples/s above 0", o.Start)
	case bad(o.Max) || o.Max < o.Start:
		return fmt.Errorf("maximum rate %v is below the start rate %v: give a maximum at or above the start", o.Max, o.Start)
	case math.IsNaN(o.Factor) || o.Factor <= 1:
		return fmt.Errorf("step factor %v must be above 1 (e.g. 2: double the rate each step)", o.Factor)
	case bad(o.Precision) || o.Precision >= 1:
		return fmt.Errorf("precision %v must be in (0, 1) (e.g. 0.05 for 5%%)", o.Precision)
	case o.Criteria.MinAchieved <= 0 || o.Criteria.MinAchieved > 1:
		return fmt.Errorf("minimum achieved share %v must be in (0, 1]", o.Criteria.MinAchieved)
	case o.Criteria.P99Bound <= 0:
		return errors.New("the latency p99 bound must be positive (e.g. 1s)")
	case o.Criteria.MaxLagGrowth < 0:
		return errors.New("the allowed send-lag growth must not be negative")
	}
	return nil
}
