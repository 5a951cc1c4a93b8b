package simcluster

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/infra/sim"
)

// ValidationFormat is the version of the validation file.
const ValidationFormat = 1

// Validation is what stands behind a cost model: one run of the sim-validation experiment, which ran
// configurations the costs were not measured on both on a real cluster and in the simulator and
// measured how far apart they came out. The experiment writes it (WriteValidation); a cost model that
// ships carries its own beside it (costs/NAME.validation.json), and every simulated cluster charged by
// that model reports it (Describe), marking a cluster larger than any validated one as extrapolated.
// docs/simulator.md documents the file.
type Validation struct {
	Format int `json:"format"`
	// Results is the sim-validation results folder's name, Date (YYYY-MM-DD) and Commit when and at
	// which commit it ran.
	Results string `json:"results"`
	Date    string `json:"date"`
	Commit  string `json:"commit"`
	// CostModel and CostCommit name the validated cost model (its name and its provenance's commit): a
	// model measured again is another model, and this validation does not stand behind it.
	CostModel  string `json:"cost_model"`
	CostCommit string `json:"cost_commit"`
	// RealCluster is the real cluster the simulated runs were compared with (containers:SHAPE, a target).
	RealCluster    string                   `json:"real_cluster"`
	Configurations []ValidatedConfiguration `json:"configurations"`
	Errors         ValidationErrors         `json:"errors"`
	// Largest is the largest validated cluster (every configuration's cluster is at most as large).
	Largest ClusterSize `json:"largest"`
}

// ValidatedConfiguration is one configuration sim-validation ran, with its errors: |simulated − real| /
// real of the means over runs, as fractions (0.1 = 10%).
type ValidatedConfiguration struct {
	Name       string      `json:"name"` // e.g. "wordcount x heterogeneous-2 x 50% x 0 ms"
	Topology   string      `json:"topology"`
	Shape      string      `json:"shape"`    // the real cluster's shape, and the simulated cluster's
	Load       string      `json:"load"`     // the offered load: a fraction of capacity, or "saturation"
	DelayMs    float64     `json:"delay_ms"` // the emulated link delay
	Schedulers []string    `json:"schedulers"`
	Size       ClusterSize `json:"size"`
	Throughput float64     `json:"throughput_error"`
	LatencyP50 float64     `json:"latency_p50_error"`
	LatencyP99 float64     `json:"latency_p99_error"`
}

// ValidationErrors are the errors over all configurations, as fractions: the throughput's mean
// absolute percentage error, and the latency percentiles' median errors.
type ValidationErrors struct {
	ThroughputMAPE float64 `json:"throughput_mape"`
	LatencyP50     float64 `json:"latency_p50_median_error"`
	LatencyP99     float64 `json:"latency_p99_median_error"`
}

// ClusterSize is a cluster's nodes and total cores.
type ClusterSize struct {
	Nodes int     `json:"nodes"`
	Cores float64 `json:"cores"`
}

// Summarize fills v's Errors and Largest from its configurations, as the file defines them: the
// throughput's mean absolute percentage error, the latency percentiles' median errors, the largest
// cluster (the most nodes and the most cores of any configuration). sim-validation calls it before
// WriteValidation.
func (v *Validation) Summarize() {
	var tp, p50, p99 []float64
	v.Largest = ClusterSize{}
	for _, c := range v.Configurations {
		tp, p50, p99 = append(tp, c.Throughput), append(p50, c.LatencyP50), append(p99, c.LatencyP99)
		v.Largest.Nodes = max(v.Largest.Nodes, c.Size.Nodes)
		v.Largest.Cores = max(v.Largest.Cores, c.Size.Cores)
	}
	v.Errors.ThroughputMAPE, _ = stats.Mean(tp)
	v.Errors.LatencyP50, _ = stats.Median(p50)
	v.Errors.LatencyP99, _ = stats.Median(p99)
}

// WriteValidation writes v as indented JSON, after the checks ReadValidation makes: a file that would
// not read back is not written.
func WriteValidation(w io.Writer, v Validation) error {
	if v.Format == 0 {
		v.Format = ValidationFormat
	}
	if err := v.check(); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ReadValidation reads and checks a validation file.
func ReadValidation(r io.Reader) (Validation, error) {
	var v Validation
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return Validation{}, fmt.Errorf("validation: %w (the sim-validation experiment writes it)", err)
	}
	return v, v.check()
}

// check refuses a validation that could not stand behind anything: no results named, no cost model,
// no configuration, errors that are not fractions >= 0, a largest cluster smaller than one validated.
func (v Validation) check() error {
	if v.Format != ValidationFormat {
		return fmt.Errorf("validation %q: format %d, this stormlab reads format %d: run sim-validation again", v.Results, v.Format, ValidationFormat)
	}
	if v.Results == "" || v.Date == "" || v.Commit == "" || v.CostModel == "" {
		return fmt.Errorf("validation: results %q, date %q, commit %q, cost model %q: give all four (the sim-validation results folder, when and at which commit it ran, the model it validated)", v.Results, v.Date, v.Commit, v.CostModel)
	}
	if len(v.Configurations) == 0 {
		return fmt.Errorf("validation %s: no configuration: give the configurations sim-validation ran", v.Results)
	}
	e := v.Errors
	if !fraction(e.ThroughputMAPE) || !fraction(e.LatencyP50) || !fraction(e.LatencyP99) {
		return fmt.Errorf("validation %s: errors %+v: give fractions >= 0 (0.1 = 10%%)", v.Results, e)
	}
	if v.Largest.Nodes < 1 || !(v.Largest.Cores > 0) {
		return fmt.Errorf("validation %s: largest cluster %+v: give its nodes (>= 1) and total cores (> 0)", v.Results, v.Largest)
	}
	for _, c := range v.Configurations {
		if c.Size.Nodes > v.Largest.Nodes || c.Size.Cores > v.Largest.Cores {
			return fmt.Errorf("validation %s: configuration %q ran on %d nodes, %g cores, more than the largest validated %d nodes, %g cores: give the largest",
				v.Results, c.Name, c.Size.Nodes, c.Size.Cores, v.Largest.Nodes, v.Largest.Cores)
		}
		if !fraction(c.Throughput) || !fraction(c.LatencyP50) || !fraction(c.LatencyP99) {
			return fmt.Errorf("validation %s: configuration %q: errors %v, %v, %v: give fractions >= 0", v.Results, c.Name, c.Throughput, c.LatencyP50, c.LatencyP99)
		}
	}
	return nil
}

func fraction(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }

// The standings of a simulated cluster: what its runs' figures are worth.
const (
	NotValidated = "not validated" // no validation stands behind the cost model
	Validated    = "validated"     // the cluster is no larger than the largest validated one
	Extrapolated = "extrapolated"  // it has more nodes than the largest validated cluster
)

//go:embed costs
var costFiles embed.FS

// ShippedValidation is the validation that ships beside the cost model m (costs/NAME.validation.json),
// or nil when there is none.
func ShippedValidation(m *sim.CostModel) (*Validation, error) {
	return validationIn(costFiles, "costs/"+m.Name+".validation.json", "the validation shipped with cost model "+m.Name)
}

// validationOf is the validation that stands behind model m: for a model read from a file (file, not
// ""), the record `stormlab sim validate` or the sim-validation experiment wrote, kept beside it as
// FILE.validation.json (FILE without its .json), as the shipped models keep theirs (nil when there is
// none); else the one shipped with m (ShippedValidation).
func validationOf(m *sim.CostModel, file string) (*Validation, error) {
	if file == "" {
		return ShippedValidation(m)
	}
	path := strings.TrimSuffix(file, ".json") + ".validation.json"
	return validationIn(os.DirFS(filepath.Dir(path)), filepath.Base(path), path)
}

// validationIn reads the validation file name of fsys (nil when there is none), naming what in errors.
func validationIn(fsys fs.FS, name, what string) (*Validation, error) {
	f, err := fsys.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := ReadValidation(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return &v, nil
}

// standing is what v says of a simulated cluster of n nodes charged by m: its standing, and the
// sentence that says so (the Validation of its Source).
func standing(v *Validation, m *sim.CostModel, nodes int) (string, string) {
	switch {
	case v == nil:
		return NotValidated, fmt.Sprintf("not validated: no sim-validation results stand behind cost model %s (stormlab experiment sim-validation; docs/simulator.md)", m.Name)
	case v.CostModel != m.Name || v.CostCommit != m.Provenance.Commit:
		return NotValidated, fmt.Sprintf("not validated: the validation %s is of cost model %s measured at commit %s, not of %s measured at %s",
			v.Results, v.CostModel, short(v.CostCommit), m.Name, short(m.Provenance.Commit))
	case nodes > v.Largest.Nodes:
		return Extrapolated, fmt.Sprintf("extrapolated beyond the validated %d nodes (this cluster has %d): %s", v.Largest.Nodes, nodes, v.summary())
	}
	return Validated, "validated: " + v.summary()
}

// summary is one sentence of v: where it comes from, what it covered and the errors it measured.
func (v *Validation) summary() string {
	e := v.Errors
	return fmt.Sprintf("sim-validation %s (%s, commit %s) against %s, %d configurations: throughput MAPE %.1f%%, latency p50 error %.1f%%, p99 error %.1f%% (medians over configurations); largest validated cluster %d nodes, %g cores",
		v.Results, v.Date, short(v.Commit), v.RealCluster, len(v.Configurations), 100*e.ThroughputMAPE, 100*e.LatencyP50, 100*e.LatencyP99, v.Largest.Nodes, v.Largest.Cores)
}

func short(commit string) string { return commit[:min(len(commit), 12)] }
