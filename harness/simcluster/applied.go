package simcluster

import (
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/fault"
)

// notRead is what a simulated run's node samples say in place of cgroups: the model's nodes have no
// host to be starved by, so host starvation is not an unknown of the diagnosis but absent.
const notRead = "simulated: no cgroups; every node gets its cores"

// applied is the CPU the model gave the background load and each straggler over the window, as a
// burner's reports give it on a real cluster: the node's load threads share its cores with the
// workers (sim.Sim.SetLoad), so a node that cannot give a load its level carries less, and the run is
// judged by the same 10% rule (diagnose.AppliedShort). A node's load usage in a report interval is
// split among the loads on it in proportion to their levels (its load threads get equal shares).
type applied struct {
	last    []float64 // each node's load usage (core-seconds) at the last reading; nil before the window
	bg      []float64 // each node's background load's core-seconds in the window
	str     []float64 // each straggler fault's core-seconds while it was on
	active  []bool    // each fault: its straggler is on now
	reports int       // report intervals read
}

// openLoad starts the accounting as the window opens.
func (r *simRun) openLoad() {
	r.load = applied{last: r.x.LoadUsage(), bg: make([]float64, len(r.c.named.Nodes)),
		str: make([]float64, len(r.spec.Faults)), active: make([]bool, len(r.spec.Faults))}
	r.links = r.sampleLinks()
}

// setActive records that fault i's straggler is on or off from now (faults start inside the window only).
func (r *simRun) setActive(i int, on bool) {
	if i < len(r.load.active) {
		r.load.active[i] = on
	}
}

// accountLoad splits each node's load usage since the last reading among the loads that were on it:
// called once per report interval in the window, before the interval's faults start or end.
func (r *simRun) accountLoad() {
	if r.load.last == nil {
		return
	}
	now := r.x.LoadUsage()
	for node, n := range r.c.named.Nodes {
		used := now[node] - r.load.last[node]
		bg := r.c.loadPercent / 100 * n.Cores
		asked, str := bg, map[int]float64{}
		for i, f := range r.spec.Faults {
			if arg, err := fault.ParseStragglerArg(f.Arg, nil); err == nil && r.load.active[i] && r.nodeIndex(arg.Host) == node {
				str[i] = arg.Percent / 100 * n.Cores
				asked += str[i]
			}
		}
		if asked <= 0 {
			continue
		}
		r.load.bg[node] += used * bg / asked
		for i, a := range str {
			r.load.str[i] += used * a / asked
		}
	}
	r.load.last = now
	r.load.reports++
}

// recordLoad writes what the loads carried into res: the background load per node (node_stats, as a
// real run records its burners') and each straggler's (its fault record's Applied).
func (r *simRun) recordLoad(res *harness.RunResult) {
	res.NodeStats = &diagnose.NodeStats{Unread: notRead}
	windowS := float64(res.MeasureTo-res.MeasureFrom) / 1000
	if r.c.loadPercent > 0 && windowS > 0 && r.load.last != nil {
		for node, n := range r.c.named.Nodes {
			used := r.load.bg[node] / windowS
			res.NodeStats.Background = append(res.NodeStats.Background, diagnose.Applied{Host: n.Name, Kind: string(fault.CPULoad),
				Asked: r.c.loadPercent / 100 * n.Cores, Used: &used, Reports: r.load.reports})
		}
	}
	for i := range res.Faults {
		f := &res.Faults[i]
		arg, err := fault.ParseStragglerArg(f.Fault.Arg, nil)
		k := faultIndex(r.spec.Faults, f.Fault)
		if f.Fault.Kind != fault.Straggler || err != nil || k < 0 || f.StartMs == 0 || f.EndMs <= f.StartMs {
			continue
		}
		used := r.load.str[k] / (float64(f.EndMs-f.StartMs) / 1000)
		f.Applied = &diagnose.Applied{Host: arg.Host, Kind: string(fault.Straggler),
			Asked: arg.Percent / 100 * r.c.named.Nodes[r.nodeIndex(arg.Host)].Cores, Used: &used, Reports: r.load.reports}
	}
}

// faultIndex is f's index in faults, -1 if it is not there.
func faultIndex(faults []fault.Fault, f fault.Fault) int {
	for i := range faults {
		if faults[i] == f {
			return i
		}
	}
	return -1
}
