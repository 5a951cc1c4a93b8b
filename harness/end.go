package harness

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

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

// Steady state: the window of a Timed run opens once the topology's throughput was stable over
// steadyIntervals consecutive report intervals, i.e. (max - min) <= steadyTolerance * mean of their
// throughputs (and the mean > 0), or when the maximum warm-up (RunSpec.WarmUp) has passed, whichever
// comes first; in an open-loop run steady also needs the acked rate within steadyTolerance of the
// spouts' offered rate (drained). An interval's throughput sums over the workers each one's acked tuples divided by the
// length of its own report interval, so report times need not be aligned across workers.
const (
	steadyIntervals = 3
	steadyTolerance = 0.10
)

// WarmUp records how a run's warm-up ended.
type WarmUp struct {
	MaxS   float64   `json:"max_s"`           // the stated maximum (RunSpec.WarmUp)
	S      float64   `json:"s"`               // waited: every worker ready (see unready) -> window open
	Steady bool      `json:"steady"`          // the window opened on steady throughput, not on the maximum
	Rates  []float64 `json:"rates,omitempty"` // the last interval throughputs seen (tuples/s), oldest first
	// OfferedRate is the open-loop spouts' offered rate over those intervals (tuples/s); in an open-loop
	// run steady also needs the acked rate within steadyTolerance of it (the start-up backlog drained).
	OfferedRate float64 `json:"offered_rate,omitempty"`
	// Settle: the run asked for a settled placement too (RunSpec.Settle); Settled: it had one when the
	// window opened (false with Settle: the maximum came first, the scheduler was still moving).
	Settle  bool `json:"settle,omitempty"`
	Settled bool `json:"settled,omitempty"`
}

// Timed measures a window of RunSpec.Measure after the warm-up (see steadyIntervals).
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
		if rates, ok := intervalRates(reps, steadyIntervals); ok {
			w.Rates = rates
			w.Steady = steady(rates, steadyTolerance)
			if offered, open := offeredRate(reps, steadyIntervals); open {
				// Open loop: steady also means the start-up backlog has drained (acked ~ offered).
				w.OfferedRate = offered
				w.Steady = w.Steady && drained(rates, offered, steadyTolerance)
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

// intervalRates returns the throughput (acked tuples/s) of the n newest report intervals, oldest
// first: interval k sums, over the workers, the k-th newest report's Acked / IntervalS. ok is false
// while some worker has fewer than n reports. When no report acked or failed a tuple (spouts that do
// not anchor), the tuples executed by the sink tasks count instead, as in measureSinks.
func intervalRates(reports []protocol.WorkerReport, n int) (rates []float64, ok bool) {
	count := func(r *protocol.WorkerReport) int64 { return r.Acked }
	if !anyAcks(reports) {
		sinks := sinkTasks(reports)
		count = func(r *protocol.WorkerReport) int64 {
			var c int64
			for _, t := range r.Traffic {
				if sinks[t.Dst] && t.Src != t.Dst {
					c += t.Count
				}
			}
			return c
		}
	}
	byWorker := map[string][]protocol.WorkerReport{}
	for _, x := range reports {
		k := x.Host + ":" + strconv.Itoa(x.Port)
		byWorker[k] = append(byWorker[k], x)
	}
	if len(byWorker) == 0 || n <= 0 {
		return nil, false
	}
	rates = make([]float64, n)
	for _, reps := range byWorker {
		if len(reps) < n {
			return nil, false
		}
		sort.Slice(reps, func(i, j int) bool { return reps[i].TimeMs < reps[j].TimeMs })
		for k, x := range reps[len(reps)-n:] {
			if x.IntervalS > 0 {
				rates[k] += float64(count(&x)) / x.IntervalS
			}
		}
	}
	return rates, true
}

// offeredRate is the open-loop spouts' offered rate (tuples/s) over the n newest report intervals:
// per worker, the growth of its spout tasks' offered totals between its (n+1)-th newest and newest
// report, over the time between them, summed over workers. open is false when no report has spout
// load (a closed-loop run) or no worker with spout load has n+1 reports yet.
func offeredRate(reports []protocol.WorkerReport, n int) (rate float64, open bool) {
	byWorker := map[string][]protocol.WorkerReport{}
	for _, x := range reports {
		if len(x.SpoutLoad) > 0 {
			k := x.Host + ":" + strconv.Itoa(x.Port)
			byWorker[k] = append(byWorker[k], x)
		}
	}
	for _, reps := range byWorker {
		if len(reps) < n+1 {
			return 0, false
		}
		sort.Slice(reps, func(i, j int) bool { return reps[i].TimeMs < reps[j].TimeMs })
		first, last := reps[len(reps)-n-1], reps[len(reps)-1]
		if dt := float64(last.TimeMs-first.TimeMs) / 1000; dt > 0 && offeredTotal(last) >= offeredTotal(first) {
			rate += float64(offeredTotal(last)-offeredTotal(first)) / dt
		}
	}
	return rate, len(byWorker) > 0
}

func offeredTotal(r protocol.WorkerReport) int64 {
	var n int64
	for _, l := range r.SpoutLoad {
		n += l.OfferedTotal
	}
	return n
}

// drained reports whether the mean acked rate is within tol of the offered rate: below it the cluster
// is not keeping up; above it, it is still working off the backlog that built up while the workers
// started (the spouts offer from the moment their own worker runs).
func drained(rates []float64, offered, tol float64) bool {
	if offered <= 0 || len(rates) == 0 {
		return false
	}
	sum := 0.0
	for _, x := range rates {
		sum += x
	}
	return math.Abs(sum/float64(len(rates))-offered) <= tol*offered
}

// steady reports whether (max - min) <= tol * mean over rates, with a positive mean.
func steady(rates []float64, tol float64) bool {
	if len(rates) == 0 {
		return false
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, x := range rates {
		lo, hi, sum = math.Min(lo, x), math.Max(hi, x), sum+x
	}
	mean := sum / float64(len(rates))
	return mean > 0 && hi-lo <= tol*mean
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
	r.stormFrom = &stormSnapshot{TimeMs: res.MeasureFrom}
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
	start := map[workerKey]int64{}
	for _, r := range reports {
		k := workerKey{r.Topology, r.Host, r.Port}
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

// sinkTasks are the tasks that executed tuples from other tasks and sent none, over the reports.
func sinkTasks(reports []protocol.WorkerReport) map[int]bool {
	recv, sent := map[int]bool{}, map[int]bool{}
	for i := range reports {
		for _, t := range reports[i].Traffic {
			if t.Src != t.Dst {
				recv[t.Dst], sent[t.Src] = true, true
			}
		}
	}
	sinks := map[int]bool{}
	for task := range recv {
		if !sent[task] {
			sinks[task] = true
		}
	}
	return sinks
}
