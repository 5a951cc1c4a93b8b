package simcluster

import (
	"math"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
)

// CostMethods name how `stormlab sim costs` reads a component's CPU: "ratio", its thread CPU over its
// tuples in the window (MeasureCosts; the default), "fit", FitIdle's two terms, "work", the ratio less
// what the model's twins of the runs spin per tuple (experiments.Work, SetWork), or "counted", the ratio
// less what the real threads counted idle in the wait strategy (MeasureCosts with WithoutSpin).
var CostMethods = []string{"ratio", "fit", "work", "counted"}

// fitPoint is one report interval of one task: its length, its thread CPU and its tuples (executed by
// a bolt, emitted by a spout), in seconds, seconds and tuples.
type fitPoint struct{ dt, cpu, n float64 }

// minFitPoints is the fewest intervals a fit reads; below it the component keeps its ratio.
const minFitPoints = 8

// minRateSpread is the least coefficient of variation of a component's per-interval rates a fit reads:
// at one rate (a paced spout) the two terms cannot be told apart.
const minRateSpread = 0.25

// rateSpread is the coefficient of variation of pts' rates (tuples per second).
func rateSpread(pts []fitPoint) float64 {
	var rates []float64
	for _, p := range pts {
		rates = append(rates, p.n/p.dt)
	}
	m, _ := stats.Mean(rates)
	sd, _ := stats.StandardDeviationPopulation(rates)
	if m <= 0 {
		return 0
	}
	return sd / m
}

// minCPUMicros is the floor of a fitted per-tuple cost: the model needs a service time above 0.
const minCPUMicros = 1

// FitIdle replaces each component's CPU per tuple in m by a least-squares fit, per run, of its tasks'
// thread CPU per report interval against their tuples: cpu = s * interval + b * tuples over every
// interval of the run with a report of the task (the warm-up's ramp included, which spreads the rates;
// a component whose rates hardly move, as a paced spout's, keeps its ratio).
// b is the CPU per tuple, s what an executor uses at any rate (Storm's wait strategy spins and yields
// while idle: recorded WordCount counters use 0.05 core each whether they count 50 or 5,000 words a
// second), kept as the component's IdleCores; both are the means over runs, b's spread between runs its
// standard deviation. Where a term comes out negative the other alone is fitted; a component with too
// few intervals keeps its ratio. The ratio over the window, which holds s spread over the tuples, is
// what the cost model has without it.
func FitIdle(m *sim.CostModel, runs []*harness.RunResult) error {
	fits := map[string]map[string][][2]float64{} // class -> component -> per run (b, s)
	for _, r := range runs {
		if r.Validity.Level == harness.Invalid || r.Simulated != nil || IsTransferRun(r) {
			continue
		}
		class := r.Spec.Topology.MainClass
		if _, ok := m.Topologies[class]; !ok {
			continue
		}
		if fits[class] == nil {
			fits[class] = map[string][][2]float64{}
		}
		spouts := map[string]bool{}
		for name, c := range m.Topologies[class].Components {
			spouts[name] = c.Spout
		}
		for comp, pts := range fitPoints(r, spouts) {
			if len(pts) >= minFitPoints && rateSpread(pts) >= minRateSpread {
				b, s := fitTwo(pts)
				fits[class][comp] = append(fits[class][comp], [2]float64{b, s})
			}
		}
	}
	for class, comps := range fits {
		t := m.Topologies[class]
		for comp, bs := range comps {
			c, ok := t.Components[comp]
			if !ok {
				continue // Storm's own executors (the ackers: their cost is per message, TransferCosts.AckCPUS)
			}
			var b, s []float64
			for _, x := range bs {
				b, s = append(b, x[0]*1e6), append(s, x[1])
			}
			c.CPUMicros, _ = stats.Mean(b)
			c.CPUMicros = math.Max(minCPUMicros, c.CPUMicros)
			c.CPUMicrosSD, c.CPUMicrosPI = 0, nil
			if len(b) > 1 {
				c.CPUMicrosSD, _ = stats.StandardDeviationSample(b)
			}
			c.IdleCores, _ = stats.Mean(s)
			t.Components[comp] = c
		}
		m.Topologies[class] = t
	}
	m.Provenance.Method += "; then each component's CPU fitted per report interval as s x interval + b x tuples (b per tuple, s per executor at any rate: idle_cores), means over runs"
	return nil
}

// fitPoints are r's report intervals per component: each task's thread CPU and tuples per interval
// (a spout's emitted, a bolt's received).
func fitPoints(r *harness.RunResult, spouts map[string]bool) map[string][]fitPoint {
	comp := map[int]string{}
	for _, e := range r.Executors {
		for t := e.Start; t <= e.End; t++ {
			comp[t] = e.Component
		}
	}
	out := map[string][]fitPoint{}
	for _, rep := range r.Reports {
		n := map[int]float64{}
		for _, tr := range rep.Traffic {
			if !spouts[comp[tr.Dst]] {
				n[tr.Dst] += float64(tr.Count)
			}
		}
		for _, e := range rep.Emits {
			if spouts[comp[e.Task]] {
				n[e.Task] += float64(e.Count)
			}
		}
		for _, c := range rep.CPU {
			if name := comp[c.Task]; name != "" && rep.IntervalS > 0 {
				out[name] = append(out[name], fitPoint{dt: rep.IntervalS, cpu: float64(c.CPUNs) / 1e9, n: n[c.Task]})
			}
		}
	}
	return out
}

// fitTwo is the least-squares (b, s) of cpu = s*dt + b*n over pts, each term kept >= 0 (a negative
// one is dropped and the other fitted alone).
func fitTwo(pts []fitPoint) (b, s float64) {
	var dd, dn, nn, cd, cn float64
	for _, p := range pts {
		dd, dn, nn = dd+p.dt*p.dt, dn+p.dt*p.n, nn+p.n*p.n
		cd, cn = cd+p.cpu*p.dt, cn+p.cpu*p.n
	}
	det := dd*nn - dn*dn
	if det > 0 {
		s, b = (cd*nn-cn*dn)/det, (dd*cn-dn*cd)/det
	}
	switch {
	case det <= 0 || b < 0 && s < 0:
		return 0, cd / dd
	case b < 0:
		return 0, cd / dd
	case s < 0:
		return cn / nn, 0
	}
	return b, s
}

// idleCores is what the run's executors use at any rate besides their tuples (sim.ComponentCost.IdleCores,
// where the costs were fitted so): the model spreads it evenly over the workers as part of their
// overhead, always runnable, as the wait strategy's spinning is.
func (r *simRun) idleCores() float64 {
	sum := 0.0
	for _, task := range r.modelTasks {
		sum += r.rt.costs.Components[r.componentOf(task)].IdleCores
	}
	return sum
}
