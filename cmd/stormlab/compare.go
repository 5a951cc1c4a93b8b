package main

import (
	"encoding/csv"
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
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stormlab/stormlab/reports"
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
// folder per experiment). NaN and empty cells are skipped.
func readRawDir(dir string) (*rawSamples, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("results folder %s is a file: give the folder an experiment wrote (it holds raw.csv)", dir)
	}
	rs := &rawSamples{values: map[sampleKey][]float64{}}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != "raw.csv" {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rs.files++
		if err := rs.read(f); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rs.files == 0 {
		return nil, fmt.Errorf("no raw.csv in %s or below: give a folder `stormlab experiment NAME --out DIR` wrote", dir)
	}
	return rs, nil
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

// welch is Welch's unequal-variance t-test of the means of a and b:
// t = (mean(b) - mean(a)) / sqrt(var(a)/na + var(b)/nb) with sample
// variances, df by Welch-Satterthwaite, two-sided p from Student's t
// (gonum distuv; df need not be an integer). ok is false when either side
// has fewer than 2 values. Two constant samples give p = 1 if their means
// are equal and p = 0 otherwise (the difference is exact).
func welch(a, b []float64) (p float64, ok bool) {
	na, nb := float64(len(a)), float64(len(b))
	if na < 2 || nb < 2 {
		return math.NaN(), false
	}
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	se2 := va/na + vb/nb
	if se2 == 0 {
		if ma == mb {
			return 1, true
		}
		return 0, true
	}
	t := (mb - ma) / math.Sqrt(se2)
	df := se2 * se2 / ((va/na)*(va/na)/(na-1) + (vb/nb)*(vb/nb)/(nb-1))
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t)), true
}

// comparison is one row of `stormlab compare`.
type comparison struct {
	key              sampleKey
	nBase, nNew      int
	base, new, ratio float64
	p                float64
	tested           bool
	verdict          string
	regressed        bool
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
		c := comparison{key: k, nBase: len(a), nNew: len(b), base: math.NaN(), new: math.NaN(), ratio: math.NaN(), p: math.NaN()}
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
		c.verdict, c.regressed = verdict(c, metricDirection(k.metric), threshold)
		out = append(out, c)
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
//   - "regressed" / "improved": significant at 95% (Welch) and the relative
//     change exceeds threshold, in the worse / better direction;
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
	if c.p >= 0.05 {
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

// comparisonTable renders the rows with the reports package.
func comparisonTable(title string, rows []comparison) *reports.Table {
	t := &reports.Table{
		Title: title,
		Columns: []string{"experiment", "series", "x", "metric", "n base", "base mean", "n new", "new mean",
			"new/base", "p (Welch)", "significant", "verdict"},
	}
	for _, c := range rows {
		sig, p := reports.Text("n/a"), reports.Text("n/a")
		if c.tested {
			p = reports.Text(strconv.FormatFloat(c.p, 'g', 3, 64))
			sig = reports.Text("no")
			if c.p < 0.05 {
				sig = reports.Text("yes")
			}
		}
		t.AddRow(reports.Text(c.key.experiment), reports.Text(c.key.series), reports.Text(c.key.x), reports.Text(c.key.metric),
			reports.Textf("%d", c.nBase), numberOrDash(c.base), reports.Textf("%d", c.nNew), numberOrDash(c.new),
			numberOrDash(c.ratio), p, sig, reports.Text(c.verdict))
	}
	return t
}

func newCompareCmd() *cobra.Command {
	var (
		metrics   []string
		threshold float64
		failOnReg bool
		format    string
	)
	cmd := &cobra.Command{
		Use:   "compare BASE_DIR NEW_DIR [--metric M]... [--threshold 0.05] [--fail-on-regression]",
		Short: "Compare two experiment result folders (raw.csv): means, ratio, Welch's t-test, verdict",
		Long: "compare reads every raw.csv in BASE_DIR and NEW_DIR (an experiment's folder or a suite's) and\n" +
			"prints, per experiment / series / x / metric, both means, new/base and whether the difference is\n" +
			"significant (Welch's t-test, 95%; n/a with a single value on a side). Verdicts: latency*, cut_rate,\n" +
			"balance, std, max_dev, qos_rate, processing_ms are lower-is-better, throughput higher-is-better;\n" +
			"other metrics get none. A significant change beyond --threshold (relative) is improved or\n" +
			"regressed; with --fail-on-regression any regression exits 1.",
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
			if format != "table" && format != "markdown" && format != "csv" {
				return fmt.Errorf("unknown --format %q: use table, markdown or csv", format)
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
			rows := compareSamples(base, nw, metrics, threshold)
			t := comparisonTable(fmt.Sprintf("compare %s -> %s (threshold %g)", args[0], args[1], threshold), rows)
			w := cmd.OutOrStdout()
			switch format {
			case "markdown":
				err = t.WriteMarkdown(w)
			case "csv":
				err = t.WriteCSV(w)
			default:
				err = t.WriteText(w)
			}
			if err != nil {
				return failed(err)
			}
			var reg []string
			for _, c := range rows {
				if c.regressed {
					reg = append(reg, fmt.Sprintf("%s/%s/x=%s/%s", c.key.experiment, c.key.series, c.key.x, c.key.metric))
				}
			}
			fmt.Fprintf(w, "%d compared, %d regressed\n", len(rows), len(reg))
			if failOnReg && len(reg) > 0 {
				return failed(fmt.Errorf("%d significant regressions beyond %g: %s", len(reg), threshold, strings.Join(reg, ", ")))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&metrics, "metric", nil, "compare only this metric (repeatable; default all)")
	f.Float64Var(&threshold, "threshold", 0.05, "relative change a significant difference must exceed to be a verdict")
	f.BoolVar(&failOnReg, "fail-on-regression", false, "exit 1 when a metric with a direction regressed significantly beyond --threshold")
	f.StringVar(&format, "format", "table", "output: table, markdown or csv")
	return cmd
}
