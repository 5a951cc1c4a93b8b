package simcluster

import (
	"math"
	"testing"

	"github.com/stormlab/stormlab/infra/sim"
)

// TestRunSpeedSD: two topologies, each run twice, every component of the first run 10% dearer than
// the pooled figure and of the second 10% cheaper (ln 1.1 either way about the topology's mean): the
// pooled standard deviation is sqrt(4 ln(1.1)^2 / 2) = ln(1.1) x sqrt(2), worked out by hand. One run
// of a topology says nothing (0). commonSD leaves what the common factor does not explain.
func TestRunSpeedSD(t *testing.T) {
	pooled := map[string]sim.ComponentCost{"a": {CPUMicros: 10}, "b": {CPUMicros: 40}}
	run := func(f float64) runCosts {
		return runCosts{comps: map[string]sim.ComponentCost{"a": {CPUMicros: 10 * f}, "b": {CPUMicros: 40 * f}}}
	}
	tops := map[string]sim.TopologyCosts{"x": {Components: pooled}, "y": {Components: pooled}}
	per := map[string][]runCosts{"x": {run(1.1), run(1 / 1.1)}, "y": {run(1.1), run(1 / 1.1)}}
	if got, want := runSpeedSD(per, tops), math.Log(1.1)*math.Sqrt2; math.Abs(got-want) > 1e-9 {
		t.Errorf("two topologies run twice: %.6f, want %.6f", got, want)
	}
	if got := runSpeedSD(map[string][]runCosts{"x": {run(1.3)}}, tops); got != 0 {
		t.Errorf("one run: %v, want 0", got)
	}
	for _, c := range []struct{ mean, sd, speed, want float64 }{{10, 2, 0.1, math.Sqrt(3)}, {10, 0.5, 0.1, 0}, {10, 2, 0, 2}} {
		if got := commonSD(c.mean, c.sd, c.speed); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("commonSD(%v, %v, %v) = %v, want %v", c.mean, c.sd, c.speed, got, c.want)
		}
	}
}

// TestRunSpeedDrawn: a cost model with run_speed_sd divides every node's speed by one factor per run,
// the same for a seed and others for others, log-normal with that spread (its SD over 400 seeds within
// 10%: the sample SD's relative standard error at n = 400 is 1/sqrt(2 x 399) = 3.5%); without it the
// nodes keep their speed.
func TestRunSpeedDrawn(t *testing.T) {
	n, err := Lookup("heterogeneous-2")
	if err != nil {
		t.Fatal(err)
	}
	speeds := func(sd float64, seed uint64) []float64 {
		m := &sim.CostModel{Provenance: sim.CostProvenance{HostCores: 2}, Transfer: sim.TransferCosts{RunSpeedSD: sd}}
		var out []float64
		for _, node := range (&simRun{c: &Cluster{named: n, model: m}, seed: seed}).nodes() {
			out = append(out, node.Speed)
		}
		return out
	}
	if s := speeds(0, 1); s[0] != n.Nodes[0].Speed || s[1] != n.Nodes[1].Speed {
		t.Errorf("no run_speed_sd: speeds %v, want the cluster's %v and %v", s, n.Nodes[0].Speed, n.Nodes[1].Speed)
	}
	var logs []float64
	for seed := range uint64(400) {
		s := speeds(0.1, seed)
		if s[0] != s[1] || speeds(0.1, seed)[0] != s[0] {
			t.Fatalf("seed %d: speeds %v: want one factor for every node, the same again", seed, s)
		}
		logs = append(logs, -math.Log(s[0]))
	}
	if sd := sampleSD(logs); math.Abs(sd-0.1)/0.1 > 0.1 {
		t.Errorf("log speed's spread over 400 runs %.4f, want 0.1 within 10%%", sd)
	}
}
