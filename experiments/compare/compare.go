package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/reports/metric"
	"github.com/stormlab/stormlab/reports/page"
)

// Alpha is the family-wise significance level of the verdicts.
const Alpha = reports.Alpha

// Verdicts of a row.
const (
	Same           = "same"
	Regressed      = "regressed"
	Improved       = "improved"
	Changed        = "changed" // a metric that should not change did, significantly
	WorseUntested  = "worse (untested)"
	ChangeUntested = "changed (untested)"
	BetterUntested = "better (untested)"
	OnlyBase       = "only in base"
	OnlyNew        = "only in new"
	Untested       = "untested (unknown metric)"
)

// Tests that decide a row (and TestPairedLog, TestPaired).
const (
	TestModerated = "moderated t"
	TestWelch     = "Welch"
)

// Options restrict and tune a comparison.
type Options struct {
	Metrics   []string // compare only these (all when empty)
	Threshold float64  // relative change |new/base - 1| a significant change must exceed
}

// Row is one compared quantity.
type Row struct {
	Key
	// Unit is the statistical unit NBase and NNew count (metric.UnitRun or
	// metric.UnitInstance; "base/new" when the sides differ); Paired: both
	// sides hold the same instances, tested pair by pair.
	Unit        string
	Paired      bool
	NBase, NNew int
	// SuspectBase and SuspectNew count the suspect runs among the values
	// (kept in the test, marked in the output).
	SuspectBase, SuspectNew int
	Base, New, Ratio        float64 // means and new/base; NaN when a side has none
	BaseCI, NewCI           float64 // 95% CI half widths; NaN below 2 values
	P, PAdj                 float64 // two-sided p and its Holm correction; NaN untested
	Test                    string  // TestModerated, TestWelch, or "" (a side below 2 values)
	Verdict                 string
	Fails                   bool // counts against the gate: regressed, or changed

	base, new []float64
	beyond    bool // the relative change exceeds the threshold
}

// Tested: a test gave the row a p.
func (r Row) Tested() bool { return r.Test != "" }

// IsChanged: any verdict other than "same" on a row both sides have; an
// untested row when its change exceeds the threshold. A row one side lacks
// is "only in base" or "only in new", not a change: nothing was compared.
func (r Row) IsChanged() bool {
	return !r.OneSided() && r.Verdict != Same && (r.Verdict != Untested || r.beyond)
}

// OneSided: one side has no value for the row.
func (r Row) OneSided() bool { return r.NBase == 0 || r.NNew == 0 }

// Result is a whole comparison.
type Result struct {
	Rows []Row
	// Missing lists what the base has and the new side lacks, at the
	// coarsest level ("experiment e", "series e/s", "cell e/s/x=1",
	// "metric e/s/x=1/m"); Added the reverse.
	Missing, Added []string
	Untested       []string // metrics not in the registry: shown, not judged
	Tests          int      // rows in the Holm family
	// Notes say how a unit was chosen where a folder records none, or the
	// two disagree (sideUnits).
	Notes []string
	// Invalid are the runs of either side left out of every row (and so of
	// the gate: a cell whose new runs are all invalid is missing); Suspect
	// the runs kept but marked. Side says which folder.
	Invalid, Suspect []page.RunNote
}

// Compare compares every key present in base or new.
func Compare(base, new *Samples, o Options) Result {
	rows, notes := rowsOf(base, new, o.Metrics)
	testRows(rows)
	var ps []float64
	for _, r := range rows {
		p := math.NaN()
		if _, known := metric.Lookup(r.Metric); known && r.Tested() {
			p = r.P
		}
		ps = append(ps, p)
	}
	res := Result{Rows: rows, Notes: notes, Invalid: sided(base.Invalid, new.Invalid), Suspect: sided(base.Suspect, new.Suspect)}
	for i, p := range reports.Holm(ps) {
		rows[i].PAdj = p
		if !math.IsNaN(p) {
			res.Tests++
		}
		rows[i].beyond = math.Abs(relChange(rows[i].Base, rows[i].New)) > o.Threshold+thresholdTol
		rows[i].Verdict, rows[i].Fails = verdict(rows[i])
		if rows[i].Verdict == Untested && !slices.Contains(res.Untested, rows[i].Metric) {
			res.Untested = append(res.Untested, rows[i].Metric)
		}
	}
	res.Missing, res.Added = absent(rows, func(r Row) bool { return r.NNew == 0 }), absent(rows, func(r Row) bool { return r.NBase == 0 })
	return res
}

// rowsOf builds the rows with their means and CIs over units (sideUnits),
// sorted by experiment, series, x (numerically when numbers) and metric in
// file order, and the notes on how units were chosen.
func rowsOf(base, new *Samples, metrics []string) ([]Row, []string) {
	keys := map[Key]bool{}
	for k := range base.Values {
		keys[k] = true
	}
	for k := range new.Values {
		keys[k] = true
	}
	order := slices.Clone(base.Metrics)
	for _, m := range new.Metrics {
		if !slices.Contains(order, m) {
			order = append(order, m)
		}
	}
	var rows []Row
	var notes []string
	for k := range keys {
		if len(metrics) > 0 && !slices.Contains(metrics, k.Metric) {
			continue
		}
		ub, un, note := sideUnits(k.Experiment, base, new)
		if note != "" && !slices.Contains(notes, note) {
			notes = append(notes, note)
		}
		r := Row{Key: k, base: base.Values[k], new: new.Values[k], SuspectBase: base.SuspectN[k], SuspectNew: new.SuspectN[k],
			Ratio: math.NaN(), P: math.NaN(), PAdj: math.NaN()}
		r.setUnits(ub, un, base.Inst[k], new.Inst[k])
		a, b := r.base, r.new
		r.NBase, r.NNew, r.Base, r.New, r.BaseCI, r.NewCI = len(a), len(b), mean(a), mean(b), ci95(a), ci95(b)
		if len(a) > 0 && len(b) > 0 && r.Base != 0 {
			r.Ratio = r.New / r.Base
		}
		rows = append(rows, r)
	}
	slices.Sort(notes)
	slices.SortFunc(rows, func(x, y Row) int {
		if c := cmp.Or(cmp.Compare(x.Experiment, y.Experiment), cmp.Compare(x.Series, y.Series)); c != 0 {
			return c
		}
		if x.X != y.X {
			if lessX(x.X, y.X) {
				return -1
			}
			return 1
		}
		return cmp.Compare(slices.Index(order, x.Metric), slices.Index(order, y.Metric))
	})
	return rows, notes
}

// sided is base's notes then new's, each with its side.
func sided(base, new []page.RunNote) []page.RunNote {
	var out []page.RunNote
	for _, n := range base {
		n.Side = "base"
		out = append(out, n)
	}
	for _, n := range new {
		n.Side = "new"
		out = append(out, n)
	}
	return out
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stat.Mean(xs, nil)
}

// ci95 is the half width of the 95% CI of the mean, NaN below 2 values.
func ci95(xs []float64) float64 {
	s, err := reports.Summarize(xs)
	if len(xs) < 2 || err != nil {
		return math.NaN()
	}
	return s.CI95
}

// testRows sets P and Test of every row with 2 or more units a side: a
// paired row by the paired t-test (pairedP); the others per experiment and
// metric, the moderated t on log values when the metric's rows allow a
// prior (3 or more with a positive variance, every value > 0), else Welch's
// t-test.
func testRows(rows []Row) {
	type group struct{ exp, metric string }
	groups := map[group][]int{}
	for i, r := range rows {
		if r.Paired {
			rows[i].P, rows[i].Test = pairedP(r.base, r.new)
			continue
		}
		if r.NBase >= 2 && r.NNew >= 2 {
			g := group{r.Experiment, r.Metric}
			groups[g] = append(groups[g], i)
		}
	}
	for _, idx := range groups {
		if !moderate(rows, idx) {
			for _, i := range idx {
				rows[i].P, rows[i].Test = welchP(rows[i].base, rows[i].new)
			}
		}
	}
}

// moderate tests the rows idx of one metric with the moderated t; false
// when they do not allow it.
func moderate(rows []Row, idx []int) bool {
	ls := make([]logSample, len(idx))
	for j, i := range idx {
		l, ok := toLog(rows[i].base, rows[i].new)
		if !ok {
			return false
		}
		ls[j] = l
	}
	pr, ok := fitPrior(ls)
	if !ok {
		return false
	}
	for j, i := range idx {
		rows[i].P, rows[i].Test = moderatedP(ls[j], pr), TestModerated
	}
	return true
}

// welchP is reports.Welch's two-sided p (the test of the experiments'
// verdicts).
func welchP(a, b []float64) (float64, string) {
	r, err := reports.Welch(b, a)
	if err != nil {
		return math.NaN(), ""
	}
	return r.PTwoSided, TestWelch
}

// verdict names the change of one row and whether it fails the gate:
//   - "only in base" / "only in new": the other side has no value (a key
//     only in base also fails the gate, through Result.Missing);
//   - "untested (unknown metric)": not in the metric registry;
//   - "regressed" / "improved" / "changed": significant at family-wise 5%
//     (Holm over every tested row of a registered metric) and the relative
//     change exceeds threshold; "changed" for a metric that should not
//     change;
//   - "worse (untested)" / "better (untested)" / "changed (untested)": beyond threshold but a side
//     has a single value, so no test; never fails the gate;
//   - "same": everything else.
func verdict(r Row) (string, bool) {
	m, known := metric.Lookup(r.Metric)
	switch {
	case r.NBase == 0:
		return OnlyNew, false
	case r.NNew == 0:
		return OnlyBase, false
	case !known:
		return Untested, false
	}
	if !r.beyond {
		return Same, false
	}
	worse := (m.Direction == metric.LowerBetter) == (r.New > r.Base)
	switch {
	case !r.Tested() && m.Direction == metric.Stable:
		return ChangeUntested, false
	case !r.Tested() && worse:
		return WorseUntested, false
	case !r.Tested():
		return BetterUntested, false
	case !(r.PAdj < Alpha):
		return Same, false
	case m.Direction == metric.Stable:
		return Changed, true
	case worse:
		return Regressed, true
	}
	return Improved, false
}

// thresholdTol keeps a change of exactly the threshold (21/20 - 1 =
// 0.05000000000000004 in floating point) at "same".
const thresholdTol = 1e-9

func relChange(base, new float64) float64 {
	switch {
	case base != 0:
		return new/base - 1
	case new == base:
		return 0
	}
	return math.Inf(1) // from zero: any change is beyond the threshold
}

// absent lists, at the coarsest level, the keys of the rows lacking a side
// (lacks) whose experiment, series or cell the other rows do not cover.
func absent(rows []Row, lacks func(Row) bool) []string {
	type cell struct{ exp, series, x string }
	exps, series, cells := map[string]bool{}, map[[2]string]bool{}, map[cell]bool{}
	for _, r := range rows {
		if !lacks(r) {
			exps[r.Experiment], series[[2]string{r.Experiment, r.Series}], cells[cell{r.Experiment, r.Series, r.X}] = true, true, true
		}
	}
	var out []string
	for _, r := range rows {
		if !lacks(r) {
			continue
		}
		var s string
		switch {
		case !exps[r.Experiment]:
			s = "experiment " + r.Experiment
		case !series[[2]string{r.Experiment, r.Series}]:
			s = fmt.Sprintf("series %s/%s", r.Experiment, r.Series)
		case !cells[cell{r.Experiment, r.Series, r.X}]:
			s = fmt.Sprintf("cell %s/%s/x=%s", r.Experiment, r.Series, r.X)
		default:
			s = fmt.Sprintf("metric %s/%s/x=%s/%s", r.Experiment, r.Series, r.X, r.Metric)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Failures names everything that fails the gate: regressions, changes of
// metrics that should not change, and what the new side lacks.
func (res Result) Failures() []string {
	var out []string
	for _, r := range res.Rows {
		if r.Fails {
			out = append(out, fmt.Sprintf("%s %s/%s/x=%s/%s", r.Verdict, r.Experiment, r.Series, r.X, r.Metric))
		}
	}
	for _, m := range res.Missing {
		out = append(out, "missing "+m)
	}
	return out
}
