package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
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

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/reports/metric"
	"github.com/stormlab/stormlab/reports/page"
)

// rawFixed are the leading columns of raw.csv (lab.Results.WriteRaw);
// every later column is a metric.
var rawFixed = []string{"experiment", "series", "x", "instance", "instance_seed", "rep", "seed"}

// Key names one compared quantity: a metric in one cell (series, x) of an
// experiment.
type Key struct{ Experiment, Series, X, Metric string }

// Samples holds every value of one results folder by key, and the metric
// order of its files (for a stable, readable row order). Invalid runs
// (harness's judgement, saved in run.json and raw.csv) add no value: they
// are listed in Invalid. Suspect runs add their values and are listed in
// Suspect; SuspectN counts them per key (a run whose figures the
// cross-check with Storm's statistics doubts, for the metrics it doubts).
//
// Inst names the instance of each value (raw.csv's instance and
// instance_seed: a generated graph), "" where there is none. Units holds
// the statistical unit each experiment's folder records (manifest.json's
// "unit"; metric.UnitRun for run.json); an experiment missing there was
// written before units were recorded.
type Samples struct {
	Values   map[Key][]float64
	Inst     map[Key][]string
	Units    map[string]string
	exps     map[string]bool // experiments with a value
	Metrics  []string
	Files    int
	Invalid  []page.RunNote
	Suspect  []page.RunNote
	SuspectN map[Key]int
}

func newSamples() *Samples {
	return &Samples{Values: map[Key][]float64{}, Inst: map[Key][]string{}, Units: map[string]string{}, exps: map[string]bool{}, SuspectN: map[Key]int{}}
}

// add adds a value with no instance (a run).
func (s *Samples) add(k Key, v float64) { s.addAt(k, "", v) }

// addAt adds a value of instance inst.
func (s *Samples) addAt(k Key, inst string, v float64) {
	if !slices.Contains(s.Metrics, k.Metric) {
		s.Metrics = append(s.Metrics, k.Metric)
	}
	s.Values[k] = append(s.Values[k], v)
	s.Inst[k] = append(s.Inst[k], inst)
	s.exps[k.Experiment] = true
}

// addRun adds a value of a run on instance inst, counting it in SuspectN
// when suspect.
func (s *Samples) addRun(k Key, inst string, v float64, suspect bool) {
	s.addAt(k, inst, v)
	if suspect {
		s.SuspectN[k]++
	}
}

// setUnit records exp's unit; two files of one experiment that disagree
// are an error.
func (s *Samples) setUnit(exp, unit string) error {
	if u, ok := s.Units[exp]; ok && u != unit {
		return fmt.Errorf("experiment %s: one results file records the unit %q, another %q: compare one run of it at a time", exp, u, unit)
	}
	s.Units[exp] = unit
	return nil
}

// note lists a run that is not valid; it reports whether the run's values
// count (suspect: yes, invalid: no).
func (s *Samples) note(where string, l harness.Level, reasons string) bool {
	n := page.RunNote{Where: where, Level: string(l), Reasons: reasons}
	switch l {
	case harness.Invalid:
		s.Invalid = append(s.Invalid, n)
		return false
	case harness.Suspect:
		s.Suspect = append(s.Suspect, n)
	}
	return true
}

// reasonsText is "kind: text; ..." as raw.csv's reasons column has it.
func reasonsText(v harness.Validity) string {
	out := make([]string, len(v.Reasons))
	for i, r := range v.Reasons {
		out[i] = string(r.Kind) + ": " + r.Text
	}
	return strings.Join(out, "; ")
}

// ReadDir reads every raw.csv in dir or below it (a suite writes one folder
// per experiment). NaN and empty cells are skipped. A folder without raw.csv
// is read as `stormlab run --out` folders: every run.json below dir is one
// sample of experiment "run", series the scheduler, x the topology.
func ReadDir(dir string) (*Samples, error) {
	if err := isDir(dir, "it holds raw.csv, or run.json of `stormlab run --out`"); err != nil {
		return nil, err
	}
	s := newSamples()
	n, err := walkFiles(dir, "raw.csv", func(rel string, r io.Reader) error {
		unit, err := readUnit(filepath.Join(dir, filepath.Dir(rel), "manifest.json"))
		if err != nil {
			return err
		}
		return s.readRaw(r, unit)
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		if n, err = walkFiles(dir, "run.json", s.readRun); err != nil {
			return nil, err
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("no raw.csv or run.json in %s or below: give a folder `stormlab experiment NAME --out DIR` or `stormlab run --out DIR` wrote", dir)
	}
	s.Files = n
	return s, nil
}

func isDir(dir, holds string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("results folder: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("results folder %s is a file: give the folder an experiment or a suite wrote (%s)", dir, holds)
	}
	return nil
}

// walkFiles calls read on every file called name in dir or below (with its
// path relative to dir), in lexical order, and returns how many it read. An
// error names the file.
func walkFiles(dir, name string, read func(rel string, r io.Reader) error) (int, error) {
	n := 0
	// A symbolic link to a folder (a nightly's baseline) is walked as the
	// folder: WalkDir does not follow a link, not even at the root.
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return 0, fmt.Errorf("results folder: %w", err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != name {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		n++
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if err := read(rel, f); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, rel), err) // as the user named it
		}
		return nil
	})
	return n, err
}

// runFields are the measurement fields of run.json compare reads, by
// metric name (harness.Measurement's JSON names).
var runFields = []string{"throughput", "latency_mean_ms", "latency_p99_ms", "cut_rate", "balance", "inter_node_rate", "processing_ms", "qos_rate"}

// readRun adds one `stormlab run` result (run.json, at rel) as a sample. A
// file without a spec naming the scheduler and a measurement with a
// throughput is refused: it would otherwise read as a run with every metric
// 0. An invalid run adds no value (Samples.Invalid names it); a suspect one
// is marked on the metrics its reasons doubt (harness.Validity.Doubts).
func (s *Samples) readRun(rel string, r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	var shape struct {
		Spec        *struct{ Scheduler string } `json:"spec"`
		Measurement map[string]json.RawMessage  `json:"measurement"`
	}
	if err := json.Unmarshal(b, &shape); err != nil {
		return fmt.Errorf("not a run.json of `stormlab run`: %w", err)
	}
	if _, ok := shape.Measurement["throughput"]; !ok || shape.Spec == nil || shape.Spec.Scheduler == "" {
		return errors.New(`not a run.json of ` + "`stormlab run`" + `: it needs "spec" with a "Scheduler" and "measurement" with a "throughput"`)
	}
	var res harness.RunResult
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&res); err != nil {
		return fmt.Errorf("not a run.json of `stormlab run`: %w", err)
	}
	m := res.Measurement
	vals := map[string]float64{"throughput": m.Throughput, "latency_mean_ms": m.LatencyMean, "latency_p99_ms": m.LatencyP99,
		"cut_rate": m.CutRate, "balance": m.Balance, "inter_node_rate": m.InterNodeRate}
	if m.Deadlines > 0 {
		vals["processing_ms"], vals["qos_rate"] = m.ProcessingMs, m.QoSRate
	}
	x := res.Spec.Topology.MainClass
	if i := strings.LastIndexByte(x, '.'); i >= 0 {
		x = x[i+1:]
	}
	exp := runExperiment(res.Spec.Faults)
	if !s.note(fmt.Sprintf("%s/%s/x=%s (%s)", exp, res.Spec.Scheduler, x, rel), res.Validity.Level, reasonsText(res.Validity)) {
		return nil
	}
	for _, name := range runFields {
		if v, ok := vals[name]; ok && !math.IsNaN(v) {
			s.addRun(Key{exp, res.Spec.Scheduler, x, name}, "", v, res.Validity.Doubts(name))
		}
	}
	return s.setUnit(exp, metric.UnitRun) // each run.json is a run of its own
}

// runExperiment: a run with faults is its own experiment, never pooled with
// fault-free runs.
func runExperiment(faults []fault.Fault) string {
	if len(faults) == 0 {
		return "run"
	}
	fs := make([]string, len(faults))
	for i, f := range faults {
		fs[i] = f.String()
	}
	return "run with faults " + strings.Join(fs, " ")
}

// readRaw adds the rows of one raw.csv (experiments' Results.WriteRaw). A
// file with the validity and reasons columns leaves its invalid rows out
// (Samples.Invalid names them) and marks its suspect rows on every metric
// (raw.csv does not say which metrics a reason doubts); a file written
// before those columns reads as all valid. unit is what the folder's
// manifest.json records ("" for none).
func (s *Samples) readRaw(r io.Reader, unit string) error {
	cr := csv.NewReader(r)
	hdr, err := cr.Read()
	if err != nil {
		return fmt.Errorf("read header: %w", err)
	}
	first := len(rawFixed)
	if len(hdr) > first+1 && slices.Equal(hdr[first:first+2], rawValidity) {
		first += 2
	}
	if len(hdr) <= first || !slices.Equal(hdr[:len(rawFixed)], rawFixed) {
		return fmt.Errorf("header %q is not %s (then %s) followed by metrics: not a raw.csv of stormlab experiments",
			strings.Join(hdr, ","), strings.Join(rawFixed, ","), strings.Join(rawValidity, ","))
	}
	metrics := hdr[first:]
	for _, m := range metrics {
		if !slices.Contains(s.Metrics, m) {
			s.Metrics = append(s.Metrics, m)
		}
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := s.readRawRow(rec, first, metrics, line); err != nil {
			return err
		}
		if unit != "" {
			if err := s.setUnit(rec[0], unit); err != nil {
				return err
			}
		}
	}
}

// readUnit is the statistical unit a results folder's manifest.json
// records, "" when there is no manifest or it names none (a folder written
// before units were recorded). An unknown unit is an error.
func readUnit(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var m struct{ Unit string }
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("%s: not a manifest.json of stormlab experiments: %w", path, err)
	}
	if m.Unit == "" {
		return "", nil
	}
	if err := metric.CheckUnit(m.Unit); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return m.Unit, nil
}

// rawValidity are the columns after rawFixed that hold a row's validity.
var rawValidity = []string{"validity", "reasons"}

// readRawRow adds one raw.csv record whose metrics start at column first.
func (s *Samples) readRawRow(rec []string, first int, metrics []string, line int) error {
	suspect := false
	if first > len(rawFixed) {
		lvl := harness.Level(rec[len(rawFixed)])
		if lvl != harness.Valid && lvl != harness.Suspect && lvl != harness.Invalid {
			return fmt.Errorf("line %d, column validity: %q is not valid, suspect or invalid", line, rec[len(rawFixed)])
		}
		if !s.note(fmt.Sprintf("%s/%s/x=%s rep %s", rec[0], rec[1], rec[2], rec[5]), lvl, rec[len(rawFixed)+1]) {
			return nil
		}
		suspect = lvl == harness.Suspect
	}
	for j, m := range metrics {
		cell := rec[first+j]
		if cell == "" {
			continue
		}
		v, err := strconv.ParseFloat(cell, 64)
		if err != nil {
			return fmt.Errorf("line %d, column %s: %q is not a number", line, m, cell)
		}
		if !math.IsNaN(v) {
			s.addRun(Key{rec[0], rec[1], rec[2], m}, rec[3]+"/"+rec[4], v, suspect)
		}
	}
	return nil
}

// ReadClaimsDir reads every claims.json in dir or below it with
// reports.ReadClaimsFile, the decoder the HTML page uses too.
func ReadClaimsDir(dir string) ([]reports.ClaimsFile, error) {
	if err := isDir(dir, "it holds claims.json"); err != nil {
		return nil, err
	}
	var out []reports.ClaimsFile
	n, err := walkFiles(dir, "claims.json", func(_ string, r io.Reader) error {
		cf, err := reports.ReadClaimsFile(r)
		out = append(out, cf)
		return err
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("no claims.json in %s or below: give a folder an experiment or a suite wrote (`stormlab experiment ... --out DIR`, or $STORMLAB_OUT of `go test ./experiments`)", dir)
	}
	return out, nil
}

// lessX orders x values numerically when both are numbers.
func lessX(a, b string) bool {
	xa, ea := strconv.ParseFloat(a, 64)
	xb, eb := strconv.ParseFloat(b, 64)
	if ea == nil && eb == nil && xa != xb {
		return xa < xb
	}
	return a < b
}
