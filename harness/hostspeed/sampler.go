package hostspeed

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/montanaflynn/stats"
)

// Summary is a run's probe samples: what a CPU-second bought through its window.
type Summary struct {
	Probe string `json:"probe"` // the probe's name (Probe): figures compare only between equal names
	// NsPerStep is the median of the samples, in ns of thread CPU a probe step: higher is slower.
	NsPerStep float64 `json:"ns_per_step"`
	// Q1Ns and Q3Ns are the samples' quartiles: the middle half's spread. Not the extremes: a sample
	// now and then reads a third slower or more (a context switch, another tenant), and says little.
	Q1Ns    float64 `json:"q1_ns"`
	Q3Ns    float64 `json:"q3_ns"`
	Samples int     `json:"samples"`
}

// Summarize folds samples (ns a step) into a Summary; nil when there are none. With fewer than 4
// samples the quartiles are the least and the greatest.
func Summarize(samples []float64) *Summary {
	if len(samples) == 0 {
		return nil
	}
	med, _ := stats.Median(samples)
	s := &Summary{Probe: Probe, NsPerStep: med, Q1Ns: slices.Min(samples), Q3Ns: slices.Max(samples), Samples: len(samples)}
	if q, err := stats.Quartile(samples); err == nil && len(samples) >= 4 {
		s.Q1Ns, s.Q3Ns = q.Q1, q.Q3
	}
	return s
}

// Text is "12.1 ns a probe step (median of 13, middle half 11.9-12.6)".
func (s *Summary) Text() string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("%.1f ns a probe step (median of %d, middle half %.1f-%.1f)", s.NsPerStep, s.Samples, s.Q1Ns, s.Q3Ns)
}

// Start samples the probe now and then every every (Steps steps each) until ctx ends or stop is
// called; stop waits for the sampling to end and returns its Summary (nil when no sample was taken).
func Start(ctx context.Context, every time.Duration) (stop func() *Summary) {
	ctx, cancel := context.WithCancel(ctx)
	var (
		mu      sync.Mutex
		samples []float64
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			if ns, ok := Sample(Steps); ok {
				mu.Lock()
				samples = append(samples, ns)
				mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() *Summary {
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return Summarize(samples)
	}
}

// Apart is how far apart two figures of the probe (medians) must be to be called another speed: 3%.
// Over eight runs of one configuration the executors' CPU a tuple moved 2.7% for every 1% of the
// probe, so 3% of probe was about 8% of CPU a tuple; in another eight, a busy loop on the host
// moved the two apart (docs/results-log.md, 2026-12-07): another speed names a changed host, not a
// known change in what a tuple costs.
const Apart = 0.03

// Differ says whether ns-a-step figures a and b are Apart or more apart (false where either is 0).
func Differ(a, b float64) bool {
	lo, hi := min(a, b), max(a, b)
	return lo > 0 && hi/lo-1 >= Apart
}
