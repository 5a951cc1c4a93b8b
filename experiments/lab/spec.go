package lab

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/stormlab/stormlab/infra/clusterref"

	"gonum.org/v1/plot/vg"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/reports/metric"
)

// Metric is one measured quantity of an experiment. Name is used in file
// names and CSV headers (snake_case); Label on plot axes and table headers.
type Metric struct {
	Name  string
	Label string
	// Optional: measured in some cells only (latency from the intended send
	// time exists in open-loop cells, not in unpaced ones). A row may leave
	// it out, never hold NaN; its cells then read "n/a" and feed no figure
	// point. A required metric missing from a row fails the experiment.
	Optional bool
	// Signed: the quantity can be negative (a loss against a level that a
	// run can exceed). Every other metric is a count, rate, time or share,
	// and its figures stop a lower error bar at 0 (reports.LinePlot.NonNegative).
	Signed bool
}

// Spec declares an experiment.
type Spec struct {
	Name        string // registry name, e.g. "kpart-mul"; also the output folder
	Description string // one line
	Paper       string // key in Papers of the paper it reproduces ("" if none)
	Source      string // Cite(Paper, figure): authors, title, year and figure
	Setup       string // what is run, for notes.md (graphs, k, repetitions, seeds)
	SeriesLabel string // table header for the series column, e.g. "algorithm"
	XName       string // table/CSV header for x, e.g. "k"
	XLabel      string // plot x axis label
	// XConditions: the x values are separate conditions, not points of a
	// curve (kpart-cluster's 0 = unpaced and 0.5 = open loop), so the
	// figures draw markers and intervals without lines between them.
	XConditions bool
	Metrics     []Metric
	// Unit is the statistical unit of the design: UnitRun ("", the
	// default: every repetition is an independent run, as on a cluster) or
	// UnitInstance (repetitions on one graph are averaged into one value).
	// Tables, manifest.json and stormlab compare count n in it.
	Unit string
	// Panel, when set, splits tables and figures by a key of the row (the
	// spd experiment: regime and c, which its claims keep apart); its
	// table column is headed PanelLabel.
	Panel      func(Row) string
	PanelLabel string
	// PaperCluster names the simulated cluster (harness/simcluster) of the paper's testbed: its full
	// scale runs there in the simulator with --cluster sim:paper. "" when it has none.
	PaperCluster string
	// Needs is what it needs from a cluster and why; Cost its expected
	// wall time per scale. `stormlab experiment list`, --cluster target:FILE and
	// the README's table read them; CheckSpec requires both.
	Needs Needs
	Cost  Cost
	// Scales are its typed knobs per scale (nil: the same work at every
	// scale); a scale missing here is one it does not run at.
	Scales map[string]ScaleKnobs
	// Extra names the files it writes beside the framework's (time
	// series, per-node tables, extra figures), for the README and notes.
	Extra []string
	// TakesCalibration: its open-loop cells offer fractions of a reference
	// rate, which Env.Calibration (--calibration) can state instead of the
	// experiment measuring it.
	TakesCalibration bool
	// FixedReps, when set, says why --reps does not apply to this graph
	// experiment (e.g. every instance runs once: its algorithms are
	// deterministic or seeded per instance).
	FixedReps string
	// OnReplay, when set, builds the experiment on a topology of the
	// user's: file is a topology captured with `stormlab capture`, already
	// read back, and warnings what reading it said. nil: the experiment
	// runs its own topologies only.
	OnReplay func(file string, warnings []string) *Spec
	// Run produces the raw rows. It must honour ctx and return an error for
	// anything that went wrong (a scheduler error), never partial results.
	Run func(ctx context.Context, env Env) (*Results, error)
	// Claims states the paper's qualitative statements (and sanity
	// checks) with their statistical checks on the measured numbers; the
	// runner judges them (JudgeClaims). A claim that does not hold is a
	// finding, not an error. This is the only place an experiment judges.
	Claims func(r *Results, a *Aggregate) []Claim
}

// Env is what a Run gets from the runner.
type Env struct {
	Log io.Writer // progress lines; never nil
	// RawDir is where a run may keep raw samples beyond the rows (per-run
	// worker reports and manifests of cluster runs); "" means keep none.
	RawDir string
	// Scale names the scale (ci, quick, full) the experiment runs under.
	Scale string
	// Cluster is where a cluster experiment runs: containers of its own
	// shapes (the zero value) or an existing cluster (Cluster.Target).
	Cluster clusterref.Ref
	// Kinds opens clusters (Kinds.Open with Cluster as the spec's Where)
	// and says what they offer (Kinds.Caps): never nil in a Run.
	Kinds harness.Kinds
	// Progress hears of long runs (run i of N, phase); nil means none.
	Progress reports.Progress
	// Resume: runs already kept under RawDir (finished before an
	// interruption) are read back instead of run again.
	Resume bool
	// Reps, when > 0, replaces the scale's repetitions per cell (cluster
	// experiments) or the algorithm's repetitions per instance (graph
	// experiments, unless their Spec.FixedReps says why not).
	Reps int
	// Seed, when > 0, is added to every instance seed of a graph experiment:
	// other graphs than the published ones, of the same kind (0 = those).
	Seed uint64
	// Instances, when > 0, replaces a graph experiment's generated instances
	// per cell (more graphs, more units, more power).
	Instances int
	// Calibration, when > 0, is the reference rate in tuples/s that the
	// open-loop cells offer fractions of, stated by the user instead of
	// measured by the experiment (its calibration runs or capacity search
	// are skipped): the same offered loads across runs of an experiment, or
	// a capacity measured once with `stormlab capacity`. Only the
	// experiments with Spec.TakesCalibration read it.
	Calibration float64
	// TopologyConf are Storm settings ("key=value") every topology of a cluster experiment gets after
	// its own arguments, as --conf to its main (the real runs' and their simulated twins'; not the
	// background load's burners): a user's variation of the testbed, e.g. idle bolts that sleep at
	// once (topology.bolt.wait.progressive.level2.count=0). CheckTopologyConf checks them.
	TopologyConf []string
}

// Row is one run: one series (algorithm) at one x, one repetition.
type Row struct {
	Experiment   string
	Series       string  // algorithm / scheduler label
	X            float64 // value on the x axis (Mul, k, edges, ...)
	Instance     int     // problem instance (graph number) at this x
	InstanceSeed uint64  // seed that generated the instance
	Rep          int     // repetition on the instance
	Seed         uint64  // seed of the algorithm in this repetition
	// Offered is the offered load of a cluster run ("paced: one tuple per
	// 20 ms per spout task", "unpaced (saturation)", "bounded dataset"),
	// reported beside the cell; "" for graph experiments.
	Offered string
	Values  map[string]float64
	// Validity is the run's judgement (harness's judge, run.json
	// "validity"); the zero value (graph experiments: nothing to judge)
	// counts as valid. An invalid run feeds no table and no claim; a run
	// suspect for a metric (Validity.Doubts) stays in the tables but feeds
	// no claim on that metric (RunUnits leaves it out, ScreenRuns names it).
	Validity harness.Validity
	// NotMeasured names the inputs the run's scheduler decisions needed
	// but the workers did not measure (the decisions' not_measured in
	// run.json; experiments.inputsNotMeasured): a claim on the
	// run is inconclusive (ScreenRuns).
	NotMeasured []string
	// Bottleneck is what limited the run and Limit the precedence step that named it (its
	// diagnosis, run.json "diagnosis"); "" for graph experiments.
	Bottleneck, Limit string
	Diag              RunDiagnosis // the diagnosis's other figures a claim's why line compares
}

// Figure is an extra figure of a run: files Name + reports.FigureFiles
// suffixes, and its caption in Name.txt and Name.tex.
type Figure struct {
	Name string
	Plot interface {
		WriteSize(w io.Writer, format string, width, height vg.Length) error
		CaptionText() string
	}
}

// Statistical units of a design (Spec.Unit).
const (
	UnitRun      = metric.UnitRun
	UnitInstance = metric.UnitInstance
)

// Results are the raw rows of one experiment run.
type Results struct {
	Experiment string
	Metrics    []Metric
	Unit       string // the Spec's Unit ("": UnitRun), set by Run
	Rows       []Row
	// Scale names the scale the rows were measured under ("" for
	// experiments without scales).
	Scale string
	// NoVerdict, when set, is why no claim may be decided on these rows
	// (the ci scale's single repetition); every claim is then reported
	// inconclusive with this reason.
	NoVerdict string
	// Figures are extra figures a run draws beside the per-metric ones
	// (kpart-mul: the balance adjustment's trace on one graph).
	Figures []Figure
	// Knobs are the settings of the run (the scale's values, durations,
	// offered load) for manifest.json.
	Knobs map[string]any
	// Files are extra files (time series, per-node tables, extra figures)
	// that Output writes with the others and lists in manifest.json.
	Files []File
}

// Add appends a row, filling in the experiment name.
func (r *Results) Add(row Row) {
	row.Experiment = r.Experiment
	r.Rows = append(r.Rows, row)
}

// Validate reports rows with a missing or non-finite metric: a NaN metric
// means a bug upstream and must fail the experiment.
func (r *Results) Validate() error {
	if len(r.Rows) == 0 {
		return fmt.Errorf("experiment %s produced no rows", r.Experiment)
	}
	for i, row := range r.Rows {
		for _, m := range r.Metrics {
			v, ok := row.Values[m.Name]
			if !ok && m.Optional {
				continue
			}
			if !ok {
				return fmt.Errorf("experiment %s row %d (%s, x=%v): metric %s missing", r.Experiment, i, row.Series, row.X, m.Name)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("experiment %s row %d (%s, x=%v, rep %d, seed %d): metric %s is %v", r.Experiment, i, row.Series, row.X, row.Rep, row.Seed, m.Name, v)
			}
		}
	}
	return nil
}

// Values returns the metric's values of one series at the x values that
// keep accepts (nil keeps all), in row order.
func (r *Results) Values(series, metric string, keep func(x float64) bool) []float64 {
	var out []float64
	for _, row := range r.Rows {
		if row.Series == series && (keep == nil || keep(row.X)) {
			out = append(out, row.Values[metric])
		}
	}
	return out
}

// Seeds lists the distinct instance and algorithm seeds, sorted.
func (r *Results) Seeds() (instance, algorithm []uint64) {
	ins, alg := map[uint64]bool{}, map[uint64]bool{}
	for _, row := range r.Rows {
		ins[row.InstanceSeed] = true
		alg[row.Seed] = true
	}
	for s := range ins {
		instance = append(instance, s)
	}
	for s := range alg {
		algorithm = append(algorithm, s)
	}
	sort.Slice(instance, func(i, j int) bool { return instance[i] < instance[j] })
	sort.Slice(algorithm, func(i, j int) bool { return algorithm[i] < algorithm[j] })
	return instance, algorithm
}
