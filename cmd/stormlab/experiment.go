package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stormlab/stormlab/harness/clusters"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/clusterref"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/stormlab/stormlab/experiments"
	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/reports"
)

// listExperiments is the registry `experiment list` shows (a test adds a
// toy experiment to it).
var listExperiments = experiments.List

// writeExperimentList is `stormlab experiment list`: each experiment's
// needs and expected wall time per scale, from its Spec.
func writeExperimentList(w io.Writer, results string) error {
	t := &reports.Table{Columns: []string{"NAME", "DOCKER", "NEEDS", "CI", "QUICK", "FULL", "LAST RUN", "DESCRIPTION", "REPRODUCES"}}
	docker := map[string]bool{}
	for _, s := range listExperiments() {
		docker[s.Name] = s.Needs.Docker()
		t.AddRow(reports.Text(s.Name), reports.Text(yesNo(s.Needs.Docker())), reports.Text(s.Needs.Need.String()), reports.Text(orUnknown(s.Cost.CI)), reports.Text(orUnknown(s.Cost.Quick)), reports.Text(orUnknown(s.Cost.Full)), reports.Text(lastRun(results, s)), reports.Text(s.Description), reports.Text(cmp.Or(s.Source, experiments.OwnQuestion)))
	}
	for _, s := range experiments.Suites() {
		d := false
		for _, e := range s.Experiments {
			d = d || docker[e]
		}
		t.AddRow(reports.Text(s.Name), reports.Text(yesNo(d)), reports.Text(""), reports.Text(""), reports.Text(""), reports.Text(""), reports.Text(""), reports.Text("suite: "+s.Description), reports.Text(strings.Join(s.Experiments, ", ")))
	}
	if err := writeTable(w, t); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, wrapLines("\nNEEDS: none (in process), cluster (containers or --cluster target:FILE), cluster + control (containers, or a target with a control section), containers (its own).\nCI, QUICK, FULL: expected wall time per --scale on a 2-core machine (cluster experiments: estimates).\nLAST RUN: the wall time of the run in --out (scale, and \"over\" when above its cost by more than x1.5)."))
	return err
}

// lastRun is the wall time of the experiment's run kept under results (its manifest.json), against
// its declared cost: "-" when there is none.
func lastRun(results string, s *lab.Spec) string {
	b, err := os.ReadFile(filepath.Join(results, s.Name, "manifest.json"))
	if err != nil {
		return "-"
	}
	var m lab.Manifest
	if json.Unmarshal(b, &m) != nil || m.WallSeconds <= 0 {
		return "-"
	}
	txt := fmt.Sprintf("%s (%s)", time.Duration(m.WallSeconds*float64(time.Second)).Round(time.Second), m.Scale)
	if d, ok := s.Cost.Budget(m.Scale); ok && m.WallSeconds > lab.OverBudget*d.Seconds() {
		txt += " over"
	}
	return txt
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// orUnknown shows a missing cost as "?" (a registry test fails on it).
func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// targetHelp names the experiments that run on a target and those that refuse.
func targetHelp() string {
	var ok, ctl, refuse []string
	for _, s := range experiments.List() {
		switch {
		case !s.Needs.Docker():
		case s.Needs.On(clusterref.Caps{}) == nil:
			ok = append(ok, s.Name)
		case s.Needs.On(clusterref.Caps{Control: true}) == nil:
			ctl = append(ctl, s.Name)
		default:
			refuse = append(refuse, s.Name)
		}
	}
	verbs := "needs containers of its own and refuses"
	if len(refuse) > 1 {
		verbs = "need containers of their own and refuse"
	}
	help := strings.Join(ok, ", ") + "; with the target file's control section also " + strings.Join(ctl, ", ")
	if len(refuse) == 0 {
		return help
	}
	return help + "; " + strings.Join(refuse, ", ") + " " + verbs + ", saying why"
}

// refuseCluster is the first of names that cannot run on a cluster offering caps, with the reason
// its spec's needs give.
func refuseCluster(names []string, where clusterref.Ref, caps clusterref.Caps) error {
	for _, n := range names {
		spec, err := experiments.Lookup(n)
		if err != nil {
			return err
		}
		if why := spec.Needs.On(caps); why != nil {
			return fmt.Errorf("%s cannot run on --cluster %s: %v; run it with --cluster containers, the default (it starts its own)", n, where, why)
		}
		if where.Kind == simcluster.KindName && where.Arg == simcluster.Paper && spec.Needs.Need >= lab.NeedsCluster && spec.PaperCluster == "" {
			return fmt.Errorf("%s has no paper's cluster to simulate (--cluster sim:paper): give one, e.g. --cluster sim:nodes-16 (stormlab sim clusters)", n)
		}
	}
	return nil
}

// experimentSpec is experiment name, on topology when one is given (experiments.OnTopology); a suite
// takes none.
func experimentSpec(name, topology string, isSuite bool) (*lab.Spec, error) {
	switch {
	case topology == "" && isSuite:
		return nil, nil
	case topology == "":
		return experiments.Lookup(name)
	case isSuite:
		return nil, fmt.Errorf("--topology applies to one experiment (%s), not to the suite %s", strings.Join(experiments.TopologyExperiments(), ", "), name)
	}
	return experiments.OnTopology(name, topology)
}

// isTerminal reports whether w is a terminal (progress bar) rather than a
// file or pipe (plain progress lines).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runExperiment runs one experiment: experiments.Run, replaced by tests that check what a command
// line hands it.
var runExperiment = experiments.Run

// experimentCluster resolves where the experiments names run, from --cluster or the deprecated
// --target, and refuses a target to experiments that need clusters of their own. Each experiment
// keeps its own cluster shapes: a shape is refused.
func experimentCluster(cluster, targetFile string, names []string) (clusterref.Ref, error) {
	if cluster != "" && targetFile != "" {
		return clusterref.Ref{}, fmt.Errorf("--cluster and --target: give one (--cluster target:FILE)")
	}
	if targetFile != "" {
		cluster = "target:" + targetFile
	}
	where, err := clusterref.Resolve(cluster)
	if err != nil {
		return clusterref.Ref{}, err
	}
	if where.Shape != "" {
		return clusterref.Ref{}, fmt.Errorf("--cluster %s: experiments start clusters of their own shapes; give --cluster containers or target:FILE", cluster)
	}
	caps, err := clusters.Kinds().Caps(where)
	if err != nil {
		return clusterref.Ref{}, err
	}
	if !where.IsTarget() && where.Kind != clusterref.Containers {
		if err := checkKind(where); err != nil {
			return clusterref.Ref{}, err
		}
	}
	if err := refuseCluster(names, where, caps); err != nil {
		return clusterref.Ref{}, err
	}
	return where, nil
}

// experimentFlags are the flags of `stormlab experiment`.
type experimentFlags struct {
	out, scale, profile           string
	force, resume                 bool
	reps, instances               int
	seed                          uint64
	calibration                   float64
	cluster, targetFile, topology string
	simCosts                      string   // --sim-costs (withSimCosts)
	topologyConf                  []string // --topology-conf, lab.Env.TopologyConf
}

// experimentPlan is a checked command line: the experiment or suite to run and where.
type experimentPlan struct {
	name    string
	suite   experiments.Suite
	isSuite bool
	names   []string // the experiments it runs
	where   clusterref.Ref
}

func newExperimentCmd() *cobra.Command {
	f := &experimentFlags{out: "results", scale: lab.DefaultScale}
	if d := os.Getenv("STORMLAB_OUT"); d != "" {
		f.out = d
	}
	cmd := &cobra.Command{
		Use:   "experiment NAME|list [--out DIR] [--scale ci|quick|full] [--cluster containers|target:FILE|sim:NAME] [--reps N] [--seed S] [--instances N] [--force | --resume] [--topology replay:FILE] [--calibration TPS] [--topology-conf KEY=VALUE ...]",
		Short: "Run an experiment or suite (files go to DIR/NAME/); `experiment list` lists them",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("experiment needs exactly one NAME (got %d): run `stormlab experiment list` for the names", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, args[0]) },
	}
	f.register(cmd)
	return cmd
}

// register declares the flags on cmd.
func (f *experimentFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.out, "out", f.out, "results base folder, files go to DIR/NAME/ (or $STORMLAB_OUT when set)")
	cmd.Flags().StringVar(&f.scale, "scale", f.scale, "cluster experiments' scale: ci (1 run per cell, no verdicts), quick (3 runs per cell), full (the papers' scale)")
	cmd.Flags().StringVar(&f.cluster, "cluster", "", "where the cluster experiments run: containers (the default; each experiment starts its own shapes), sim:NAME, a simulated cluster (stormlab sim clusters; docs/simulator.md), or target:FILE, an existing Storm cluster: "+targetHelp())
	cmd.Flags().StringVar(&f.simCosts, "sim-costs", "", simCostsHelp)
	cmd.Flags().StringVar(&f.profile, "profile", "", "the scale (deprecated: use --scale)")
	cmd.Flags().StringVar(&f.targetFile, "target", "", "a target file (deprecated: use --cluster target:FILE)")
	deprecate(cmd, "profile", "--scale")
	deprecate(cmd, "target", "--cluster target:FILE")
	cmd.Flags().BoolVar(&f.force, "force", false, "replace the results already in DIR/NAME")
	cmd.Flags().IntVar(&f.reps, "reps", 0, "runs per cell of the cluster experiments (observer: pairs of each of its two comparisons) instead of the scale's, with --resume the kept runs counting towards them, so a finished experiment can be extended; of a graph experiment, the partitions per graph and algorithm")
	cmd.Flags().Uint64Var(&f.seed, "seed", 0, "graph experiments: added to every generated instance's seed, for other graphs of the same kind than the published ones (0: those)")
	cmd.Flags().IntVar(&f.instances, "instances", 0, "graph experiments: generated instances (graphs) per cell instead of the experiment's, for more units and more power")
	cmd.Flags().StringVar(&f.topology, "topology", "", "run the experiment on your topology: replay:FILE, a topology captured with stormlab capture (experiments that take one: "+strings.Join(experiments.TopologyExperiments(), ", ")+")")
	cmd.Flags().Float64Var(&f.calibration, "calibration", 0, "the reference rate `TPS` (tuples/s) that the open-loop cells offer fractions of, instead of measuring it ("+strings.Join(experiments.CalibratedExperiments(), ", ")+": EvenScheduler's saturated throughput, or load-curve's reference capacity, e.g. from stormlab capacity)")
	cmd.Flags().StringArrayVar(&f.topologyConf, "topology-conf", nil, "a Storm setting `KEY=VALUE` every topology of the cluster experiments gets after its own arguments (repeatable; in manifest.json), e.g. topology.bolt.wait.progressive.level2.count=0: idle bolts sleep at once instead of parking, so that on containers of one host an idle node's parking does not cost its neighbour (docs/results-log.md)")
	cmd.Flags().BoolVar(&f.resume, "resume", false, "continue an interrupted experiment: cluster runs already kept in DIR/NAME/runs/ are read back, not run again")
}

// check refuses a bad command line for experiment or suite name before anything runs: an unknown
// name, an unusable --out, a bad scale, topology, calibration, cluster or --reps, and results that
// would be overwritten silently.
func (f *experimentFlags) check(name string) (experimentPlan, error) {
	p := experimentPlan{name: name}
	p.suite, p.isSuite = experiments.LookupSuite(name)
	if !p.isSuite {
		if _, err := experiments.Lookup(name); err != nil {
			return p, err
		}
	}
	// An unusable --out is bad input, found before minutes of runs.
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return p, fmt.Errorf("--out: %w: choose a folder you can write to", err)
	}
	if f.profile != "" {
		f.scale = f.profile // the deprecated --profile
	}
	if err := lab.CheckScale(f.scale); err != nil {
		return p, fmt.Errorf("--scale: %w", err)
	}
	p.names = []string{name}
	if p.isSuite {
		p.names = p.suite.Experiments
	}
	if _, err := experimentSpec(name, f.topology, p.isSuite); err != nil {
		return p, err
	}
	if err := experiments.CheckCalibration(name, f.calibration); err != nil {
		return p, err
	}
	if err := lab.CheckTopologyConf(f.topologyConf); err != nil {
		return p, fmt.Errorf("--topology-conf: %w", err)
	}
	where, err := experimentCluster(f.cluster, f.targetFile, p.names)
	if err != nil {
		return p, err
	}
	if where, err = withSimCosts(where, f.simCosts); err != nil {
		return p, err
	}
	p.where = where
	return p, f.checkReruns(p.names)
}

// checkReruns refuses a bad --reps and, unless --force or --resume says what to do with them,
// results already under --out: never overwrite results silently.
func (f *experimentFlags) checkReruns(names []string) error {
	if f.reps < 0 {
		return fmt.Errorf("--reps %d: give the runs per cell (>= 1; a verdict needs >= %d), or leave it out for the scale's", f.reps, lab.MinVerdictReps)
	}
	if err := f.checkInstances(names); err != nil {
		return err
	}
	if f.force && f.resume {
		return fmt.Errorf("--force and --resume exclude each other: --force starts again, --resume keeps the finished runs")
	}
	if !f.force && !f.resume {
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(f.out, n)); err == nil {
				return fmt.Errorf("%s already holds results: rerun with --resume to keep its finished runs, --force to replace them, or give another --out", filepath.Join(f.out, n))
			}
		}
	}
	return nil
}

// checkInstances refuses --seed, --instances and --reps where the one experiment named cannot take
// them (a suite passes them to the experiments that do, and its log says which ignore them).
func (f *experimentFlags) checkInstances(names []string) error {
	if f.instances < 0 {
		return fmt.Errorf("--instances %d: give the graphs per cell (>= 1), or leave it out for the experiment's", f.instances)
	}
	if len(names) != 1 {
		return nil
	}
	spec, err := experiments.Lookup(names[0])
	if err != nil {
		return err
	}
	switch {
	case spec.Needs.Docker() && (f.seed != 0 || f.instances != 0):
		return fmt.Errorf("--seed and --instances apply to the graph experiments; %s runs on a cluster and has no generated instances: --reps sets its runs per cell", spec.Name)
	case !spec.Needs.Docker() && len(f.topologyConf) > 0:
		return fmt.Errorf("--topology-conf applies to the cluster experiments; %s partitions graphs and runs no topology", spec.Name)
	case !spec.Needs.Docker() && f.reps > 0 && spec.FixedReps != "":
		return fmt.Errorf("--reps does not apply to %s: %s", spec.Name, spec.FixedReps)
	}
	return nil
}

// run is `stormlab experiment NAME`: list, or check the command line and run the experiment or suite.
func (f *experimentFlags) run(cmd *cobra.Command, name string) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if name == "list" {
		return writeExperimentList(stdout, f.out)
	}
	p, err := f.check(name)
	if err != nil {
		return err
	}
	meter := reports.NewMeter(stderr, isTerminal(stderr))
	defer meter.Stop()
	opts := lab.Options{Out: f.out, Log: meter, Scale: f.scale, Cluster: p.where, Progress: meter, Resume: f.resume, Reps: f.reps, Calibration: f.calibration, Seed: f.seed, Instances: f.instances,
		TopologyConf: f.topologyConf}
	if p.isSuite {
		reps, err := experiments.RunSuite(cmd.Context(), p.suite, opts)
		meter.Stop()
		if werr := lab.WriteSuiteSummary(stdout, "suite "+p.suite.Name, reps); werr != nil && err == nil {
			err = werr
		}
		if err != nil {
			return failed(err)
		}
		return nil
	}
	spec, err := experimentSpec(name, f.topology, false)
	if err != nil {
		return err
	}
	rep, err := runExperiment(cmd.Context(), spec, opts)
	meter.Stop()
	if err != nil {
		return failed(err)
	}
	return rep.WriteSummary(stdout)
}
