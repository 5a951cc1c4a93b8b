package reports

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// TimeSeries is one line of a TimeSeriesPlot: Y[i] measured at time T[i]
// (seconds since the start of the run, say).
type TimeSeries struct {
	Name string
	T, Y []float64
}

// TimeSeriesPlot draws measurements over time, one line per series.
type TimeSeriesPlot struct {
	Title, XLabel, YLabel string
	Caption               string // what the lines are, e.g. "Mean over 2 s report intervals."
	Series                []TimeSeries
	// Windows are shaded time spans (e.g. the faults of a run), drawn under the lines.
	Windows []TimeWindow
	entries []legendEntry // of the last Plot
}

// TimeWindow is a shaded span [From, To] of a TimeSeriesPlot, in the series' time unit.
type TimeWindow struct {
	Name     string
	From, To float64
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
	p := newPlot(xl, tp.YLabel)
	tp.entries = nil
	if err := tp.addWindows(p); err != nil {
		return nil, err
	}
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
		line.Color = seriesColor(i)
		line.Dashes = seriesDashes(i)
		p.Add(line)
		p.Legend.Add(s.Name, line)
		tp.entries = append(tp.entries, legendEntry{s.Name, []plot.Thumbnailer{line}})
	}
	pad(p, true)
	return p, nil
}

// addWindows shades each window from 0 to the highest value of the series (grey, one legend entry
// for all).
func (tp *TimeSeriesPlot) addWindows(p *plot.Plot) error {
	if len(tp.Windows) == 0 {
		return nil
	}
	hi := 0.0
	for _, s := range tp.Series {
		for _, y := range s.Y {
			hi = math.Max(hi, y)
		}
	}
	if hi == 0 {
		hi = 1
	}
	for i, w := range tp.Windows {
		if !(w.To > w.From) {
			return fmt.Errorf("window %q: to %v is not after from %v", w.Name, w.To, w.From)
		}
		poly, err := plotter.NewPolygon(plotter.XYs{{X: w.From, Y: 0}, {X: w.To, Y: 0}, {X: w.To, Y: hi}, {X: w.From, Y: hi}})
		if err != nil {
			return fmt.Errorf("window %q: %w", w.Name, err)
		}
		poly.Color = color.Gray{Y: 225}
		poly.LineStyle.Width = 0
		p.Add(poly)
		if i == 0 {
			p.Legend.Add("faults", poly)
			tp.entries = append(tp.entries, legendEntry{"faults", []plot.Thumbnailer{poly}})
		}
	}
	return nil
}

// Write renders the plot in format (png, svg or pdf) at one-column size.
func (tp *TimeSeriesPlot) Write(w io.Writer, format string) error {
	return tp.WriteSize(w, format, DefaultWidth, DefaultHeight)
}

// WriteSize renders the plot in format at the given size, the legend
// outside the data; the caption (CaptionText) is not drawn.
func (tp *TimeSeriesPlot) WriteSize(w io.Writer, format string, width, height vg.Length) error {
	p, err := tp.Plot()
	if err != nil {
		return err
	}
	return writeFigure(w, p, tp.entries, format, width, height)
}

// CaptionText is the figure's caption: Title and Caption.
func (tp *TimeSeriesPlot) CaptionText() string { return joinCaption(tp.Title, tp.Caption) }
