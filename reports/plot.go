package reports

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette is Okabe and Ito's colour-blind-safe palette ("Color Universal
// Design", 2002), most distinct first; yellow, weak on white, comes last.
var Palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
	color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
	color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
	color.RGBA{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

// markers pair with Palette so that series differ in shape as well as hue
// (and stay apart in greyscale print).
var markers = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
	draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.PlusGlyph{},
}

// dashes tell the lines of time-series plots apart without markers.
var dashes = [][]vg.Length{
	{}, {vg.Points(6), vg.Points(2)}, {vg.Points(2), vg.Points(2)},
	{vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)}, {vg.Points(10), vg.Points(3)},
}

func seriesColor(i int) color.Color       { return Palette[i%len(Palette)] }
func seriesMarker(i int) draw.GlyphDrawer { return markers[i%len(markers)] }
func seriesDashes(i int) []vg.Length      { return dashes[i%len(dashes)] }

// ErrorBarCaption is the caption line of a LinePlot: what its error bars are.
const ErrorBarCaption = "Error bars: 95% confidence interval of the mean (Student's t)"

// Series is one line of a LinePlot: a Summary (mean and 95% CI) at each x.
type Series struct {
	Name string
	X    []float64
	Y    []Summary
}

// LinePlot draws each series as a line through the means with 95% CI error
// bars, the layout of the K-PART paper's Figs. 5-7 (metric over Mul, k or
// edge count, one line per algorithm). Labels should carry units, e.g.
// "latency (ms)". The image has no title and no caption (a paper sets its
// own): Caption() is the text for a caption beside it (WriteCaptionFiles);
// when Caption is empty it is Title, what the error bars are and n.
type LinePlot struct {
	Title, XLabel, YLabel string
	Caption               string
	// Unit names what n counts in the caption ("graphs", "runs"; default
	// "runs").
	Unit string
	// Notes are sentences appended to the caption (a series that breaks
	// the bound its name states).
	Notes  []string
	Series []Series
	// NonNegative: the quantity cannot be negative (a latency, a rate), so
	// a lower error bar that would reach below 0 stops at 0, and the caption
	// says so. A t-interval over 3 runs with a large spread reaches below 0
	// although no run did.
	NonNegative bool
	// NoLines draws markers and error bars only: the x values are separate
	// conditions, and a line between them would suggest a curve.
	NoLines bool
	entries []legendEntry // of the last Plot
}

// legendEntry is one legend line, kept so the figure can lay the legend
// out itself (gonum's Legend hides its entries).
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// Constant reports whether every point of every series has the same mean
// and no interval: such a metric says nothing a figure could show, so
// callers write no figure for it (the table still has the number).
func (lp *LinePlot) Constant() bool {
	first, seen := 0.0, false
	for _, s := range lp.Series {
		for _, y := range s.Y {
			if y.CI95 != 0 {
				return false
			}
			if !seen {
				first, seen = y.Mean, true
			} else if math.Abs(y.Mean-first) > 1e-12*math.Max(1, math.Abs(first)) {
				return false
			}
		}
	}
	return true
}

// CaptionText is the figure's caption: Caption if set, else Title, what the
// error bars are and n per point.
func (lp *LinePlot) CaptionText() string {
	if lp.Caption != "" {
		return strings.TrimSpace(lp.Caption + " " + lp.clipNote())
	}
	unit := lp.Unit
	if unit == "" {
		unit = "runs"
	}
	lo, hi := math.MaxInt, 0
	for _, s := range lp.Series {
		for _, y := range s.Y {
			lo, hi = min(lo, y.N), max(hi, y.N)
		}
	}
	var c string
	switch {
	case hi == 0:
		c = ErrorBarCaption + "."
	case lo == hi:
		c = fmt.Sprintf("%s; n = %d %s per point.", ErrorBarCaption, lo, unit)
	default:
		c = fmt.Sprintf("%s; n = %d to %d %s per point.", ErrorBarCaption, lo, hi, unit)
	}
	return strings.TrimSpace(joinCaption(lp.Title, c) + " " + strings.Join(append(lp.Notes, lp.clipNote()), " "))
}

// clipNote says that lower error bars were cut at 0, when one was.
func (lp *LinePlot) clipNote() string {
	for _, s := range lp.Series {
		for _, y := range s.Y {
			if lp.NonNegative && y.Mean-y.CI95 < 0 {
				return "Lower error bars stop at 0 (the quantity cannot be negative; the interval reached below it)."
			}
		}
	}
	return ""
}

// joinCaption puts a title and a caption into one paragraph.
func joinCaption(title, caption string) string {
	title = strings.TrimSpace(title)
	if title != "" && !strings.HasSuffix(title, ".") {
		title += "."
	}
	return strings.TrimSpace(title + " " + caption)
}

// ciPoints adapts a Series to gonum's XYer and YErrorer; nonNeg stops the
// lower bar at 0 (LinePlot.NonNegative).
type ciPoints struct {
	s      Series
	nonNeg bool
}

func (c ciPoints) Len() int                    { return len(c.s.X) }
func (c ciPoints) XY(i int) (float64, float64) { return c.s.X[i], c.s.Y[i].Mean }
func (c ciPoints) YError(i int) (float64, float64) {
	y := c.s.Y[i]
	if c.nonNeg && y.Mean-y.CI95 < 0 {
		return max(y.Mean, 0), y.CI95
	}
	return y.CI95, y.CI95
}

func checkXY(name string, x []float64, y []float64) error {
	for i := range x {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return fmt.Errorf("series %q point %d is (%v, %v): plots need finite numbers", name, i, x[i], y[i])
		}
	}
	return nil
}

// Plot builds the gonum plot.
func (lp *LinePlot) Plot() (*plot.Plot, error) {
	if len(lp.Series) == 0 {
		return nil, fmt.Errorf("plot %q has no series", lp.Title)
	}
	p := newPlot(lp.XLabel, lp.YLabel)
	lp.entries = nil
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
		if lp.NoLines {
			s = dodge(s, i, len(lp.Series), lp.Series)
		}
		pts := ciPoints{s, lp.NonNegative}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("series %q: %w", s.Name, err)
		}
		c := seriesColor(i)
		line.Color = c
		points.Color = c
		points.Shape = seriesMarker(i)
		points.Radius = vg.Points(2.5)
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, fmt.Errorf("series %q error bars: %w", s.Name, err)
		}
		bars.Color = c
		if lp.NoLines {
			p.Add(points, bars)
			p.Legend.Add(s.Name, points)
			lp.entries = append(lp.entries, legendEntry{s.Name, []plot.Thumbnailer{points}})
			continue
		}
		p.Add(line, points, bars)
		p.Legend.Add(s.Name, line, points)
		lp.entries = append(lp.entries, legendEntry{s.Name, []plot.Thumbnailer{line, points}})
	}
	switch {
	case lp.NoLines:
		p.X.Tick.Marker = conditionTicks(lp.Series)
		pad(p, true)
	case logX(lp.Series):
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = distinctTicks{plot.LogTicks{Prec: -1}}
		padLog(&p.X)
		pad(p, false)
	case integral(lp.Series):
		p.X.Tick.Marker = intTicks{}
		pad(p, true)
	default:
		pad(p, true)
	}
	return p, nil
}

// dodge shifts series i of n sideways by a few percent of the x span, so
// that markers of separate conditions at one x do not hide each other.
func dodge(s Series, i, n int, all []Series) Series {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, a := range all {
		for _, x := range a.X {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	span := hi - lo
	if span <= 0 {
		span = math.Max(math.Abs(hi), 1)
	}
	off := (float64(i) - float64(n-1)/2) * 0.03 * span
	out := Series{Name: s.Name, Y: s.Y, X: make([]float64, len(s.X))}
	for j, x := range s.X {
		out.X[j] = x + off
	}
	return out
}

// Write renders the plot in format (png, svg or pdf) at one-column size.
func (lp *LinePlot) Write(w io.Writer, format string) error {
	return lp.WriteSize(w, format, DefaultWidth, DefaultHeight)
}

// WriteSize renders the plot in format at the given size, the legend
// outside the data.
func (lp *LinePlot) WriteSize(w io.Writer, format string, width, height vg.Length) error {
	p, err := lp.Plot()
	if err != nil {
		return err
	}
	return writeFigure(w, p, lp.entries, format, width, height)
}
