package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/protocol"
)

// End is a run's end condition: it opens and closes the measurement window of a running topology
// (Timed or Dataset). The run loop does the rest (submit, wait, collect, kill) the same way for both.
type End interface {
	kind() string
	check(spec RunSpec) error
	// window waits for the window, calling r.open and r.close, and returns the first error.
	window(ctx context.Context, r *running) error
}

// Timed measures a window of RunSpec.Measure after the warm-up (see measure.SteadyIntervals).
type Timed struct{}

func (Timed) kind() string { return "timed" }

func (Timed) check(spec RunSpec) error { return checkWindow("timed", spec) }

// checkWindow validates the fixed warm-up and window that Timed and
// StormCounted runs share; kind names the run in the error.
func checkWindow(kind string, spec RunSpec) error {
	if spec.Measure <= 0 {
		return fmt.Errorf("%s run of %s: Measure must be > 0", kind, spec.Topology.Name)
	}
	if spec.WarmUp < 0 {
		return fmt.Errorf("%s run of %s: WarmUp %s is negative", kind, spec.Topology.Name, spec.WarmUp)
	}
	return nil
}

func (Timed) window(ctx context.Context, r *running) error {
	r.enter(stageWorkers)
	running := time.Now().UnixMilli()
	if err := r.cl.Service().waitWorkers(ctx, r.id, r.res.StartedAt.UnixMilli(), r.res.Executors, r.spec.StartTimeout); err != nil {
		return err
	}
	r.enter(stageWarmUp)
	w, err := warmUp(ctx, r, running)
	r.res.WarmUp = w
	if err != nil {
		return err
	}
	r.enter(stageWindow)
	r.open(ctx)
	var faults chan []FaultRecord
	if len(r.spec.Faults) > 0 {
		faults = make(chan []FaultRecord, 1)
		go func() { faults <- injectFaults(ctx, r, r.res.MeasureFrom) }()
	}
	werr := pause(ctx, r.spec.Measure)
	if faults != nil {
		// Every fault ends inside the window (ValidateFaults); wait for its undo all the same.
		r.res.Faults = <-faults
	}
	if werr != nil {
		return werr
	}
	r.close(ctx)
	return nil
}

// warmUp waits until throughput is steady or spec.WarmUp has passed. Only reports after sinceMs (when
// every executor ran) count.
func warmUp(ctx context.Context, r *running, sinceMs int64) (WarmUp, error) {
	w := WarmUp{MaxS: r.spec.WarmUp.Seconds(), Settle: r.spec.Settle}
	start := time.Now()
	limit := start.Add(r.spec.WarmUp)
	for time.Now().Before(limit) {
		reps, err := r.reports(ctx, sinceMs)
		if err != nil {
			return w, err
		}
		if s, ok := measure.SteadyNow(reps); ok {
			w.Rates, w.Steady = s.Rates, s.Steady
			if s.Open {
				w.OfferedRate = s.OfferedRate
			}
		}
		if r.spec.Settle {
			if w.Settled, err = placementSettled(ctx, r); err != nil {
				return w, err
			}
		}
		if w.Steady && (w.Settled || !r.spec.Settle) {
			break
		}
		if err := pause(ctx, min(pollEvery, time.Until(limit))); err != nil {
			return w, err
		}
	}
	w.S = time.Since(start).Seconds()
	return w, nil
}

// placementSettled says whether run r's placement has settled. Storm's own schedulers place once, in
// Nimbus: settled from the start (the service's state, which may still be a dynamic scheduler's from an
// earlier run on the cluster, is not theirs; reading it made EvenScheduler's runs wait out their whole
// maximum warm-up). Otherwise the service's decisions for the topology say (settled).
func placementSettled(ctx context.Context, r *running) (bool, error) {
	if _, bridged := StormSchedulerClass(r.spec.Scheduler); !bridged {
		return true, nil
	}
	st, err := r.cl.Service().State(ctx, r.res.StartedAt.UnixMilli())
	if err != nil {
		return false, fmt.Errorf("scheduler decisions: %w", err)
	}
	return settled(st, r.id), nil
}

// SettledAtWindow says whether the run's placement had settled when its window opened (see settled),
// from the scheduler decisions the run kept; dynamic says the run's scheduler reschedules.
func (r *RunResult) SettledAtWindow(dynamic bool) bool {
	var ds []protocol.DecisionRecord
	for _, d := range r.Decisions {
		if d.TimeMs <= r.MeasureFrom {
			ds = append(ds, d)
		}
	}
	return settled(&protocol.State{Dynamic: dynamic, Decisions: ds}, r.TopologyID)
}

// settled says whether topology id's placement has settled in the service's state: the scheduler is
// not dynamic (placed once; native schedulers run without the service's decisions), or after its
// last applied decision for the topology it was offered the placement again and kept it (a
// reschedule decision, not applied). A dynamic scheduler that has not yet been offered the placement
// has not settled: its first round may move everything.
func settled(st *protocol.State, id string) bool {
	if !st.Dynamic {
		return true
	}
	kept := false
	for _, d := range st.Decisions { // in time order
		if d.Topology != id || d.Error != "" {
			continue
		}
		switch {
		case d.Applied:
			kept = false
		case d.Kind == "reschedule":
			kept = true
		}
	}
	return kept
}

// Dataset runs a topology that reads a finite dataset (--size-mb > 0) until the whole dataset is
// processed: the workers' reports say every task of the Spout component is done ("spout_done", sent by
// PacedSpout through the instrumentation, so no worker log is read and it works on any cluster) and count as many tuples
// acked or failed as the spouts emitted. That count is only trusted while no worker has restarted
// and the scheduler has moved no executor: a restarted spout task resumes from its last saved
// position (PacedSpout keeps it in the cluster's ZooKeeper), so it emits the tuples after that
// position a second time, and tuples lost with a worker are never acked nor failed. Otherwise, and
// as a bound, a run ends once no tuple has been acked for Quiet plus the topology's message timeout
// (datasetMessageTimeout; by then Storm has failed every tuple still in flight, give or take one
// more timeout period). Quiet alone is not enough: a busy 0.25-core supervisor's reports reach the harness seconds late, and an ack
// that has not arrived reads as quiet (measured: three k-means runs of the adaptive scheduler ended
// with 2,615-3,120 of 3,908 tuples acked, and Storm's own count was short too). The window is
// [submit, end) with no warm-up; Max bounds the whole run (an unfinished dataset is an error wrapping
// errDatasetUnfinished). RunResult.DatasetS is the time from the first to the last acked tuple.
type Dataset struct {
	Spout string
	Quiet time.Duration
	Max   time.Duration
}

// datasetMessageTimeout is the topologies' topology.message.timeout.secs (the --message-timeout-secs
// default of TopologySetup.java): after it, every tuple still in flight has been failed by Storm.
const datasetMessageTimeout = 30 * time.Second

func (Dataset) kind() string { return "dataset" }

func (d Dataset) check(spec RunSpec) error {
	switch {
	case d.Spout == "":
		return fmt.Errorf("dataset run of %s: no spout component named", spec.Topology.Name)
	case d.Max <= 0:
		return fmt.Errorf("dataset run of %s: Max must bound the run (> 0)", spec.Topology.Name)
	case d.Quiet < 0:
		return fmt.Errorf("dataset run of %s: Quiet %s is negative", spec.Topology.Name, d.Quiet)
	}
	return nil
}

func (d Dataset) window(ctx context.Context, r *running) error {
	r.enter(stageWindow)
	res := r.res
	// The window is the whole run; Storm has counted nothing before the submit.
	res.MeasureFrom = res.StartedAt.UnixMilli()
	res.NodeStats = sampleNodes(ctx, r, nil)
	r.stormFrom = &measure.Snapshot{TimeMs: res.MeasureFrom}
	tasks := 0
	for _, e := range res.Executors {
		if e.Component == d.Spout {
			tasks += e.End - e.Start + 1
		}
	}
	if tasks == 0 {
		return fmt.Errorf("dataset run of %s: no executor of spout component %q", r.spec.Topology.Name, d.Spout)
	}
	limit := res.StartedAt.Add(d.Max)
	for {
		if err := pause(ctx, 2*time.Second); err != nil {
			return err
		}
		reps, err := r.reports(ctx, res.MeasureFrom)
		if err != nil {
			return fmt.Errorf("worker reports: %w", err)
		}
		done, emitted := spoutsDone(reps)
		first, last, newest := ackSpan(reps)
		quietMs := time.Now().UnixMilli() - last
		ready := done >= tasks && last > 0 && newest > last
		counted := false
		if ready && ackedOrFailed(reps) >= emitted {
			moved, err := movedSince(ctx, r, res.StartedAt.UnixMilli())
			if err != nil {
				return fmt.Errorf("scheduler decisions: %w", err)
			}
			counted = !restarted(reps) && !moved
		}
		if ready && (counted || quietMs >= (d.Quiet+datasetMessageTimeout).Milliseconds()) {
			res.DatasetS = float64(last-first) / 1000
			break
		}
		now := time.Now()
		if now.After(limit) {
			return fmt.Errorf("dataset run of %s: %w within %s (%d of %d spout tasks done)", r.spec.Topology.Name, errDatasetUnfinished, d.Max, done, tasks)
		}
	}
	r.close(ctx)
	return nil
}

// ackSpan returns the start of the first report interval with acks, the time of the last report with
// acks and of the newest report (ms).
func ackSpan(reports []protocol.WorkerReport) (first, last, newest int64) {
	for _, r := range reports {
		newest = max(newest, r.TimeMs)
		if r.Acked > 0 {
			start := r.TimeMs - int64(r.IntervalS*1000)
			if first == 0 || start < first {
				first = start
			}
			last = max(last, r.TimeMs)
		}
	}
	return first, last, newest
}

// restarted says whether a worker slot of the reports had more than one incarnation.
func restarted(reports []protocol.WorkerReport) bool {
	type slot struct {
		topology, host string
		port           int
	}
	start := map[slot]int64{}
	for _, r := range reports {
		k := slot{r.Topology, r.Host, r.Port}
		if s, ok := start[k]; ok && s != r.WorkerStartMs {
			return true
		}
		start[k] = r.WorkerStartMs
	}
	return false
}

// movedSince says whether the scheduler service recorded an applied decision that moved executors of
// the run's topology since sinceMs.
func movedSince(ctx context.Context, r *running, sinceMs int64) (bool, error) {
	st, err := r.cl.Service().State(ctx, sinceMs)
	if err != nil {
		return false, err
	}
	for _, d := range st.Decisions {
		if d.Topology == r.id && d.Applied && d.Kind == "reschedule" && d.Decision != nil && d.Decision.Moved > 0 {
			return true, nil
		}
	}
	return false, nil
}

// ackedOrFailed is the number of spout tuples the reports count as acked or failed (each report
// counts its own interval).
func ackedOrFailed(reports []protocol.WorkerReport) int64 {
	var n int64
	for _, r := range reports {
		n += r.Acked + r.Failed
	}
	return n
}

// spoutsDone counts the spout tasks whose reports say they are done (SpoutDone) and sums their tuples
// (the tuples those tasks emitted). A task is counted once, with its largest count: a task that
// resumes done after a restart reports it again from its new worker.
func spoutsDone(reports []protocol.WorkerReport) (tasks int, emitted int64) {
	perTask := map[int]int64{}
	for _, r := range reports {
		for _, d := range r.SpoutDone {
			perTask[d.Task] = max(perTask[d.Task], d.Tuples)
		}
	}
	for _, n := range perTask {
		emitted += n
	}
	return len(perTask), emitted
}
