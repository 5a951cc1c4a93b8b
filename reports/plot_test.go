package reports

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"
)

func samplePlot() *LinePlot {
	return &LinePlot{
		Title: "Cut rate vs Mul", XLabel: "Mul", YLabel: "cut rate",
		Series: []Series{
			{Name: "kpart", X: []float64{0, 1, 2}, Y: []Summary{{Mean: 0.40, CI95: 0.02}, {Mean: 0.43, CI95: 0.03}, {Mean: 0.45, CI95: 0.01}}},
			{Name: "mpart", X: []float64{0, 1, 2}, Y: []Summary{{Mean: 0.30, CI95: 0}, {Mean: 0.30, CI95: 0}, {Mean: 0.30, CI95: 0}}},
		},
	}
}

func TestLinePlotSVGGolden(t *testing.T) {
	var b bytes.Buffer
	if err := samplePlot().Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	golden(t, "lineplot.svg", b.Bytes())
}

func TestLinePlotPNG(t *testing.T) {
	// PNG bytes depend on font rasterisation, so check it decodes and has the
	// size asked for: 6in x 4in at vgimg's default 96 dpi = 576 x 384 px.
	var b bytes.Buffer
	if err := samplePlot().Write(&b, "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	if r := img.Bounds(); r.Dx() != 576 || r.Dy() != 384 {
		t.Errorf("PNG is %dx%d, want 576x384", r.Dx(), r.Dy())
	}
}

func TestLinePlotPDF(t *testing.T) {
	var b bytes.Buffer
	if err := samplePlot().Write(&b, "pdf"); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("%PDF-")) {
		t.Errorf("PDF output starts with %q", b.Bytes()[:min(8, b.Len())])
	}
}

func TestTimeSeriesPlot(t *testing.T) {
	tp := &TimeSeriesPlot{Title: "throughput", YLabel: "tuples/s", Series: []TimeSeries{
		{Name: "even", T: []float64{0, 10, 20}, Y: []float64{100, 120, 118}},
		{Name: "kpart", T: []float64{0, 10, 20}, Y: []float64{100, 150, 149}},
	}}
	var b bytes.Buffer
	if err := tp.Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	golden(t, "timeseries.svg", b.Bytes())
}

func TestPlotErrors(t *testing.T) {
	var b bytes.Buffer
	if err := samplePlot().Write(&b, "gif"); err == nil || !strings.Contains(err.Error(), "png, svg, pdf") {
		t.Errorf("unknown format gave %v", err)
	}
	bad := samplePlot()
	bad.Series[0].Y[1].Mean = math.NaN()
	if err := bad.Write(&b, "svg"); err == nil {
		t.Error("NaN point plotted without error")
	}
	short := samplePlot()
	short.Series[1].X = short.Series[1].X[:2]
	if err := short.Write(&b, "svg"); err == nil {
		t.Error("mismatched series plotted without error")
	}
	if err := (&LinePlot{}).Write(&b, "svg"); err == nil {
		t.Error("empty plot without error")
	}
	if err := (&TimeSeriesPlot{Series: []TimeSeries{{Name: "x", T: []float64{1}, Y: []float64{1, 2}}}}).Write(&b, "svg"); err == nil {
		t.Error("mismatched time series without error")
	}
}

func TestIntTicks(t *testing.T) {
	// k = 2..24: range 22 -> step 5 (22/2 > 10, 22/5 <= 10); labels at 5..20,
	// minor ticks on the other integers.
	var labels []string
	n := 0
	for _, tk := range (intTicks{}).Ticks(2, 24) {
		n++
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, ","); got != "5,10,15,20" || n != 23 {
		t.Errorf("labels %s, %d ticks; want 5,10,15,20 and 23 ticks", got, n)
	}
}
