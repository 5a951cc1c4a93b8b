package reports

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Default figure size: a one-column figure of a paper.
const (
	DefaultWidth  = 6 * vg.Inch
	DefaultHeight = 4 * vg.Inch
)

// Formats lists the figure formats WritePlot accepts.
var Formats = []string{"png", "svg", "pdf"}

// Series is one line of a LinePlot: a Summary (mean and 95% CI) at each x.
type Series struct {
	Name string
	X    []float64
	Y    []Summary
}

// LinePlot draws each series as a line through the means with 95% CI error
// bars, the layout of the K-PART paper's Figs. 5-7 (metric over Mul, k or
// edge count, one line per algorithm).
type LinePlot struct {
	Title, XLabel, YLabel string
	Series                []Series
}

// ciPoints adapts a Series to gonum's XYer and YErrorer.
type ciPoints struct{ s Series }

func (c ciPoints) Len() int                        { return len(c.s.X) }
func (c ciPoints) XY(i int) (float64, float64)     { return c.s.X[i], c.s.Y[i].Mean }
func (c ciPoints) YError(i int) (float64, float64) { return c.s.Y[i].CI95, c.s.Y[i].CI95 }

func checkXY(name string, x []float64, y []float64) error {
	for i := range x {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return fmt.Errorf("series %q point %d is (%v, %v): plots need finite numbers", name, i, x[i], y[i])
		}
	}
	return nil
}

func newPlot(title, xl, yl string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xl
	p.Y.Label.Text = yl
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// Plot builds the gonum plot.
func (lp *LinePlot) Plot() (*plot.Plot, error) {
	if len(lp.Series) == 0 {
		return nil, fmt.Errorf("plot %q has no series", lp.Title)
	}
	p := newPlot(lp.Title, lp.XLabel, lp.YLabel)
	for i, s := range lp.Series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("series %q has %d x values and %d y values", s.Name, len(s.X), len(s.Y))
		}
		if len(s.X) == 0 {
			return nil, fmt.Errorf("series %q is empty", s.Name)
		}
		ys := make([]float64, len(s.Y))
		for j, y := range s.Y {
			ys[j] = y.Mean + y.CI95
		}
		if err := checkXY(s.Name, s.X, ys); err != nil {
			return nil, err
		}
		pts := ciPoints{s}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("series %q: %w", s.Name, err)
		}
		c := plotutil.Color(i)
		line.Color = c
		points.Color = c
		points.Shape = plotutil.Shape(i)
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, fmt.Errorf("series %q error bars: %w", s.Name, err)
		}
		bars.Color = c
		p.Add(line, points, bars)
		p.Legend.Add(s.Name, line, points)
	}
	legendRoom(p, len(lp.Series))
	if integral(lp.Series) {
		p.X.Tick.Marker = intTicks{}
	}
	return p, nil
}

// integral reports whether every x value is a whole number (Mul, k, edge
// counts), so the x axis can have integer ticks.
func integral(ss []Series) bool {
	for _, s := range ss {
		for _, x := range s.X {
			if x != math.Trunc(x) {
				return false
			}
		}
	}
	return true
}

// intTicks puts labelled ticks on whole numbers only (1, 2 or 5 times a
// power of ten apart, at most about 10 labels) with unlabelled minor ticks
// on every integer when they are not too dense.
type intTicks struct{}

// Ticks implements plot.Ticker.
func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	lo, hi = math.Ceil(lo), math.Floor(hi)
	if hi < lo {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := 1.0
	for mag := 1.0; ; mag *= 10 {
		if s := mag; (hi-lo)/s <= 10 {
			step = s
			break
		}
		if s := 2 * mag; (hi-lo)/s <= 10 {
			step = s
			break
		}
		if s := 5 * mag; (hi-lo)/s <= 10 {
			step = s
			break
		}
	}
	var ticks []plot.Tick
	for x := lo; x <= hi; x++ {
		if math.Mod(x, step) == 0 {
			ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', 0, 64)})
		} else if hi-lo <= 50 {
			ticks = append(ticks, plot.Tick{Value: x})
		}
	}
	return ticks
}

// legendRoom raises the top of the y axis so the legend (top right, one
// line per series) sits above the data instead of over it.
func legendRoom(p *plot.Plot, n int) {
	span := p.Y.Max - p.Y.Min
	if span <= 0 {
		span = math.Max(math.Abs(p.Y.Max), 1)
	}
	p.Y.Max += span * 0.09 * float64(n)
}

// Write renders the plot in format (png, svg or pdf) at the default size.
func (lp *LinePlot) Write(w io.Writer, format string) error {
	p, err := lp.Plot()
	if err != nil {
		return err
	}
	return WritePlot(w, p, format, DefaultWidth, DefaultHeight)
}

// TimeSeries is one line of a TimeSeriesPlot: Y[i] measured at time T[i]
// (seconds since the start of the run, say).
type TimeSeries struct {
	Name string
	T, Y []float64
}

// TimeSeriesPlot draws measurements over time, one line per series.
type TimeSeriesPlot struct {
	Title, XLabel, YLabel string
	Series                []TimeSeries
}

// Plot builds the gonum plot.
func (tp *TimeSeriesPlot) Plot() (*plot.Plot, error) {
	if len(tp.Series) == 0 {
		return nil, fmt.Errorf("plot %q has no series", tp.Title)
	}
	xl := tp.XLabel
	if xl == "" {
		xl = "time (s)"
	}
	p := newPlot(tp.Title, xl, tp.YLabel)
	for i, s := range tp.Series {
		if len(s.T) != len(s.Y) {
			return nil, fmt.Errorf("series %q has %d times and %d values", s.Name, len(s.T), len(s.Y))
		}
		if len(s.T) == 0 {
			return nil, fmt.Errorf("series %q is empty", s.Name)
		}
		if err := checkXY(s.Name, s.T, s.Y); err != nil {
			return nil, err
		}
		xys := make(plotter.XYs, len(s.T))
		for j := range s.T {
			xys[j] = plotter.XY{X: s.T[j], Y: s.Y[j]}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("series %q: %w", s.Name, err)
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		p.Add(line)
		p.Legend.Add(s.Name, line)
	}
	legendRoom(p, len(tp.Series))
	return p, nil
}

// Write renders the plot in format (png, svg or pdf) at the default size.
func (tp *TimeSeriesPlot) Write(w io.Writer, format string) error {
	p, err := tp.Plot()
	if err != nil {
		return err
	}
	return WritePlot(w, p, format, DefaultWidth, DefaultHeight)
}

// WritePlot draws p on a canvas of the given size and format ("png", "svg"
// or "pdf") and writes it to w. SVG output is deterministic (fonts are
// referenced, not embedded); PNG depends on font rasterisation; PDF carries
// a creation date.
func WritePlot(w io.Writer, p *plot.Plot, format string, width, height vg.Length) error {
	format = strings.ToLower(format)
	ok := false
	for _, f := range Formats {
		ok = ok || f == format
	}
	if !ok {
		return fmt.Errorf("unknown figure format %q: use one of %s", format, strings.Join(Formats, ", "))
	}
	wt, err := p.WriterTo(width, height, format)
	if err != nil {
		return fmt.Errorf("draw %s: %w", format, err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("write %s: %w", format, err)
	}
	return nil
}
