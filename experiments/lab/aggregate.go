package lab

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/reports/metric"
)

// Point is the summary of one series at one x over its statistical units.
type Point struct {
	X float64
	// N is the number of units: graph instances in graph experiments (each
	// the mean of its repetitions), runs in cluster experiments.
	N       int
	Metrics map[string]reports.Summary
	// CV is the coefficient of variation (std / |mean|) over the units of
	// the cell, per metric; NaN with fewer than 2 units or a zero mean.
	CV map[string]float64
	// RawMax is the largest value of each metric over the cell's rows
	// (not units): a bound is broken by one run, not by a mean.
	RawMax map[string]float64
	// Offered is the offered load of the cell's runs ("" for graph
	// experiments; several distinct values are joined with "; ").
	Offered string
}

// CVLimit is the coefficient of variation above which a cluster cell is
// marked unstable in the tables.
const CVLimit = 0.10

// SeriesAgg is one series' points in one panel, sorted by x.
type SeriesAgg struct {
	Name   string
	Panel  string // "" unless the experiment splits its results (Spec.Panel)
	Points []Point
}

// Aggregate groups Results by panel, series and x and summarises every
// metric over the statistical units the claims use (mean, std, 95% CI).
type Aggregate struct {
	Experiment string
	Metrics    []Metric
	Series     []SeriesAgg // in order of first appearance in the rows
	// Unit names the statistical unit (Results.Unit) in the tables:
	// "graphs" or "runs".
	Unit string
	// XName names x in notes ("k", "Mul"); "" reads "x".
	XName string
	// Runs counts the rows by validity; the invalid ones are in no cell.
	Runs RunCount
}

// rowUnit is the statistical unit of row i under the design's unit (the
// Spec's): with UnitInstance the row belongs to its graph instance
// (InstanceSeed, Instance), whose repetitions are averaged since they share
// the graph and are not independent; with UnitRun it is a unit of its own.
func rowUnit(unit string, i int, row Row) [2]uint64 {
	if unit == UnitInstance {
		return [2]uint64{row.InstanceSeed, uint64(row.Instance)}
	}
	return [2]uint64{math.MaxUint64, uint64(i)}
}

// unitOf is r's unit ("" is UnitRun), an error for any other, and the
// tables' name of it ("graphs" or "runs").
func unitOf(r *Results) (unit, label string, err error) {
	unit = OrStr(r.Unit, UnitRun)
	if err := metric.CheckUnit(unit); err != nil {
		return "", "", fmt.Errorf("experiment %s: %w", r.Experiment, err)
	}
	if unit == UnitInstance {
		return unit, "graphs", nil
	}
	return unit, "runs", nil
}

// Summarise builds the Aggregate of r, one panel.
func Summarise(r *Results) (*Aggregate, error) { return SummarisePanels(r, nil) }

// cellKey is one table row: panel, series and x.
type cellKey struct {
	panel, s string
	x        float64
}

// cell collects the rows of one cellKey.
type cell struct {
	units   [][2]uint64                         // in order of first appearance
	sums    map[[2]uint64]map[string][2]float64 // unit -> metric -> (sum, count)
	rawMax  map[string]float64
	offered []string
}

// SummarisePanels builds the Aggregate of r with the rows split by panel
// (nil: one panel). Every summary is over the units of r.Unit (rowUnit).
func SummarisePanels(r *Results, panel func(Row) string) (*Aggregate, error) {
	cells := map[cellKey]*cell{}
	type sp struct{ panel, s string }
	var order []sp
	xs := map[sp][]float64{}
	unit, label, err := unitOf(r)
	if err != nil {
		return nil, err
	}
	a := &Aggregate{Experiment: r.Experiment, Metrics: r.Metrics, Unit: label, Runs: CountRuns(r.Rows)}
	for i, row := range r.Rows {
		if row.Validity.Level == harness.Invalid {
			continue // an invalid run must not be reported
		}
		p := ""
		if panel != nil {
			p = panel(row)
		}
		k, s := cellKey{p, row.Series, row.X}, sp{p, row.Series}
		if _, ok := xs[s]; !ok {
			order = append(order, s)
			xs[s] = nil
		}
		c := cells[k]
		if c == nil {
			c = &cell{sums: map[[2]uint64]map[string][2]float64{}, rawMax: map[string]float64{}}
			cells[k] = c
			xs[s] = append(xs[s], row.X)
		}
		u := rowUnit(unit, i, row)
		if c.sums[u] == nil {
			c.sums[u] = map[string][2]float64{}
			c.units = append(c.units, u)
		}
		for _, m := range r.Metrics {
			v, ok := row.Values[m.Name]
			if !ok {
				continue // an optional metric this run did not measure (Validate allows no other)
			}
			t := c.sums[u][m.Name]
			c.sums[u][m.Name] = [2]float64{t[0] + v, t[1] + 1}
			if old, ok := c.rawMax[m.Name]; !ok || v > old {
				c.rawMax[m.Name] = v
			}
		}
		if row.Offered != "" && !ContainsStr(c.offered, row.Offered) {
			c.offered = append(c.offered, row.Offered)
		}
	}
	for _, s := range order {
		sa := SeriesAgg{Name: s.s, Panel: s.panel}
		sort.Float64s(xs[s])
		for _, x := range xs[s] {
			p, err := cells[cellKey{s.panel, s.s, x}].point(x, r.Metrics)
			if err != nil {
				return nil, fmt.Errorf("%s, %s at x=%v%s: %w", r.Experiment, s.s, x, panelText(s.panel), err)
			}
			sa.Points = append(sa.Points, p)
		}
		a.Series = append(a.Series, sa)
	}
	if panel != nil {
		sort.SliceStable(a.Series, func(i, j int) bool { return naturalLess(a.Series[i].Panel, a.Series[j].Panel) })
	}
	return a, nil
}

// naturalLess orders strings with their numbers compared by value ("c = 4"
// before "c = 16").
func naturalLess(a, b string) bool {
	chunks := regexp.MustCompile(`[0-9]+|[^0-9]+`)
	ca, cb := chunks.FindAllString(a, -1), chunks.FindAllString(b, -1)
	for i := 0; i < len(ca) && i < len(cb); i++ {
		if ca[i] == cb[i] {
			continue
		}
		na, ea := strconv.Atoi(ca[i])
		nb, eb := strconv.Atoi(cb[i])
		if ea == nil && eb == nil {
			return na < nb
		}
		return ca[i] < cb[i]
	}
	return len(ca) < len(cb)
}

func panelText(p string) string {
	if p == "" {
		return ""
	}
	return " (" + p + ")"
}

// point summarises a cell over its units.
func (c *cell) point(x float64, metrics []Metric) (Point, error) {
	p := Point{X: x, N: len(c.units), Metrics: map[string]reports.Summary{}, CV: map[string]float64{},
		RawMax: c.rawMax, Offered: strings.Join(c.offered, "; ")}
	for _, m := range metrics {
		var v []float64
		for _, u := range c.units {
			if t := c.sums[u][m.Name]; t[1] > 0 {
				v = append(v, t[0]/t[1])
			}
		}
		if len(v) == 0 {
			continue // an optional metric not measured in this cell: no summary, "n/a" in the table
		}
		sum, err := reports.Summarize(v)
		if err != nil {
			return Point{}, fmt.Errorf("%s: %w", m.Name, err)
		}
		p.Metrics[m.Name] = sum
		p.CV[m.Name] = reports.CV(v)
	}
	return p, nil
}

// Get returns the summary of a metric for a series at x.
func (a *Aggregate) Get(series string, x float64, metric string) (reports.Summary, bool) {
	for _, s := range a.Series {
		if s.Name != series {
			continue
		}
		for _, p := range s.Points {
			if p.X == x {
				v, ok := p.Metrics[metric]
				return v, ok
			}
		}
	}
	return reports.Summary{}, false
}

// Xs returns the x values of a series, sorted.
func (a *Aggregate) Xs(series string) []float64 {
	for _, s := range a.Series {
		if s.Name == series {
			out := make([]float64, len(s.Points))
			for i, p := range s.Points {
				out[i] = p.X
			}
			return out
		}
	}
	return nil
}

// Means returns a series' per-x means of a metric, in x order (NaN where
// an optional metric was not measured).
func (a *Aggregate) Means(series, metric string) []float64 {
	for _, s := range a.Series {
		if s.Name == series {
			out := make([]float64, len(s.Points))
			for i, p := range s.Points {
				out[i] = math.NaN() // an optional metric not measured at this x
				if v, ok := p.Metrics[metric]; ok {
					out[i] = v.Mean
				}
			}
			return out
		}
	}
	return nil
}

// FormatX prints an x value compactly (integers without decimals).
func FormatX(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Table is the long-format results table: one row per panel, series and
// x, one "mean ± CI" column per metric headed by its label (name and
// unit), n = units. A series identical at every x (a reference that does
// not depend on x) gets one row, its x shown as "all". A series whose name
// states a bound ("max dev <= 0.05") that some run breaks, or that leaves
// a part empty, is marked "*" and explained in the table's notes. For
// cluster experiments (cells with an offered load) it adds the offered
// load and a column naming every metric whose coefficient of variation
// over the cell's runs exceeds CVLimit (marked "unstable").
func (a *Aggregate) Table(title, seriesLabel, xName string) *reports.Table {
	return a.TableWithPanels(title, "", seriesLabel, xName)
}

// TableWithPanels is Table with a first column panelLabel naming each
// row's panel ("" for no such column).
func (a *Aggregate) TableWithPanels(title, panelLabel, seriesLabel, xName string) *reports.Table {
	if a.XName == "" {
		a.XName = xName
	}
	cluster := a.Unit == "runs"
	var cols []string
	if panelLabel != "" {
		cols = append(cols, panelLabel)
	}
	cols = append(cols, seriesLabel, xName)
	if cluster {
		cols = append(cols, "offered load")
	}
	cols = append(cols, "n "+a.Unit)
	for _, m := range a.Metrics {
		cols = append(cols, OrStr(m.Label, m.Name))
	}
	if cluster {
		cols = append(cols, fmt.Sprintf("CV > %.0f%%", 100*CVLimit))
	}
	t := &reports.Table{Title: title, Columns: cols}
	for _, s := range a.Series {
		name := s.Name
		if note := a.boundNote(s); note != "" {
			name += " *"
			t.Notes = append(t.Notes, note)
		}
		pts, xs := s.Points, []string{}
		if len(pts) > 1 && constantSeries(pts, a.Metrics) {
			pts, xs = pts[:1], []string{"all"}
		}
		for i, p := range pts {
			var row []reports.Cell
			if panelLabel != "" {
				row = append(row, reports.Text(s.Panel))
			}
			x := FormatX(p.X)
			if i < len(xs) {
				x = xs[i]
			}
			row = append(row, reports.Text(name), reports.Text(x))
			if cluster {
				row = append(row, reports.Text(p.Offered))
			}
			row = append(row, reports.Textf("%d", p.N))
			for _, m := range a.Metrics {
				row = append(row, metricCell(p, m.Name))
			}
			if cluster {
				row = append(row, reports.Text(unstableText(p, a.Metrics)))
			}
			t.AddRow(row...)
		}
	}
	if a.Unit == "graphs" {
		t.Notes = append(t.Notes, "n = graphs: each graph counts once, as the mean of its repetitions.")
	}
	if c := a.Runs.String(); c != "" {
		t.Notes = append(t.Notes, "Validity: "+c+" (suspect runs are kept in n; raw.csv names every run with its reasons).")
	}
	return t
}

// metricCell is a point's "mean ± CI" of metric, or "n/a" where the cell
// did not measure it (an optional metric).
func metricCell(p Point, metric string) reports.Cell {
	if s, ok := p.Metrics[metric]; ok {
		return reports.Value(s)
	}
	return reports.Text("n/a")
}

// unstableText names the metrics whose CV over the cell's runs exceeds
// CVLimit.
func unstableText(p Point, metrics []Metric) string {
	var unstable []string
	for _, m := range metrics {
		if cv := p.CV[m.Name]; cv > CVLimit {
			unstable = append(unstable, fmt.Sprintf("%s %.0f%%", m.Name, 100*cv))
		}
	}
	switch {
	case len(unstable) > 0:
		return "UNSTABLE " + strings.Join(unstable, ", ")
	case p.N < 2:
		return "n/a (1 run)"
	}
	return "no"
}

// constantSeries reports whether every point has the same n and the same
// summary of every metric.
func constantSeries(pts []Point, metrics []Metric) bool {
	for _, p := range pts[1:] {
		if p.N != pts[0].N {
			return false
		}
		for _, m := range metrics {
			if p.Metrics[m.Name] != pts[0].Metrics[m.Name] {
				return false
			}
		}
	}
	return true
}

// boundRE finds the balance bound a series name states, e.g. "mlfm (max
// dev <= 0.05)".
var boundRE = regexp.MustCompile(`max dev <= ([0-9.]+)`)

// boundNote says where a series breaks the bound its name states: a run
// above the bound, or one with an empty part ("" when it keeps it).
func (a *Aggregate) boundNote(s SeriesAgg) string {
	m := boundRE.FindStringSubmatch(s.Name)
	if m == nil {
		return ""
	}
	bound, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return ""
	}
	worst, empty := 0.0, 0.0
	var at []string
	for _, p := range s.Points {
		dev, e := p.RawMax["max_dev"], p.RawMax["empty_parts"]
		if dev > bound+1e-9 || e > 0 {
			at = append(at, FormatX(p.X))
		}
		worst, empty = math.Max(worst, dev), math.Max(empty, e)
	}
	if len(at) == 0 {
		return ""
	}
	return fmt.Sprintf("* %s breaks its stated bound at %s = %s: largest max dev %.3g, up to %.0f empty parts in a run.",
		s.Name, OrStr(a.XName, "x"), ranges(at, s.Points), worst, empty)
}

// ranges joins the x values at, a subset of the points' x values, with
// runs of consecutive points shown as "first-last".
func ranges(at []string, pts []Point) string {
	var out []string
	in := map[string]bool{}
	for _, x := range at {
		in[x] = true
	}
	for i := 0; i < len(pts); i++ {
		if !in[FormatX(pts[i].X)] {
			continue
		}
		j := i
		for j+1 < len(pts) && in[FormatX(pts[j+1].X)] {
			j++
		}
		if j-i >= 2 {
			out = append(out, FormatX(pts[i].X)+"-"+FormatX(pts[j].X))
		} else {
			for k := i; k <= j; k++ {
				out = append(out, FormatX(pts[k].X))
			}
		}
		i = j
	}
	return strings.Join(out, ", ")
}

// Plot is the figure of one metric: mean with 95% CI over x, one line per
// series (of every panel).
func (a *Aggregate) Plot(title, xLabel string, m Metric) *reports.LinePlot {
	lp := a.PanelPlot("", xLabel, m)
	lp.Title = title // in the caption, not the image
	return lp
}

// PanelPlot is Plot for the series of one panel. The figure carries no
// title; its caption (for the .txt/.tex beside it) says what the error bars
// are and n, and which series break the bound their names state.
func (a *Aggregate) PanelPlot(panel, xLabel string, m Metric) *reports.LinePlot {
	lp := &reports.LinePlot{XLabel: xLabel, YLabel: m.Label, Unit: a.Unit}
	for _, s := range a.Series {
		if s.Panel != panel {
			continue
		}
		if note := a.boundNote(s); note != "" {
			lp.Notes = append(lp.Notes, strings.TrimPrefix(note, "* "))
		}
		rs := reports.Series{Name: s.Name}
		for _, p := range s.Points {
			if y, ok := p.Metrics[m.Name]; ok { // an optional metric has no point where it was not measured
				rs.X = append(rs.X, p.X)
				rs.Y = append(rs.Y, y)
			}
		}
		if len(rs.X) > 0 {
			lp.Series = append(lp.Series, rs)
		}
	}
	return lp
}

// Panels lists the panels in order of first appearance.
func (a *Aggregate) Panels() []string {
	var out []string
	for _, s := range a.Series {
		if !ContainsStr(out, s.Panel) {
			out = append(out, s.Panel)
		}
	}
	return out
}
