package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/internal/golden"
)

func sampleScatter() *ScatterPlot {
	return &ScatterPlot{
		Title: "Simulated against real throughput", XLabel: "real (tuples/s)", YLabel: "predicted (tuples/s)",
		Points: []Points{
			{Name: "simulator", X: []float64{100, 400, 900}, Y: []float64{110, 380, 1000}},
			{Name: "analytic", X: []float64{100, 400, 900}, Y: []float64{100, 600, 1300}},
		},
	}
}

func TestScatterPlotSVGGolden(t *testing.T) {
	var b bytes.Buffer
	if err := sampleScatter().Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/scatter.svg", b.Bytes())
}

func TestScatterPlotAxesShareRange(t *testing.T) {
	p, err := sampleScatter().Plot()
	if err != nil {
		t.Fatal(err)
	}
	// 100..1300 padded by 5% of 1200 on each side: 40..1360 on both axes (y = x at 45 degrees).
	const tol = 1e-9
	for _, got := range []struct {
		name     string
		min, max float64
	}{{"x", p.X.Min, p.X.Max}, {"y", p.Y.Min, p.Y.Max}} {
		if d := got.min - 40; d > tol || d < -tol {
			t.Errorf("%s min = %v, want 40", got.name, got.min)
		}
		if d := got.max - 1360; d > tol || d < -tol {
			t.Errorf("%s max = %v, want 1360", got.name, got.max)
		}
	}
	if c := sampleScatter().CaptionText(); !strings.Contains(c, "y = x") || !strings.Contains(c, "simulator: 3") {
		t.Errorf("caption %q: want the line and each series' point count", c)
	}
}

func TestScatterPlotErrors(t *testing.T) {
	for _, sp := range []*ScatterPlot{
		{Title: "empty"},
		{Title: "ragged", Points: []Points{{Name: "a", X: []float64{1, 2}, Y: []float64{1}}}},
		{Title: "nan", Points: []Points{{Name: "a", X: []float64{1}, Y: []float64{nan()}}}},
	} {
		var b bytes.Buffer
		if err := sp.Write(&b, "svg"); err == nil {
			t.Errorf("%s: want an error", sp.Title)
		}
	}
}
