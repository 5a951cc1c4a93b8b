package experiments

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/reports"
)

// Profiles of the cluster experiments (comm-cost, kpart-cluster,
// deadline); the graph experiments are the same in every profile (they
// take seconds). $STORMLAB_PROFILE (or Options.Profile, or `stormlab
// experiment --profile`) chooses one; under `go test` the default is ci.
//
//   - ci exercises every cluster experiment end to end at tiny scale, one
//     repetition per cell, so the code cannot rot; with one run per cell no
//     claim can be decided, so every claim is reported inconclusive.
//   - quick issues verdicts: 3 runs per cell (the statistical unit is one
//     run), fewer cells and short windows to fit about 30-40 min for the
//     cluster experiments together: comm-cost without the delay series (5 s
//     + 15 s); kpart-cluster unpaced only (its latency claim needs the paced
//     cell and is inconclusive here); deadline on k-means only, one dataset
//     size, and k-means under two background loads.
//   - full is the papers' durations and as much of their scale as a single
//     machine holds (see each experiment's Setup), 3 runs per cell.
//
// Unit choice: a "run" is one topology submission on a cluster that is
// started once per scheduler (or node count) and reused for that
// scheduler's runs, each topology killed and its workers gone before the
// next. A fresh cluster per run would cost ~1 minute of start-up per run
// (tripling quick); runs on one cluster share the JVM-less containers but
// not the workers, so we take the run as the unit and say so.
//
// The names, $STORMLAB_PROFILE, the default (ci) and the verdict rule
// (MinVerdictReps) belong to package lab; the knobs are defined here.

// ClusterProfile holds the knobs a profile sets.
type ClusterProfile struct {
	Name string
	Reps int

	// comm-cost
	CommWarmUp, CommMeasure time.Duration
	CommDelayMs             int // 0: no delay series

	// kpart-cluster
	KPartWarmUp, KPartMeasure, KPartStep time.Duration
	KPartWorkers, KPartParallelism       int
	KPartReschedule                      time.Duration
	// The steady-state table uses the second half of the window, which
	// must start after the dynamic schedulers' first reschedule and worker
	// restart (40 s windows with a 15 s reschedule period; 30 s windows
	// left no acked tuple in the second half, measured in a ci run).
	//
	// KPartPacedIntervalMs, when > 0, adds a paced cell: every spout task
	// emits one sentence per this many ms, so the offered load is
	// parallelism * 1000 / interval sentences/s. Latency claims use this
	// cell only if its measured throughput stayed below 70% of the slowest
	// scheduler's saturated throughput (else they are inconclusive).
	KPartPacedIntervalMs int
	KPartPacedMeasure    time.Duration

	// deadline
	DeadlineWorkers, DeadlineParallelism int
	WordCountMB, KMeansMB                []float64 // data sizes (full: two each; quick: one)
	LoadPercents                         []float64 // background CPU loads
	LoadMB                               float64   // dataset of the load runs
	// LoadTopos are the queries of the load runs: ci and quick use k-means
	// alone (0.5 MB of k-means took 40-45 s under the deadline scheduler in
	// a ci run, 0.5 MB of WordCount 105-180 s), full both.
	LoadTopos      []string
	DeadlineMs     int
	DeadlineMaxRun time.Duration

	// WorkerOpts are extra worker JVM options. ci and quick use the C1
	// compiler only (-XX:TieredStopAtLevel=1): worker start-up on 0.25-1
	// core quotas is dominated by JIT compilation, and every scheduler gets
	// the same JVM.
	WorkerOpts string
}

// NoVerdict is why claims on this profile's runs cannot be decided ("" if
// they can).
func (p ClusterProfile) NoVerdict() string {
	if p.Reps < MinVerdictReps {
		return fmt.Sprintf("profile %s runs %d repetition(s) per cell; a verdict needs >= %d", p.Name, p.Reps, MinVerdictReps)
	}
	return ""
}

// Knobs lists every setting for manifest.json.
func (p ClusterProfile) Knobs() map[string]any {
	return map[string]any{
		"profile": p.Name, "reps": p.Reps,
		"comm_warmup": p.CommWarmUp.String(), "comm_measure": p.CommMeasure.String(), "comm_delay_ms": p.CommDelayMs,
		"kpart_warmup": p.KPartWarmUp.String(), "kpart_measure": p.KPartMeasure.String(), "kpart_step": p.KPartStep.String(),
		"kpart_workers": p.KPartWorkers, "kpart_parallelism": p.KPartParallelism, "kpart_reschedule": p.KPartReschedule.String(),
		"kpart_paced_interval_ms": p.KPartPacedIntervalMs, "kpart_paced_measure": p.KPartPacedMeasure.String(),
		"deadline_workers": p.DeadlineWorkers, "deadline_parallelism": p.DeadlineParallelism,
		"wordcount_mb": p.WordCountMB, "kmeans_mb": p.KMeansMB, "load_percents": p.LoadPercents, "load_mb": p.LoadMB,
		"load_topologies": p.LoadTopos, "deadline_ms": p.DeadlineMs, "deadline_max_run": p.DeadlineMaxRun.String(), "worker_opts": p.WorkerOpts,
	}
}

// workerArgs are the topology flags for WorkerOpts.
func (p ClusterProfile) workerArgs() []string {
	if p.WorkerOpts == "" {
		return nil
	}
	return []string{"--worker-childopts", p.WorkerOpts}
}

// ClusterProfileNamed returns the named profile (ci, quick or full).
func ClusterProfileNamed(name string) (ClusterProfile, error) {
	switch name {
	case "ci":
		return ClusterProfile{
			Name: "ci", Reps: 1,
			CommWarmUp: 5 * time.Second, CommMeasure: 15 * time.Second, CommDelayMs: 2,
			KPartWarmUp: 5 * time.Second, KPartMeasure: 40 * time.Second, KPartStep: 10 * time.Second,
			KPartWorkers: 4, KPartParallelism: 2, KPartReschedule: 15 * time.Second,
			// No paced cell: keeps make test's cluster time; the paced path
			// is the same code as the unpaced one with --interval-ms.
			DeadlineWorkers: 4, DeadlineParallelism: 2,
			WordCountMB: []float64{0.5}, KMeansMB: []float64{0.5},
			LoadPercents: []float64{20, 80}, LoadMB: 0.5, LoadTopos: []string{"kmeans"},
			DeadlineMs: 1000, DeadlineMaxRun: 4 * time.Minute,
			WorkerOpts: "-XX:TieredStopAtLevel=1",
		}, nil
	case "quick":
		return ClusterProfile{
			Name: "quick", Reps: 3,
			CommWarmUp: 5 * time.Second, CommMeasure: 15 * time.Second, CommDelayMs: 0,
			KPartWarmUp: 5 * time.Second, KPartMeasure: 40 * time.Second, KPartStep: 10 * time.Second,
			KPartWorkers: 4, KPartParallelism: 2, KPartReschedule: 15 * time.Second,
			// No paced cell: its 9 runs would add ~15 min; the latency
			// claim is then inconclusive ("no paced runs in this profile").
			DeadlineWorkers: 4, DeadlineParallelism: 2,
			WordCountMB: nil, KMeansMB: []float64{0.5}, // the complex query carries every claim
			LoadPercents: []float64{20, 80}, LoadMB: 0.5, LoadTopos: []string{"kmeans"},
			DeadlineMs: 1000, DeadlineMaxRun: 4 * time.Minute,
			WorkerOpts: "-XX:TieredStopAtLevel=1",
		}, nil
	case "full":
		return ClusterProfile{
			Name: "full", Reps: 3,
			CommWarmUp: 60 * time.Second, CommMeasure: 120 * time.Second, CommDelayMs: 2,
			KPartWarmUp: 30 * time.Second, KPartMeasure: 300 * time.Second, KPartStep: 10 * time.Second,
			KPartWorkers: 8, KPartParallelism: 4, KPartReschedule: 30 * time.Second,
			KPartPacedIntervalMs: 10, KPartPacedMeasure: 120 * time.Second,
			DeadlineWorkers: 8, DeadlineParallelism: 4,
			WordCountMB: []float64{8, 16}, KMeansMB: []float64{8, 16},
			LoadPercents: []float64{20, 50, 80}, LoadMB: 8, LoadTopos: []string{"wordcount", "kmeans"},
			DeadlineMs: 1000, DeadlineMaxRun: 20 * time.Minute,
		}, nil
	}
	return ClusterProfile{}, fmt.Errorf("unknown profile %q: use ci, quick or full (in $%s or --profile)", name, ProfileEnv)
}

// profileOf is the profile a cluster experiment runs under.
func profileOf(env Env) (ClusterProfile, error) {
	name, err := lab.ResolveProfile(env.Profile)
	if err != nil {
		return ClusterProfile{}, err
	}
	p, err := ClusterProfileNamed(name)
	if err == nil && env.Reps > 0 {
		p.Reps = env.Reps
	}
	return p, err
}

// expDir is the experiment's output folder (the parent of env.RawDir), or
// "" when no files are kept. Files written there besides the framework's
// (time series, per-node tables) are listed in notes.md, not in manifest.json.
func expDir(env Env) string {
	if env.RawDir == "" {
		return ""
	}
	return filepath.Dir(env.RawDir)
}

func logfOf(env Env) func(string, ...any) {
	return func(f string, a ...any) { fmt.Fprintf(env.Log, f+"\n", a...) }
}

// withSession hands fn a cluster for scheduler, started on first use, and
// always tears it down: a resumed experiment whose runs on that cluster are
// all kept starts none (judging kept runs needs no Docker engine).
func withSession(ctx context.Context, env Env, cs harness.ClusterSpec, scheduler string, fn func(*session) error) (err error) {
	s := &session{ctx: ctx, env: env, cs: cs, scheduler: scheduler}
	defer func() { err = joinErr(err, s.close()) }()
	return fn(s)
}

// session is one cluster for one scheduler, started by the first call that
// needs it (Run, Nemesis). onStart, when set, runs once right after the
// start (e.g. node CPU reports) and its stop func at close.
type session struct {
	ctx       context.Context
	env       Env
	cs        harness.ClusterSpec
	scheduler string
	onStart   func(*harness.Session) (stop func() error, err error)

	s       *harness.Session // nil until started
	err     error            // the start's error, returned again to later calls
	stop    func() error
	started time.Time
	// fresh: the cluster just started inside a run's phase, which its "cluster up" phase replaced;
	// Run announces the run's phase again so the countdown is not lost.
	fresh bool
}

func (l *session) cluster() (*harness.Session, error) {
	if l.s != nil || l.err != nil {
		return l.s, l.err
	}
	l.started = time.Now()
	cs := l.cs
	cs.Logf = logfOf(l.env)
	if cs.Target, l.err = harness.TargetFromEnv(); l.err != nil {
		return nil, l.err
	}
	progressOf(l.env).Phase("cluster up for "+l.scheduler, 0)
	s, err := harness.StartSession(l.ctx, cs, l.scheduler)
	l.s = s // possibly partial: close tears it down
	if err != nil {
		l.err = fmt.Errorf("start cluster for %s: %w", l.scheduler, err)
		return nil, l.err
	}
	if l.onStart != nil {
		if l.stop, l.err = l.onStart(s); l.err != nil {
			return nil, l.err
		}
	}
	l.fresh = true
	return s, nil
}

// Run runs spec on the cluster, starting it first if need be.
func (l *session) Run(ctx context.Context, spec harness.RunSpec) (*harness.RunResult, error) {
	s, err := l.cluster()
	if err != nil {
		return nil, err
	}
	if l.fresh {
		l.fresh = false
		expect := time.Duration(0) // a dataset's length is not known ahead
		if spec.End == nil {
			expect = spec.WarmUp + spec.Measure
		} else if _, timed := spec.End.(harness.Timed); timed {
			expect = spec.WarmUp + spec.Measure
		}
		progressOf(l.env).Phase(runPhase, expect)
	}
	return s.Run(ctx, spec)
}

// Nemesis is what disturbs the cluster on purpose, starting it first if need be.
func (l *session) Nemesis() (*harness.Nemesis, error) {
	s, err := l.cluster()
	if err != nil {
		return nil, err
	}
	return s.Nemesis(), nil
}

// Capacity maps each supervisor host to its CPU capacity (100 = one core):
// the running cluster's, or before a start the profile's (what it would be).
// A user's cluster ($STORMLAB_TARGET) is not described by a profile, so it is
// opened for its own capacities (no containers start for it).
func (l *session) Capacity() (map[string]float64, error) {
	if l.s == nil {
		t, err := harness.TargetFromEnv()
		if err != nil {
			return nil, err
		}
		if t != nil {
			if _, err := l.cluster(); err != nil {
				return nil, err
			}
		}
	}
	if l.s != nil {
		return l.s.Capacity(), nil
	}
	sups, err := docker.Profile(cmp.Or(l.cs.Profile, docker.DefaultProfile))
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for _, sp := range sups {
		m[sp.Host] = sp.CapacityCPU()
	}
	return m, nil
}

func (l *session) close() error {
	if l.s == nil {
		return nil
	}
	var err error
	if l.stop != nil {
		err = l.stop()
	}
	progressOf(l.env).Phase("teardown of the cluster for "+l.scheduler, 0)
	err = joinErr(err, l.s.Close(l.ctx))
	fmt.Fprintf(l.env.Log, "cluster for %s: %s in all\n", l.scheduler, time.Since(l.started).Round(time.Second))
	return err
}

// runOrResume gives the run kept under env.RawDir/name when env.Resume is
// set and a finished run is there (resumed: it is measured as kept and not
// saved again); otherwise it runs it (run starts the session's cluster if
// it is the first).
func runOrResume(env Env, name string, run func() (*harness.RunResult, error)) (r *harness.RunResult, resumed bool, err error) {
	return runOrResumeAccepting(env, name, nil, run)
}

// runOrResumeAccepting is runOrResume for an experiment to which some runs
// that do not count are results (recovery: a run in which nothing flowed):
// a kept run whose harness.Check error accept takes is read back, not run
// again.
func runOrResumeAccepting(env Env, name string, accept func(*harness.RunResult, error) bool, run func() (*harness.RunResult, error)) (r *harness.RunResult, resumed bool, err error) {
	if env.Resume && env.RawDir != "" {
		r, err := loadKept(env, name, accept)
		if err != nil {
			return nil, false, err
		}
		if r != nil {
			fmt.Fprintf(env.Log, "%s: resumed from %s\n", name, filepath.Join(env.RawDir, name))
			markResumed(env)
			return r, true, nil
		}
	}
	r, err = run()
	return r, false, err
}

// markResumed tells the progress display that the current run was read
// back, so its ETA leaves it out.
func markResumed(env Env) {
	if r, ok := progressOf(env).(reports.Resumer); ok {
		r.Resumed()
	}
}

// loadKept gives the finished run kept under env.RawDir/name, or nil when
// there is none or the kept one does not count (harness.Check fails, e.g. a
// run whose collect step failed, and accept, if set, does not take the
// error): such a folder is removed, with a note, so --resume measures that
// run again instead of failing on it.
func loadKept(env Env, name string, accept func(*harness.RunResult, error) bool) (*harness.RunResult, error) {
	dir := filepath.Join(env.RawDir, name)
	r, err := harness.Load(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w (remove that folder to run it again)", name, err)
	}
	if cerr := harness.Check(r); cerr != nil && (accept == nil || !accept(r, cerr)) {
		fmt.Fprintf(env.Log, "%s: the kept run does not count (%v): running it again\n", name, cerr)
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("resume %s: remove the run that does not count: %w", name, err)
		}
		return nil, nil
	}
	return r, nil
}

func progressOf(env Env) reports.Progress {
	if env.Progress == nil {
		return reports.NoProgress{}
	}
	return env.Progress
}

// runCounter numbers an experiment's cluster runs for env.Progress; n is
// the total, 0 when it is not known ahead.
type runCounter struct {
	p    reports.Progress
	i, n int
}

func newRunCounter(env Env, n int) *runCounter { return &runCounter{p: progressOf(env), n: n} }

// start announces the next run and its one phase seen from here (the
// harness submits, warms up, measures and collects in one call); expect is
// its warm-up plus measurement window.
func (c *runCounter) start(label string, expect time.Duration) {
	c.i++
	c.p.Run(c.i, c.n, label)
	c.p.Phase(runPhase, expect)
}

// runPhase is the one phase of a run seen from the experiments.
const runPhase = "submit, warm-up, measure, collect"

// joinErr is a, with b's text after it when both are set (a stays the one errors.Is finds).
func joinErr(a, b error) error {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return fmt.Errorf("%w; %v", a, b)
}

// keepRun saves a run's raw reports and manifest under env.RawDir/name and
// checks it: an invalid run (bridge fallback, unassigned executors, zero
// throughput) is an error.
func keepRun(env Env, name string, r *harness.RunResult, runErr error, resumed bool) error {
	if r != nil && env.RawDir != "" && !resumed {
		if err := harness.Save(filepath.Join(env.RawDir, name), r); err != nil && runErr == nil {
			runErr = err
		}
	}
	if runErr != nil {
		return fmt.Errorf("%s: %w", name, runErr)
	}
	if err := harness.Check(r); err != nil {
		return fmt.Errorf("%s: run does not count: %w", name, err)
	}
	return nil
}

// nodesUsed counts the distinct hosts of the topology's own executors.
func nodesUsed(r *harness.RunResult) int {
	hosts := map[string]bool{}
	for _, e := range r.Executors {
		if !strings.HasPrefix(e.Component, "__") && e.Host != "" {
			hosts[e.Host] = true
		}
	}
	return len(hosts)
}

// seriesFigure is one time-series figure: per series (scheduler) the
// values of one metric in each Step window, averaged over repetitions.
type seriesFigure struct {
	Metric Metric
	Get    func(harness.Measurement) float64
}

// writeTimeSeries writes series.csv (every window of every run) and, per
// figure, series-<metric>.png/.svg with the window means over repetitions.
// runs maps a series name to its repetitions' results (in order).
func writeTimeSeries(dir, exp string, order []string, runs map[string][]*harness.RunResult, step time.Duration, figs []seriesFigure) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	if err := writeAtomic(filepath.Join(dir, "series.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		hdr := []string{"series", "rep", "t_s"}
		for _, f := range figs {
			hdr = append(hdr, f.Metric.Name)
		}
		cw.Write(hdr)
		for _, s := range order {
			for rep, r := range runs[s] {
				for i, m := range r.Series {
					rec := []string{s, strconv.Itoa(rep), FormatX(float64(i+1) * step.Seconds())}
					for _, f := range figs {
						rec = append(rec, strconv.FormatFloat(f.Get(m), 'g', 6, 64))
					}
					cw.Write(rec)
				}
			}
		}
		cw.Flush()
		return cw.Error()
	}); err != nil {
		return nil, err
	}
	files = append(files, "series.csv")
	for _, f := range figs {
		tp := &reports.TimeSeriesPlot{Title: fmt.Sprintf("%s: %s every %s", exp, f.Metric.Label, step), XLabel: "time since measurement start (s)", YLabel: f.Metric.Label}
		for _, s := range order {
			var ts reports.TimeSeries
			ts.Name = s
			n := -1
			for _, r := range runs[s] {
				if n < 0 || len(r.Series) < n {
					n = len(r.Series)
				}
			}
			for i := 0; i < n; i++ {
				var vals []float64
				for _, r := range runs[s] {
					vals = append(vals, f.Get(r.Series[i]))
				}
				ts.T = append(ts.T, float64(i+1)*step.Seconds())
				ts.Y = append(ts.Y, mean(vals))
			}
			if len(ts.T) > 0 {
				tp.Series = append(tp.Series, ts)
			}
		}
		if len(tp.Series) == 0 {
			continue
		}
		for _, format := range []string{"png", "svg"} {
			name := "series-" + f.Metric.Name + "." + format
			if err := writeAtomic(filepath.Join(dir, name), func(w io.Writer) error { return tp.Write(w, format) }); err != nil {
				return files, err
			}
			files = append(files, name)
		}
		caps, err := lab.WriteCaptions(dir, "series-"+f.Metric.Name, "fig:"+exp+"-series-"+f.Metric.Name, tp.CaptionText())
		if err != nil {
			return files, err
		}
		files = append(files, caps...)
	}
	return files, nil
}
