package reports

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stormlab/stormlab/internal/golden"
)

// widePlot has six series with long names: too wide a legend to sit
// beside the axes of a one-column figure.
func widePlot() *LinePlot {
	lp := &LinePlot{Title: "partition-k: cut rate", XLabel: "number of parts k", YLabel: "cut rate (inter-part / all edge weight)"}
	for i, name := range []string{"optimum (exact, max dev <= 0.05)", "K-PART Mul=0", "K-PART Mul=5", "T-PART (online)", "M-PART (mpart)", "mlfm (max dev <= 0.05)"} {
		s := Series{Name: name}
		for k := 2; k <= 8; k++ {
			s.X = append(s.X, float64(k))
			s.Y = append(s.Y, Summary{N: 10, Mean: 0.1*float64(k) + 0.02*float64(i), CI95: 0.01})
		}
		lp.Series = append(lp.Series, s)
	}
	return lp
}

// A wide legend goes below the axes: every legend label lies under the
// x axis label, so none is over the data.
func TestWideLegendBelow(t *testing.T) {
	var b bytes.Buffer
	if err := widePlot().Write(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	y := func(label string) float64 {
		re := regexp.MustCompile(`<text x="[0-9.]+" y="(-?[0-9.]+)"[^>]*>` + regexp.QuoteMeta(label) + `</text>`)
		m := re.FindStringSubmatch(b.String())
		if m == nil {
			t.Fatalf("no text %q in the SVG", label)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return -v // the SVG flips y: larger -y is higher up
	}
	axis := y("number of parts k")
	for _, s := range widePlot().Series {
		if ly := y(html.EscapeString(s.Name)); ly >= axis {
			t.Errorf("legend %q at height %v, not below the x axis label at %v", s.Name, ly, axis)
		}
	}
	if golden.Update() {
		var png bytes.Buffer
		if err := widePlot().Write(&png, "png"); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join("testdata", "lineplot-wide-legend.png"), png.Bytes(), 0o644)
		fmt.Println("wrote testdata/lineplot-wide-legend.png: look at it")
	}
}
