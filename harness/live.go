package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/stormlab/stormlab/harness/measure"
)

// Live is a running run's progress, once per report interval, for a user watching it (RunSpec.Live):
// the newest report interval's acked rate and complete latency p99 over every worker, the open-loop
// offered rate, and the scheduler decisions applied to the topology so far.
type Live struct {
	Phase        string  // the run loop's phase (workers, warm-up, window, ...)
	ElapsedS     float64 // since submission
	AckedRate    float64 // tuples/s
	LatencyP99Ms float64 // 0 when the newest reports carry no latency
	OfferedRate  float64 // open loop only
	Decisions    int
}

// String is the one-line form `stormlab run` prints.
func (l Live) String() string {
	s := fmt.Sprintf("%6.0f s  %-8s  acked %7.1f tuples/s  p99 %6.0f ms  decisions %d", l.ElapsedS, l.Phase, l.AckedRate, l.LatencyP99Ms, l.Decisions)
	if l.OfferedRate > 0 {
		s += fmt.Sprintf("  offered %.1f tuples/s", l.OfferedRate)
	}
	return s
}

// liveEvery is how often the live line is refreshed: the workers report every 1-5 s.
const liveEvery = 2 * time.Second

// watch calls r.spec.Live every liveEvery until the returned stop is called. Failing reads skip a
// line: the live line informs, it never fails the run.
func (r *running) watch(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(liveEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if l, ok := r.live(ctx); ok {
					r.spec.Live(l)
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}

// live reads the newest reports and decisions.
func (r *running) live(ctx context.Context) (Live, bool) {
	since := r.res.StartedAt.UnixMilli()
	reps, err := r.reports(ctx, since)
	if err != nil || len(reps) == 0 {
		return Live{}, false
	}
	phase, _ := r.livePhase.Load().(string)
	l := Live{Phase: phase, ElapsedS: time.Since(r.res.StartedAt).Seconds()}
	n := measure.LatestOf(reps)
	l.AckedRate, l.LatencyP99Ms, l.OfferedRate = n.AckedRate, n.LatencyP99Ms, n.OfferedRate
	if st, err := r.cl.Service().State(ctx, since); err == nil {
		for _, d := range st.Decisions {
			if d.Topology == r.id && d.Applied {
				l.Decisions++
			}
		}
	}
	return l, true
}
