package main

import (
	"context"
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

	"github.com/stormlab/stormlab/experiments/capacity"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/usertopo"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/images"
	"github.com/stormlab/stormlab/infra/target"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/topologies"
)

// capacityOptions are the flags of `stormlab capacity`.
type capacityOptions struct {
	scheduler, topology, shape, target, arrivals, out, format string
	search                                                    capacity.Options
	window, warmup                                            time.Duration
	windows, reps                                             int
	seed                                                      uint64
	extra                                                     []string
	cluster                                                   string // --cluster: a shape or target:FILE (clusterFlags)
	where                                                     clusterref.Ref
	oldProfile, oldTarget                                     string // the deprecated --profile and --target
	simCosts                                                  string // --sim-costs: the cost-model file of a simulated cluster (withSimCosts)
}

// otherKind says whether the cluster is neither containers nor a target (sim:NAME).
func (o *capacityOptions) otherKind() bool {
	return o.where.Kind != "" && o.where.Kind != clusterref.Containers && o.where.Kind != clusterref.Target
}

func (o *capacityOptions) validate() error {
	switch {
	case o.scheduler == "":
		return fmt.Errorf("--scheduler is required: one of %s", strings.Join(runSchedulerNames(), ", "))
	case !slices.Contains(runSchedulerNames(), o.scheduler):
		return fmt.Errorf("unknown scheduler %q: choose one of %s (see `stormlab schedulers`)", o.scheduler, strings.Join(runSchedulerNames(), ", "))
	case o.topology == "":
		return fmt.Errorf("--topology is required: one of %s", strings.Join(stormTopologyNames(), ", "))
	case o.windows < 2:
		return fmt.Errorf("--windows %d: a step is confirmed by at least 2 windows (the send lag's growth is first to last)", o.windows)
	case o.window < 2*time.Second:
		return fmt.Errorf("--window %s is shorter than two of the workers' 1 s report intervals: give 2s or more", o.window)
	case o.reps < 1:
		return fmt.Errorf("--reps %d: give 1 or more searches", o.reps)
	case o.warmup < 0:
		return fmt.Errorf("--warmup %s is negative: give a duration such as 20s", o.warmup)
	case o.format != "table" && o.format != "json":
		return fmt.Errorf("unknown --format %q: use table or json", o.format)
	case o.arrivals != "constant" && o.arrivals != "poisson":
		return fmt.Errorf("unknown --arrivals %q: use constant or poisson", o.arrivals)
	case o.search.Max > maxOpenLoopRate:
		return fmt.Errorf("--max %v is above %d tuples/s, the most the spouts can generate: give a lower maximum", o.search.Max, maxOpenLoopRate)
	}
	if file, replay := topologies.ReplayFile(o.topology); replay {
		if _, _, err := topologies.ReadReplay(file); err != nil {
			return err
		}
	} else if _, err := topologies.LookupStormMain(o.topology); err != nil {
		return err
	}
	if _, err := docker.Shape(o.shape); err != nil && o.target == "" && !o.otherKind() {
		return err
	}
	for _, f := range []string{"--rate", "--arrivals", "--name"} {
		if hasTopologyFlag(o.extra, f) {
			return fmt.Errorf("topology flag %s is set by stormlab capacity: leave it out after `--`", f)
		}
	}
	return o.search.Validate()
}

func newCapacityCmd() *cobra.Command {
	o := capacityOptions{shape: docker.DefaultShape, arrivals: "constant", format: "table", seed: 1,
		window: 10 * time.Second, windows: 3, reps: 1, warmup: 60 * time.Second, search: capacity.DefaultOptions}
	cmd := &cobra.Command{
		Use:   "capacity --scheduler NAME --topology throughput|wordcount|kmeans|replay:FILE [flags] [-- topology flags]",
		Short: "Search the maximum sustainable throughput of a topology under a scheduler (open-loop load)",
		Long: "capacity offers the topology open-loop load (one run per rate, on one cluster) and finds the highest\n" +
			"rate it sustains: over --windows consecutive windows at least --min-achieved of the offered tuples are\n" +
			"acked, in every window the latency p99 from the intended send time stays under --p99-bound, and the\n" +
			"send lag grows by at most --max-lag-growth over the step. Search: double from --start until a rate\n" +
			"fails, then bisect to --precision. Every step is printed and, with --out, saved as a run.",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if d := cmd.ArgsLenAtDash(); d != 0 && len(args) > 0 {
				return fmt.Errorf("capacity takes no arguments (got %q): topology flags go after `--`", args[0])
			}
			o.extra = args
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
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return searchCapacity(ctx, o, tg, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scheduler, "scheduler", "", "scheduler: any Go scheduler (stormlab schedulers), or storm-even, storm-default, storm-ras (native)")
	f.StringVar(&o.topology, "topology", "", "topology: "+strings.Join(stormTopologyNames(), ", ")+", or replay:FILE (a captured topology, see stormlab capture)")
	f.StringVar(&o.cluster, "cluster", "", "where to run: SHAPE, containers of a shape ("+strings.Join(docker.Shapes(), ", ")+"; default "+docker.DefaultShape+"), target:FILE, an existing Storm cluster (no containers are started; --delay-ms does not apply), or sim:NAME, a simulated cluster (stormlab sim clusters; docs/simulator.md)")
	f.StringVar(&o.simCosts, "sim-costs", "", simCostsHelp)
	f.StringVar(&o.oldProfile, "profile", "", "a cluster shape (deprecated: use --cluster SHAPE)")
	f.StringVar(&o.oldTarget, "target", "", "a target file (deprecated: use --cluster target:FILE)")
	deprecate(cmd, "profile", "--cluster SHAPE")
	deprecate(cmd, "target", "--cluster target:FILE")
	f.Float64Var(&o.search.Start, "start", o.search.Start, "first offered rate, tuples/s")
	f.Float64Var(&o.search.Factor, "factor", o.search.Factor, "step-up factor until a rate fails")
	f.Float64Var(&o.search.Precision, "precision", o.search.Precision, "stop bisecting when (failed - sustainable) / sustainable is at most this")
	f.Float64Var(&o.search.Max, "max", o.search.Max, "highest rate tried, tuples/s (reaching it sustainably reports 'at least')")
	f.Float64Var(&o.search.Criteria.MinAchieved, "min-achieved", o.search.Criteria.MinAchieved, "share of the offered tuples that must be acked over the step's windows")
	f.DurationVar(&o.search.Criteria.P99Bound, "p99-bound", o.search.Criteria.P99Bound, "bound on the latency p99 from the intended send time in every window")
	f.DurationVar(&o.search.Criteria.MaxLagGrowth, "max-lag-growth", o.search.Criteria.MaxLagGrowth, "how much the send lag p50 may grow from the first window to the last")
	f.DurationVar(&o.window, "window", o.window, "length of one measurement window")
	f.IntVar(&o.windows, "windows", o.windows, "windows per step (latency is bounded in each, the acked share over all)")
	f.DurationVar(&o.warmup, "warmup", o.warmup, "maximum warm-up of each step's run: its window opens once the acked rate is steady and within 10% of the offered (the start-up backlog drained)")
	f.IntVar(&o.reps, "reps", o.reps, "independent searches on the same cluster; with 2 or more the CI is over their capacities")
	f.StringVar(&o.arrivals, "arrivals", o.arrivals, "constant or poisson (seeded by --seed)")
	f.Uint64Var(&o.seed, "seed", o.seed, "scheduler seed")
	f.StringVar(&o.out, "out", "", "folder for capacity.json and every step's raw run; none when empty")
	f.StringVar(&o.format, "format", o.format, "output format: table or json")
	return cmd
}

// capacityReport is what `stormlab capacity` prints and writes (capacity.json).
type capacityReport struct {
	Scheduler string `json:"scheduler"`
	Topology  string `json:"topology"`
	Cluster   string `json:"cluster"`
	capacity.Summary
	Criteria  capacityCriteria   `json:"criteria"`
	Precision float64            `json:"precision"`
	Searches  []*capacity.Result `json:"searches"`
	Steps     []capacity.Step    `json:"steps"` // every search's steps, in order
	WallS     float64            `json:"wall_s"`
}

type capacityCriteria struct {
	MinAchieved    float64 `json:"min_achieved"`
	P99BoundMs     float64 `json:"p99_bound_ms"`
	MaxLagGrowthMs float64 `json:"max_lag_growth_ms"`
}

// searchCapacity runs the searches after validation; failures from here on exit 1.
func searchCapacity(ctx context.Context, o capacityOptions, tg *target.Target, stdout, stderr io.Writer) error {
	t0 := time.Now()
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "capacity: "+format+"\n", a...) }
	run, closeRun, err := capacityRunner(ctx, &o, tg, logf)
	if err != nil {
		return failed(err)
	}
	defer closeRun()
	rep := capacityReport{Scheduler: o.scheduler, Topology: o.topology, Cluster: o.shape, Precision: o.search.Precision,
		Criteria: capacityCriteria{o.search.Criteria.MinAchieved, msOf(o.search.Criteria.P99Bound), msOf(o.search.Criteria.MaxLagGrowth)}}
	for i := range o.reps {
		r, err := capacity.Search(ctx, o.prober(run, i, logf), o.withLog(logf, i))
		if r != nil {
			rep.Searches = append(rep.Searches, r)
			rep.Steps = append(rep.Steps, r.Steps...)
		}
		if err != nil {
			return failed(fmt.Errorf("search %d: %w", i+1, err))
		}
	}
	rep.WallS = time.Since(t0).Seconds()
	s, serr := capacity.Summarize(rep.Searches)
	rep.Summary = s
	if err := o.write(rep, stdout); err != nil {
		return failed(err)
	}
	return failed(serr)
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (o capacityOptions) withLog(logf func(string, ...any), i int) capacity.Options {
	so := o.search
	so.Logf = func(format string, a ...any) { logf("search %d: "+format, append([]any{i + 1}, a...)...) }
	return so
}

// capacityRunner opens the one cluster every step runs on (the registry's Open: containers started
// once, or the target). closeRun releases it: the containers are removed, a target's connections closed.
func capacityRunner(ctx context.Context, o *capacityOptions, tg *target.Target, logf func(string, ...any)) (run func(context.Context, harness.RunSpec) (*harness.RunResult, error), closeRun func(), err error) {
	cs := harness.ClusterSpec{Shape: o.shape, Seed: o.seed, Logf: logf, Where: whereOf(o.where, o.target, tg)}
	switch {
	case tg != nil:
		o.shape = orDefaultStr(tg.Name, "target")
		logf("%s on %s (target %s): Ctrl-C cancels and kills the topology", o.scheduler, o.topology, o.target)
	case o.otherKind():
		o.shape = o.where.String()
		logf("%s on %s (%s, simulated)", o.scheduler, o.topology, o.shape)
	default:
		cli, err := images.NewClient(ctx)
		if err != nil {
			return nil, nil, err
		}
		cli.Close()
		logf("%s on %s (cluster %s): starting one cluster for every step; Ctrl-C cancels and removes it", o.scheduler, o.topology, o.shape)
	}
	c, err := clusters.Kinds().Open(ctx, cs, o.scheduler)
	closeRun = func() {
		if c != nil {
			if cerr := c.Close(context.Background()); cerr != nil {
				logf("release the cluster: %v", cerr)
			}
		}
	}
	if err != nil {
		closeRun()
		return nil, nil, err
	}
	return c.Run, closeRun, nil
}

// prober builds search i's prober: the topology with --rate, each run saved under --out.
func (o capacityOptions) prober(run func(context.Context, harness.RunSpec) (*harness.RunResult, error), i int, logf func(string, ...any)) *capacity.StormProber {
	p := &capacity.StormProber{
		Run:     run,
		Spec:    harness.RunSpec{Scheduler: o.scheduler, WarmUp: o.warmup},
		Window:  o.window,
		Windows: o.windows,
		Topology: func(rate float64) (harness.TopologyRun, error) {
			args := slices.Clone(o.extra)
			if !hasTopologyFlag(args, "--report-interval-secs") {
				// Windows of seconds need the workers' reports every second (the topologies' default is 5 s).
				args = append(args, "--report-interval-secs", "1")
			}
			args = append(args, "--rate", strconv.FormatFloat(math.Round(rate*100)/100, 'f', -1, 64), "--arrivals", o.arrivals)
			if file, replay := topologies.ReplayFile(o.topology); replay {
				// The replay's --rate scales its spouts together to the rate (their captured shares kept).
				topo, _, err := usertopo.Replay(file, args...)
				return topo, err
			}
			return harness.StormTopology(o.topology, "stormlab-"+o.topology, args...)
		},
	}
	if o.out != "" {
		n := 0
		p.Kept = func(rate float64, res *harness.RunResult) {
			n++
			dir := filepath.Join(o.out, fmt.Sprintf("search-%d", i+1), fmt.Sprintf("step-%02d-%.0f", n, rate))
			if err := harness.Save(dir, res); err != nil {
				logf("save step: %v", err)
			}
		}
	}
	return p
}

func hasTopologyFlag(args []string, flag string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == flag || strings.HasPrefix(a, flag+"=") })
}

// write prints the report and, with --out, writes capacity.json.
func (o capacityOptions) write(rep capacityReport, stdout io.Writer) error {
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return err
		}
		err := writeFileAtomic(filepath.Join(o.out, "capacity.json"), func(f *os.File) error { return writeJSON(f, rep) })
		if err != nil {
			return err
		}
	}
	if o.format == "json" {
		return writeJSON(stdout, rep)
	}
	return writeCapacityTable(stdout, rep)
}

// writeCapacityTable prints every step, then the capacity with its CI.
func writeCapacityTable(w io.Writer, rep capacityReport) error {
	t := &reports.Table{
		Title: fmt.Sprintf("stormlab capacity: %s on %s (%s)", rep.Scheduler, rep.Topology, rep.Cluster),
		Columns: []string{"search", "step", "phase", "offered (tuples/s)", "acked, lowest window (tuples/s)",
			"latency p99 from intended, highest (ms)", "send lag p50 growth (ms)", "sustainable", "wall (s)"},
	}
	for i, r := range rep.Searches {
		for j, st := range r.Steps {
			t.AddRow(reports.Number(float64(i+1)), reports.Number(float64(j+1)), reports.Text(st.Phase), reports.Number(st.Rate),
				worst(st.Windows, func(w capacity.Window) float64 { return -w.AckedRate }, -1),
				worst(st.Windows, func(w capacity.Window) float64 { return w.LatencyP99Ms }, 1),
				lagGrowth(st.Windows), reports.Text(sustainableText(st)), reports.Number(st.WallS))
		}
	}
	if err := writeTable(w, t); err != nil {
		return err
	}
	if len(rep.Searches) == 0 || rep.CIOver == "" {
		return nil
	}
	atLeast := ""
	if rep.AtLeast {
		atLeast = "at least "
	}
	_, err := fmt.Fprintln(w, wrapLines(fmt.Sprintf("capacity %s%.0f tuples/s, 95%% CI [%.0f, %.0f] over the %s; %.0f s",
		atLeast, rep.Capacity, rep.CI95[0], rep.CI95[1], rep.CIOver, rep.WallS)))
	return err
}

// worst is the most extreme of f over the windows (sign -1 flips a minimum into a maximum).
func worst(ws []capacity.Window, f func(capacity.Window) float64, sign float64) reports.Cell {
	if len(ws) == 0 {
		return reports.Text("-")
	}
	x := f(ws[0])
	for _, w := range ws[1:] {
		x = max(x, f(w))
	}
	return reports.Number(sign * x)
}

func lagGrowth(ws []capacity.Window) reports.Cell {
	if len(ws) < 2 {
		return reports.Text("-")
	}
	return reports.Number(ws[len(ws)-1].SendLagP50Ms - ws[0].SendLagP50Ms)
}

func sustainableText(st capacity.Step) string {
	if st.Sustainable {
		return "yes"
	}
	return "no: " + st.Why
}
