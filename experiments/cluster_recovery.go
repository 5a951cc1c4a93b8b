package experiments

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
)

// recoveryMetrics are the per-run values of the recovery experiment (see harness.Recovery).
var recoveryMetrics = []lab.Metric{
	{Name: "recovery_s", Label: "recovery time (s; not recovered: until the window's end)"},
	{Name: "recovered", Label: "recovered within the window (1 = yes)"},
	{Name: "lost_pct", Label: "throughput lost from the fault to recovery (% of the pre-fault level)", Signed: true}, // negative: above the pre-fault level
	{Name: "lost_tuples", Label: "tuples lost (below the pre-fault level)", Signed: true},
	{Name: "failed_tuples", Label: "tuples failed (replayed) after the fault"},
	{Name: "executors_moved", Label: "executors moved"},
	{Name: "pre_tput", Label: "pre-fault throughput (tuples/s)"},
}

// recoverySchedulers: Storm's own two and the three dynamic Go schedulers.
var recoverySchedulers = []string{"storm-even", "storm-ras", "kpart-dynamic", "deadline", "online"}

// recoveryShape is the heterogeneous cluster; recoveryKilled is its 1-core supervisor, the node every
// scheduler uses (killing a node a scheduler left idle would measure nothing).
const (
	recoveryShape  = "heterogeneous-4"
	recoveryKilled = "sup4"
)

// recoveryKnobs are the recovery experiment's settings at one scale.
type recoveryKnobs struct {
	Scale                     string
	Reps                      int
	WarmUp, Measure, At, Down time.Duration // the supervisor is down from At into the window for Down
	WorkerOpts                string        // extra worker JVM options
	Schedulers                []string      // nil: recoverySchedulers
	// OpenFraction, when > 0, makes every run open loop: WordCount's spouts offer this fraction of
	// EvenScheduler's saturated throughput at constant arrivals. The calibration is one fault-free
	// unpaced EvenScheduler run (CalWarmUp + CalMeasure) on the first cluster, before any fault.
	// 0: every run unpaced (saturation).
	OpenFraction          float64
	CalWarmUp, CalMeasure time.Duration
}

// schedulers are the schedulers this scale runs.
func (k recoveryKnobs) schedulers() []string {
	if k.Schedulers == nil {
		return recoverySchedulers
	}
	return k.Schedulers
}

func (k *recoveryKnobs) reps() *int { return &k.Reps }

// Manifest lists the knobs for manifest.json.
func (k recoveryKnobs) Manifest() map[string]any {
	m := map[string]any{"profile": k.Scale, "reps": k.Reps, "worker_opts": k.WorkerOpts, "recovery_shuffle": "uniform (" + uniformShuffle + ")", "recovery_warmup": k.WarmUp.String(),
		"recovery_measure": k.Measure.String(), "recovery_at": k.At.String(), "recovery_down": k.Down.String()}
	if k.Schedulers != nil {
		m["recovery_schedulers"] = k.Schedulers
	}
	if k.OpenFraction > 0 {
		m["recovery_open_fraction"] = k.OpenFraction
		m["recovery_calibration_warmup"], m["recovery_calibration_measure"] = k.CalWarmUp.String(), k.CalMeasure.String()
	}
	return m
}

// recoveryScales: ci is a walking check for make test (through the standing cluster's target): two
// schedulers, Storm's own and the dynamic K-PART in the service, one run each, a 30 s warm-up at
// most and a 40 s window, so a run may end unsettled or unrecovered (it says so); no claim is decided.
//
// quick: the supervisor is down 10 s from 10 s into a 60 s window (two 5 s intervals give the
// pre-fault level), which leaves 50 s after the fault: tuples sent to the dead workers only time
// out (and are replayed) after the topology's 30 s message timeout. The warm-up waits for steady
// throughput and a settled placement (RunSpec.Settle), at most 90 s: with a 15 s reschedule period,
// a dynamic scheduler's first offer comes about 15 s after the submit, and after a migration the
// next comes once every restarted worker has reported a period of work (about 30-45 s later).
//
// quick and full offer half of EvenScheduler's saturated throughput, open loop: under the unpaced
// WordCount the deadline and online schedulers moved executors at every offer, so in most of their
// runs nothing flowed before the fault (docs/results-log.md, Recovery). ci stays unpaced (no
// calibration run in make test).
var recoveryScales = map[string]recoveryKnobs{
	"ci": {Scale: "ci", Reps: 1, WarmUp: 30 * time.Second, Measure: 40 * time.Second, At: 10 * time.Second, Down: 10 * time.Second, WorkerOpts: c1Only,
		Schedulers: []string{"storm-even", "kpart-dynamic"}},
	"quick": {Scale: "quick", Reps: 3, WarmUp: 90 * time.Second, Measure: 60 * time.Second, At: 10 * time.Second, Down: 10 * time.Second, WorkerOpts: c1Only,
		OpenFraction: 0.5, CalWarmUp: 20 * time.Second, CalMeasure: 20 * time.Second},
	"full": {Scale: "full", Reps: 3, WarmUp: 150 * time.Second, Measure: 180 * time.Second, At: 60 * time.Second, Down: 30 * time.Second,
		OpenFraction: 0.5, CalWarmUp: 60 * time.Second, CalMeasure: 60 * time.Second},
}

// Recovery measures how each scheduler's topology comes through losing a supervisor mid-run: the
// 1-core supervisor of the heterogeneous cluster is stopped AT into the measurement window and started
// again DOWN later (harness fault kill-supervisor). No paper measures this; the question (does a
// scheduler that places well also recover well?) is this project's.
//
// Choices: the unit is one run; recovery time runs from the fault's start until a throughput interval
// (the run's 5 s step, at least one report interval) is back at 90% of the pre-fault mean, and a run
// that does not get back within the window counts the time until the window's end (recovered = 0 says
// so); throughput lost is the tuples below the pre-fault level from the fault to recovery, in percent of
// the pre-fault level times that span. Runs with faults are kept under this experiment only, never
// mixed with fault-free runs.
func Recovery() *lab.Spec {
	return &lab.Spec{
		Name:        "recovery",
		Description: "recovery from a killed supervisor mid-run: storm-even, storm-ras, kpart-dynamic, deadline and online on a heterogeneous cluster",
		Setup: "shape " + recoveryShape + " (supervisors of 0.25, 0.5, 0.5, 1.0 cores); WordCount with 4 " +
			"workers, parallelism 2, shuffle groupings uniform (topology.disable.loadaware.messaging: Storm 2's " +
			"default shuffle keeps tuples in the sending worker, so the traffic the dynamic schedulers plan on would " +
			"follow their own placement), reports every 2 s, C1-only worker JVMs (quick), every component 5% CPU and " +
			"64 MB (for R-Storm's admission); offered load (quick and full): open loop at 50% of EvenScheduler's " +
			"saturated throughput, constant arrivals, measured first by one fault-free unpaced EvenScheduler run " +
			"(quick: at most 20 s of warm-up + 20 s; full: 60 s + 60 s) on the first cluster (ci: " +
			"unpaced); " + recoveryKilled + " (1 core; on a target, its supervisor with the most CPU) stopped into " +
			"the window and started again (quick: killed at 10 s for 10 s of a 60 s window; full: at 60 s for 30 s " +
			"of 180 s); dynamic schedulers reschedule every 15 s; the window opens once throughput is steady and the " +
			"placement has settled (a dynamic scheduler was offered its placement again and kept it), at most 90 s " +
			"(quick) or 150 s (full) after every worker ran, so the fault meets the scheduler's placement and not " +
			"its own migration (runs whose warm-up ended unsettled are named in the manifest); one cluster per " +
			"scheduler (a killed and restarted supervisor is not a clean state for the next; on a target, the one " +
			"cluster, idle again between runs), runs sequential; the unit is one run; 3 repetitions. Scale ci (a " +
			"walking check, no verdict): storm-even and kpart-dynamic only, one run each, at most 30 s of warm-up, " +
			"killed at 10 s for 10 s of a 40 s window.",
		SeriesLabel: "scheduler",
		XName:       "fault_at_s",
		XLabel:      "supervisor killed at (s into the window)",
		Metrics:     recoveryMetrics,
		// Cost: about 7 min per scheduler in a quick run (2026-12-01); ci about 2 min per run.
		Cost: lab.Cost{CI: "~5 min", Quick: "~35 min", Full: "~70 min"},
		Needs: lab.Needs{Need: lab.NeedsControl,
			Why: "it stops and starts a supervisor in the middle of each run, through a control layer: its own containers, or a target's hosts over SSH with control.ssh.commands.supervisor"},
		Scales:           scales(recoveryScales),
		TakesCalibration: true,
		Run:              runRecovery,
		Claims:           recoveryClaims,
	}
}

// recoveryRunner runs the recovery experiment's runs and gathers their rows.
type recoveryRunner struct {
	runBase
	k                      recoveryKnobs
	fault                  fault.Fault
	notMeasured, unsettled []string
	rate                   float64 // open-loop offered rate, sentences/s; 0: unpaced
}

func runRecovery(ctx context.Context, env lab.Env) (*lab.Results, error) {
	_, k, _, err := knobsOf(env, recoveryScales)
	if err != nil {
		return nil, err
	}
	runs := len(k.schedulers()) * k.Reps
	if k.OpenFraction > 0 && env.Calibration <= 0 {
		runs++ // the calibration
	}
	rr := &recoveryRunner{runBase: runBase{env: env, counter: newRunCounter(env, runs)}, k: k,
		fault: fault.Fault{Kind: fault.KillSupervisor, At: k.At, Duration: k.Down, Arg: recoveryKilled}}
	rr.res = &lab.Results{Experiment: "recovery", Metrics: recoveryMetrics, Scale: k.Scale, NoVerdict: noVerdict(k.Scale, k.Reps), Knobs: knobsManifest(k)}
	rr.res.Knobs["fault"] = rr.fault.String()
	for _, sched := range k.schedulers() {
		cs := harness.ClusterSpec{Shape: recoveryShape, Seed: 1, Mul: 5, RescheduleEvery: 15 * time.Second}
		err := withCluster(ctx, env, cs, sched, func(s *clusterView) error {
			if _, bridged := harness.StormSchedulerClass(sched); bridged {
				s.onStart = rr.nodeCPUReports(ctx, sched)
			}
			if err := rr.chooseKilled(s); err != nil {
				return err
			}
			if err := rr.calibrate(ctx, s); err != nil {
				return err
			}
			for rep := 0; rep < k.Reps; rep++ {
				if err := rr.run(ctx, s, sched, rep); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return rr.res, nil
}

// calibrate measures, once, EvenScheduler's saturated throughput (a fault-free unpaced run on s's
// cluster), or takes the stated one (--calibration), and sets the open-loop rate from it, when the
// scale runs open loop. The whole window's throughput counts, steady or not: an open-loop rate at
// half of it stays below saturation even if a swinging saturated rate read a third too high.
func (rr *recoveryRunner) calibrate(ctx context.Context, s *clusterView) error {
	k := rr.k
	if k.OpenFraction <= 0 {
		ignoredCalibration(rr.env, k.Scale)
	}
	if k.OpenFraction <= 0 || rr.rate > 0 {
		return nil
	}
	if stated := rr.env.Calibration; stated > 0 {
		rr.rate = k.OpenFraction * stated
		rr.res.Knobs["recovery_calibration_tps"], rr.res.Knobs["recovery_calibration_stated"] = stated, true
		fmt.Fprintf(rr.env.Log, "recovery: EvenScheduler's saturated throughput stated, %.0f tuples/s: open loop at %.0f\n", stated, rr.rate)
		return nil
	}
	const name = "rec-calibration"
	topo, err := rr.topology(name, 1, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(rr.env.Log, "recovery: calibration, storm-even unpaced without a fault\n")
	rr.counter.start("calibration (storm-even, unpaced, no fault)", k.CalWarmUp+k.CalMeasure)
	r, resumed, err := runOrResume(rr.env, name, func() (*harness.RunResult, error) {
		return s.as("storm-even").Run(ctx, harness.RunSpec{Topology: topo, WarmUp: k.CalWarmUp, Measure: k.CalMeasure, Step: 5 * time.Second})
	})
	if err := keepRun(rr.env, name, r, err, resumed); err != nil {
		return err
	}
	if r.Measurement.Throughput <= 0 {
		return fmt.Errorf("recovery: the calibration run acked no tuple, so there is no saturated throughput to offer a fraction of")
	}
	rr.rate = k.OpenFraction * r.Measurement.Throughput
	rr.res.Knobs["recovery_calibration_tps"] = r.Measurement.Throughput
	fmt.Fprintf(rr.env.Log, "recovery: EvenScheduler's saturated throughput %.0f tuples/s: open loop at %.0f\n", r.Measurement.Throughput, rr.rate)
	return nil
}

// topology is the experiment's WordCount named name, seeded with seed, open loop at rate sentences/s
// (0: unpaced).
func (rr *recoveryRunner) topology(name string, seed int, rate float64) (harness.TopologyRun, error) {
	args := []string{"--workers", "4", "--parallelism", "2", "--seed", strconv.Itoa(seed), "--report-interval-secs", "2",
		"--conf", "topology.component.cpu.pcore.percent=5", "--conf", "topology.component.resources.onheap.memory.mb=64",
		"--conf", uniformShuffle + "=true"}
	if rate > 0 {
		args = append(args, openLoopArgs(rate)...)
	}
	topo, err := harness.StormTopology("wordcount", name, args...)
	if err != nil {
		return topo, err
	}
	topo.Args = append(topo.Args, workerArgs(rr.k.WorkerOpts)...)
	return topo, nil
}

// offered describes the runs' offered load.
func (rr *recoveryRunner) offered() string {
	if rr.rate <= 0 {
		return "unpaced (saturation)"
	}
	return fmt.Sprintf("open loop: %.0f sentences/s (%.0f%% of EvenScheduler's saturated throughput%s)", rr.rate, 100*rr.k.OpenFraction, statedText(rr.env))
}

// chooseKilled names the supervisor the fault stops: the shape's 1-core one where the cluster has it;
// on a cluster of its own nodes (a target), its supervisor with the most CPU capacity (the first by
// name among equals), which like sup4 carries the most executors under a balancing scheduler.
func (rr *recoveryRunner) chooseKilled(s *clusterView) error {
	capacity, err := s.Capacity() // opens a cluster of its own nodes; of the experiment's shape, starts nothing
	if _, ours := capacity[recoveryKilled]; err != nil || ours {
		return err
	}
	best := ""
	for _, h := range slices.Sorted(maps.Keys(capacity)) {
		if best == "" || capacity[h] > capacity[best] {
			best = h
		}
	}
	if best == "" {
		return fmt.Errorf("recovery: the target lists no supervisor to stop")
	}
	rr.fault.Arg = best
	rr.res.Knobs["fault"] = rr.fault.String()
	return nil
}

// nodeCPUReports starts the whole-node CPU reports a bridged scheduler
// reads. The killed supervisor makes the sampler's exec fail while it is
// down: expected here, so its error is logged, not returned.
func (rr *recoveryRunner) nodeCPUReports(ctx context.Context, sched string) func(harness.Cluster) (func() error, error) {
	return func(c harness.Cluster) (func() error, error) {
		stop, err := nodeCPUReports(ctx, c)
		if err != nil {
			return nil, err
		}
		return func() error {
			if err := stop(); err != nil {
				fmt.Fprintf(rr.env.Log, "recovery: node CPU reports for %s: %v\n", sched, err)
			}
			return nil
		}, nil
	}
}

// run runs (or reads back) one run with the fault and records it.
func (rr *recoveryRunner) run(ctx context.Context, s *clusterView, sched string, rep int) error {
	k := rr.k
	name := fmt.Sprintf("rec-%s-r%d", sched, rep)
	topo, err := rr.topology(name, rep+1, rr.rate)
	if err != nil {
		return err
	}
	fmt.Fprintf(rr.env.Log, "recovery: %s, %s, %s, rep %d\n", sched, rr.fault, rr.offered(), rep)
	rr.counter.start(fmt.Sprintf("%s rep %d", sched, rep), k.WarmUp+k.Measure)
	r, resumed, err := runOrResumeAccepting(rr.env, name, nothingFlowed, func() (*harness.RunResult, error) {
		return s.Run(ctx, harness.RunSpec{Topology: topo, WarmUp: k.WarmUp, Settle: true, Measure: k.Measure, Step: 5 * time.Second, Faults: []fault.Fault{rr.fault}})
	})
	if err := keepRun(rr.env, name, r, err, resumed); err != nil && !nothingFlowed(r, err) {
		return err
	}
	if err := checkKeptRate(name, r, resumed, rr.rate); err != nil {
		return err
	}
	return rr.record(sched, name, rep, r)
}

// record checks one run's fault and adds its row.
func (rr *recoveryRunner) record(sched, name string, rep int, r *harness.RunResult) error {
	res, env := rr.res, rr.env
	if w := r.WarmUp; w.Settle && !r.SettledAtWindow(schedulers.IsDynamic(sched)) {
		// Kept and measured: a scheduler that never stops migrating is what it is; the
		// manifest says which runs met a moving placement. (Judged from the run's kept
		// decisions, so runs read back with --resume are judged the same way.)
		rr.unsettled = append(rr.unsettled, fmt.Sprintf("%s: placement still moving after %.0f s of warm-up", name, w.S))
		res.Knobs["recovery_unsettled"] = rr.unsettled
		fmt.Fprintf(env.Log, "recovery: %s\n", rr.unsettled[len(rr.unsettled)-1])
	}
	if len(r.Faults) != 1 || r.Faults[0].Error != "" {
		return fmt.Errorf("%s: the fault did not happen as asked: %+v", name, r.Faults)
	}
	if rc := r.Faults[0].Recovery; !rc.Measured || rc.PreTput <= 0 { // PreTput 0: kept by a harness before that counted as not measured
		// The fault happened, but nothing flowed before it (the scheduler's own migration
		// restarted the workers in the pre-fault intervals): there is no recovery to measure.
		// The run gets no row (its zeros would read as recovered in 0 s in the table's means);
		// it is named in the manifest, and its cell has fewer runs for the claims to screen.
		why := fmt.Sprintf("%s: no throughput before the fault (workers restarting), recovery not measured", name)
		if r.Measurement.Throughput <= 0 {
			why = fmt.Sprintf("%s: no tuple acked in the whole window (workers restarting through it), recovery not measured", name)
		}
		fmt.Fprintf(env.Log, "recovery: %s\n", why)
		rr.notMeasured = append(rr.notMeasured, why)
		res.Knobs["recovery_not_measured"] = rr.notMeasured
		return nil
	}
	f := r.Faults[0]
	rc := f.Recovery
	span := rc.RecoveryS
	recovered := 1.0
	if !rc.Recovered {
		recovered, span = 0, float64(r.MeasureTo-f.StartMs)/1000
	}
	lostPct := 0.0
	if rc.PreTput > 0 && span > 0 {
		lostPct = 100 * rc.LostTuples / (rc.PreTput * span)
	}
	fmt.Fprintf(env.Log, "recovery: %s: %s after %.0f s, %.0f tuples lost (%.0f%%), %d failed, %d executors moved\n",
		sched, rc.Verdict(), span, rc.LostTuples, lostPct, rc.FailedTuples, rc.ExecutorsMoved)
	row := screened(lab.Row{Series: sched, X: rr.k.At.Seconds(), Rep: rep, Seed: uint64(rep + 1), Offered: rr.offered(), Values: map[string]float64{
		"recovery_s": span, "recovered": recovered, "lost_pct": lostPct, "lost_tuples": rc.LostTuples,
		"failed_tuples": float64(rc.FailedTuples), "executors_moved": float64(rc.ExecutorsMoved), "pre_tput": rc.PreTput,
	}}, r)
	row.Validity = row.Validity.Waive(faultYardstick, harness.ReasonStormCounts, harness.ReasonStormLatency)
	// Inputs a scheduler lacked once the supervisor was down are the fault's doing, the treatment
	// measured; only decisions before it count against the run.
	row.NotMeasured = inputsNotMeasuredUntil(r, f.StartMs)
	res.Add(row)
	return nil
}

// faultYardstick is why a fault run's cross-check against Storm's counters is set aside: Storm keeps
// an executor's counts in its worker, so the killed supervisor's workers take theirs with them and
// Storm's count over the window falls short of the tuples the workers reported before the kill
// (docs/results-log.md). Every other reason keeps its level: an unsteady warm-up, for one, makes the
// pre-fault level a transient.
const faultYardstick = "not counted under a killed supervisor (Storm's counts leave with its workers)"

// nothingFlowed: the only reason the run does not count is that no tuple was acked in its window.
// Under a fault that is what the scheduler did (its migrations kept restarting the workers), not a
// broken run; there is no recovery to measure, so record names it in the manifest and gives it no
// row, as for a run with nothing before the fault, instead of stopping the experiment.
func nothingFlowed(r *harness.RunResult, err error) bool {
	if r == nil || err == nil || r.Validity.Level != harness.Invalid {
		return false
	}
	for _, x := range r.Validity.Reasons {
		if x.Level == harness.Invalid && x.Kind != harness.ReasonNoThroughput {
			return false
		}
	}
	return true
}

// recoveryClaims are this project's hypotheses (no paper states them), judged like the papers' claims:
// a dynamic scheduler that re-plans on measured load should get back faster and lose less than Storm's
// static EvenScheduler.
func recoveryClaims(r *lab.Results, a *lab.Aggregate) []lab.Claim {
	v := func(s, m string) []float64 { return lab.RunUnits(r, s, m, nil) }
	var out []lab.Claim
	for _, s := range []string{"kpart-dynamic", "online", "deadline"} {
		out = append(out, lab.Claim{
			Statement: fmt.Sprintf("%s recovers from a killed supervisor faster than storm-even", s),
			Source:    "stormlab recovery experiment",
			Kind:      lab.ProjectClaim,
			Evidence: fmt.Sprintf("recovery %s %.0f s vs storm-even %.0f s; throughput lost %.0f%% vs %.0f%%",
				s, mean(v(s, "recovery_s")), mean(v("storm-even", "recovery_s")), mean(v(s, "lost_pct")), mean(v("storm-even", "lost_pct"))),
			Checks: []reports.Check{
				reports.DifferenceCheck(s+" < storm-even (recovery time)", v(s, "recovery_s"), v("storm-even", "recovery_s"), reports.Less, "(s)"),
				reports.DifferenceCheck(s+" < storm-even (throughput lost)", v(s, "lost_pct"), v("storm-even", "lost_pct"), reports.Less, "(%)"),
			},
			Screen: lab.ScreenRuns(r, "recovery_s", nil, s, "storm-even"),
		})
	}
	return out
}
