package simcluster

import (
	"math"
	"testing"

	"github.com/stormlab/stormlab/infra/sim"
)

// TestSetWork: each figure is its ratio less the mean spinning per tuple its twins read, by hand: a at
// 30 µs less (10 + 14) / 2 = 18 µs; b at 5 less 10, floored at 1 µs; the ackers at 20 µs a message less
// 5; the stated intervals move with them, a's standard deviation in proportion (6 x 18/30); the largest
// change is b's, 4 of its 5 µs (0.8). The ratio model is left as it was.
func TestSetWork(t *testing.T) {
	const class = "C"
	base := &sim.CostModel{Topologies: map[string]sim.TopologyCosts{class: {
		Components: map[string]sim.ComponentCost{
			"a": {CPUMicros: 30, CPUMicrosSD: 6, CPUMicrosPI: &sim.Interval{Lo: 20, Hi: 40}},
			"b": {CPUMicros: 5},
		},
		AckCPUS: 20e-6, AckCPUPI: &sim.Interval{Lo: 10e-6, Hi: 30e-6},
	}}}
	m := &sim.CostModel{Topologies: map[string]sim.TopologyCosts{class: base.Topologies[class]}}
	spins := []SpinRead{
		{Class: class, CPUMicros: map[string]float64{"a": 10, "b": 10}, AckCPUS: 5e-6},
		{Class: class, CPUMicros: map[string]float64{"a": 14, "b": 10}, AckCPUS: 5e-6},
	}
	moved, err := SetWork(m, base, spins)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Topologies[class]
	a, b := got.Components["a"], got.Components["b"]
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"a", a.CPUMicros, 18}, {"a's standard deviation", a.CPUMicrosSD, 3.6}, {"a's interval low", a.CPUMicrosPI.Lo, 8}, {"a's interval high", a.CPUMicrosPI.Hi, 28},
		{"b", b.CPUMicros, 1}, {"ackers (µs)", got.AckCPUS * 1e6, 15}, {"ackers' interval high (µs)", got.AckCPUPI.Hi * 1e6, 25},
		{"largest change", moved, 0.8}, {"the ratio's a", base.Topologies[class].Components["a"].CPUMicros, 30},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	// Ackers that spun more than their ratio keep 1 µs a message, not 0 (which means the pooled figure).
	if _, err := SetWork(m, base, []SpinRead{{Class: class, AckCPUS: 25e-6}}); err != nil {
		t.Fatal(err)
	}
	if got := m.Topologies[class].AckCPUS; got != minAckCPUS {
		t.Errorf("ackers spinning 25 µs a message of 20: %v s, want the floor %v", got, minAckCPUS)
	}
}

// TestSpinOf: a twin's spinning per tuple, component by component, lies between 0 and its CPU per
// tuple as MeasureCosts reads it, and some component spun (the shipped model charges the spinning).
func TestSpinOf(t *testing.T) {
	c := open(t, "heterogeneous-2", 1)
	res := run(t, c, spec(t, "wordcount", "even", "wc-spin", "--workers", "4", "--parallelism", "2"))
	spin, err := SpinOf(res)
	if err != nil {
		t.Fatal(err)
	}
	_, comps, err := costsOfRun(res)
	if err != nil {
		t.Fatal(err)
	}
	spun := false
	for name, cc := range comps {
		s := spin.CPUMicros[name]
		if s < 0 || s > cc.CPUMicros*(1+1e-9) {
			t.Errorf("%s: spun %.3g µs a tuple of %.3g", name, s, cc.CPUMicros)
		}
		spun = spun || s > 0
	}
	if !spun || spin.AckCPUS < 0 {
		t.Errorf("spinning %+v: want some component's above 0, the ackers' not below", spin)
	}
}
