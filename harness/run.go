package harness

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/harness/nemesis"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/schedulers"
)

// runCluster is what a run needs from a provisioned Storm cluster; infra/docker provides it (see
// dockerCluster in cluster.go). Methods take the context first.
type runCluster interface {
	UI() *stormui.Client
	Service() *serviceClient
	// Capacity maps each supervisor host to its CPU capacity (100 = one core).
	Capacity() map[string]float64
	// Hosts lists the supervisor hostnames.
	Hosts() []string
	Submit(ctx context.Context, jar, mainClass string, args ...string) error
	// Exec runs a command on a supervisor host (exit code, combined output).
	Exec(ctx context.Context, host string, cmd ...string) (int, string, error)
}

// Native schedulers run inside Nimbus without the bridge, chosen by
// storm.scheduler. Every other name is a Go scheduler behind the bridge.
var nativeSchedulers = map[string]string{
	"storm-even":    "org.apache.storm.scheduler.EvenScheduler",
	"storm-default": "org.apache.storm.scheduler.DefaultScheduler",
	"storm-ras":     "org.apache.storm.scheduler.resource.ResourceAwareScheduler",
}

// StormSchedulerClass returns the storm.scheduler class for a run's scheduler
// name and whether the Go service decides (true: through the bridge).
func StormSchedulerClass(name string) (class string, bridged bool) {
	if c, ok := nativeSchedulers[name]; ok {
		return c, false
	}
	return protocol.BridgeClass, true
}

// NativeNames lists the native scheduler names.
func NativeNames() []string { return []string{"storm-default", "storm-even", "storm-ras"} }

// TopologyRun says which topology to submit and how.
type TopologyRun struct {
	Name      string   // topology name on the cluster
	Jar       string   // path of the topology jar on this machine
	MainClass string   // submits via StormSubmitter
	Args      []string // passed to MainClass
}

// RunSpec is one measured run of one scheduler.
type RunSpec struct {
	Scheduler string
	Topology  TopologyRun
	// WarmUp is the maximum warm-up of a timed run: the window opens as soon as throughput is steady
	// (see Timed) and at the latest WarmUp after every worker is ready (see unready).
	WarmUp time.Duration
	// Settle makes a timed run's window also wait, within WarmUp, for the placement to settle: a
	// dynamic scheduler has been offered the current placement and kept it (see settled). A fault
	// injected into the window then meets the scheduler's placement, not its own migration.
	Settle  bool
	Measure time.Duration // length of a timed run's window
	Step    time.Duration // time-series window; 0 = none
	// StartTimeout bounds the wait for every executor to run.
	StartTimeout time.Duration
	// End is the run's end condition: Timed (nil means Timed{}: WarmUp, then Measure) or Dataset (a
	// finite dataset processed to its end).
	End End `json:"-"`
	// Faults are injected into a Timed run's window (see fault.Fault); a run with faults is reported with
	// them and never mixed with fault-free runs.
	Faults []fault.Fault `json:"faults,omitempty"`
	// Live, if set, hears the run's progress once per report interval until it is collected (see Live).
	Live          func(Live) `json:"-"`
	NoNodeSamples bool       `json:"no_node_samples,omitempty"` // no node reads during the run: their cost (observer)
	// NodeSamplesEvery, when > 0, reads the nodes this often inside the window as well, dropping the
	// figures: the observer's amplified diagnosis arm (nemesis.Nemesis.SampleEvery). RunResult.NodeSampleSets
	// counts them.
	NodeSamplesEvery time.Duration `json:"node_samples_every,omitempty"`
}

// RunResult is everything one run produced. Validity is its one judgement (judge): invalid when the
// run must not be reported (the bridge fell back to EvenScheduler, the service ran another scheduler,
// ...), suspect when its figures disagree with Storm's own statistics (see StormCheck).
type RunResult struct {
	Spec         RunSpec                   `json:"spec"`
	EndKind      string                    `json:"end"` // "timed" or "dataset"
	TopologyID   string                    `json:"topology_id"`
	Executors    []ExecutorPlace           `json:"executors"`
	Measurement  Measurement               `json:"measurement"`
	Series       []Measurement             `json:"series,omitempty"`
	WarmUp       WarmUp                    `json:"warm_up"`
	Storm        StormCheck                `json:"storm_check"`
	Beside       *besideRun                `json:"beside,omitempty"` // StormCounted.Beside
	RoundsMs     []float64                 `json:"bridge_rounds_ms,omitempty"`
	Fallbacks    []protocol.Fallback       `json:"fallbacks,omitempty"`
	Decisions    []protocol.DecisionRecord `json:"decisions,omitempty"`
	Unassigned   int                       `json:"unassigned"`
	Validity     Validity                  `json:"validity"`
	Reports      []protocol.WorkerReport   `json:"-"` // raw samples, written separately
	StartedAt    time.Time                 `json:"started_at"`
	Cluster      string                    `json:"cluster,omitempty"` // shape, or a target's name
	Images       map[string]string         `json:"images,omitempty"`  // role -> image tag (content hash)
	StormVersion string                    `json:"storm_version,omitempty"`
	StartS       float64                   `json:"cluster_start_s,omitempty"` // ZooKeeper up -> supervisors registered
	LinkMbit     map[string]float64        `json:"link_mbit,omitempty"`       // limited supervisors' egress, Mbit/s (docker.SupervisorSpec.LinkMbit)
	// ClusterRun is the run's place on its containerized cluster (1 = the first run after start-up),
	// so a first-run effect on a shared cluster can be looked for; 0 on a target.
	ClusterRun  int   `json:"cluster_run,omitempty"`
	MeasureFrom int64 `json:"measure_from_ms"`
	MeasureTo   int64 `json:"measure_to_ms"`
	// DatasetS is set by Dataset runs: seconds from the start of the first report interval with acks
	// to the last report with acks, i.e. the time to process the whole dataset (resolution: one report
	// interval).
	DatasetS float64 `json:"dataset_s,omitempty"`
	// Faults are the run's injected faults as they happened, with their recovery (see measure.FaultRecovery).
	Faults []FaultRecord `json:"faults,omitempty"`
	// FaultFallbacks are the bridge's fallbacks while a fault had the scheduler service or ZooKeeper
	// down (and faultGrace after): expected, counted, and not a reason to invalidate the run.
	FaultFallbacks []protocol.Fallback `json:"fault_fallbacks,omitempty"`
	// Rounds are the bridge's scheduling rounds seen by the service during the run (for the timeline).
	Rounds []protocol.RoundTime `json:"rounds,omitempty"`
	// Phases is where the run's wall time went.
	Phases Phases `json:"phases"`
	// ServiceScheduler is the scheduler the service ran (its state), a record validity is judged from.
	ServiceScheduler string `json:"service_scheduler,omitempty"`
	// SchedulerOptions are the options the service ran it with (its state): what simulating the run
	// again needs (K-PART's balance multiplier, the seed). Absent for Storm's own schedulers' runs
	// and runs recorded before it was kept.
	SchedulerOptions *schedulers.Options `json:"scheduler_options,omitempty"`
	// Supervisors are the cluster's supervisor ids by host. Storm's own EvenScheduler orders nodes by
	// id, random per cluster start: a simulated twin needs them to place as the run did.
	Supervisors map[string]string `json:"supervisors,omitempty"`
	// Diagnosis is what limited the run (package diagnose), made from the records above.
	Diagnosis *Diagnosis `json:"diagnosis,omitempty"`
	// NodeStats are the supervisors' cgroup samples at the window's ends (host starvation).
	NodeStats *diagnose.NodeStats `json:"node_stats,omitempty"`
	// NodeSampleSets counts the sets of node reads of a run with RunSpec.NodeSamplesEvery (the window's
	// two ends included); 0 otherwise.
	NodeSampleSets int `json:"node_sample_sets,omitempty"`
	// Simulated is set on a run of a simulated cluster: the model and what stands behind it.
	Simulated *Simulated `json:"simulated,omitempty"`
}

// faultGrace is how long after a restart-service or restart-zookeeper fault ended a bridge fallback is
// still put down to the fault.
const faultGrace = 30 * time.Second

// duringFaults splits fallbacks into those inside a service or ZooKeeper fault (plus faultGrace) and
// the rest.
func duringFaults(fallbacks []protocol.Fallback, faults []FaultRecord) (during, rest []protocol.Fallback) {
	for _, fb := range fallbacks {
		in := false
		for _, f := range faults {
			if (f.Kind == fault.RestartService || f.Kind == fault.RestartZooKeeper) && f.StartMs > 0 &&
				fb.TimeMs >= f.StartMs && fb.TimeMs <= f.EndMs+faultGrace.Milliseconds() {
				in = true
			}
		}
		if in {
			during = append(during, fb)
		} else {
			rest = append(rest, fb)
		}
	}
	return during, rest
}

// running is one submitted topology during a run: what the end conditions work with.
type running struct {
	cl    runCluster
	spec  RunSpec
	res   *RunResult
	id    string
	stage string
	// phase is the run loop's current phase (a stage, or stageStormRead) since phaseAt (see enter).
	phase     string
	phaseAt   time.Time
	livePhase atomic.Value // phase, for the live line's goroutine
	// Storm's statistics at the window's ends (see measure.FreshSnapshot).
	stormFrom, stormTo *measure.Snapshot
	// Reports and state kept before a fault stopped the scheduler service (which holds them in memory).
	keptReports []protocol.WorkerReport
	keptState   *protocol.State
	extraStop   func() int // ends RunSpec.NodeSamplesEvery's reads (nemesis.Nemesis.SampleEvery)
}

// keepServiceData keeps the service's reports and state so far (before a restart-service fault).
func (r *running) keepServiceData(ctx context.Context) {
	if reps, err := r.cl.Service().reports(ctx, r.res.StartedAt.UnixMilli()); err == nil {
		r.keptReports = mergeReports(r.keptReports, reps)
	}
	if st, err := r.cl.Service().State(ctx, r.res.StartedAt.UnixMilli()); err == nil {
		if r.keptState == nil {
			r.keptState = st
		} else {
			r.keptState.Decisions = append(r.keptState.Decisions, st.Decisions...)
			r.keptState.Fallbacks = append(r.keptState.Fallbacks, st.Fallbacks...)
			r.keptState.RoundTimes = append(r.keptState.RoundTimes, st.RoundTimes...)
		}
	}
}

// mergeReports joins two report lists without duplicates (same worker and time), in time order.
func mergeReports(a, b []protocol.WorkerReport) []protocol.WorkerReport {
	type key struct {
		top, host string
		port      int
		t         int64
	}
	seen := map[key]bool{}
	var out []protocol.WorkerReport
	for _, x := range append(append([]protocol.WorkerReport(nil), a...), b...) {
		k := key{x.Topology, x.Host, x.Port, x.TimeMs}
		if !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TimeMs < out[j].TimeMs })
	return out
}

// reports returns the topology's reports since sinceMs.
func (r *running) reports(ctx context.Context, sinceMs int64) ([]protocol.WorkerReport, error) {
	all, err := r.cl.Service().reports(ctx, sinceMs)
	if err != nil {
		return nil, err
	}
	var out []protocol.WorkerReport
	for _, x := range all {
		if x.Topology == r.id {
			out = append(out, x)
		}
	}
	return out, nil
}

// stormFresh bounds the wait for Storm's next statistics at a window's ends (workers send them every
// infra/docker.ExecutorStatsSecs).
const stormFresh = 5 * time.Second

// open starts the window now and takes Storm's first statistics sent after it.
func (r *running) open(ctx context.Context) {
	r.res.MeasureFrom = time.Now().UnixMilli()
	r.res.NodeStats = sampleNodes(ctx, r, nil)
	if every := r.spec.NodeSamplesEvery; every > 0 && !r.spec.NoNodeSamples {
		r.extraStop = nemesisOf(r.cl).SampleEvery(ctx, r.cl.Hosts(), every)
	}
	r.enter(stageStormRead)
	r.stormFrom = measure.FreshSnapshot(ctx, r.cl.UI(), r.id, stormFresh)
	r.enter(stageWindow)
}

// close ends the window now and takes Storm's first statistics sent after it.
func (r *running) close(ctx context.Context) {
	r.res.MeasureTo = time.Now().UnixMilli()
	if r.extraStop != nil {
		r.res.NodeSampleSets = 2 + r.extraStop() // the window's ends, and the extra sets between them
	}
	sampleNodes(ctx, r, r.res.NodeStats)
	r.enter(stageStormRead)
	r.stormTo = measure.FreshSnapshot(ctx, r.cl.UI(), r.id, stormFresh)
}

// stormName is what Storm accepts as a topology name (Utils.validateTopologyName: ^[^/.:\\]+$).
var stormName = regexp.MustCompile(`^[^/.:\\]+$`)

// CheckTopologyName refuses a name Storm would refuse at submit time, after the jar was copied.
func CheckTopologyName(name string) error {
	if !stormName.MatchString(name) {
		return fmt.Errorf("topology name %q: Storm refuses names that are empty or hold '/', '.', ':' or '\\': choose another", name)
	}
	return nil
}

// runOn submits the topology, waits until every executor runs, lets spec.End open and close the
// measurement window, collects, judges validity, cross-checks against Storm's statistics and kills
// the topology (also on failure or cancellation). The cluster itself is the caller's (see Session).
// On error the partial result is returned with a *RunError.
func runOn(ctx context.Context, cl runCluster, spec RunSpec) (res *RunResult, err error) {
	if spec.StartTimeout == 0 {
		spec.StartTimeout = 3 * time.Minute
	}
	end := spec.End
	if end == nil {
		end = Timed{}
	}
	res = &RunResult{Spec: spec, StartedAt: time.Now(), EndKind: end.kind()}
	r := &running{cl: cl, spec: spec, res: res, stage: stageSpec}
	defer func() {
		if err != nil {
			err = &RunError{Topology: spec.Topology.Name, Stage: r.stage, Err: err}
		}
	}()
	if err := checkSpec(cl, end, spec); err != nil {
		return res, err
	}
	r.enter(stageSubmit)
	if len(spec.Faults) > 0 {
		// Straggler faults switch burners that run, idle, from before the topology's submission.
		stop, err := nemesisOf(cl).PrepareStragglers(ctx, spec.Faults)
		if err != nil {
			return res, err
		}
		defer func() {
			if serr := stop(context.WithoutCancel(ctx)); serr != nil {
				err = errors.Join(err, serr)
			}
		}()
	}
	args := append(slices.Clone(spec.Topology.Args), delayTopologyArgs(spec.Faults)...)
	if err := cl.Submit(ctx, spec.Topology.Jar, spec.Topology.MainClass, args...); err != nil {
		return res, err
	}
	defer r.kill(ctx, &err)
	r.enter(stageStart)
	id, execs, err := waitRunning(ctx, cl.UI(), spec.Topology.Name, spec.StartTimeout)
	r.id, res.TopologyID, res.Executors = id, id, execs
	if err != nil {
		for _, e := range execs {
			if e.Host == "" {
				res.Unassigned++
			}
		}
		return res, err
	}
	if spec.Live != nil {
		stop := r.watch(ctx)
		defer stop()
	}
	if err := end.window(ctx, r); err != nil {
		return res, err
	}
	r.enter(stageCollect)
	return res, collect(ctx, r)
}

// checkSpec refuses, before anything is submitted, a run the end condition or Storm would refuse, and
// faults the run cannot have: outside a timed run, invalid for the cluster's hosts and window, or
// needing a control operation the cluster's control cannot perform.
func checkSpec(cl runCluster, end End, spec RunSpec) error {
	if err := end.check(spec); err != nil {
		return err
	}
	if err := CheckTopologyName(spec.Topology.Name); err != nil {
		return err
	}
	if len(spec.Faults) == 0 {
		return nil
	}
	if _, ok := end.(Timed); !ok {
		return fmt.Errorf("faults need a timed run (AT counts from the window's opening)")
	}
	if err := fault.Validate(spec.Faults, cl.Hosts(), spec.Measure); err != nil {
		return err
	}
	return nemesisOf(cl).CheckControl(spec.Faults)
}

// kill kills the run's topology, even when the run failed or ctx was cancelled; a failed kill is the
// run's error too, joined into *err (the next run would share the cluster with it).
func (r *running) kill(ctx context.Context, err *error) {
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	stage := r.stage // a failed run's error names the stage it failed in
	r.enter(stageKill)
	kerr := r.cl.UI().Kill(kctx, r.spec.Topology.Name, 0)
	r.enter("")
	r.res.Phases.TotalS = time.Since(r.res.StartedAt).Seconds()
	r.stage = stage
	if kerr != nil {
		if *err == nil {
			r.stage = stageKill
		}
		*err = errors.Join(*err, kerr)
	}
}

// collect reads what the window produced and judges it.
func collect(ctx context.Context, r *running) error {
	res, cl := r.res, r.cl
	// Reports of the last interval arrive up to one interval late.
	all, err := cl.Service().reportsUntil(ctx, res.StartedAt.UnixMilli(), res.MeasureTo, reportWait(r.spec))
	if err != nil {
		return fmt.Errorf("worker reports: %w", err)
	}
	if from, to := r.stormFrom, r.stormTo; from != nil && to != nil && len(from.Executors) > 0 && reportWait(r.spec) > 0 {
		// The cross-check's span (stormSpan) ends up to half a report interval after Storm's last
		// reading, which is taken after the window: wait for the workers' reports that far.
		if all, err = reportsCovering(ctx, cl.Service(), r.id, res.StartedAt.UnixMilli(), to.TimeMs+spanSlackMs, res.MeasureTo-aliveMs); err != nil {
			return fmt.Errorf("worker reports: %w", err)
		}
	}
	res.Reports = res.Reports[:0]
	for _, x := range mergeReports(r.keptReports, all) {
		if x.Topology == r.id {
			res.Reports = append(res.Reports, x)
		}
	}
	// Placement as Nimbus sees it now: a dynamic scheduler may have moved executors during the run;
	// the cut rate uses the final placement.
	var top *stormui.Topology
	err = retryRead(ctx, uiRecovery, func(ctx context.Context) (err error) {
		top, err = cl.UI().Topology(ctx, r.id)
		return err
	})
	if err != nil {
		return fmt.Errorf("final placement: %w", err)
	}
	res.Executors = placesOf(top)
	res.Supervisors = supervisorIDs(ctx, cl.UI())
	place := measure.PlacementOf(res.Executors)
	capacity := cl.Capacity()
	res.Measurement = measure.Window(res.Reports, place, capacity, res.MeasureFrom, res.MeasureTo)
	if r.spec.Step > 0 {
		res.Series = measure.Series(res.Reports, place, capacity, res.MeasureFrom, res.MeasureTo, r.spec.Step.Milliseconds())
	}
	st, err := cl.Service().State(ctx, res.StartedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("scheduler service state: %w", err)
	}
	if k := r.keptState; k != nil {
		st.Decisions = append(k.Decisions, st.Decisions...)
		st.Fallbacks = append(k.Fallbacks, st.Fallbacks...)
		st.RoundTimes = append(k.RoundTimes, st.RoundTimes...)
	}
	res.RoundsMs, res.Fallbacks, res.Decisions = fromState(st, r.id)
	res.Rounds = st.RoundTimes
	res.FaultFallbacks, res.Fallbacks = duringFaults(res.Fallbacks, res.Faults)
	res.ServiceScheduler = st.Scheduler
	if _, bridged := StormSchedulerClass(res.Spec.Scheduler); bridged {
		res.SchedulerOptions = st.Options
	}
	step := measure.RecoveryStepMs(r.spec.Step.Milliseconds(), res.Reports)
	for i := range res.Faults {
		f := &res.Faults[i]
		if f.StartMs == 0 {
			continue
		}
		f.Recovery = measure.FaultRecovery(res.Reports, res.MeasureFrom, res.MeasureTo, f.StartMs, f.EndMs, step, f.before, res.Executors)
		f.Applied = nemesis.StragglerApplied(st.Topologies, f.Fault, capacity, f.StartMs, f.EndMs)
	}
	res.Storm = measure.MovedInDataset(measure.CrossCheck(r.stormFrom, r.stormTo, res.Measurement, res.Reports), res.Decisions, res.MeasureTo)
	res.Diagnosis = diagnosis(res)
	res.Validity = judge(res)
	return nil
}

// spanSlackMs is how far after Storm's last reading the workers' reports are awaited: past the end
// of the cross-check's span (stormSpan: the reading less stormLagMs plus half a report interval) for
// report intervals up to 5 s.
const spanSlackMs = 2_500

// aliveMs: a worker that has not reported in this long before the window's end is gone (a restart
// or a migration) and is not awaited.
const aliveMs = 10_000

// reportsCovering returns every report since sinceMs once each worker of topology id that reported
// at or after aliveFromMs has a report at or after untilMs, or after coverWait.
func reportsCovering(ctx context.Context, svc *serviceClient, id string, sinceMs, untilMs, aliveFromMs int64) ([]protocol.WorkerReport, error) {
	deadline := time.Now().Add(coverWait)
	for {
		all, err := svc.reports(ctx, sinceMs)
		if err != nil {
			return nil, err
		}
		newest := map[string]int64{} // host:port of topology id's workers
		for _, x := range all {
			if k := slotKey(x.Host, x.Port); x.Topology == id && x.TimeMs >= aliveFromMs {
				newest[k] = max(newest[k], x.TimeMs)
			}
		}
		covered := true
		for _, t := range newest {
			covered = covered && t >= untilMs
		}
		if covered || time.Now().After(deadline) {
			return all, nil
		}
		if err := pause(ctx, pollEvery); err != nil {
			return nil, err
		}
	}
}

// coverWait bounds reportsCovering's wait.
const coverWait = 10 * time.Second

// fromState picks a run's bridge round times (each round reports the bridge's wall time of the one
// before it; the last round's is not known), the fallbacks that concern its topology (or every
// topology of a round) and its decisions.
func fromState(st *protocol.State, id string) (roundsMs []float64, fallbacks []protocol.Fallback, decisions []protocol.DecisionRecord) {
	for _, rt := range st.RoundTimes {
		if rt.BridgeMs > 0 {
			roundsMs = append(roundsMs, rt.BridgeMs)
		}
	}
	for _, f := range st.Fallbacks {
		if f.Topology == "" || f.Topology == id {
			fallbacks = append(fallbacks, f)
		}
	}
	for _, d := range st.Decisions {
		if d.Topology == id {
			decisions = append(decisions, d)
		}
	}
	return roundsMs, fallbacks, decisions
}

// waitRunning polls Nimbus until every executor of the topology has a heartbeat on a host (a wait
// strategy: it returns as soon as the condition holds, or on timeout with the last state).
func waitRunning(ctx context.Context, ui *stormui.Client, name string, timeout time.Duration) (string, []ExecutorPlace, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var (
		id      string
		execs   []ExecutorPlace
		lastErr error
		total   int
	)
	for {
		var err error
		if id == "" {
			id, err = ui.TopologyID(ctx, name)
		}
		if err == nil {
			var top *stormui.Topology
			if top, err = ui.Topology(ctx, id); err == nil {
				execs, total = placesOf(top), top.ExecutorsTotal
				if total > 0 && len(execs) == total && allPlaced(execs) {
					return id, execs, nil
				}
			}
		}
		if err != nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			placed := 0
			for _, e := range execs {
				if e.Host != "" {
					placed++
				}
			}
			return id, execs, fmt.Errorf("topology %s: %d of %d executors running after %s (last error: %v): %w", name, placed, total, timeout, lastErr, ctx.Err())
		case <-tick.C:
		}
	}
}

// workerSlots lists the distinct "host:port" worker slots of a placement.
func workerSlots(execs []ExecutorPlace) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range execs {
		k := fmt.Sprintf("%s:%d", e.Host, e.Port)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

func allPlaced(execs []ExecutorPlace) bool {
	for _, e := range execs {
		if e.Host == "" {
			return false
		}
	}
	return true
}

// uiRecovery is how long a read at a run's end retries the UI: the UI answers through Nimbus, which a fault
// in the window (ZooKeeper restarted, so Nimbus's ZooKeeper session may expire and be made again) can
// leave unresponsive for a while after it.
const uiRecovery = 60 * time.Second

// retryRead calls read until it succeeds or within has passed (then its last error). Only for reads:
// repeating them changes nothing.
func retryRead(ctx context.Context, within time.Duration, read func(context.Context) error) error {
	deadline := time.Now().Add(within)
	for {
		err := read(ctx)
		if err == nil || !time.Now().Before(deadline) {
			return err
		}
		if perr := pause(ctx, 2*time.Second); perr != nil {
			return err
		}
	}
}

// pause waits d or until ctx ends. It is the measurement window itself, not a synchronisation sleep.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// supervisorIDs reads the cluster's supervisor ids by host; nil when the UI does not answer (a record
// for simulating the run again, not a measurement: the run stands without it).
func supervisorIDs(ctx context.Context, ui *stormui.Client) map[string]string {
	var sups []stormui.Supervisor
	err := retryRead(ctx, uiRecovery, func(ctx context.Context) (err error) {
		sups, err = ui.Supervisors(ctx)
		return err
	})
	if err != nil {
		return nil
	}
	ids := map[string]string{}
	for _, s := range sups {
		ids[s.Host] = s.ID
	}
	return ids
}
