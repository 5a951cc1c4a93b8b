package experiments

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/harness/clusters"
	"github.com/stormlab/stormlab/infra/clusterref"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/images"
	"github.com/stormlab/stormlab/reports"
)

// Scales of the cluster experiments (comm-cost, kpart-cluster,
// deadline); the graph experiments are the same at every scale (they
// take seconds). Options.Scale (`stormlab experiment --scale`, or under `go test` the
// test settings, internal/testsettings) chooses one.
//
//   - ci exercises every cluster experiment end to end at tiny scale, one
//     repetition per cell, so the code cannot rot; with one run per cell no
//     claim can be decided, so every claim is reported inconclusive.
//   - quick issues verdicts: 3 runs per cell (the statistical unit is one
//     run), fewer cells and shorter windows than full: each experiment's
//     scale table says which (e.g. comm-cost without the delay series,
//     deadline on k-means only with one dataset size); the declared cost of
//     each is its Spec's Cost.
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
// The names, the default and the verdict rule
// (MinVerdictReps) belong to package lab; each experiment defines its own
// knobs per scale in its file (its Spec's Scales).

// c1Only are the worker JVM options of ci and quick: the C1 compiler only
// (-XX:TieredStopAtLevel=1). Worker start-up on 0.25-1 core quotas is
// dominated by JIT compilation, and every scheduler gets the same JVM.
const c1Only = "-XX:TieredStopAtLevel=1"

// workerArgs are the topology flags for extra worker JVM options.
func workerArgs(opts string) []string {
	if opts == "" {
		return nil
	}
	return []string{"--worker-childopts", opts}
}

// noVerdict is why claims on a scale's runs cannot be decided ("" if
// they can).
func noVerdict(profile string, reps int) string {
	if reps < lab.MinVerdictReps {
		return fmt.Sprintf("profile %s runs %d repetition(s) per cell; a verdict needs >= %d", profile, reps, lab.MinVerdictReps)
	}
	return ""
}

// counted is a pointer to a knobs type with a repetition count, which
// Env.Reps (--reps) replaces when > 0.
type counted[K any] interface {
	*K
	reps() *int
}

// knobsOf resolves the scale a cluster experiment runs under and its
// knobs in table, with env.Reps applied; ok is false when the experiment
// has no such scale.
func knobsOf[K any, P counted[K]](env lab.Env, table map[string]K) (profile string, k K, ok bool, err error) {
	if profile, err = lab.ResolveScale(env.Scale); err != nil {
		return "", k, false, err
	}
	k, ok = table[profile]
	if ok && env.Reps > 0 {
		*P(&k).reps() = env.Reps
	}
	return profile, k, ok, nil
}

// scales is table as the Spec's Scales.
func scales[K lab.ScaleKnobs](table map[string]K) map[string]lab.ScaleKnobs {
	out := map[string]lab.ScaleKnobs{}
	for p, k := range table {
		out[p] = k
	}
	return out
}

// knobsManifest is the manifest.json knobs of a cluster run: the
// scale's knobs plus the Storm version.
func knobsManifest(k lab.ScaleKnobs) map[string]any {
	m := k.Manifest()
	m["storm_version"] = images.StormVersion
	return m
}

// kindsOf is env's registry of cluster kinds: the one lab.Run gives, else every kind (clusters.Kinds).
func kindsOf(env lab.Env) harness.Kinds {
	if env.Kinds != nil {
		return env.Kinds
	}
	return clusters.Kinds()
}

func logfOf(env lab.Env) func(string, ...any) {
	return func(f string, a ...any) { fmt.Fprintf(env.Log, f+"\n", a...) }
}

// withCluster hands fn a cluster, started on first use with scheduler as the default of its runs, and
// always tears it down: a resumed experiment whose runs on that cluster are all kept starts none
// (judging kept runs needs no Docker engine). The cluster runs any scheduler (s.as); an experiment
// shares it between its schedulers unless a cell needs a clean cluster (recovery: a supervisor is
// killed in every run).
func withCluster(ctx context.Context, env lab.Env, cs harness.ClusterSpec, scheduler string, fn func(*clusterView) error) (err error) {
	s := &clusterView{shared: &shared{ctx: ctx, env: env, cs: cs}, scheduler: scheduler}
	defer func() { err = joinErr(err, s.close()) }()
	return fn(s)
}

// rotated is schedulers in the order of the k-th turn of an interleaved experiment: rotated left by k.
// Experiments whose schedulers share a cluster run repetitions outermost and turn the schedulers' order
// each time, so that neither the cluster's first run nor a drift of a shared host over the experiment
// goes with one scheduler (run one after another, a scheduler's runs all fall in one stretch of time).
func rotated(schedulers []string, k int) []string {
	n := len(schedulers)
	if n == 0 {
		return nil
	}
	k %= n
	return append(slices.Clone(schedulers[k:]), schedulers[:k]...)
}

// clusterView is one cluster seen by one scheduler: Run runs that scheduler unless the spec names another.
type clusterView struct {
	*shared
	scheduler string
}

// as is the same cluster seen by another scheduler.
func (l *clusterView) as(scheduler string) *clusterView {
	return &clusterView{shared: l.shared, scheduler: scheduler}
}

// shared is one cluster, started by the first call that needs it (Run, Nemesis). onStart, when set,
// runs once right after the start (e.g. node CPU reports) and its stop func at close.
type shared struct {
	ctx     context.Context
	env     lab.Env
	cs      harness.ClusterSpec
	onStart func(harness.Cluster) (stop func() error, err error)

	s       harness.Cluster // nil until started or opened
	err     error           // the start's error, returned again to later calls
	stop    func() error
	started time.Time
	// fresh: the cluster just started inside a run's phase, which its "cluster up" phase replaced;
	// Run announces the run's phase again so the countdown is not lost.
	fresh bool
}

func (l *clusterView) cluster() (harness.Cluster, error) {
	if l.s != nil || l.err != nil {
		return l.s, l.err
	}
	l.started = time.Now()
	l.cs.Where = l.env.Cluster
	cs := l.cs
	cs.Logf = logfOf(l.env)
	progressOf(l.env).Phase("cluster up ("+l.clusterLabel()+")", 0)
	s, err := kindsOf(l.env).Open(l.ctx, cs, l.scheduler)
	l.s = s // possibly partial: close tears it down
	if err != nil {
		l.err = fmt.Errorf("start cluster (%s): %w", l.clusterLabel(), err)
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
func (l *clusterView) Run(ctx context.Context, spec harness.RunSpec) (*harness.RunResult, error) {
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
	spec.Scheduler = cmp.Or(spec.Scheduler, l.scheduler)
	spec.Topology.Args = withTopologyConf(spec.Topology.Args, l.env.TopologyConf)
	return s.Run(ctx, spec)
}

// sameTopologyConf refuses a kept run whose arguments lack one of the user's Storm settings asked
// now (lab.Env.TopologyConf), or carry a wait-strategy setting not asked now (the experiments set none
// of their own): runs of one experiment all run with the same settings.
func sameTopologyConf(kept, conf []string) error {
	given := map[string]bool{}
	for i := 0; i+1 < len(kept); i++ {
		if kept[i] == "--conf" {
			given[kept[i+1]] = true
		}
	}
	for _, kv := range conf {
		if !given[kv] {
			return fmt.Errorf("the kept run ran without --topology-conf %s", kv)
		}
	}
	for i := 0; i+1 < len(kept); i++ {
		kv := kept[i+1]
		if kept[i] == "--conf" && lab.WaitConf(kv) && !slices.Contains(conf, kv) {
			return fmt.Errorf("the kept run ran with --topology-conf %s", kv)
		}
	}
	return nil
}

// withTopologyConf is args with the user's Storm settings (lab.Env.TopologyConf) after them, as
// --conf to the topology's main: given last, they win over the experiment's own.
func withTopologyConf(args, conf []string) []string {
	if len(conf) == 0 {
		return args
	}
	out := slices.Clone(args)
	for _, kv := range conf {
		out = append(out, "--conf", kv)
	}
	return out
}

// Nemesis is what disturbs the cluster on purpose, starting it first if need be.
func (l *clusterView) Nemesis() (harness.Disturber, error) {
	s, err := l.cluster()
	if err != nil {
		return nil, err
	}
	return s.Nemesis(), nil
}

// Capacity maps each supervisor host to its CPU capacity (100 = one core):
// the running cluster's, or before a start the shape's (what it would be;
// supervisors given in cs.Options instead are seen only once it runs).
// A user's cluster (Env.Cluster, a target) is not described by a shape, so it is
// opened for its own capacities (no containers start for it).
func (l *clusterView) Capacity() (map[string]float64, error) {
	if l.s == nil {
		caps, err := kindsOf(l.env).Caps(l.env.Cluster)
		if err != nil {
			return nil, err
		}
		if !caps.OwnShapes { // its own nodes: open it to read them
			if _, err := l.cluster(); err != nil {
				return nil, err
			}
		}
	}
	if l.s != nil {
		return l.s.Capacity(), nil
	}
	sups, err := docker.Shape(cmp.Or(l.cs.Shape, docker.DefaultShape))
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for _, sp := range sups {
		m[sp.Host] = sp.CapacityCPU()
	}
	return m, nil
}

// clusterLabel names the cluster in progress lines: its clusterLabel, or the target's name.
func (l *shared) clusterLabel() string {
	if t := l.env.Cluster.Target; t != nil {
		return "target " + cmp.Or(t.Name, "cluster")
	}
	if k := l.env.Cluster.Kind; k != "" && k != clusterref.Containers {
		return l.env.Cluster.String()
	}
	if l.cs.Shape == "" && len(l.cs.Options) > 0 {
		return "the experiment's own supervisors" // e.g. comm-cost's docker.WithSupervisors
	}
	return cmp.Or(l.cs.Shape, docker.DefaultShape)
}

func (l *shared) close() error {
	if l.s == nil {
		return nil
	}
	var err error
	if l.stop != nil {
		err = l.stop()
	}
	progressOf(l.env).Phase("teardown of the cluster ("+l.clusterLabel()+")", 0)
	err = joinErr(err, l.s.Close(l.ctx))
	fmt.Fprintf(l.env.Log, "cluster (%s): %s in all\n", l.clusterLabel(), time.Since(l.started).Round(time.Second))
	return err
}

// runOrResume gives the run kept under env.RawDir/name when env.Resume is
// set and a finished run is there (resumed: it is measured as kept and not
// saved again); otherwise it runs it (run starts the view's cluster if
// it is the first).
func runOrResume(env lab.Env, name string, run func() (*harness.RunResult, error)) (r *harness.RunResult, resumed bool, err error) {
	return runOrResumeAccepting(env, name, nil, run)
}

// runOrResumeAccepting is runOrResume for an experiment to which some runs
// that do not count are results (recovery: a run in which nothing flowed):
// a kept run whose Validity.Err() error accept takes is read back, not run
// again.
func runOrResumeAccepting(env lab.Env, name string, accept func(*harness.RunResult, error) bool, run func() (*harness.RunResult, error)) (r *harness.RunResult, resumed bool, err error) {
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
func markResumed(env lab.Env) {
	if r, ok := progressOf(env).(reports.Resumer); ok {
		r.Resumed()
	}
}

// loadKept gives the finished run kept under env.RawDir/name, or nil when
// there is none or the kept one does not count (its Validity.Err() is not nil, e.g. a
// run whose collect step failed, and accept, if set, does not take the
// error): such a folder is removed, with a note, so --resume measures that
// run again instead of failing on it.
func loadKept(env lab.Env, name string, accept func(*harness.RunResult, error) bool) (*harness.RunResult, error) {
	dir := filepath.Join(env.RawDir, name)
	r, err := harness.Load(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w (remove that folder to run it again)", name, err)
	}
	if err := sameTopologyConf(r.Spec.Topology.Args, env.TopologyConf); err != nil {
		return nil, fmt.Errorf("resume %s: %w: resume with the settings it ran with, or start again with --force", name, err)
	}
	if cerr := r.Validity.Err(); cerr != nil && (accept == nil || !accept(r, cerr)) {
		fmt.Fprintf(env.Log, "%s: the kept run does not count (%v): running it again\n", name, cerr)
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("resume %s: remove the run that does not count: %w", name, err)
		}
		return nil, nil
	}
	return r, nil
}

func progressOf(env lab.Env) reports.Progress {
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

func newRunCounter(env lab.Env, n int) *runCounter { return &runCounter{p: progressOf(env), n: n} }

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
func keepRun(env lab.Env, name string, r *harness.RunResult, runErr error, resumed bool) error {
	if r != nil && env.RawDir != "" && !resumed {
		if err := harness.Save(filepath.Join(env.RawDir, name), r); err != nil && runErr == nil {
			runErr = err
		}
	}
	if runErr != nil {
		return fmt.Errorf("%s: %w", name, runErr)
	}
	if err := r.Validity.Err(); err != nil {
		return fmt.Errorf("%s: run does not count: %w", name, err)
	}
	return nil
}

// hostsUsed lists (sorted) the distinct hosts of the topology's own executors.
func hostsUsed(r *harness.RunResult) []string {
	var hosts []string
	for _, e := range r.Executors {
		if !strings.HasPrefix(e.Component, "__") && e.Host != "" && !slices.Contains(hosts, e.Host) {
			hosts = append(hosts, e.Host)
		}
	}
	slices.Sort(hosts)
	return hosts
}

// seriesFigure is one time-series figure: per series (scheduler) the
// values of one metric in each Step window, averaged over repetitions.
type seriesFigure struct {
	Metric lab.Metric
	Get    func(harness.Measurement) float64
}

// timeSeriesFiles are series.csv (every window of every run) and, per
// figure, series-<metric>.png/.svg with the window means over repetitions
// and their captions. runs maps a series name to its repetitions' results
// (in order).
func timeSeriesFiles(exp string, order []string, runs map[string][]*harness.RunResult, step time.Duration, figs []seriesFigure) []lab.File {
	files := []lab.File{{Name: "series.csv", Write: func(w io.Writer) error { return writeSeriesCSV(w, order, runs, step, figs) }}}
	for _, f := range figs {
		tp := seriesPlot(exp, order, runs, step, f)
		if len(tp.Series) == 0 {
			continue
		}
		for _, format := range []string{"png", "svg"} {
			files = append(files, lab.File{Name: "series-" + f.Metric.Name + "." + format, Write: func(w io.Writer) error { return tp.Write(w, format) }})
		}
		files = append(files, lab.CaptionFiles("series-"+f.Metric.Name, "fig:"+exp+"-series-"+f.Metric.Name, tp.CaptionText())...)
	}
	return files
}

// writeSeriesCSV writes every window of every run, one line each.
func writeSeriesCSV(w io.Writer, order []string, runs map[string][]*harness.RunResult, step time.Duration, figs []seriesFigure) error {
	cw := csv.NewWriter(w)
	hdr := []string{"series", "rep", "t_s"}
	for _, f := range figs {
		hdr = append(hdr, f.Metric.Name)
	}
	cw.Write(hdr)
	for _, s := range order {
		for rep, r := range runs[s] {
			for i, m := range r.Series {
				rec := []string{s, strconv.Itoa(rep), lab.FormatX(float64(i+1) * step.Seconds())}
				for _, f := range figs {
					rec = append(rec, strconv.FormatFloat(f.Get(m), 'g', 6, 64))
				}
				cw.Write(rec)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// seriesPlot is one figure's window means over repetitions, per series,
// over the windows every repetition has.
func seriesPlot(exp string, order []string, runs map[string][]*harness.RunResult, step time.Duration, f seriesFigure) *reports.TimeSeriesPlot {
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
	return tp
}

// nodeCPUReports starts the whole-node CPU reports of the cluster: read inside the containers, or on a
// target's hosts through its control layer.
func nodeCPUReports(ctx context.Context, c harness.Cluster) (stop func() error, err error) {
	return c.StartNodeCPUReports(ctx, 2*time.Second)
}

// openLoopArgs are the topology flags of an open-loop run offering rate tuples/s (per topology) at
// constant arrivals.
func openLoopArgs(rate float64) []string {
	return []string{"--rate", strconv.FormatFloat(rate, 'f', 2, 64), "--arrivals", "constant"}
}

// keptRate is the open-loop rate a kept run's topology was submitted with (its --rate), 0 when none.
func keptRate(r *harness.RunResult) float64 {
	args := r.Spec.Topology.Args
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--rate" {
			v, _ := strconv.ParseFloat(args[i+1], 64)
			return v
		}
	}
	return 0
}

// checkKeptRate refuses a run read back with --resume whose offered rate differs from the rate this
// run asks for (beyond the 2 decimals openLoopArgs writes): a changed --calibration would otherwise
// mix two offered loads in one cell under one label.
func checkKeptRate(name string, r *harness.RunResult, resumed bool, rate float64) error {
	if !resumed || r == nil {
		return nil
	}
	if kept := keptRate(r); math.Abs(kept-rate) > 0.01 {
		return fmt.Errorf("%s: the kept run offered %.2f tuples/s, this run asks %.2f (a different --calibration?): resume with the calibration of the kept runs, or start again with --force", name, kept, rate)
	}
	return nil
}

// statedText marks a load label whose reference rate the user stated (--calibration).
func statedText(env lab.Env) string {
	if env.Calibration > 0 {
		return ", stated"
	}
	return ""
}

// ignoredCalibration says in the log that a stated calibration does nothing at scale, which has no
// open-loop cell.
func ignoredCalibration(env lab.Env, profile string) {
	if env.Calibration > 0 {
		fmt.Fprintf(env.Log, "--calibration %.0f ignored: scale %s offers no open-loop load\n", env.Calibration, profile)
	}
}
