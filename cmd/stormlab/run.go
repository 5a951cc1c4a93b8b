package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/stormlab/stormlab/harness/clusters"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/harness/usertopo"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/images"
	"github.com/stormlab/stormlab/infra/target"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// runOptions are the flags of `stormlab run`.
type runOptions struct {
	scheduler, topology, shape string
	warmup, measure            time.Duration
	delayMs, mul               int
	seed                       uint64
	out, format                string
	target                     string // target file: an existing cluster instead of containers
	cluster                    string // --cluster: a shape or target:FILE (clusterFlags)
	where                      clusterref.Ref
	oldProfile, oldTarget      string   // the deprecated --profile and --target
	simCosts                   string   // --sim-costs: the cost-model file of a simulated cluster (withSimCosts)
	extra                      []string // topology flags after "--"
	faultArgs                  []string // --fault, in fault.Syntax
	faults                     []fault.Fault
	rate                       float64 // --rate: open-loop tuples/s of the topology; 0 = closed loop
	rateSet                    bool
	arrivals                   string
	// A user topology (see usertopo.Spec) instead of --topology: a Flux file (--topology-file,
	// optional --jar) or a compiled one (--topology-jar, --class, --name).
	fluxFile, jar, topoJar, class, name string
}

// user says whether the run is of a user topology.
func (o *runOptions) user() bool {
	return o.fluxFile != "" || o.jar != "" || o.topoJar != "" || o.class != "" || o.name != ""
}

// userSpec is the user topology the flags name.
func (o *runOptions) userSpec() usertopo.Spec {
	u := usertopo.Spec{FluxFile: o.fluxFile, Jar: o.jar, Class: o.class, Name: o.name, Args: o.extra}
	if o.topoJar != "" {
		u.Jar = o.topoJar
	}
	return u
}

// label names the topology in the result row.
func (o *runOptions) label() string {
	if o.topology != "" {
		return o.topology
	}
	if n, _, err := usertopo.Check(o.userSpec()); err == nil {
		return n
	}
	return "user topology"
}

// validateUser checks the user-topology flags (files, YAML, jar and class) without Java or Docker;
// Flux's own check of the file runs in runOnce, still before anything starts.
func (o *runOptions) validateUser() error {
	switch {
	case o.topology != "":
		return fmt.Errorf("--topology and a user topology (--topology-file, --topology-jar) exclude each other: give one")
	case o.fluxFile != "" && o.topoJar != "":
		return errors.New("--topology-file and --topology-jar exclude each other: a Flux file takes its classes from --jar")
	case o.jar != "" && o.fluxFile == "":
		return errors.New("--jar holds a Flux topology's classes and goes with --topology-file; a compiled topology is --topology-jar JAR --class MAIN --name NAME")
	case (o.class != "" || o.name != "") && o.topoJar == "" && o.fluxFile == "":
		return errors.New("--class and --name go with --topology-jar JAR (a compiled topology)")
	case o.rateSet:
		return errors.New("--rate drives stormlab's own spouts: it does not apply to a user topology (drop it)")
	}
	_, _, err := usertopo.Check(o.userSpec())
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), usertopo.ErrBadTopology.Error()+": "))
	}
	return nil
}

// maxOpenLoopRate is the highest --rate accepted, tuples/s: the spouts' own stated bound
// (OpenLoop.MAX_RATE in topologies/storm).
const maxOpenLoopRate = 100_000

// validate checks everything that can be checked without Docker, so that bad
// input is reported (exit 2) before any container starts.
func (o *runOptions) validate() error {
	switch {
	case o.scheduler == "":
		return fmt.Errorf("--scheduler is required: one of %s", strings.Join(runSchedulerNames(), ", "))
	case !slices.Contains(runSchedulerNames(), o.scheduler):
		return fmt.Errorf("unknown scheduler %q: choose one of %s (see `stormlab schedulers`)", o.scheduler, strings.Join(runSchedulerNames(), ", "))
	case o.topology == "" && !o.user():
		return fmt.Errorf("--topology is required: one of %s, or replay:FILE (a captured topology) (or a user topology: --topology-file FILE.yaml, or --topology-jar JAR --class MAIN --name NAME)", strings.Join(stormTopologyNames(), ", "))
	}
	if o.user() {
		if err := o.validateUser(); err != nil {
			return err
		}
	} else if file, ok := topologies.ReplayFile(o.topology); ok {
		if _, _, err := topologies.ReadReplay(file); err != nil {
			return err
		}
	} else if _, err := topologies.LookupStormMain(o.topology); err != nil {
		return fmt.Errorf("%w (or replay:FILE, a topology captured with `stormlab capture`)", err)
	}
	if _, err := docker.Shape(o.shape); err != nil && o.containers() {
		return err
	}
	switch {
	case o.warmup < 0:
		return fmt.Errorf("--warmup %s is negative: give a duration such as 20s", o.warmup)
	case o.measure <= 0:
		return fmt.Errorf("--measure %s must be positive: give a duration such as 60s", o.measure)
	case o.delayMs < 0:
		return fmt.Errorf("--delay-ms %d is negative: give 0 (no emulated delay) or more", o.delayMs)
	case o.mul < 0:
		return fmt.Errorf("--mul %d is negative: give 0 (the scheduler's default) or more", o.mul)
	case o.format != "table" && o.format != "json":
		return fmt.Errorf("unknown --format %q: use table or json", o.format)
	}
	o.faults = o.faults[:0]
	for _, a := range o.faultArgs {
		f, err := fault.Parse(a)
		if err != nil {
			return err
		}
		o.faults = append(o.faults, f)
	}
	if len(o.faults) > 0 && o.containers() { // on a target: checked against its control once loaded
		sups, _ := docker.Shape(o.shape)
		var hosts []string
		for _, s := range sups {
			hosts = append(hosts, s.Host)
		}
		if err := fault.Validate(o.faults, hosts, o.measure); err != nil {
			return errors.New(oneLine(err.Error()))
		}
	}
	if err := o.checkKind(); err != nil {
		return err
	}
	for _, a := range o.extra {
		if o.user() {
			break // a compiled topology's own arguments
		}
		if a == "--name" || strings.HasPrefix(a, "--name=") {
			return errors.New("topology flag --name is set by stormlab run (the topology is named stormlab-TOPOLOGY): leave it out")
		}
	}
	return o.validateRate()
}

// validateRate checks --rate and --arrivals (open loop) before anything starts.
func (o *runOptions) validateRate() error {
	if o.arrivals != "constant" && o.arrivals != "poisson" {
		return fmt.Errorf("unknown --arrivals %q: use constant or poisson", o.arrivals)
	}
	if !o.rateSet {
		return nil
	}
	switch {
	case math.IsNaN(o.rate) || o.rate <= 0:
		return fmt.Errorf("--rate %v is not a rate: give the tuples/s the spouts offer, above 0 and at most %d (leave --rate out for the closed loop)", o.rate, maxOpenLoopRate)
	case o.rate > maxOpenLoopRate:
		return fmt.Errorf("--rate %v is above %d tuples/s, the most the spouts can generate: give a lower rate", o.rate, maxOpenLoopRate)
	}
	for _, a := range o.extra {
		for _, f := range []string{"--rate", "--arrivals"} {
			if a == f || strings.HasPrefix(a, f+"=") {
				return fmt.Errorf("%s is given twice (before and after `--`): keep the one before `--`", f)
			}
		}
	}
	return nil
}

// topologyArgs are the topology flags: those after `--`, and the open-loop ones.
func (o *runOptions) topologyArgs() []string {
	args := slices.Clone(o.extra)
	if o.rateSet {
		args = append(args, "--rate", strconv.FormatFloat(o.rate, 'g', -1, 64), "--arrivals", o.arrivals)
	}
	return args
}

// runSchedulerNames are the Go schedulers (through the bridge) and the
// native Storm ones, sorted.
func runSchedulerNames() []string {
	n := append(schedulers.Names(), harness.NativeNames()...)
	slices.Sort(n)
	return n
}

func stormTopologyNames() []string {
	var n []string
	for _, m := range topologies.StormMains() {
		n = append(n, m.Name)
	}
	return n
}

// runLong is the help text of stormlab run.
const runLong = "run starts a Storm cluster in containers (of the shape --cluster names), submits the topology with the\n" +
	"scheduler plugged into Nimbus (a Go scheduler through the bridge, or native storm-even,\n" +
	"storm-default, storm-ras), warms up until throughput is steady, measures and prints one result row. The cluster is removed\n" +
	"afterwards, also on failure and Ctrl-C. Flags after `--` go to the topology's main class\n" +
	"(e.g. -- --parallelism 2 --workers 4).\n\n" +
	"Any topology: --topology-file runs a Flux YAML topology (its classes from Storm, or from --jar),\n" +
	"--topology-jar a compiled one (--class: its main, which calls StormSubmitter; --name: the name it\n" +
	"submits under; its arguments after `--`). Both run with stormlab's task hook and reporter set in\n" +
	"the topology conf (the user's code is not changed) and are measured like the built-in ones. A\n" +
	"topology whose spouts do not anchor is measured at its sinks (tuples they execute per second) and\n" +
	"its complete latency is reported as not measured.\n\n" +
	"A captured topology (stormlab capture): --topology replay:FILE rebuilds it live from the file, with\n" +
	"the captured components, parallelism, groupings, rates (open loop), CPU per tuple and tuple sizes;\n" +
	"--rate then scales all its spouts together. Direct and custom groupings are replayed as shuffle\n" +
	"(a warning says so)."

func newRunCmd() *cobra.Command {
	o := runOptions{shape: docker.DefaultShape, warmup: 20 * time.Second, measure: 60 * time.Second, seed: 1, format: "table", arrivals: "constant"}
	cmd := &cobra.Command{
		Use:   "run --scheduler NAME (--topology throughput|wordcount|kmeans|replay:FILE | --topology-file FILE.yaml [--jar JAR] | --topology-jar JAR --class MAIN --name NAME) [flags] [-- topology flags]",
		Short: "One measured run of a scheduler on a fresh containerized Storm cluster",
		Long:  runLong,
		Args:  runArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return startRun(cmd, &o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scheduler, "scheduler", "", "scheduler: any Go scheduler (stormlab schedulers), or storm-even, storm-default, storm-ras (native)")
	f.StringVar(&o.topology, "topology", "", "topology: "+strings.Join(stormTopologyNames(), ", ")+", or replay:FILE (a topology captured with stormlab capture, rebuilt live)")
	f.StringVar(&o.cluster, "cluster", "", "where to run: SHAPE, containers of a shape ("+strings.Join(docker.Shapes(), ", ")+"; default "+docker.DefaultShape+"), target:FILE, an existing Storm cluster (no containers are started; --delay-ms does not apply), or sim:NAME, a simulated cluster (stormlab sim clusters; docs/simulator.md)")
	f.StringVar(&o.simCosts, "sim-costs", "", simCostsHelp)
	f.StringVar(&o.oldProfile, "profile", "", "a cluster shape (deprecated: use --cluster SHAPE)")
	f.StringVar(&o.oldTarget, "target", "", "a target file (deprecated: use --cluster target:FILE)")
	deprecate(cmd, "profile", "--cluster SHAPE")
	deprecate(cmd, "target", "--cluster target:FILE")
	f.DurationVar(&o.warmup, "warmup", o.warmup, "maximum warm-up after every worker reports: measuring starts once throughput is steady (3 report intervals within 10%) or after this")
	f.DurationVar(&o.measure, "measure", o.measure, "measurement window")
	f.IntVar(&o.delayMs, "delay-ms", 0, "emulated network delay between nodes, ms (0 = none)")
	f.Uint64Var(&o.seed, "seed", o.seed, "scheduler seed")
	f.IntVar(&o.mul, "mul", 0, "K-PART balance multiplier Mul (0 = no balance adjustment, as in the smoke experiment)")
	f.StringVar(&o.out, "out", "", "folder for the raw run (run.json, reports.jsonl, storm-stats.json); none when empty")
	f.StringVar(&o.format, "format", o.format, "output format: table or json")
	f.StringArrayVar(&o.faultArgs, "fault", nil, "inject a fault into the measurement window (repeatable): "+fault.Syntax+"; kinds: kill-supervisor and pause-worker (ARG: a supervisor host of the shape), restart-zookeeper, restart-service, delay (ARG: NODE_A-NODE_B=DELAY), straggler (ARG: HOST=PERCENT, CPU load on one supervisor as a burner topology; needs no control section)")
	f.Float64Var(&o.rate, "rate", 0, fmt.Sprintf("open loop: the tuples/s the spouts offer on a schedule fixed at start, divided over the spout tasks (at most %d); latency is then also reported from each tuple's intended send time, with the send lag; default: closed loop", maxOpenLoopRate))
	f.StringVar(&o.arrivals, "arrivals", o.arrivals, "with --rate: constant or poisson (seeded by the topology's --seed)")
	f.StringVar(&o.fluxFile, "topology-file", "", "a Flux topology (YAML) instead of --topology; run and measured with stormlab's instrumentation, the user's code unchanged")
	f.StringVar(&o.jar, "jar", "", "with --topology-file: the jar holding the Flux topology's classes (none needed for Storm's own)")
	f.StringVar(&o.topoJar, "topology-jar", "", "a compiled topology instead of --topology: its jar (with --class and --name; its main's arguments after `--`)")
	f.StringVar(&o.class, "class", "", "with --topology-jar: the main class, which submits the topology with StormSubmitter")
	f.StringVar(&o.name, "name", "", "with --topology-jar: the name the main submits the topology under")
	return cmd
}

// runArgs refuses arguments before `--` (they go to the topology after it).
func runArgs(cmd *cobra.Command, args []string) error {
	dash := cmd.ArgsLenAtDash()
	if dash < 0 && len(args) > 0 {
		return fmt.Errorf("run takes no arguments (got %q): topology flags go after `--`", args[0])
	}
	if dash > 0 {
		return fmt.Errorf("run takes no arguments before `--` (got %q)", args[0])
	}
	return nil
}

// startRun completes and checks the options from the command line, loads the target and runs once,
// until the run ends or Ctrl-C.
func startRun(cmd *cobra.Command, o *runOptions, args []string) error {
	if cmd.ArgsLenAtDash() >= 0 {
		o.extra = args[cmd.ArgsLenAtDash():]
	}
	o.rateSet = cmd.Flags().Changed("rate")
	var err error
	if o.where, err = clusterFlags(o.cluster, o.oldProfile, o.oldTarget); err != nil {
		return err
	}
	if o.where, err = withSimCosts(o.where, o.simCosts); err != nil {
		return err
	}
	o.shape, o.target = o.where.Shape, o.where.File
	if err := o.validate(); err != nil {
		return err
	}
	var tg *target.Target
	if o.target != "" {
		var err error
		if tg, err = target.Load(o.target); err != nil {
			return err
		}
		if err := harness.CheckTargetFaults(tg, o.faults); err != nil {
			return errors.New(oneLine(err.Error()))
		}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runOnce(ctx, *o, tg, cmd.OutOrStdout(), cmd.ErrOrStderr())
}

// runOnce does the run after validation. Everything that goes wrong from here
// on is a run failure (exit 1).
func runOnce(ctx context.Context, o runOptions, tg *target.Target, stdout, stderr io.Writer) error {
	var topo harness.TopologyRun
	if o.user() {
		// Built and checked by Flux first: a file Flux rejects is bad input (exit 2), found before
		// any container starts or anything is submitted.
		dir, err := os.MkdirTemp("", "stormlab-user-topology-")
		if err != nil {
			return failed(err)
		}
		defer os.RemoveAll(dir)
		if topo, err = usertopo.Topology(ctx, o.userSpec(), dir); errors.Is(err, usertopo.ErrBadTopology) {
			return errors.New(oneLine(strings.TrimPrefix(err.Error(), usertopo.ErrBadTopology.Error()+": ")))
		} else if err != nil {
			return failed(err)
		}
	}
	if o.containers() {
		// Fail fast, before the cluster lock and image builds, when no engine
		// answers: images.NewClient's error says how to start one.
		cli, err := images.NewClient(ctx)
		if err != nil {
			return failed(err)
		}
		cli.Close()
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "run: "+format+"\n", a...) }
	if !o.user() {
		var err error
		if topo, err = builtinTopology(o, logf); err != nil {
			return err
		}
	}
	var err error
	spec := harness.RunSpec{Scheduler: o.scheduler, Topology: topo, WarmUp: o.warmup, Measure: o.measure, Faults: o.faults, Live: liveLines(stderr)}
	cs := harness.ClusterSpec{Shape: o.shape, DelayMs: o.delayMs, Seed: o.seed, Mul: o.mul, Logf: logf, Where: o.where}
	var res *harness.RunResult
	switch {
	case !o.containers() && tg == nil:
		o.shape = o.where.String()
		logf("%s on %s (%s, simulated): Ctrl-C cancels", o.scheduler, o.label(), o.shape)
		res, err = clusters.Kinds().RunOnNew(ctx, cs, spec)
	case tg != nil:
		o.shape = orDefaultStr(tg.Name, "target")
		logf("%s on %s (target %s): Ctrl-C cancels and kills the topology", o.scheduler, o.label(), o.target)
		res, err = runTarget(ctx, o.target, tg, cs, spec, logf)
	default:
		logf("%s on %s (cluster %s): starting cluster; Ctrl-C cancels and removes it", o.scheduler, o.label(), o.shape)
		res, err = clusters.Kinds().RunOnNew(ctx, cs, spec)
	}
	if res != nil && o.out != "" {
		err = saveRun(o.out, res, err, logf)
	}
	if err != nil {
		return runError(err, tg != nil, stderr)
	}
	logRunChecks(res, logf)
	row := newRunRow(o, res)
	if err := row.write(stdout, o.format); err != nil {
		return failed(err)
	}
	if cerr := res.Validity.Err(); cerr != nil {
		return failed(fmt.Errorf("the run does not count: %w", cerr))
	}
	return nil
}

// saveRun writes the raw run into dir (and its fault timeline, if it had faults); it returns err
// with the errors of writing joined.
func saveRun(dir string, res *harness.RunResult, err error, logf func(string, ...any)) error {
	if serr := harness.Save(dir, res); serr != nil {
		err = errors.Join(err, serr)
	} else {
		logf("raw run written to %s", dir)
	}
	if len(res.Faults) > 0 {
		if ferr := writeFaultFigure(filepath.Join(dir, "timeline.png"), res); ferr != nil {
			err = errors.Join(err, ferr)
		}
	}
	return err
}

// runError is the command's error for a failed run (onTarget: the run was on a target file's
// cluster): one line, with the daemons' last log lines on stderr.
func runError(err error, onTarget bool, stderr io.Writer) error {
	// A failed run carries the daemons' last log lines as data; they go to stderr, the error
	// itself stays one line.
	if re := (*harness.RunError)(nil); errors.As(err, &re) && len(re.Logs) > 0 {
		fmt.Fprintf(stderr, "--- last log lines ---\n%s", re.LogText())
	}
	// A target that cannot take the run (unreachable, another scheduler in Nimbus) is bad input:
	// nothing was submitted.
	if re := (*harness.RunError)(nil); onTarget && errors.As(err, &re) && re.Refused() {
		return errors.New(oneLine(err.Error()))
	}
	if errors.Is(err, context.Canceled) {
		if onTarget {
			return failed(fmt.Errorf("run interrupted; its topology was killed (%s)", oneLine(err.Error())))
		}
		return failed(fmt.Errorf("run interrupted; every container it had started was removed (%s)", oneLine(err.Error())))
	}
	return failed(errors.New(oneLine(err.Error())))
}

// logRunChecks logs how the warm-up ended and how the run compares with Storm's own statistics.
func logRunChecks(res *harness.RunResult, logf func(string, ...any)) {
	logf("warm-up %.1f s of at most %.0f s: %s", res.WarmUp.S, res.WarmUp.MaxS, map[bool]string{true: "throughput steady", false: "maximum reached before throughput was steady"}[res.WarmUp.Steady])
	if c := res.Storm; c.Compared {
		logf("Storm's own statistics: %.1f tuples/s, %d acked (ours %.1f/s, %d; %s %.1f%% apart), complete latency %.2f ms (ours %.2f, %.1f%% apart)",
			c.Throughput, c.Acked, c.OurThroughput, c.OurAcked, c.Quantity, 100*c.Diff, c.CompleteLatencyMs, c.OurLatencyMs, 100*c.LatencyDiff)
	} else {
		logf("not cross-checked against Storm's own statistics: %s", c.Note)
	}
}

// builtinTopology is the TopologyRun of --topology: a Java topology of topologies/storm, or the replay of
// a captured topology file (replay:FILE), whose warnings go to the log before anything starts.
func builtinTopology(o runOptions, logf func(string, ...any)) (harness.TopologyRun, error) {
	file, ok := topologies.ReplayFile(o.topology)
	if !ok {
		topo, err := harness.StormTopology(o.topology, "stormlab-"+o.topology, o.topologyArgs()...)
		return topo, failed(err)
	}
	topo, warnings, err := usertopo.Replay(file, o.topologyArgs()...)
	if errors.Is(err, usertopo.ErrBadTopology) {
		return topo, errors.New(oneLine(strings.TrimPrefix(err.Error(), usertopo.ErrBadTopology.Error()+": ")))
	} else if err != nil {
		return topo, failed(err)
	}
	for _, w := range warnings {
		logf("warning: %s", w)
	}
	return topo, nil
}

// runRow is the one result row of `stormlab run`.
type runRow struct {
	Scheduler string `json:"scheduler"`
	Topology  string `json:"topology"`
	Cluster   string `json:"cluster"`
	// Throughput, latency, cut rate and balance are null when not measured (a topology whose spouts do
	// not anchor has no complete latency); NotMeasured says why. Never a 0 standing for "unknown".
	Throughput    *float64 `json:"throughput"`
	LatencyMeanMs *float64 `json:"latency_mean_ms"`
	LatencyP99Ms  *float64 `json:"latency_p99_ms"`
	CutRate       *float64 `json:"cut_rate"`
	Balance       *float64 `json:"balance"`
	// ThroughputBasis is empty for acked spout tuples/s, "sink-executed" for tuples executed by the
	// sink tasks/s (a topology that never acks; see harness.BasisSinkExecuted).
	ThroughputBasis string            `json:"throughput_basis,omitempty"`
	NotMeasured     map[string]string `json:"not_measured,omitempty"`
	QoSRate         *float64          `json:"qos_rate,omitempty"` // only when the topology has deadlines
	RoundsMs        []float64         `json:"bridge_rounds_ms"`
	Valid           bool              `json:"valid"`
	Invalid         string            `json:"invalid,omitempty"`
	Suspect         string            `json:"suspect,omitempty"` // figures disagree with Storm's own statistics
	// Faults injected into the window, with their recovery: a run with faults is never a fault-free
	// result.
	Faults []harness.FaultRecord `json:"faults,omitempty"`
	// Diagnosis is what limited the run (bottleneck by a fixed precedence, docs/statistics.md).
	Diagnosis *harness.Diagnosis `json:"diagnosis,omitempty"`
	// Open loop only (--rate): latency from the actual emit and from the intended send time, the send
	// lag, and the offered and achieved (emitted) rates, tuples/s.
	LatencyMs             *quantilesMs `json:"latency_ms,omitempty"`
	LatencyFromIntendedMs *quantilesMs `json:"latency_from_intended_ms,omitempty"`
	SendLagMs             *quantilesMs `json:"send_lag_ms,omitempty"`
	OfferedRate           *float64     `json:"offered_rate,omitempty"`
	AchievedRate          *float64     `json:"achieved_rate,omitempty"`
}

// quantilesMs are a latency's p50, p99 and max, ms.
type quantilesMs struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// addOpenLoop fills the open-loop fields from an open-loop measurement.
func (row *runRow) addOpenLoop(m harness.Measurement) {
	ol := m.OpenLoop
	if ol == nil {
		return
	}
	row.LatencyMs = &quantilesMs{m.LatencyP50, m.LatencyP99, m.LatencyMax}
	row.LatencyFromIntendedMs = &quantilesMs{ol.IntendedP50, ol.IntendedP99, ol.IntendedMax}
	row.SendLagMs = &quantilesMs{ol.SendLagP50, ol.SendLagP99, ol.SendLagMax}
	row.OfferedRate, row.AchievedRate = &ol.OfferedRate, &ol.EmittedRate
}

func newRunRow(o runOptions, r *harness.RunResult) runRow {
	m := r.Measurement
	measured := func(metric string, v float64) *float64 {
		if _, no := m.NotMeasured[metric]; no {
			return nil
		}
		return &v
	}
	row := runRow{
		Scheduler: o.scheduler, Topology: o.label(), Cluster: o.shape,
		Throughput: measured(harness.MetricThroughput, m.Throughput), LatencyMeanMs: measured(harness.MetricLatency, m.LatencyMean),
		LatencyP99Ms: measured(harness.MetricLatency, m.LatencyP99), CutRate: measured(harness.MetricCutRate, m.CutRate),
		Balance: measured(harness.MetricNodeCPU, m.Balance), ThroughputBasis: m.ThroughputBasis, NotMeasured: m.NotMeasured,
		RoundsMs: r.RoundsMs, Suspect: r.Validity.Text(harness.Suspect), Faults: r.Faults, Diagnosis: r.Diagnosis,
	}
	if row.RoundsMs == nil {
		row.RoundsMs = []float64{}
	}
	if m.Deadlines > 0 {
		q := m.QoSRate
		row.QoSRate = &q
	}
	row.addOpenLoop(m)
	if cerr := r.Validity.Err(); cerr != nil {
		row.Invalid = oneLine(cerr.Error())
	} else {
		row.Valid = true
	}
	return row
}

// roundsText summarises the bridge round times: count, mean and max.
func roundsText(ms []float64) string {
	if len(ms) == 0 {
		return "none"
	}
	sum, hi := 0.0, ms[0]
	for _, x := range ms {
		sum += x
		hi = max(hi, x)
	}
	return fmt.Sprintf("%d, mean %.1f ms, max %.1f ms", len(ms), sum/float64(len(ms)), hi)
}

func (row runRow) write(w io.Writer, format string) error {
	if format == "json" {
		return writeJSON(w, row)
	}
	t := &reports.Table{
		Title: fmt.Sprintf("stormlab run: %s on %s (%s)", row.Scheduler, row.Topology, row.Cluster),
		Columns: []string{"scheduler", "throughput (tuples/s)", "latency mean (ms)", "latency p99 (ms)",
			"cut rate", "balance (CPU std, %)", "QoS rate", "bridge rounds", "valid"},
	}
	qos := reports.Text("-")
	if row.QoSRate != nil {
		qos = reports.Number(*row.QoSRate)
	}
	valid := reports.Text("yes")
	if !row.Valid {
		valid = reports.Text("no: " + row.Invalid)
	} else if row.Suspect != "" {
		valid = reports.Text("suspect: " + row.Suspect)
	}
	t.AddRow(reports.Text(row.Scheduler), cell(row.Throughput), cell(row.LatencyMeanMs),
		cell(row.LatencyP99Ms), cell(row.CutRate), cell(row.Balance), qos,
		reports.Text(roundsText(row.RoundsMs)), valid)
	if err := writeTable(w, t); err != nil {
		return err
	}
	if err := row.writeNotes(w); err != nil {
		return err
	}
	if err := row.writeOpenLoop(w); err != nil || len(row.Faults) == 0 {
		return err
	}
	ft := &reports.Table{
		Title: "faults (recovery: from the fault's start until throughput is back within 10% of its level before)",
		Columns: []string{"fault", "pre-fault (tuples/s)", "recovery", "recovery (s)", "tuples lost", "tuples failed",
			"worker starts", "executors moved", "latency before (ms)", "latency during (ms)", "error"},
	}
	for _, f := range row.Faults {
		rc := f.Recovery
		rs := reports.Text("-")
		if rc.Measured && rc.Recovered {
			rs = reports.Number(rc.RecoveryS)
		}
		ft.AddRow(reports.Text(f.Fault.String()), reports.Number(rc.PreTput), reports.Text(rc.Verdict()), rs,
			reports.Number(rc.LostTuples), reports.Number(float64(rc.FailedTuples)), reports.Number(float64(rc.WorkerStarts)),
			reports.Number(float64(rc.ExecutorsMoved)), reports.Number(rc.PreLatencyMs), reports.Number(rc.FaultLatencyMs),
			reports.Text(orDefaultStr(f.Error, "-")))
	}
	return writeTable(w, ft)
}

// cell is a measured number, or "not measured".
func cell(v *float64) reports.Cell {
	if v == nil {
		return reports.Text("not measured")
	}
	return reports.Number(*v)
}

// writeOpenLoop writes the open-loop table (nothing for a closed-loop run).
func (row runRow) writeOpenLoop(w io.Writer) error {
	if row.LatencyFromIntendedMs == nil {
		return nil
	}
	t := &reports.Table{
		Title:   "open loop: latency from the actual emit and from the intended send time",
		Columns: []string{"quantity", "p50 (ms)", "p99 (ms)", "max (ms)"},
	}
	for _, q := range []struct {
		name string
		v    *quantilesMs
	}{{"latency from emit", row.LatencyMs}, {"latency from intended", row.LatencyFromIntendedMs}, {"send lag", row.SendLagMs}} {
		t.AddRow(reports.Text(q.name), reports.Number(q.v.P50), reports.Number(q.v.P99), reports.Number(q.v.Max))
	}
	if err := writeTable(w, t); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "offered %.1f tuples/s, achieved (emitted) %.1f tuples/s\n", *row.OfferedRate, *row.AchievedRate)
	return err
}

// runTarget runs spec on a target cluster, through its endpoints only (no Docker).
func runTarget(ctx context.Context, file string, tg *target.Target, cs harness.ClusterSpec, spec harness.RunSpec, logf func(string, ...any)) (*harness.RunResult, error) {
	cs.Where, cs.Logf = whereOf(clusterref.Ref{}, file, tg), logf
	return clusters.Kinds().RunOnNew(ctx, cs, spec)
}

func orDefaultStr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// writeFaultFigure draws the run's throughput series from its timeline with the fault windows shaded.
func writeFaultFigure(path string, r *harness.RunResult) error {
	t0 := r.StartedAt.UnixMilli()
	var ts reports.TimeSeries
	ts.Name = "throughput"
	for _, e := range r.Timeline() {
		if e.Event == "throughput" && e.Tput != nil {
			ts.T = append(ts.T, float64(e.TimeMs-t0)/1000)
			ts.Y = append(ts.Y, *e.Tput)
		}
	}
	if len(ts.T) == 0 {
		return nil
	}
	tp := &reports.TimeSeriesPlot{Title: r.Spec.Scheduler + " with faults", XLabel: "time since submission (s)", YLabel: "throughput (tuples/s)",
		Caption: "Acked tuples per interval; shaded: fault windows.", Series: []reports.TimeSeries{ts}}
	for _, f := range r.Faults {
		if f.StartMs > 0 && f.EndMs > f.StartMs {
			tp.Windows = append(tp.Windows, reports.TimeWindow{Name: f.Fault.String(), From: float64(f.StartMs-t0) / 1000, To: float64(f.EndMs-t0) / 1000})
		}
	}
	var buf bytes.Buffer
	if err := tp.Write(&buf, "png"); err != nil {
		return fmt.Errorf("timeline figure: %w", err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return err
	}
	// The image carries no title or caption (publication figures); they go beside it.
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	for _, f := range lab.CaptionFiles(stem, "fig:"+stem, tp.CaptionText()) {
		if err := lab.WriteAtomic(filepath.Join(filepath.Dir(path), f.Name), f.Write); err != nil {
			return err
		}
	}
	return nil
}
