package lab

import (
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
