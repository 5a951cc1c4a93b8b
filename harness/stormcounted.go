package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/stormui"
)

// StormCounted is the end condition of a run measured with Storm's own counters (Nimbus's executor
// statistics read through the UI, see StormCheck) instead of the harness's worker reports, so a
// topology without the instrumentation (topologies.InstrumentationArgs(false)) can be measured, and an
// instrumented one with the same yardstick:
//
//   - start: the window's clock starts once every spout executor of the topology has acked tuples in
//     Storm's statistics (the workers run and the chain acks end to end);
//   - warm-up: exactly RunSpec.WarmUp (no steady-state test: that would need the worker reports, and
//     both arms of a comparison must warm up alike);
//   - window: RunSpec.Measure, read at both ends like a Timed run's (the first statistics sent after
//     each end); the run's figures are RunResult.Storm's Throughput and CompleteLatencyMs.
//
// With Uninstrumented no worker report is expected: none is waited for, and RunResult.Measurement is
// empty (every metric not measured). Instrumented runs also get the harness's own Measurement (and its
// cross-check). Faults are not supported (they need a Timed run).
//
// Beside, when set, is a second topology that runs beside this one through the whole window and is
// read by Storm's counters at the same two ends (RunResult.Beside): a paired design, in which both
// share every disturbance of the machine (CPU steal, the other containers, JIT and GC timing), so
// their ratio varies far less than either alone. It is submitted before the run's own topology's
// window starts and killed when the window ends (also on failure).
type StormCounted struct {
	Uninstrumented bool
	Beside         *TopologyRun
}

// kindStormCounted is RunResult.EndKind of a StormCounted run.
const kindStormCounted = "storm-counted"

func (StormCounted) kind() string { return kindStormCounted }

func (StormCounted) check(spec RunSpec) error { return checkWindow("storm-counted", spec) }

func (e StormCounted) window(ctx context.Context, r *running) (err error) {
	var besideID string
	var besideExecs []ExecutorPlace
	if b := e.Beside; b != nil {
		if err := r.cl.Submit(ctx, b.Jar, b.MainClass, b.Args...); err != nil {
			return fmt.Errorf("topology beside the run (%s): %w", b.Name, err)
		}
		defer func() {
			kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if kerr := r.cl.UI().Kill(kctx, b.Name, 0); kerr != nil {
				err = errors.Join(err, fmt.Errorf("kill the topology beside the run (%s): %w", b.Name, kerr))
			}
		}()
		id, execs, err := waitRunning(ctx, r.cl.UI(), b.Name, r.spec.StartTimeout)
		if err != nil {
			return fmt.Errorf("topology beside the run (%s): %w", b.Name, err)
		}
		besideID, besideExecs = id, execs
	}
	r.enter(stageWorkers)
	if err := waitSpoutsAcking(ctx, r.cl.UI(), r.id, r.spec.StartTimeout); err != nil {
		return err
	}
	if besideID != "" {
		if err := waitSpoutsAcking(ctx, r.cl.UI(), besideID, r.spec.StartTimeout); err != nil {
			return fmt.Errorf("topology beside the run: %w", err)
		}
	}
	r.enter(stageWarmUp)
	start := time.Now()
	if err := pause(ctx, r.spec.WarmUp); err != nil {
		return err
	}
	r.res.WarmUp = WarmUp{MaxS: r.spec.WarmUp.Seconds(), S: time.Since(start).Seconds()}
	r.enter(stageWindow)
	r.open(ctx)
	var besideFrom, besideTo *measure.Snapshot
	if besideID != "" {
		besideFrom = measure.FreshSnapshot(ctx, r.cl.UI(), besideID, stormFresh)
	}
	if err := pause(ctx, r.spec.Measure); err != nil {
		return err
	}
	r.close(ctx)
	if besideID != "" {
		besideTo = measure.FreshSnapshot(ctx, r.cl.UI(), besideID, stormFresh)
		c := measure.CrossCheck(besideFrom, besideTo, Measurement{}, nil)
		r.res.Beside = &besideRun{Name: e.Beside.Name, TopologyID: besideID, Executors: besideExecs, Storm: c}
		if c.Throughput <= 0 {
			return fmt.Errorf("topology beside the run (%s): Storm counted no acked tuple in the window (%s)", e.Beside.Name, c.Note)
		}
	}
	return nil
}

// besideRun is the topology that ran beside a StormCounted run (StormCounted.Beside): Storm's
// counters over the same window.
type besideRun struct {
	Name       string          `json:"name"`
	TopologyID string          `json:"topology_id"`
	Executors  []ExecutorPlace `json:"executors"` // placement once it ran
	Storm      StormCheck      `json:"storm_check"`
}

// waitSpoutsAcking polls Storm's statistics until every spout executor of topology id has acked
// tuples (a wait strategy: it returns as soon as that holds).
func waitSpoutsAcking(ctx context.Context, ui *stormui.Client, id string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	why := "no statistics read yet"
	for {
		top, err := ui.Topology(ctx, id)
		if err != nil {
			why = err.Error()
		} else if w := spoutsNotAcking(top.Executors); w == "" {
			return nil
		} else {
			why = w
		}
		if perr := pause(ctx, pollEvery); perr != nil {
			return fmt.Errorf("topology %s: spouts not acking in Storm's statistics after %s (%s): %w", id, timeout, why, perr)
		}
	}
}

// spoutsNotAcking says which spout executor has no acked tuple yet, or "" when all have some.
func spoutsNotAcking(execs []stormui.Executor) string {
	spouts := 0
	for _, e := range execs {
		if e.Type != "spout" {
			continue
		}
		spouts++
		if e.Acked <= 0 {
			return fmt.Sprintf("spout executor %s [%d-%d] has acked nothing yet", e.Component, e.TaskStart, e.TaskEnd)
		}
	}
	if spouts == 0 {
		return "no spout executor has statistics yet"
	}
	return ""
}

// reportWait is how long collect waits for the worker reports of a window's last interval.
func reportWait(spec RunSpec) time.Duration {
	if sc, ok := spec.End.(StormCounted); ok && sc.Uninstrumented {
		return 0 // none will come
	}
	return 20 * time.Second
}
