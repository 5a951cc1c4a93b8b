package lab

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/stormlab/stormlab/reports"
)

// Point is the summary of every run of one series at one x.
type Point struct {
	X       float64
	N       int
	Metrics map[string]reports.Summary
	// CV is the coefficient of variation (std / |mean|) over the runs of
	// the cell, per metric; NaN with fewer than 2 runs or a zero mean.
	CV map[string]float64
	// Offered is the offered load of the cell's runs ("" for graph
	// experiments; several distinct values are joined with "; ").
	Offered string
}

// CVLimit is the coefficient of variation above which a cluster cell is
// marked unstable in the tables.
const CVLimit = 0.10

// SeriesAgg is one series' points, sorted by x.
type SeriesAgg struct {
	Name   string
	Points []Point
}

// Aggregate groups Results by series and x and summarises every metric
// (mean, std, 95% CI over all instances and repetitions at that x).
type Aggregate struct {
	Experiment string
	Metrics    []Metric
	Series     []SeriesAgg // in order of first appearance in the rows
}

// Summarise builds the Aggregate of r.
func Summarise(r *Results) (*Aggregate, error) {
	type key struct {
		s string
		x float64
	}
	vals := map[key]map[string][]float64{}
	offered := map[key][]string{}
	var order []string
	xs := map[string][]float64{}
	for _, row := range r.Rows {
		k := key{row.Series, row.X}
		if _, ok := xs[row.Series]; !ok {
			order = append(order, row.Series)
		}
		if vals[k] == nil {
			vals[k] = map[string][]float64{}
			xs[row.Series] = append(xs[row.Series], row.X)
		}
		for _, m := range r.Metrics {
			vals[k][m.Name] = append(vals[k][m.Name], row.Values[m.Name])
		}
		if row.Offered != "" && !ContainsStr(offered[k], row.Offered) {
			offered[k] = append(offered[k], row.Offered)
		}
	}
	a := &Aggregate{Experiment: r.Experiment, Metrics: r.Metrics}
	for _, s := range order {
		sa := SeriesAgg{Name: s}
		sort.Float64s(xs[s])
		for _, x := range xs[s] {
			p := Point{X: x, Metrics: map[string]reports.Summary{}, CV: map[string]float64{}, Offered: strings.Join(offered[key{s, x}], "; ")}
			for _, m := range r.Metrics {
				v := vals[key{s, x}][m.Name]
				sum, err := reports.Summarize(v)
				if err != nil {
					return nil, fmt.Errorf("%s, %s at x=%v, %s: %w", r.Experiment, s, x, m.Name, err)
				}
				p.Metrics[m.Name] = sum
				p.CV[m.Name] = reports.CV(v)
				p.N = sum.N
			}
			sa.Points = append(sa.Points, p)
		}
		a.Series = append(a.Series, sa)
	}
	return a, nil
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

// Means returns a series' per-x means of a metric, in x order.
func (a *Aggregate) Means(series, metric string) []float64 {
	for _, s := range a.Series {
		if s.Name == series {
			out := make([]float64, len(s.Points))
			for i, p := range s.Points {
				out[i] = p.Metrics[metric].Mean
			}
			return out
		}
	}
	return nil
}

// FormatX prints an x value compactly (integers without decimals).
func FormatX(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Table is the long-format results table: one row per series and x, one
// "mean ± CI" column per metric headed by its label (name and unit). For
// cluster experiments (cells with an offered load) it adds the offered
// load and a column naming every metric whose coefficient of variation
// over the cell's runs exceeds CVLimit (marked "unstable").
func (a *Aggregate) Table(title, seriesLabel, xName string) *reports.Table {
	cluster := false
	for _, s := range a.Series {
		for _, p := range s.Points {
			cluster = cluster || p.Offered != ""
		}
	}
	cols := []string{seriesLabel, xName}
	if cluster {
		cols = append(cols, "offered load")
	}
	cols = append(cols, "n")
	for _, m := range a.Metrics {
		cols = append(cols, OrStr(m.Label, m.Name))
	}
	if cluster {
		cols = append(cols, fmt.Sprintf("unstable: CV > %.0f%% over runs", 100*CVLimit))
	}
	t := &reports.Table{Title: title, Columns: cols}
	for _, s := range a.Series {
		for _, p := range s.Points {
			row := []reports.Cell{reports.Text(s.Name), reports.Text(FormatX(p.X))}
			if cluster {
				row = append(row, reports.Text(p.Offered))
			}
			row = append(row, reports.Textf("%d", p.N))
			var unstable []string
			for _, m := range a.Metrics {
				row = append(row, reports.Value(p.Metrics[m.Name]))
				if cv := p.CV[m.Name]; cv > CVLimit {
					unstable = append(unstable, fmt.Sprintf("%s %.0f%%", m.Name, 100*cv))
				}
			}
			if cluster {
				switch {
				case len(unstable) > 0:
					row = append(row, reports.Text("UNSTABLE "+strings.Join(unstable, ", ")))
				case p.N < 2:
					row = append(row, reports.Text("n/a (1 run)"))
				default:
					row = append(row, reports.Text("no"))
				}
			}
			t.AddRow(row...)
		}
	}
	return t
}

// Plot is the figure of one metric: mean with 95% CI over x, one line per
// series.
func (a *Aggregate) Plot(title, xLabel string, m Metric) *reports.LinePlot {
	lp := &reports.LinePlot{Title: title, XLabel: xLabel, YLabel: m.Label}
	for _, s := range a.Series {
		rs := reports.Series{Name: s.Name}
		for _, p := range s.Points {
			rs.X = append(rs.X, p.X)
			rs.Y = append(rs.Y, p.Metrics[m.Name])
		}
		lp.Series = append(lp.Series, rs)
	}
	return lp
}
