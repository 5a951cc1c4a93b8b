package reports

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure sizes of a two-column paper (IEEE/ACM: 3.5 in column, 7.16 in
// page width), and the resolution of PNG output.
const (
	OneColumnWidth  = 3.5 * vg.Inch
	OneColumnHeight = 2.6 * vg.Inch
	TwoColumnWidth  = 7.16 * vg.Inch
	TwoColumnHeight = 3 * vg.Inch
	DPI             = 300
	// DefaultWidth and DefaultHeight are the one-column size.
	DefaultWidth  = OneColumnWidth
	DefaultHeight = OneColumnHeight
)

// Formats lists the figure formats WritePlot accepts.
var Formats = []string{"png", "svg", "pdf"}

// FigureFile is one file of a figure: Suffix goes after the metric name.
type FigureFile struct {
	Suffix        string
	Format        string
	Width, Height vg.Length
}

// FigureFiles are the files every figure is written as: SVG (the HTML page
// inlines it), PDF and 300 dpi PNG at one-column size, and PDF and PNG at
// two-column size ("-2col").
var FigureFiles = []FigureFile{
	{".svg", "svg", OneColumnWidth, OneColumnHeight},
	{".pdf", "pdf", OneColumnWidth, OneColumnHeight},
	{".png", "png", OneColumnWidth, OneColumnHeight},
	{"-2col.pdf", "pdf", TwoColumnWidth, TwoColumnHeight},
	{"-2col.png", "png", TwoColumnWidth, TwoColumnHeight},
}

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

// Font sizes for a figure printed at column width.
const (
	labelSize  = 9
	tickSize   = 8
	legendSize = 8
)

// newPlot is a plot without a title (captions live beside the figure),
// with tick labels that always differ (distinctTicks).
func newPlot(xl, yl string) *plot.Plot {
	p := plot.New()
	p.X.Tick.Marker = distinctTicks{plot.DefaultTicks{}}
	p.Y.Tick.Marker = distinctTicks{plot.DefaultTicks{}}
	p.X.Label.Text = xl
	p.Y.Label.Text = yl
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = labelSize
		a.Tick.Label.Font.Size = tickSize
	}
	p.Legend.TextStyle.Font.Size = legendSize
	p.Legend.Left, p.Legend.Top = true, true
	p.Legend.ThumbnailWidth = vg.Points(16)
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 0xe0}
	g.Horizontal.Color = color.Gray{Y: 0xe0}
	p.Add(g)
	return p
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

// conditionTicks labels exactly the x values of the series (the
// conditions of a NoLines plot), each as its shortest exact decimal.
func conditionTicks(ss []Series) plot.Ticker {
	var xs []float64
	for _, s := range ss {
		for _, x := range s.X {
			if !slices.Contains(xs, x) {
				xs = append(xs, x)
			}
		}
	}
	slices.Sort(xs)
	ticks := make(plot.ConstantTicks, len(xs))
	for i, x := range xs {
		ticks[i] = plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)}
	}
	return ticks
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
			ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x+0, 'f', 0, 64)}) // +0: no "-0"
		} else if hi-lo <= 50 {
			ticks = append(ticks, plot.Tick{Value: x})
		}
	}
	return ticks
}

// logX reports whether the x values are all positive and span two orders
// of magnitude or more (task counts 10..1000): a log axis then keeps the
// small ones apart.
func logX(ss []Series) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, x := range s.X {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	return lo > 0 && hi/lo >= 100
}

// padLog widens a log axis by 4% of its span in decades on each side.
func padLog(a *plot.Axis) {
	f := math.Pow(a.Max/a.Min, 0.04)
	a.Min /= f
	a.Max *= f
}

// distinctTicks labels the labelled ticks of Ticker with the fewest
// decimals (the same for all) that print every tick value exactly, so
// labels never repeat: gonum's default labels can ("1, 1.1, 1.1, 1.1" for
// ticks 0.05 apart). Values beyond 1e6 or below 1e-4 keep Ticker's labels.
type distinctTicks struct{ plot.Ticker }

// Ticks implements plot.Ticker.
func (d distinctTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := d.Ticker.Ticks(lo, hi)
	big := 0.0
	for _, t := range ticks {
		if t.Label != "" {
			big = math.Max(big, math.Abs(t.Value))
		}
	}
	if big >= 1e6 || big < 1e-4 {
		return ticks
	}
	tol := 1e-9 * big
	for dec := 0; dec <= 8; dec++ {
		out := make([]plot.Tick, len(ticks))
		ok := true
		for i, t := range ticks {
			out[i] = t
			if t.Label == "" {
				continue
			}
			v := t.Value
			if math.Abs(v) <= tol {
				v = 0 // no "-0.0" from a rounding error
			}
			l := strconv.FormatFloat(v, 'f', dec, 64)
			if back, _ := strconv.ParseFloat(l, 64); math.Abs(back-v) > tol {
				ok = false
				break
			}
			out[i].Label = l
		}
		if ok {
			return out
		}
	}
	return ticks
}

// pad widens the axes (x only when x is set) by 4% of their span on each
// side, so no marker or error bar cap at the edge of the data is clipped.
func pad(p *plot.Plot, x bool) {
	axes := []*plot.Axis{&p.Y}
	if x {
		axes = append(axes, &p.X)
	}
	for _, a := range axes {
		span := a.Max - a.Min
		if span <= 0 {
			span = math.Max(math.Abs(a.Max), 1)
		}
		a.Min -= 0.04 * span
		a.Max += 0.04 * span
	}
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

// WritePlot draws p (its legend where p puts it) on a canvas of the given
// size and format and writes it to w.
func WritePlot(w io.Writer, p *plot.Plot, format string, width, height vg.Length) error {
	c, err := newCanvas(format, width, height)
	if err != nil {
		return err
	}
	p.Draw(draw.New(c))
	return writeCanvas(w, c, format)
}

// legendRightShare is the widest a legend beside the axes may be, as a
// share of the figure's width; a wider one goes below the axes in columns.
const legendRightShare = 0.3

// writeFigure draws p with its legend outside the data, and writes it to w in format ("png" at 300 dpi, "svg"
// or "pdf"). A legend narrow enough goes to the right of the axes; a wider
// one goes below them, in as many columns as fit, and the figure grows by
// its height (the width is what a column fixes, and the axes keep theirs).
// SVG output is deterministic (fonts are referenced, not embedded); PNG
// depends on font rasterisation; PDF embeds its fonts.
func writeFigure(w io.Writer, p *plot.Plot, entries []legendEntry, format string, width, height vg.Length) error {
	const margin = vg.Length(4)
	// A label wider than the figure was cut at both ends; it takes two lines or more instead.
	p.X.Label.Text = wrapLabel(p.X.Label.TextStyle, p.X.Label.Text, 0.8*width-2*margin) // centred on the axes, not the figure
	p.Y.Label.Text = wrapLabel(p.Y.Label.TextStyle, p.Y.Label.Text, 0.9*height)
	style := p.Legend
	p.Legend = plot.NewLegend() // the plot draws none; the legend goes outside
	defer func() { p.Legend = style }()
	newLegend := func(es []legendEntry) plot.Legend {
		l := plot.NewLegend()
		l.TextStyle, l.ThumbnailWidth, l.Left, l.Top = style.TextStyle, style.ThumbnailWidth, true, true
		for _, e := range es {
			l.Add(e.name, e.thumbs...)
		}
		return l
	}
	all := newLegend(entries)
	r := all.Rectangle(draw.Canvas{})
	colW := r.Max.X - r.Min.X + 3*margin
	right := len(entries) > 0 && colW <= vg.Length(legendRightShare)*width
	var cols, rows int
	var legH vg.Length
	if len(entries) > 0 && !right {
		cols = max(1, min(len(entries), int((width-2*margin)/colW)))
		rows = (len(entries) + cols - 1) / cols
		legH = (r.Max.Y-r.Min.Y)/vg.Length(len(entries))*vg.Length(rows) + 2*margin
		height += legH
	}
	c, err := newCanvas(format, width, height)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	bottom := vg.Length(0)
	switch {
	case len(entries) == 0:
		p.Draw(draw.Crop(dc, 0, 0, bottom, -margin)) // -margin: no title above, keep the top tick label in
	case right:
		p.Draw(draw.Crop(dc, 0, -colW, bottom, -margin))
		all.Draw(draw.Crop(dc, width-colW+margin, -margin, bottom, -margin))
	default: // below the axes: columns of equal width, filled top to bottom
		for k := 0; k < cols; k++ {
			lo, hi := k*rows, min((k+1)*rows, len(entries))
			if lo >= hi {
				break
			}
			l := newLegend(entries[lo:hi])
			x := margin + vg.Length(k)*colW
			l.Draw(draw.Crop(dc, x, -(width - x - colW), bottom, -(height - bottom - legH)))
		}
		p.Draw(draw.Crop(dc, 0, 0, bottom+legH, -margin))
	}
	return writeCanvas(w, c, format)
}

// wrapLabel breaks an axis label into lines no wider than avail in its
// font, at spaces (a word longer than avail keeps a line of its own).
func wrapLabel(st text.Style, label string, avail vg.Length) string {
	if label == "" || st.Width(label) <= avail {
		return label
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(label) {
		if line != "" && st.Width(line+" "+w) > avail {
			lines, line = append(lines, line), w
			continue
		}
		line = strings.TrimSpace(line + " " + w)
	}
	return strings.Join(append(lines, line), "\n")
}

func newCanvas(format string, width, height vg.Length) (vg.CanvasWriterTo, error) {
	switch strings.ToLower(format) {
	case "png":
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(DPI))}, nil
	case "svg":
		return vgsvg.New(width, height), nil
	case "pdf":
		c := vgpdf.New(width, height)
		c.EmbedFonts(true)
		return c, nil
	}
	return nil, fmt.Errorf("unknown figure format %q: use one of %s", format, strings.Join(Formats, ", "))
}

func writeCanvas(w io.Writer, c vg.CanvasWriterTo, format string) error {
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("write %s: %w", format, err)
	}
	return nil
}

// WriteCaptionText writes a figure's caption as plain text (the .txt
// beside the figure).
func WriteCaptionText(w io.Writer, caption string) error {
	_, err := io.WriteString(w, strings.TrimSpace(caption)+"\n")
	return err
}

// WriteFigureTeX writes a LaTeX figure environment that includes graphic
// (a file name without extension: pdflatex picks the PDF) at the column
// width, with the caption and \label{label} (the .tex beside the figure;
// it needs \usepackage{graphicx}).
func WriteFigureTeX(w io.Writer, graphic, caption, label string) error {
	_, err := fmt.Fprintf(w, "%% Needs \\usepackage{graphicx} in the preamble.\n\\begin{figure}[htbp]\n  \\centering\n"+
		"  \\includegraphics[width=\\linewidth]{%s}\n  \\caption{%s}\n  \\label{%s}\n\\end{figure}\n",
		graphic, EscapeLaTeX(strings.TrimSpace(caption)), label)
	return err
}
