package simcluster

import (
	"slices"
	"strings"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
)

// Storm 2's bolt executors (the ackers too) wait for tuples in a progressive wait strategy: a thousand
// parkNanos(1) before they sleep a millisecond at a time, so an executor that gets a tuple every few
// milliseconds keeps waking, and on a host with cores to spare uses about a tenth of a core doing
// nothing. The model charges it apart (sim.Config.IdleSpin, a thread that wants at most that much and
// shares the node's cores as any thread), so sim costs measures it on the transfer design's runs, where
// the executors are idle nearly all the time.
//
// It is not taken out of the components' CPU per tuple, because the runs cannot tell it apart there:
// the topologies' runs are saturated, their nodes at their quota, and every executor thread of a node
// gets nearly the same CPU (on containers, 0.053-0.078 cores each on one node and 0.016-0.030 on the
// other, WordCount's split as much as its report), busy or spinning alike. A thread's CPU is then its
// share of the node, whatever it did with it, and the CPU per tuple read from it is that share over the
// thread's rate: the work of the executor that limits the run, an upper bound for the others.

// measureSpin sets m's idle spinning from the transfer runs among runs whose nodes all had CPU to spare
// (the busiest below busyShare: on a node at its quota the spinning yields to other threads): per run,
// the mean over its bolt and acker executors of their thread's cores over the window; over runs their
// mean, spread and stated interval. The executors' own work is left in: at the design's 50-100 tuples/s
// it is a few thousandths of a core (the chain's bolts take 10-30 µs a tuple). It returns what is
// missing ("" when measured).
func measureSpin(m *sim.CostModel, runs []*harness.RunResult) string {
	var perRun []float64
	for _, r := range runs {
		if r.Validity.Level == harness.Invalid || r.Simulated != nil || !IsTransferRun(r) {
			continue
		}
		if _, used := busiestNode(r); used >= busyShare {
			continue
		}
		if x, ok := spinOf(r); ok {
			perRun = append(perRun, x)
		}
	}
	if len(perRun) == 0 {
		return "idle_spin_cores: no transfer run with CPU to spare on every node (stormlab sim costs --cluster ... --transfer); the idle executors' spinning stays in the components' CPU per tuple"
	}
	m.Provenance.Missing = slices.DeleteFunc(m.Provenance.Missing, func(s string) bool { return strings.HasPrefix(s, "idle executors' wait-strategy CPU") })
	m.Provenance.Method += "; idle_spin_cores: per transfer run with every node below 90% of its CPU, the mean thread CPU of its bolt and acker " +
		"executors; the components' CPU per tuple keep what spinning their threads had (at saturation a node's threads share its CPU alike, busy or not)"
	tr := &m.Transfer
	mean, _ := stats.Mean(perRun)
	tr.IdleSpinPI = remeasure(mean, perRun, nil)
	tr.IdleSpinCores, tr.IdleSpinSD = round(mean), round(sampleSD(perRun))
	return ""
}

// spinOf is the mean over r's bolt and acker executors of the cores their thread used in r's window.
func spinOf(r *harness.RunResult) (float64, bool) {
	at, comp, _ := placesOf(r)
	tasks := taskSums(r, at)
	spouts := spoutComponents(comp, tasks)
	span := float64(r.MeasureTo-r.MeasureFrom) / 1000
	var xs []float64
	for _, e := range r.Executors {
		if spouts[e.Component] || span <= 0 {
			continue
		}
		cpu := 0.0
		for t := e.Start; t <= e.End; t++ {
			if f := tasks[t]; f != nil {
				cpu += f.cpu
			}
		}
		xs = append(xs, cpu/span)
	}
	mean, err := stats.Mean(xs)
	return mean, err == nil
}
