package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/reports/page"
)

// Method describes how significance is decided, for the output.
func (res Result) Method() string {
	return fmt.Sprintf("n counts the experiment's unit: a run, or an instance (a graph: the mean of its repetitions). "+
		"Rows of instances whose sides hold the same instances: paired t-test on the logs of the per-instance means (the means "+
		"themselves where one is <= 0; differences constant up to rounding decided exactly: none p = 1, else p = 0). "+
		"Other rows, per experiment and metric: moderated t on log values (each series' variance shrunk toward the "+
		"metric's pooled variance; Smyth 2004) when 3 or more series have 2+ units a side, else Welch's t-test; "+
		"two-sided, Holm-corrected over %d tests, family-wise alpha %g.", res.Tests, Alpha)
}

// Counts returns how many rows both sides have (compared), how many of
// them changed and how many fail the gate.
func (res Result) Counts() (compared, changed, failing int) {
	for _, r := range res.Rows {
		if !r.OneSided() {
			compared++
		}
		if r.IsChanged() {
			changed++
		}
		if r.Fails {
			failing++
		}
	}
	return compared, changed, failing
}

// OneSided counts the rows only the base has and those only the new side
// has.
func (res Result) OneSided() (onlyBase, onlyNew int) {
	for _, r := range res.Rows {
		switch {
		case r.NNew == 0:
			onlyBase++
		case r.NBase == 0:
			onlyNew++
		}
	}
	return onlyBase, onlyNew
}

// Summary is the lines under the output: counts, then what is missing,
// new or untested (each line only when there is something to say).
func (res Result) Summary() string {
	compared, changed, failing := res.Counts()
	head := fmt.Sprintf("%d compared, %d changed, %d regressed", compared, changed, failing)
	if ob, on := res.OneSided(); ob+on > 0 {
		head += fmt.Sprintf("; not compared: %d only in base, %d only in new", ob, on)
	}
	lines := []string{head}
	for _, n := range res.Notes {
		lines = append(lines, "unit: "+n)
	}
	if len(res.Missing) > 0 {
		lines = append(lines, "missing in new (fails the gate): "+strings.Join(res.Missing, ", "))
	}
	if len(res.Added) > 0 {
		lines = append(lines, "new (not in base): "+strings.Join(res.Added, ", "))
	}
	if len(res.Untested) > 0 {
		lines = append(lines, "untested (metric not in the registry, reports/metric): "+strings.Join(res.Untested, ", "))
	}
	lines = append(lines, runLines("invalid runs, left out of every row and of the gate:", res.Invalid)...)
	lines = append(lines, runLines("suspect runs, kept (marked in column \""+suspectColumn+"\"):", res.Suspect)...)
	return strings.Join(lines, "\n") + "\n"
}

// runLines is head and one indented line per run ("side where: reasons"),
// none when there is no run.
func runLines(head string, runs []page.RunNote) []string {
	if len(runs) == 0 {
		return nil
	}
	out := []string{head}
	for _, r := range runs {
		out = append(out, fmt.Sprintf("  %s %s: %s", r.Side, r.Where, r.Reasons))
	}
	return out
}

// suspectColumn is the column Table adds when a row holds suspect runs.
const suspectColumn = "suspect runs (base/new)"

// Table renders rows (all of res.Rows or a selection) with the reports
// package.
func Table(title string, rows []Row) *reports.Table {
	t := &reports.Table{
		Title: title,
		Columns: []string{"experiment", "series", "x", "metric", "unit", "n base", "base mean", "n new", "new mean",
			"new/base", "test", "p", "p (Holm)", "verdict"},
	}
	for _, r := range rows {
		ratio := reports.Text("-")
		if !math.IsNaN(r.Ratio) {
			ratio = reports.Text(strconv.FormatFloat(r.Ratio, 'g', 4, 64))
		}
		t.AddRow(reports.Text(r.Experiment), reports.Text(r.Series), reports.Text(r.X), reports.Text(r.Metric), reports.Text(r.Unit),
			reports.Textf("%d", r.NBase), meanCell(r.Base, r.BaseCI), reports.Textf("%d", r.NNew), meanCell(r.New, r.NewCI),
			ratio, reports.Text(orDash(r.Test)), pText(r.P), pText(r.PAdj), reports.Text(r.Verdict))
	}
	if slices.ContainsFunc(rows, func(r Row) bool { return r.SuspectBase+r.SuspectNew > 0 }) {
		// Only then: the column marks which rows' values include suspect runs.
		t.Columns = append(t.Columns, suspectColumn)
		for i, r := range rows {
			c := reports.Text("")
			if r.SuspectBase+r.SuspectNew > 0 {
				c = reports.Textf("%d/%d", r.SuspectBase, r.SuspectNew)
			}
			t.Rows[i] = append(t.Rows[i], c)
		}
	}
	return t
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
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

func pText(p float64) reports.Cell {
	if math.IsNaN(p) {
		return reports.Text("n/a")
	}
	return reports.Text(strconv.FormatFloat(p, 'g', 3, 64))
}

func ptr(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// JSON is the --format json output: the comparison the HTML page reads
// from a nightly folder's compare.json, with the gate's lists beside it.
type JSON struct {
	page.Comparison
	Rows     []JSONRow `json:"rows"` // the page reads them as page.CompareRow
	Notes    []string  `json:"unit_notes"`
	Missing  []string  `json:"missing"`
	Added    []string  `json:"added"`
	Untested []string  `json:"untested"`
	// OnlyBase and OnlyNew count the rows one side lacks: not compared,
	// so neither in "compared" nor in "changed".
	OnlyBase int `json:"only_base"`
	OnlyNew  int `json:"only_new"`
}

// ToJSON renders res; shown are the rows listed (all, or the changed ones).
func (res Result) ToJSON(base, new string, threshold float64, onlyChanged bool, shown []Row) JSON {
	compared, changed, failing := res.Counts()
	out := JSON{Comparison: page.Comparison{Base: base, New: new, Threshold: threshold, Alpha: Alpha, Test: res.Method(),
		Compared: compared, Changed: changed, Regressed: failing, OnlyChange: onlyChanged, Rows: []page.CompareRow{},
		Invalid: res.Invalid, Suspect: res.Suspect},
		Missing: nonNil(res.Missing), Added: nonNil(res.Added), Untested: nonNil(res.Untested)}
	out.OnlyBase, out.OnlyNew = res.OneSided()
	out.Rows, out.Notes = []JSONRow{}, nonNil(res.Notes)
	for _, r := range shown {
		out.Rows = append(out.Rows, JSONRow{CompareRow: page.CompareRow{
			Experiment: r.Experiment, Series: r.Series, X: r.X, Metric: r.Metric,
			NBase: r.NBase, SuspectBase: r.SuspectBase, SuspectNew: r.SuspectNew, BaseMean: ptr(r.Base), BaseCI95: ptr(r.BaseCI), NNew: r.NNew, NewMean: ptr(r.New), NewCI95: ptr(r.NewCI),
			Ratio: ptr(r.Ratio), P: ptr(r.P), PAdjusted: ptr(r.PAdj), Verdict: r.Verdict, Changed: r.IsChanged(), Regressed: r.Fails,
		}, Unit: r.Unit, Paired: r.Paired, Test: r.Test})
	}
	return out
}

// JSONRow is a row of the JSON output: the page's row, with the unit n
// counts, whether the sides were paired by instance, and the test.
type JSONRow struct {
	page.CompareRow
	Unit   string `json:"unit"`
	Paired bool   `json:"paired"`
	Test   string `json:"test"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
