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
// The instrumented bolts count it (CountedWait in the topologies' jar: spin_ns in the reports), and
// `sim costs --method counted` reads the components' CPU per tuple without it (WithoutSpin); the default
// ratio keeps it. Runs recorded before the bolts counted it cannot tell it apart: their topologies' runs
// are saturated, their nodes at their quota, and every executor thread of a node gets nearly the same
// CPU, busy or spinning alike, so the CPU per tuple read from such a run is the thread's share of its
// node over its rate, spinning and all.

// measureSpin sets m's idle spinning from the transfer runs among runs whose nodes all had CPU to spare
// (the busiest below busyShare: on a node at its quota the spinning yields to other threads): per run,
// the mean over its bolt and acker executors of their thread's idle cores over the window (spinOf); over
// runs their mean, spread and stated interval. In runs that do not count the idle CPU apart the
// executors' own work is left in: at the design's 50-100 tuples/s it is a few thousandths of a core (the
// chain's bolts take 10-30 µs a tuple). It returns what is missing ("" when measured).
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
		"executors (what they counted idle, where the workers count it)"
	tr := &m.Transfer
	mean, _ := stats.Mean(perRun)
	tr.IdleSpinPI = remeasure(mean, perRun, nil)
	tr.IdleSpinCores, tr.IdleSpinSD = round(mean), round(sampleSD(perRun))
	return ""
}

// spinOf is the mean over r's bolt and acker executors of the cores their thread used in r's window:
// what it spent idle (spin_ns, and spin_last_ns where counted) where r's workers count it, else its CPU,
// the work and all.
func spinOf(r *harness.RunResult) (float64, bool) {
	counted := CountsSpin(r)
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
			switch f := tasks[t]; {
			case f != nil && counted:
				cpu += f.spin
			case f != nil:
				cpu += f.cpu
			}
		}
		xs = append(xs, cpu/span)
	}
	mean, err := stats.Mean(xs)
	return mean, err == nil
}
