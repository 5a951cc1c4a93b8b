package reports

import (
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

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
