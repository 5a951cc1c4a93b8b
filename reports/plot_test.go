package reports

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/stormlab/stormlab/internal/golden"
)

func samplePlot() *LinePlot {
	return &LinePlot{
		Title: "Cut rate vs Mul", XLabel: "Mul", YLabel: "cut rate (inter-node / all edges)",
		Series: []Series{
			{Name: "kpart", X: []float64{0, 1, 2}, Y: []Summary{{N: 10, Mean: 0.40, CI95: 0.02}, {N: 10, Mean: 0.43, CI95: 0.03}, {N: 10, Mean: 0.45, CI95: 0.01}}},
			{Name: "mpart", X: []float64{0, 1, 2}, Y: []Summary{{N: 10, Mean: 0.30, CI95: 0}, {N: 10, Mean: 0.30, CI95: 0}, {N: 10, Mean: 0.30, CI95: 0}}},
		},
	}
}

func TestLinePlotSVGGolden(t *testing.T) {
	var b bytes.Buffer
	if err := samplePlot().Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/lineplot.svg", b.Bytes())
}

func TestLinePlotPNG(t *testing.T) {
	// PNG bytes depend on font rasterisation, so check it decodes and has the
	// size asked for at 300 dpi: one column 3.5 x 2.6 in = 1050 x 780 px,
	// two columns 7.16 x 3 in = 2148 x 900 px.
	for _, c := range []struct {
		w, h         vg.Length
		wantW, wantH int
	}{{OneColumnWidth, OneColumnHeight, 1050, 780}, {TwoColumnWidth, TwoColumnHeight, 2148, 900}} {
		var b bytes.Buffer
		if err := samplePlot().WriteSize(&b, "png", c.w, c.h); err != nil {
			t.Fatal(err)
		}
		if golden.Update() { // for looking at, not compared
			os.WriteFile(filepath.Join("testdata", fmt.Sprintf("lineplot-%dpx.png", c.wantW)), b.Bytes(), 0o644)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("PNG does not decode: %v", err)
		}
		if r := img.Bounds(); r.Dx() != c.wantW || r.Dy() != c.wantH {
			t.Errorf("PNG is %dx%d, want %dx%d", r.Dx(), r.Dy(), c.wantW, c.wantH)
		}
	}
}

// The legend sits right of the axes, not over the data: in the SVG every
// legend label is drawn to the right of the last x tick label.
func TestLegendOutsideData(t *testing.T) {
	var b bytes.Buffer
	if err := samplePlot().Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	x := func(label string) float64 {
		re := regexp.MustCompile(`<text x="([0-9.]+)"[^>]*>` + regexp.QuoteMeta(label) + `</text>`)
		m := re.FindStringSubmatch(b.String())
		if m == nil {
			t.Fatalf("no text %q in the SVG", label)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	if lastTick := x("2"); x("kpart") <= lastTick || x("mpart") <= lastTick {
		t.Errorf("legend at x %v/%v, not right of the last tick at %v", x("kpart"), x("mpart"), lastTick)
	}
	// The caption (what the error bars are) goes beside the figure, not into it.
	if !strings.Contains(samplePlot().CaptionText(), "Error bars: 95% confidence interval of the mean (Student's t); n = 10 runs per point.") {
		t.Error("no caption saying what the error bars are")
	}
}

func TestConstant(t *testing.T) {
	flat := &LinePlot{Series: []Series{
		{Name: "a", X: []float64{1, 2}, Y: []Summary{{Mean: 0}, {Mean: 0}}},
		{Name: "b", X: []float64{1}, Y: []Summary{{Mean: 0}}},
	}}
	if !flat.Constant() {
		t.Error("all-zero plot is not Constant")
	}
	if samplePlot().Constant() {
		t.Error("varying plot is Constant")
	}
	ci := &LinePlot{Series: []Series{{Name: "a", X: []float64{1}, Y: []Summary{{Mean: 1, CI95: 0.1}}}}}
	if ci.Constant() {
		t.Error("a plot with an interval is Constant")
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
	b.Reset()
	if err := samplePlot().WriteSize(&b, "pdf", TwoColumnWidth, TwoColumnHeight); err != nil {
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
	golden.Assert(t, "testdata/timeseries.svg", b.Bytes())
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

// TestNonNegativeClipsLowerBar: a latency of mean 100 and CI 150 (n = 3 with a wide spread) has its lower bar
// stop at 0 and the caption says so; without NonNegative, or with an interval above 0, the bars are symmetric
// and the caption is silent.
func TestNonNegativeClipsLowerBar(t *testing.T) {
	cases := []struct {
		name        string
		nonNeg      bool
		mean, ci    float64
		wantLo      float64
		wantCaption bool
	}{
		{"clipped", true, 100, 150, 100, true},
		{"inside", true, 100, 50, 50, false},
		{"not asked", false, 100, 150, 150, false},
	}
	for _, c := range cases {
		lp := &LinePlot{Title: "t", NonNegative: c.nonNeg, Series: []Series{{Name: "a", X: []float64{1}, Y: []Summary{{N: 3, Mean: c.mean, CI95: c.ci}}}}}
		lo, hi := ciPoints{lp.Series[0], lp.NonNegative}.YError(0)
		if lo != c.wantLo || hi != c.ci {
			t.Errorf("%s: bars (%v, %v), want (%v, %v)", c.name, lo, hi, c.wantLo, c.ci)
		}
		if got := strings.Contains(lp.CaptionText(), "stop at 0"); got != c.wantCaption {
			t.Errorf("%s: caption %q, clip note %v, want %v", c.name, lp.CaptionText(), got, c.wantCaption)
		}
	}
}

// TestWrapLabel: a label wider than the space breaks at spaces into lines that fit (measured in the label's
// font); one that fits is left alone.
func TestWrapLabel(t *testing.T) {
	p := newPlot("x", "y")
	st := p.X.Label.TextStyle
	long := "offered load (fraction of EvenScheduler's saturated throughput; 0 = unpaced)"
	avail := st.Width(long) * 0.6
	got := wrapLabel(st, long, avail)
	lines := strings.Split(got, "\n")
	if len(lines) != 2 || strings.Join(lines, " ") != long {
		t.Fatalf("wrapped %q, want two lines that join to the label", got)
	}
	for _, l := range lines {
		if st.Width(l) > avail {
			t.Errorf("line %q is %v wide, more than %v", l, st.Width(l), avail)
		}
	}
	if got := wrapLabel(st, "time (s)", avail); got != "time (s)" {
		t.Errorf("short label wrapped: %q", got)
	}
}

// TestNoLines: separate conditions get markers and bars only, side by side (dodged by 3% of the x span per
// series), and ticks at the conditions alone.
func TestNoLines(t *testing.T) {
	ss := []Series{
		{Name: "a", X: []float64{0, 0.5}, Y: []Summary{{N: 3, Mean: 1, CI95: 0.1}, {N: 3, Mean: 2, CI95: 0.1}}},
		{Name: "b", X: []float64{0, 0.5}, Y: []Summary{{N: 3, Mean: 1, CI95: 0.1}, {N: 3, Mean: 2, CI95: 0.1}}},
	}
	if got := dodge(ss[0], 0, 2, ss).X; math.Abs(got[0]+0.0075) > 1e-12 || math.Abs(got[1]-0.4925) > 1e-12 {
		t.Errorf("dodge of the first of two: %v, want [-0.0075 0.4925] (half of 3%% of 0.5)", got)
	}
	lp := &LinePlot{NoLines: true, Series: ss}
	p, err := lp.Plot()
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		labels = append(labels, tk.Label)
	}
	if strings.Join(labels, ",") != "0,0.5" {
		t.Errorf("x ticks %v, want 0 and 0.5 only", labels)
	}
	if len(lp.entries) != 2 || len(lp.entries[0].thumbs) != 1 {
		t.Errorf("legend entries %+v, want a marker each", lp.entries)
	}
}
