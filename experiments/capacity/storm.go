package capacity

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stormlab/stormlab/harness"
)

// StormProber probes a Storm topology: one open-loop run per rate, measured in Windows consecutive
// windows of Window each (the run's Measure and Step). Runs go through Run, so the caller chooses the
// cluster: a Session's Run reuses one containerized cluster for every step; a target runs on a user's.
type StormProber struct {
	Run func(ctx context.Context, spec harness.RunSpec) (*harness.RunResult, error)
	// Topology builds the open-loop topology that offers rate tuples/s.
	Topology func(rate float64) (harness.TopologyRun, error)
	Spec     harness.RunSpec // scheduler and warm-up; Topology, Measure and Step are set per probe
	Window   time.Duration
	Windows  int
	// Kept, if set, gets every run that produced a result (also a failed one), e.g. to save it.
	Kept func(rate float64, res *harness.RunResult)
}

// Probe runs the topology at rate and returns the run's windows.
func (p *StormProber) Probe(ctx context.Context, rate float64) ([]Window, error) {
	topo, err := p.Topology(rate)
	if err != nil {
		return nil, err
	}
	spec := p.Spec
	spec.Topology, spec.Measure, spec.Step = topo, time.Duration(p.Windows)*p.Window, p.Window
	res, err := p.Run(ctx, spec)
	if res != nil && p.Kept != nil {
		p.Kept(rate, res)
	}
	if err != nil {
		return nil, err
	}
	if verr := res.Validity.Err(); verr != nil {
		return nil, fmt.Errorf("the run does not count: %w", verr)
	}
	return WindowsOf(res, p.Windows)
}

// WindowsOf turns a run's series into windows: offered rate from the spouts' schedules, acked rate,
// latency p99 from the intended send time and send lag p50 of each window. It fails when the run has
// fewer than want windows or a window lacks the open-loop measurement (the topology ran closed loop,
// or the workers did not report it).
func WindowsOf(res *harness.RunResult, want int) ([]Window, error) {
	if len(res.Series) < want {
		return nil, fmt.Errorf("the run has %d measurement windows, want %d", len(res.Series), want)
	}
	ws := make([]Window, 0, want)
	for i, m := range res.Series[:want] {
		ol := m.OpenLoop
		if ol == nil {
			return nil, errors.New(notOpenLoop(i, m))
		}
		ws = append(ws, Window{OfferedRate: ol.OfferedRate, AckedRate: m.Throughput,
			LatencyP99Ms: ol.IntendedP99, SendLagP50Ms: ol.SendLagP50})
	}
	return ws, nil
}

func notOpenLoop(i int, m harness.Measurement) string {
	return fmt.Sprintf("window %d: open-loop load not measured: %s", i+1, m.OpenLoopMissing())
}
