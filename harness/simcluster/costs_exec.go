package simcluster

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/sim"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/topologies"
)

// Storm's own execute latency beside the thread CPU per tuple (sim.StormExecute). The cost model
// charges the thread CPU: it is what a node's quota pays for. The execute latency says how much of it is
// a tuple's work: on the chain's cost runs bolt2's thread spent 30.8 µs a tuple on the 1-core node while
// Storm timed 8.5 µs in its execute(), the rest being the wait strategy's spinning between tuples.

// executeOf is, per bolt component of r (the ackers under topologies.AckerComponent), Storm's execute latency over
// r's window on the node where it was lowest, with that node's CPU used of its quota (the run's
// diagnosis). The lowest, because waiting for the CPU only lengthens it: on the cost runs a bolt on the
// 0.5-core node read 3-10 times its figure on the 1-core one. Nil when the run kept no good readings of
// Storm at both ends of its window or no diagnosis of its nodes.
func executeOf(r *harness.RunResult) map[string]sim.StormExecute {
	from, to := r.Storm.From, r.Storm.To
	if from == nil || to == nil || from.Err != "" || to.Err != "" || r.Diagnosis == nil {
		return nil
	}
	used := map[string]float64{}
	for _, n := range r.Diagnosis.Nodes {
		used[n.Host] = n.UsedOfQuota
	}
	out := map[string]sim.StormExecute{}
	for comp, hosts := range windowExecute(from, to, used) {
		least := slices.MinFunc(slices.Sorted(maps.Keys(hosts)), func(a, b string) int {
			return cmp.Compare(hosts[a].ms/hosts[a].n, hosts[b].ms/hosts[b].n)
		})
		s := hosts[least]
		out[comp] = sim.StormExecute{Micros: round(s.ms / s.n * 1000), NodeUsed: round(used[least])}
	}
	return out
}

// execSums are the milliseconds in execute() and the tuples executed over a window.
type execSums struct{ ms, n float64 }

// windowExecute is, per bolt component and host (a host with a diagnosis in used), its executors'
// time in execute() and tuples over the window between Storm's readings from and to: Storm's latencies
// are means since each executor started, so the window's is the difference of the products. An
// executor missing at the window's start, moved, or restarted within it (its uptime grew less than
// the clock: Storm's counters started again) is left out.
func windowExecute(from, to *measure.Snapshot, used map[string]float64) map[string]map[string]*execSums {
	type key struct {
		comp string
		task int
	}
	before := map[key]stormui.Executor{}
	for _, e := range from.Executors {
		before[key{e.Component, e.TaskStart}] = e
	}
	wallS := float64(to.TimeMs-from.TimeMs) / 1000
	at := map[string]map[string]*execSums{}
	for _, e := range to.Executors {
		b, seen := before[key{e.Component, e.TaskStart}]
		_, known := used[e.Host]
		n := float64(e.Executed - b.Executed)
		ms := float64(e.Executed)*e.ExecuteLatency - float64(b.Executed)*b.ExecuteLatency
		restarted := e.UptimeSeconds < b.UptimeSeconds || wallS-float64(e.UptimeSeconds-b.UptimeSeconds) > measure.UptimeSlackS
		if e.Type != "bolt" || !seen || b.Host != e.Host || restarted || !known || n <= 0 || !(ms > 0) {
			continue
		}
		if at[e.Component] == nil {
			at[e.Component] = map[string]*execSums{}
		}
		if at[e.Component][e.Host] == nil {
			at[e.Component][e.Host] = &execSums{}
		}
		s := at[e.Component][e.Host]
		s.ms, s.n = s.ms+ms, s.n+n
	}
	return at
}

// poolExecute is the mean over figures (one per run that read it) of the latency and the node's share,
// nil when none did.
func poolExecute(figs []sim.StormExecute) *sim.StormExecute {
	if len(figs) == 0 {
		return nil
	}
	var us, share []float64
	for _, f := range figs {
		us, share = append(us, f.Micros), append(share, f.NodeUsed)
	}
	mu, _ := stats.Mean(us)
	ms, _ := stats.Mean(share)
	return &sim.StormExecute{Micros: round(mu), NodeUsed: round(ms)}
}

// setExecute gives t's bolts and ackers Storm's execute latency pooled over the runs rs that read it.
func setExecute(t *sim.TopologyCosts, rs []runCosts) {
	figs := func(comp string) []sim.StormExecute {
		var out []sim.StormExecute
		for _, rc := range rs {
			if f, ok := rc.execute[comp]; ok {
				out = append(out, f)
			}
		}
		return out
	}
	for name, c := range t.Components {
		if !c.Spout {
			c.Execute = poolExecute(figs(name))
			t.Components[name] = c
		}
	}
	t.AckExecute = poolExecute(figs(topologies.AckerComponent))
}

// spinningRatio is how far above Storm's execute latency a component's thread CPU per tuple must be,
// on a node below busyShare of its CPU, for Spinning to name it.
const spinningRatio = 2

// Spinning names the components (and ackers) of m whose thread CPU per tuple, which the model charges
// (over all their executors), is spinningRatio times or more their execute latency where that was lowest,
// on a node with CPU to spare: their threads spent most of their CPU waiting for tuples, so the model
// charges their tuples high where their node is short of CPU. By topology, its components by name, then
// its ackers.
func Spinning(m *sim.CostModel) []string {
	var out []string
	say := func(class, name string, cpuUS float64, e *sim.StormExecute) {
		if e != nil && e.NodeUsed < busyShare && cpuUS >= spinningRatio*e.Micros {
			out = append(out, fmt.Sprintf("%s %s: %.3g µs of thread CPU a tuple (all its executors) against %.3g µs in execute() where that was lowest, on a node at %.0f%% of its CPU",
				shortClass(class), name, cpuUS, e.Micros, 100*e.NodeUsed))
		}
	}
	for _, class := range slices.Sorted(maps.Keys(m.Topologies)) {
		t := m.Topologies[class]
		for _, name := range slices.Sorted(maps.Keys(t.Components)) {
			c := t.Components[name]
			say(class, name, c.CPUMicros, c.Execute)
		}
		ack := t.AckCPUS
		if ack == 0 {
			ack = m.Transfer.AckCPUS
		}
		say(class, "acker", ack*1e6, t.AckExecute)
	}
	return out
}

// shortClass is a main class without its package.
func shortClass(class string) string { return class[strings.LastIndex(class, ".")+1:] }
