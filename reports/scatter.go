package reports

import (
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Points is one series of a ScatterPlot: a point per (X[i], Y[i]).
type Points struct {
	Name string
	X, Y []float64
}

// ScatterPlot draws predicted against measured values, a marker per point and the line y = x, the
// usual figure of a model's validation: a point on the line is predicted exactly, above it
// overstated. Both axes share one range so that the diagonal is at 45 degrees.
type ScatterPlot struct {
	Title, XLabel, YLabel string
	Caption               string // "" : Title and what the line is
	Points                []Points
	entries               []legendEntry
}

// CaptionText is the figure's caption.
func (sp *ScatterPlot) CaptionText() string {
	if sp.Caption != "" {
		return sp.Caption
	}
	var n []string
	for _, s := range sp.Points {
		n = append(n, fmt.Sprintf("%s: %d", s.Name, len(s.X)))
	}
	return joinCaption(sp.Title, "Line: y = x (prediction equals measurement). Points "+strings.Join(n, ", ")+".")
}

// Plot builds the gonum plot.
func (sp *ScatterPlot) Plot() (*plot.Plot, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range sp.Points {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("scatter series %q has %d x values and %d y values", s.Name, len(s.X), len(s.Y))
		}
		if err := checkXY(s.Name, s.X, s.Y); err != nil {
			return nil, err
		}
		for i := range s.X {
			lo, hi = math.Min(lo, math.Min(s.X[i], s.Y[i])), math.Max(hi, math.Max(s.X[i], s.Y[i]))
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("scatter plot %q has no points", sp.Title)
	}
	lo, hi = scatterRange(lo, hi)
	p := newPlot(sp.XLabel, sp.YLabel)
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.Color = Palette[6]
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(diag)
	sp.entries = []legendEntry{{"y = x", []plot.Thumbnailer{diag}}}
	for i, s := range sp.Points {
		xy := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xy[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		pts, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, fmt.Errorf("scatter series %q: %w", s.Name, err)
		}
		pts.Color, pts.Shape, pts.Radius = seriesColor(i), seriesMarker(i), vg.Points(2.5)
		p.Add(pts)
		sp.entries = append(sp.entries, legendEntry{s.Name, []plot.Thumbnailer{pts}})
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	return p, nil
}

// scatterRange pads [lo, hi] by 5% on each side, keeping a non-negative range non-negative.
func scatterRange(lo, hi float64) (float64, float64) {
	span := hi - lo
	if span <= 0 {
		span = math.Max(math.Abs(hi), 1)
	}
	plo := lo - 0.05*span
	if lo >= 0 && plo < 0 {
		plo = 0
	}
	return plo, hi + 0.05*span
}

// Write renders the plot in format (png, svg or pdf) at one-column size.
func (sp *ScatterPlot) Write(w io.Writer, format string) error {
	return sp.WriteSize(w, format, DefaultWidth, DefaultHeight)
}

// WriteSize renders the plot in format at the given size, the legend outside the data.
func (sp *ScatterPlot) WriteSize(w io.Writer, format string, width, height vg.Length) error {
	p, err := sp.Plot()
	if err != nil {
		return err
	}
	return writeFigure(w, p, sp.entries, format, width, height)
}
