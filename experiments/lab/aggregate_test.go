package lab

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestTableMarksUnstableCells(t *testing.T) {
	r := &Results{Experiment: "x", Metrics: []Metric{{Name: "throughput", Label: "throughput (tuples/s)"}, {Name: "latency_mean_ms", Label: "latency (ms)"}}}
	// stable: throughput 100, 101, 99 (CV 1%); latency 10, 14, 6 (CV 40%:
	// std 4 / mean 10, hand-computed).
	for i, v := range [][2]float64{{100, 10}, {101, 14}, {99, 6}} {
		r.Add(Row{Series: "s", X: 0, Rep: i, Offered: "unpaced (saturation)", Values: map[string]float64{"throughput": v[0], "latency_mean_ms": v[1]}})
	}
	r.Add(Row{Series: "one", X: 0, Offered: "paced", Values: map[string]float64{"throughput": 1, "latency_mean_ms": 1}})
	a, err := Summarise(r)
	if err != nil {
		t.Fatal(err)
	}
	if cv := a.Series[0].Points[0].CV["latency_mean_ms"]; math.Abs(cv-0.4) > 1e-12 {
		t.Errorf("CV = %v, want 0.4", cv)
	}
	var b strings.Builder
	if err := a.Table("t", "scheduler", "x").WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"throughput (tuples/s)", "latency (ms)", "offered load", "unpaced (saturation)", "UNSTABLE latency_mean_ms 40%", "n/a (1 run)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "UNSTABLE throughput") {
		t.Errorf("stable throughput marked unstable:\n%s", out)
	}
}

// graphRows: 2 graphs x 3 repetitions of "alg" at x = 0 and 1, and a
// reference "ref (max dev <= 0.05)" identical at both x, breaking its bound
// on one graph at x = 1 only if broken is set.
func graphRows(broken bool) *Results {
	r := &Results{Experiment: "g", Metrics: []Metric{{Name: "max_dev"}, {Name: "empty_parts"}}, Unit: UnitInstance}
	for _, x := range []float64{0, 1} {
		for g := 0; g < 2; g++ {
			for rep := 0; rep < 3; rep++ {
				// graph means: 0.1 + 0.1*g + x/10 (reps 0.1 apart around it)
				r.Add(Row{Series: "alg", X: x, Instance: g, InstanceSeed: uint64(g + 1), Rep: rep,
					Values: map[string]float64{"max_dev": 0.1 + 0.1*float64(g) + x/10 + 0.1*float64(rep-1), "empty_parts": 0}})
			}
			dev := 0.04
			if broken && g == 1 && x == 1 {
				dev = 0.9
			}
			r.Add(Row{Series: "ref (max dev <= 0.05)", X: x, Instance: g, InstanceSeed: uint64(g + 1),
				Values: map[string]float64{"max_dev": dev, "empty_parts": 0}})
		}
	}
	return r
}

// TestSummaryOverGraphs: n counts graphs and the CI is over the graph
// means: alg at x = 0 has graph means 0.1 and 0.2 (hand-computed), so mean
// 0.15, sample std 0.0707107, CI = t(0.975, 1) * 0.0707107 / sqrt(2) =
// 12.7062 * 0.05 = 0.63531 (t quantile: scipy.stats.t.ppf(0.975, 1)).
func TestSummaryOverGraphs(t *testing.T) {
	a, err := Summarise(graphRows(false))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := a.Get("alg", 0, "max_dev")
	if s.N != 2 || math.Abs(s.Mean-0.15) > 1e-12 || math.Abs(s.CI95-0.635310) > 1e-5 {
		t.Errorf("alg x=0: %+v; want n 2, mean 0.15, CI 0.63531", s)
	}
	if a.Unit != "graphs" {
		t.Errorf("unit %q", a.Unit)
	}
	var b strings.Builder
	if err := a.Table("t", "algorithm", "x").WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "| ref (max dev <= 0.05) | all |"); n != 1 {
		t.Errorf("constant reference shown %d times, want once as x = all:\n%s", n, out)
	}
	if strings.Contains(out, "breaks its stated bound") || !strings.Contains(out, "n graphs") {
		t.Errorf("table:\n%s", out)
	}
}

// TestTableFlagsBrokenBound: a series whose name states "max dev <= 0.05"
// and which breaks it in a run is starred, and the note names x and the
// largest deviation.
func TestTableFlagsBrokenBound(t *testing.T) {
	a, err := Summarise(graphRows(true))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := a.Table("t", "algorithm", "x").WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| ref (max dev <= 0.05) * | 0 |", "* ref (max dev <= 0.05) breaks its stated bound at x = 1: largest max dev 0.9"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestPanels: rows split by panel, panels in natural order (c = 4 before
// c = 16), one figure per panel.
func TestPanels(t *testing.T) {
	r := &Results{Experiment: "p", Metrics: []Metric{{Name: "ratio"}}, Unit: UnitInstance}
	for _, c := range []int{16, 4} {
		for i := 0; i < 2; i++ {
			r.Add(Row{Series: "spd", X: 10, Instance: c*100 + i, InstanceSeed: 1, Values: map[string]float64{"ratio": float64(c + i)}})
		}
	}
	a, err := SummarisePanels(r, func(row Row) string { return fmt.Sprintf("c = %d", row.Instance/100) })
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Panels(); len(got) != 2 || got[0] != "c = 4" || got[1] != "c = 16" {
		t.Errorf("panels %q", got)
	}
	if lp := a.PanelPlot("c = 16", "n", Metric{Name: "ratio"}); len(lp.Series) != 1 || lp.Series[0].Y[0].Mean != 16.5 {
		t.Errorf("panel plot %+v", lp.Series)
	}
	var b strings.Builder
	if err := a.TableWithPanels("t", "c", "scheduler", "n").WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(b.String(), "| c = 4 |"), strings.Index(b.String(), "| c = 16 |"); i < 0 || j < i {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestSummariesFitWidth: the terminal summaries keep every line within
// SummaryWidth, cite short ("Jian et al. 2018, Fig. 5") and wrap long
// claims instead of cutting them.
func TestSummariesFitWidth(t *testing.T) {
	r := graphRows(true)
	a, err := Summarise(r)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a claim with many words ", 20)
	rep := &Report{Spec: &Spec{Name: "kpart-mul", Paper: "jian2018kpart", Source: Cite("jian2018kpart", "Fig. 5"),
		SeriesLabel: "algorithm", XName: "Mul"}, Results: r, Aggregate: a,
		Claims: []Claim{{Statement: long, Evidence: long, Source: Cite("jian2018kpart", "Fig. 5a")}},
		Dir:    "/results/kpart-mul", Files: []string{"raw.csv", "table.md", "a-very-long-file-name-of-a-figure-2col.png"}}
	JudgeClaims(rep.Claims, "")
	var b strings.Builder
	if err := rep.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	if err := WriteSuiteSummary(&b, "suite default", []*Report{rep}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > SummaryWidth {
			t.Errorf("line %d is %d wide: %s", i+1, n, l)
		}
	}
	if !strings.Contains(out, "Jian et al. 2018, Fig. 5") || strings.Contains(out, "Storm heuristic") {
		t.Errorf("summary does not cite short:\n%s", out)
	}
	if got := strings.Count(strings.Join(strings.Fields(out), " "), strings.TrimSpace(long)); got < 2 {
		t.Errorf("long claim cut (%d whole copies):\n%s", got, out)
	}
}

// TestOptionalMetric: a metric measured in one cell only (latency from the intended send time, open-loop
// cells) passes Validate where it is missing, reads "n/a" in the other cell's table row and an empty field
// in raw.csv, and its figure has the one x it was measured at; a required metric missing, or an optional
// one NaN, still fails.
func TestOptionalMetric(t *testing.T) {
	metrics := []Metric{{Name: "throughput"}, {Name: "lag_ms", Label: "send lag (ms)", Optional: true}}
	r := &Results{Experiment: "o", Metrics: metrics}
	for rep := 0; rep < 3; rep++ {
		r.Add(Row{Series: "s", X: 0, Rep: rep, Offered: "unpaced", Values: map[string]float64{"throughput": 100 + float64(rep)}})
		r.Add(Row{Series: "s", X: 0.5, Rep: rep, Offered: "open loop", Values: map[string]float64{"throughput": 50, "lag_ms": 2 + float64(rep)}})
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	a, err := Summarise(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Get("s", 0, "lag_ms"); ok {
		t.Error("x = 0 has a lag summary, want none")
	}
	if s, ok := a.Get("s", 0.5, "lag_ms"); !ok || s.N != 3 || s.Mean != 3 { // mean of 2, 3, 4
		t.Errorf("x = 0.5 lag: %+v %v, want n 3, mean 3", s, ok)
	}
	var b strings.Builder
	if err := a.Table("t", "scheduler", "x").WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "n/a") {
		t.Errorf("table lacks n/a for the unmeasured cell:\n%s", b.String())
	}
	b.Reset()
	if err := r.WriteRaw(&b); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(b.String(), "\n"); !strings.HasSuffix(lines[1], ",100,") {
		t.Errorf("raw.csv unpaced row %q, want an empty lag field", lines[1])
	}
	if lp := a.PanelPlot("", "x", metrics[1]); len(lp.Series) != 1 || len(lp.Series[0].X) != 1 || lp.Series[0].X[0] != 0.5 {
		t.Errorf("lag figure: %+v, want one series with x = 0.5 only", lp.Series)
	}
	for _, bad := range []struct {
		name string
		row  map[string]float64
	}{
		{"required missing", map[string]float64{"lag_ms": 1}},
		{"optional NaN", map[string]float64{"throughput": 1, "lag_ms": math.NaN()}},
	} {
		rb := &Results{Experiment: "o", Metrics: metrics}
		rb.Add(Row{Series: "s", Values: bad.row})
		if err := rb.Validate(); err == nil {
			t.Errorf("%s: Validate passed", bad.name)
		}
	}
}

// The unit is the design's (Results.Unit, from the Spec), not inferred from
// the rows: the same graph rows (2 graphs x 3 repetitions a cell) give n = 2
// graphs under UnitInstance and n = 6 runs under UnitRun; a unit that is
// neither is an error naming both.
func TestSummaryUnitFromDesign(t *testing.T) {
	for _, c := range []struct {
		unit  string
		n     int
		label string
	}{{UnitInstance, 2, "graphs"}, {UnitRun, 6, "runs"}, {"", 6, "runs"}} {
		r := graphRows(false)
		r.Unit = c.unit
		a, err := Summarise(r)
		if err != nil {
			t.Fatal(err)
		}
		// alg x = 0: rows 0.1 + 0.1 g + 0.1 (rep - 1): the same mean 0.15 over graphs or runs.
		if s, _ := a.Get("alg", 0, "max_dev"); s.N != c.n || math.Abs(s.Mean-0.15) > 1e-12 || a.Unit != c.label {
			t.Errorf("unit %q: n %d mean %v label %q, want n %d mean 0.15 label %q", c.unit, s.N, s.Mean, a.Unit, c.n, c.label)
		}
	}
	r := graphRows(false)
	r.Unit = "graph"
	if _, err := Summarise(r); err == nil || !strings.Contains(err.Error(), `statistical unit "graph": use "run"`) {
		t.Errorf("unknown unit: error %v", err)
	}
}
