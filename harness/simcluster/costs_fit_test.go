package simcluster

import (
	"math"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
)

// fitRun is a recorded run of one spout task (1) feeding one bolt task (2), whose reports follow
// cpu = s * interval + b * tuples exactly at the given per-interval tuples (5 s intervals).
func fitRun(s, b float64, tuples []float64) *harness.RunResult {
	r := &harness.RunResult{Spec: harness.RunSpec{Topology: harness.TopologyRun{MainClass: "Main"}},
		Executors: []harness.ExecutorPlace{{Component: "spout", Start: 1, End: 1}, {Component: "bolt", Start: 2, End: 2}}}
	for _, n := range tuples {
		r.Reports = append(r.Reports, protocol.WorkerReport{IntervalS: 5,
			Traffic: []protocol.TaskTraffic{{Src: 1, Dst: 2, Count: int64(n)}},
			Emits:   []protocol.TaskEmits{{Task: 1, Stream: "default", Count: int64(n)}},
			CPU: []protocol.TaskCPU{{Task: 1, CPUNs: int64(5e9 * 0.01)}, // the spout: 0.01 core at any rate
				{Task: 2, CPUNs: int64(1e9 * (s*5 + b*n))}}})
	}
	return r
}

func fitModel() *sim.CostModel {
	return &sim.CostModel{Topologies: map[string]sim.TopologyCosts{"Main": {Components: map[string]sim.ComponentCost{
		"spout": {Spout: true, CPUMicros: 50}, "bolt": {CPUMicros: 400, CPUMicrosSD: 30}}}}}
}

// TestFitIdle: the fit recovers a bolt's per-tuple CPU and its CPU at any rate from reports built with
// them (0.05 core and 20 µs per tuple, the figures of a recorded WordCount counter's order), keeps the
// ratio where the rates do not move, and floors a per-tuple cost that comes out below 0.
func TestFitIdle(t *testing.T) {
	ramp := []float64{0, 500, 2000, 5000, 10000, 20000, 20000, 21000, 19000, 20000}
	const tol = 1e-6
	for _, c := range []struct {
		name     string
		run      *harness.RunResult
		wantCPU  float64 // µs per tuple
		wantIdle float64 // cores
	}{
		{"ramp", fitRun(0.05, 20e-6, ramp), 20, 0.05},
		{"one rate: the ratio kept", fitRun(0.05, 20e-6, []float64{20000, 20000, 20000, 20000, 20000, 20000, 20000, 20000}), 400, 0},
		// CPU falling with the rate: no per-tuple term, the CPU at any rate alone (0.1 - ... fitted as s).
		{"falling", fitRun(0.1, -2e-6, ramp[:9]), minCPUMicros, -1},
	} {
		m := fitModel()
		if err := FitIdle(m, []*harness.RunResult{c.run}); err != nil {
			t.Fatal(err)
		}
		got := m.Topologies["Main"].Components["bolt"]
		if math.Abs(got.CPUMicros-c.wantCPU) > tol*math.Max(1, c.wantCPU) {
			t.Errorf("%s: CPU per tuple %v µs, want %v", c.name, got.CPUMicros, c.wantCPU)
		}
		if c.wantIdle >= 0 && math.Abs(got.IdleCores-c.wantIdle) > tol {
			t.Errorf("%s: idle %v cores, want %v", c.name, got.IdleCores, c.wantIdle)
		}
		if c.wantIdle < 0 && !(got.IdleCores > 0) {
			t.Errorf("%s: idle %v cores, want the CPU at any rate above 0", c.name, got.IdleCores)
		}
	}
}
