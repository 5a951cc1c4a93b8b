package main

import (
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
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/stat"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/reports/page"
)

// rawFixed are the leading columns of raw.csv (experiments.Results.WriteRaw);
// every later column is a metric.
var rawFixed = []string{"experiment", "series", "x", "instance", "instance_seed", "rep", "seed"}

// sampleKey names one compared quantity.
type sampleKey struct{ experiment, series, x, metric string }

// rawSamples holds every value of one results folder by key, and the metric
// order of its files (for a stable, readable row order).
type rawSamples struct {
	values  map[sampleKey][]float64
	metrics []string
	files   int
}

// readRawDir reads every raw.csv in dir or below it (a suite writes one
// folder per experiment). NaN and empty cells are skipped. A folder without
// raw.csv is read as `stormlab run --out` folders: every run.json below dir
// is one sample of experiment "run", series the scheduler, x the topology.
func readRawDir(dir string) (*rawSamples, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("results folder %s is a file: give the folder an experiment wrote (it holds raw.csv) or `stormlab run --out` wrote (run.json)", dir)
	}
	rs := &rawSamples{values: map[sampleKey][]float64{}}
	walk := func(name string, read func(io.Reader) error) error {
		return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || d.Name() != name {
				return nil
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			rs.files++
			if err := read(f); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			return nil
		})
	}
	if err := walk("raw.csv", rs.read); err != nil {
		return nil, err
	}
	if rs.files == 0 {
		if err := walk("run.json", rs.readRun); err != nil {
			return nil, err
		}
	}
	if rs.files == 0 {
		return nil, fmt.Errorf("no raw.csv or run.json in %s or below: give a folder `stormlab experiment NAME --out DIR` or `stormlab run --out DIR` wrote", dir)
	}
	return rs, nil
}

// runMetrics are the numbers of a run.json that compare reads, in order.
var runMetrics = []string{"throughput", "latency_mean_ms", "latency_p99_ms", "cut_rate", "balance", "inter_node_rate", "processing_ms", "qos_rate"}

// readRun adds one `stormlab run` result (run.json) as a sample.
func (rs *rawSamples) readRun(r io.Reader) error {
	var res harness.RunResult
	if err := json.NewDecoder(r).Decode(&res); err != nil {
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
	// A run with faults is its own experiment: never pooled with fault-free runs.
	exp := "run"
	if len(res.Spec.Faults) > 0 {
		var fs []string
		for _, f := range res.Spec.Faults {
			fs = append(fs, f.String())
		}
		exp = "run with faults " + strings.Join(fs, " ")
	}
	for _, name := range runMetrics {
		v, ok := vals[name]
		if !ok || math.IsNaN(v) {
			continue
		}
		if !slices.Contains(rs.metrics, name) {
			rs.metrics = append(rs.metrics, name)
		}
		k := sampleKey{exp, res.Spec.Scheduler, x, name}
		rs.values[k] = append(rs.values[k], v)
	}
	return nil
}

func (rs *rawSamples) read(r io.Reader) error {
	cr := csv.NewReader(r)
	hdr, err := cr.Read()
	if err != nil {
		return fmt.Errorf("read header: %w", err)
	}
	if len(hdr) < len(rawFixed) || !slices.Equal(hdr[:len(rawFixed)], rawFixed) {
		return fmt.Errorf("header %q does not start with %s: not a raw.csv of stormlab experiments", strings.Join(hdr, ","), strings.Join(rawFixed, ","))
	}
	metrics := hdr[len(rawFixed):]
	for _, m := range metrics {
		if !slices.Contains(rs.metrics, m) {
			rs.metrics = append(rs.metrics, m)
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
		for j, m := range metrics {
			cell := rec[len(rawFixed)+j]
			if cell == "" {
				continue
			}
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				return fmt.Errorf("line %d, column %s: %q is not a number", line, m, cell)
			}
			if math.IsNaN(v) {
				continue
			}
			k := sampleKey{rec[0], rec[1], rec[2], m}
			rs.values[k] = append(rs.values[k], v)
		}
	}
}

// alpha is the family-wise significance level of compare's verdicts.
const alpha = reports.Alpha

// Direction says whether a metric is better lower or higher.
type direction int

const (
	noDirection direction = iota
	lowerBetter
	higherBetter
)

// metricDirection: latency*, cut_rate, balance, std, max_dev, qos_rate and
// processing_ms are lower-is-better, throughput higher-is-better; any other
// metric gets no verdict.
func metricDirection(m string) direction {
	switch {
	case strings.HasPrefix(m, "latency"), m == "cut_rate", m == "balance", m == "std", m == "max_dev",
		m == "qos_rate", m == "processing_ms":
		return lowerBetter
	case m == "throughput":
		return higherBetter
	}
	return noDirection
}

// welch is the two-sided p of Welch's unequal-variance t-test of the means
// of a and b (reports.Welch, the test of the experiments' verdicts). ok is
// false when either side has fewer than 2 values. Two constant samples give
// p = 1 if their means are equal and p = 0 otherwise (the difference is
// exact).
func welch(a, b []float64) (p float64, ok bool) {
	r, err := reports.Welch(b, a)
	if err != nil {
		return math.NaN(), false
	}
	return r.PTwoSided, true
}

// comparison is one row of `stormlab compare`.
type comparison struct {
	key              sampleKey
	nBase, nNew      int
	base, new, ratio float64
	baseCI, newCI    float64 // 95% CI half widths (Student's t); NaN with fewer than 2 values
	p                float64 // Welch, two-sided
	pAdj             float64 // Holm-corrected over every tested row with a direction
	tested           bool
	verdict          string
	regressed        bool
}

// changed: a verdict other than "same" or "-" (no direction).
func (c comparison) changed() bool { return c.verdict != "same" && c.verdict != "-" }

// ci95 is the half width of the 95% CI of the mean, NaN below 2 values.
func ci95(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	s, err := reports.Summarize(xs)
	if err != nil {
		return math.NaN()
	}
	return s.CI95
}

// compareSamples compares every key present in base or new (restricted to
// metrics when not empty). threshold is the relative change (|new/base - 1|)
// a significant difference must exceed to count as improved or regressed.
func compareSamples(base, new *rawSamples, metrics []string, threshold float64) []comparison {
	keys := map[sampleKey]bool{}
	for k := range base.values {
		keys[k] = true
	}
	for k := range new.values {
		keys[k] = true
	}
	order := append([]string(nil), base.metrics...)
	for _, m := range new.metrics {
		if !slices.Contains(order, m) {
			order = append(order, m)
		}
	}
	var out []comparison
	for k := range keys {
		if len(metrics) > 0 && !slices.Contains(metrics, k.metric) {
			continue
		}
		a, b := base.values[k], new.values[k]
		c := comparison{key: k, nBase: len(a), nNew: len(b), base: math.NaN(), new: math.NaN(), ratio: math.NaN(), p: math.NaN(),
			baseCI: ci95(a), newCI: ci95(b)}
		if len(a) > 0 {
			c.base = stat.Mean(a, nil)
		}
		if len(b) > 0 {
			c.new = stat.Mean(b, nil)
		}
		if len(a) > 0 && len(b) > 0 && c.base != 0 {
			c.ratio = c.new / c.base
		}
		c.p, c.tested = welch(a, b)
		out = append(out, c)
	}
	// Holm over the rows that can get a verdict: tested, with a direction.
	ps := make([]float64, len(out))
	for i, c := range out {
		ps[i] = math.NaN()
		if c.tested && metricDirection(c.key.metric) != noDirection {
			ps[i] = c.p
		}
	}
	for i, p := range reports.Holm(ps) {
		out[i].pAdj = p
		out[i].verdict, out[i].regressed = verdict(out[i], metricDirection(out[i].key.metric), threshold)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].key, out[j].key
		if a.experiment != b.experiment {
			return a.experiment < b.experiment
		}
		if a.series != b.series {
			return a.series < b.series
		}
		if a.x != b.x {
			xa, ea := strconv.ParseFloat(a.x, 64)
			xb, eb := strconv.ParseFloat(b.x, 64)
			if ea == nil && eb == nil && xa != xb {
				return xa < xb
			}
			return a.x < b.x
		}
		return slices.Index(order, a.metric) < slices.Index(order, b.metric)
	})
	return out
}

// verdict names the change of one row:
//   - "only in base" / "only in new": the other side has no value;
//   - "-": the metric has no known direction;
//   - "regressed" / "improved": significant at 95% (Welch's t-test, p
//     Holm-corrected over all rows with a verdict) and the relative change
//     exceeds threshold, in the worse / better direction;
//   - "worse (untested)" / "better (untested)": beyond threshold but a side
//     has a single value, so no test; never counts as a regression;
//   - "same": everything else.
func verdict(c comparison, dir direction, threshold float64) (string, bool) {
	switch {
	case c.nBase == 0:
		return "only in new", false
	case c.nNew == 0:
		return "only in base", false
	case dir == noDirection:
		return "-", false
	}
	var rel float64
	switch {
	case c.base != 0:
		rel = c.new/c.base - 1
	case c.new == c.base:
		rel = 0
	default:
		rel = math.Inf(1) // from zero: any change is beyond the threshold
	}
	// The tolerance keeps a change of exactly the threshold (21/20 - 1 =
	// 0.05000000000000004 in floating point) at "same".
	if math.Abs(rel) <= threshold+1e-9 {
		return "same", false
	}
	worse := (dir == lowerBetter) == (c.new > c.base)
	if !c.tested {
		if worse {
			return "worse (untested)", false
		}
		return "better (untested)", false
	}
	if !(c.pAdj < alpha) {
		return "same", false
	}
	if worse {
		return "regressed", true
	}
	return "improved", false
}

func numberOrDash(x float64) reports.Cell {
	if math.IsNaN(x) {
		return reports.Text("-")
	}
	return reports.Number(x)
}

// meanCell is "mean ± CI" (CSV: the mean and its "ci95" column, empty with
// a single value), or "-" when the side has no value.
func meanCell(mean, ci float64) reports.Cell {
	if math.IsNaN(mean) {
		return reports.Text("-")
	}
	s := reports.Summary{N: 1, Mean: mean}
	if !math.IsNaN(ci) {
		s.N, s.CI95 = 2, ci
	}
	return reports.Value(s)
}

func pText(p float64, ok bool) reports.Cell {
	if !ok || math.IsNaN(p) {
		return reports.Text("n/a")
	}
	return reports.Text(strconv.FormatFloat(p, 'g', 3, 64))
}

// comparisonTable renders the rows with the reports package.
func comparisonTable(title string, rows []comparison) *reports.Table {
	t := &reports.Table{
		Title: title,
		Columns: []string{"experiment", "series", "x", "metric", "n base", "base mean", "n new", "new mean",
			"new/base", "p (Welch)", "p (Holm)", "verdict"},
	}
	for _, c := range rows {
		ratio := reports.Text("-")
		if !math.IsNaN(c.ratio) {
			ratio = reports.Text(strconv.FormatFloat(c.ratio, 'g', 4, 64))
		}
		t.AddRow(reports.Text(c.key.experiment), reports.Text(c.key.series), reports.Text(c.key.x), reports.Text(c.key.metric),
			reports.Textf("%d", c.nBase), meanCell(c.base, c.baseCI), reports.Textf("%d", c.nNew), meanCell(c.new, c.newCI),
			ratio, pText(c.p, c.tested), pText(c.pAdj, c.tested), reports.Text(c.verdict))
	}
	return t
}

func ptr(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// comparisonJSON is the --format json output, also what the HTML page
// reads from a nightly folder's compare.json.
func comparisonJSON(base, new string, threshold float64, onlyChanged bool, all, shown []comparison) page.Comparison {
	tested := 0
	out := page.Comparison{Base: base, New: new, Threshold: threshold, Alpha: alpha, Compared: len(all), OnlyChange: onlyChanged,
		Rows: []page.CompareRow{}}
	for _, c := range all {
		if !math.IsNaN(c.pAdj) {
			tested++
		}
		if c.changed() {
			out.Changed++
		}
		if c.regressed {
			out.Regressed++
		}
	}
	out.Test = fmt.Sprintf("Welch's t-test, two-sided, Holm-corrected over %d tests, family-wise alpha %g.", tested, alpha)
	for _, c := range shown {
		out.Rows = append(out.Rows, page.CompareRow{
			Experiment: c.key.experiment, Series: c.key.series, X: c.key.x, Metric: c.key.metric,
			NBase: c.nBase, BaseMean: ptr(c.base), BaseCI95: ptr(c.baseCI), NNew: c.nNew, NewMean: ptr(c.new), NewCI95: ptr(c.newCI),
			Ratio: ptr(c.ratio), P: ptr(c.p), PAdjusted: ptr(c.pAdj), Verdict: c.verdict, Changed: c.changed(), Regressed: c.regressed,
		})
	}
	return out
}

// sharedMetrics lists the metrics both sides have.
func sharedMetrics(a, b *rawSamples) []string {
	var out []string
	for _, m := range a.metrics {
		if slices.Contains(b.metrics, m) {
			out = append(out, m)
		}
	}
	return out
}

func newCompareCmd() *cobra.Command {
	var (
		metrics   []string
		threshold float64
		failOnReg bool
		onlyChg   bool
		format    string
		verdicts  bool
	)
	cmd := &cobra.Command{
		Use:   "compare BASE_DIR NEW_DIR [--metric M]... [--threshold 0.05] [--only-changed] [--fail-on-regression] [--verdicts] [--format table|markdown|csv|json]",
		Short: "Compare two result folders (raw.csv or run.json): means with CIs, ratio, Welch + Holm, verdict",
		Long: "compare reads every raw.csv in BASE_DIR and NEW_DIR (an experiment's folder or a suite's; a folder\n" +
			"without raw.csv is read as `stormlab run --out` folders, every run.json one sample) and prints, per\n" +
			"experiment / series / x / metric, both means with their 95% CIs, new/base and whether the\n" +
			"difference is significant (Welch's t-test, p Holm-corrected over all rows with a verdict, family-wise\n" +
			"95%; n/a with a single value on a side). Verdicts: latency*, cut_rate,\n" +
			"balance, std, max_dev, qos_rate, processing_ms are lower-is-better, throughput higher-is-better;\n" +
			"other metrics get none. A significant change beyond --threshold (relative) is improved or\n" +
			"regressed; with --fail-on-regression any regression exits 1.\n\n" +
			"With --verdicts, compare reads every claims.json instead and lists each claim's verdict in both\n" +
			"folders: how often two independent runs of one profile reach the same verdict.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("compare needs BASE_DIR and NEW_DIR (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !(threshold >= 0) || math.IsInf(threshold, 0) {
				return fmt.Errorf("--threshold %v must be a relative change >= 0, e.g. 0.05 for 5%%", threshold)
			}
			if !slices.Contains([]string{"table", "markdown", "csv", "json"}, format) {
				return fmt.Errorf("unknown --format %q: use table, markdown, csv or json", format)
			}
			if verdicts {
				return compareVerdicts(cmd.OutOrStdout(), args[0], args[1], format)
			}
			base, err := readRawDir(args[0])
			if err != nil {
				return fmt.Errorf("base: %w", err)
			}
			nw, err := readRawDir(args[1])
			if err != nil {
				return fmt.Errorf("new: %w", err)
			}
			for _, m := range metrics {
				if !slices.Contains(base.metrics, m) && !slices.Contains(nw.metrics, m) {
					all := append(append([]string(nil), base.metrics...), nw.metrics...)
					slices.Sort(all)
					return fmt.Errorf("unknown --metric %q: the results have %s", m, strings.Join(slices.Compact(all), ", "))
				}
			}
			if len(sharedMetrics(base, nw)) == 0 {
				return fmt.Errorf("%s and %s share no metric (base has %s; new has %s): compare results of the same experiments",
					args[0], args[1], strings.Join(base.metrics, ", "), strings.Join(nw.metrics, ", "))
			}
			rows := compareSamples(base, nw, metrics, threshold)
			shown := rows
			if onlyChg {
				shown = slices.DeleteFunc(slices.Clone(rows), func(c comparison) bool { return !c.changed() })
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				if err := writeJSON(w, comparisonJSON(args[0], args[1], threshold, onlyChg, rows, shown)); err != nil {
					return failed(err)
				}
				return regressions(rows, failOnReg, threshold)
			}
			t := comparisonTable(fmt.Sprintf("compare %s -> %s (threshold %g; mean ± 95%% CI)", args[0], args[1], threshold), shown)
			switch {
			case len(shown) == 0 && format != "csv":
				// --only-changed and nothing changed: no empty table.
				_, err = fmt.Fprintf(w, "compare %s -> %s: no changes\n", args[0], args[1])
			case format == "markdown":
				err = t.WriteMarkdown(w)
			case format == "csv":
				err = t.WriteCSV(w)
			default:
				err = t.WriteText(w)
			}
			if err != nil {
				return failed(err)
			}
			changed, reg := 0, 0
			for _, c := range rows {
				if c.changed() {
					changed++
				}
				if c.regressed {
					reg++
				}
			}
			fmt.Fprintf(w, "%d compared, %d changed, %d regressed\n", len(rows), changed, reg)
			return regressions(rows, failOnReg, threshold)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&metrics, "metric", nil, "compare only this metric (repeatable; default all)")
	f.Float64Var(&threshold, "threshold", 0.05, "relative change a significant difference must exceed to be a verdict")
	f.BoolVar(&onlyChg, "only-changed", false, "show only the rows whose verdict is not \"same\" (improved, regressed, untested changes, one side only)")
	f.BoolVar(&failOnReg, "fail-on-regression", false, "exit 1 when a metric with a direction regressed significantly beyond --threshold")
	f.StringVar(&format, "format", "table", "output: table, markdown, csv or json")
	f.BoolVar(&verdicts, "verdicts", false, "compare the claims' verdicts (claims.json) instead of the metrics, and count how many agree")
	return cmd
}

// readClaimsDir reads every claims.json in dir or below it.
func readClaimsDir(dir string) ([]reports.ClaimsFile, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("results folder %s is a file: give the folder an experiment or a suite wrote (it holds claims.json)", dir)
	}
	var out []reports.ClaimsFile
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "claims.json" {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		cf, err := reports.ReadClaimsFile(f)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, cf)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no claims.json in %s or below: give a folder an experiment or a suite wrote (`stormlab experiment ... --out DIR`, or $STORMLAB_OUT of `go test ./experiments`)", dir)
	}
	return out, nil
}

// compareVerdicts is `compare --verdicts`: every claim's verdict in both
// folders and the count that agree.
func compareVerdicts(w io.Writer, baseDir, newDir, format string) error {
	base, err := readClaimsDir(baseDir)
	if err != nil {
		return fmt.Errorf("base: %w", err)
	}
	nw, err := readClaimsDir(newDir)
	if err != nil {
		return fmt.Errorf("new: %w", err)
	}
	a := reports.CompareVerdicts(base, nw)
	switch t := a.Table(fmt.Sprintf("verdicts %s -> %s", baseDir, newDir)); format {
	case "json":
		out := struct {
			reports.Agreement
			Rate    float64 `json:"rate"`
			Summary string  `json:"summary"`
		}{a, a.Rate(), a.Summary()}
		if err := writeJSON(w, out); err != nil {
			return failed(err)
		}
		return nil
	case "markdown":
		err = t.WriteMarkdown(w)
	case "csv":
		if err := t.WriteCSV(w); err != nil {
			return failed(err)
		}
		return nil
	default:
		err = t.WriteText(w)
	}
	if err != nil {
		return failed(err)
	}
	if format == "markdown" {
		fmt.Fprintln(w) // a line right under a Markdown table would read as a row
	}
	_, err = fmt.Fprintln(w, a.Summary())
	return err
}

// regressions is the --fail-on-regression error (exit 1) naming every
// significant regression.
func regressions(rows []comparison, failOnReg bool, threshold float64) error {
	var reg []string
	for _, c := range rows {
		if c.regressed {
			reg = append(reg, fmt.Sprintf("%s/%s/x=%s/%s", c.key.experiment, c.key.series, c.key.x, c.key.metric))
		}
	}
	if failOnReg && len(reg) > 0 {
		return failed(fmt.Errorf("%d significant regressions beyond %g: %s", len(reg), threshold, strings.Join(reg, ", ")))
	}
	return nil
}
