package simcluster

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
	"github.com/stormlab/stormlab/topologies"
)

// resolveReplay reads a captured topology's replay (topologies.ReplayClass with --graph-json, as
// stormlab run --topology replay:FILE submits it) as the model's topology: its costs are the
// capture's own (CPU per tuple, tuples per tuple, sizes), its spouts offer the captured rates open
// loop (scaled together to --rate when given), its parallelism and workers are the capture's unless
// the flags say otherwise, as ReplayTopology does.
func resolveReplay(tr harness.TopologyRun) (*runTopology, error) {
	f := parseFlags(tr.Args)
	doc, ok := f["graph-json"]
	if !ok {
		return nil, fmt.Errorf("a replay on a simulated cluster needs its capture inline (--graph-json, as stormlab run --topology replay:FILE passes it)")
	}
	var c topologies.Captured
	if err := json.Unmarshal([]byte(doc), &c); err != nil {
		return nil, fmt.Errorf("replay: the captured topology: %w", err)
	}
	rt := &runTopology{args: tr.Args, flags: f, par: map[string]int{}, spoutRate: map[string]float64{}, workers: placedWorkers(c.Placement)}
	rt.main = topologies.StormMain{Name: "replay", Class: topologies.ReplayClass}
	rt.costs = sim.TopologyCosts{Components: map[string]sim.ComponentCost{}, Runs: 1}
	total := 0.0
	for _, cc := range c.Components {
		comp, err := sim.CapturedComponent(&c, cc)
		if err != nil {
			return nil, err
		}
		rt.par[cc.Name] = len(cc.Tasks)
		cost := sim.ComponentCost{Spout: comp.Spout, CPUMicros: comp.Service.Mean * 1e6, Bytes: float64(comp.Bytes)}
		for i, st := range comp.Streams {
			cost.Streams = append(cost.Streams, sim.StreamCost{To: st.To, PerTuple: st.PerTuple, Grouping: streamGrouping(&c, cc.Name, i)})
		}
		rt.costs.Components[cc.Name] = cost
		if comp.Spout {
			rt.spoutRate[cc.Name] = comp.Rate
			total += comp.Rate * float64(len(cc.Tasks))
		}
	}
	for _, s := range c.Streams {
		rt.streams = append(rt.streams, topologies.Stream{From: s.From, To: s.To, Grouping: s.Grouping, ID: s.Stream})
	}
	if err := rt.readFlags(); err != nil {
		return nil, err
	}
	if want, _ := f.num("rate", 0); want > 0 && total > 0 { // --rate scales every spout so that they offer it together (readFlags checked it)
		for name := range rt.spoutRate {
			rt.spoutRate[name] *= want / total
		}
	}
	rt.rate = 0 // each spout has its own rate
	return rt, nil
}

// streamGrouping is the grouping of the i-th stream component from emits on.
func streamGrouping(c *topologies.Captured, from string, i int) string {
	for _, s := range c.Streams {
		if s.From != from {
			continue
		}
		if i == 0 {
			return string(s.Grouping)
		}
		i--
	}
	return string(topologies.GroupShuffle)
}

// placedWorkers is the number of workers a capture's placement used (4 when it has none, as
// ReplayTopology).
func placedWorkers(p topologies.Placement) int {
	seen := map[string]bool{}
	for _, w := range p {
		seen[strings.TrimSpace(w)] = true
	}
	if len(seen) == 0 {
		return 4
	}
	return len(seen)
}
