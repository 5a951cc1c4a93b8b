package sim

import (
	"math"
	"testing"
)

// TestJacksonFormulas: the analytic baseline against the formulas it rests on. One bolt of 1 ms on a
// core of its own under Poisson arrivals is M/M/1 (the spout costs nothing): residence 1/(mu - lambda)
// (Kleinrock, "Queueing Systems, Vol. 1", 1975, sec. 3.2); closed, with 10 trees in flight, one PS
// station is saturated: throughput mu, latency 10/mu (Little). Exact.
func TestJacksonFormulas(t *testing.T) {
	const mu = 1000.0
	open := chain(tiny, Dist{Mean: 1 / mu, CV: 1, Kind: Exponential}, 800, 0)
	a, err := Jackson(open)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 / (mu - 800); math.Abs(a.LatencyMean-want)/want > 1e-3 || a.Throughput != 800 {
		t.Errorf("open: latency %.5g s, throughput %v; want %.5g s, 800", a.LatencyMean, a.Throughput, want)
	}
	closed := chain(tiny, Dist{Mean: 1 / mu}, 0, 10)
	if a, err = Jackson(closed); err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.Throughput-mu)/mu > 1e-3 || math.Abs(a.LatencyMean-10/mu)/(10/mu) > 1e-3 {
		t.Errorf("closed: %.1f/s, %.5g s; want %v/s, %v s", a.Throughput, a.LatencyMean, mu, 10/mu)
	}
	over := chain(tiny, Dist{Mean: 1 / mu}, 1200, 0)
	if _, err := Jackson(over); err == nil {
		t.Error("an open network loaded beyond its cores has no steady state, and was given one")
	}
}

// TestJacksonMissesWhatTheModelHas: where a thread's one-core limit binds (two saturated bolts of one
// component on a node of 4 cores, fed by a closed loop), the plain network gives the node's 4 cores to
// the tree and predicts twice the throughput the simulator (and Storm) can reach: the baseline the
// simulator must beat, by design.
func TestJacksonMissesWhatTheModelHas(t *testing.T) {
	cfg := chain(tiny, Dist{Mean: 1e-3}, 0, 100)
	cfg.Nodes[1].Cores = 4
	cfg.Topology.Executors = append(cfg.Topology.Executors, Executor{Component: "b", Worker: 1})
	a, err := Jackson(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Throughput-2000)/2000 > 0.01 || a.Throughput < 1.9*r.Throughput {
		t.Errorf("simulated %.0f/s (want 2,000: two threads of 1 ms), analytic %.0f/s (want about twice)", r.Throughput, a.Throughput)
	}
}
