package experiments

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
)

// Metric is one measured quantity of an experiment. Name is used in file
// names and CSV headers (snake_case); Label on plot axes and table headers.
type Metric struct {
	Name  string
	Label string
}

// Spec declares an experiment.
type Spec struct {
	Name        string // registry name, e.g. "kpart-mul"; also the output folder
	Description string // one line
	Source      string // paper and figure it reproduces, e.g. "000_1e4e00aeded315e8.txt Fig. 5"
	Setup       string // what is run, for notes.md (graphs, k, repetitions, seeds)
	SeriesLabel string // table header for the series column, e.g. "algorithm"
	XName       string // table/CSV header for x, e.g. "k"
	XLabel      string // plot x axis label
	Metrics     []Metric
	// Run produces the raw rows. It must honour ctx and return an error for
	// anything that went wrong (a scheduler error), never partial results.
	Run func(ctx context.Context, env Env) (*Results, error)
	// Claims checks the paper's qualitative statements against the measured
	// numbers. A claim that does not hold is a finding, not an error.
	Claims func(r *Results, a *Aggregate) []Claim
}

// Env is what a Run gets from the runner.
type Env struct {
	Log io.Writer // progress lines; never nil
	// RawDir is where a run may keep raw samples beyond the rows (per-run
	// worker reports and manifests of cluster runs); "" means keep none.
	RawDir string
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
	Values       map[string]float64
}

// Results are the raw rows of one experiment run.
type Results struct {
	Experiment string
	Metrics    []Metric
	Rows       []Row
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

// Claim is one qualitative statement of a paper, checked on our numbers.
type Claim struct {
	Statement string // what the paper says, e.g. "Mul>0 lowers the std dev"
	Test      string // how we decide, with thresholds
	Holds     bool
	Evidence  string // the measured numbers
}

// Verdict is "holds" or "does not hold".
func (c Claim) Verdict() string {
	if c.Holds {
		return "holds"
	}
	return "does not hold"
}
