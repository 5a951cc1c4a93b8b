package simcluster

import (
	"fmt"
	"maps"
	"slices"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
)

// FromCapacity is the simulated twin of a running cluster known only by its supervisors' CPU
// capacities (100 = one core), as a target's cluster is: one node per supervisor at speed 1 (the
// machine the costs were measured on), links unlimited, slots and memory per node as given.
func FromCapacity(name string, capacity map[string]float64, slots int, memoryMB float64) (Named, error) {
	if len(capacity) == 0 {
		return Named{}, fmt.Errorf("simulated twin %s: the cluster reports no supervisors", name)
	}
	n := Named{Name: name, About: "the simulated twin of " + name + " (its supervisors' CPU capacities; speed 1, links unlimited)", Slots: slots, MemoryMB: memoryMB}
	for _, host := range slices.Sorted(maps.Keys(capacity)) {
		c := capacity[host]
		if !(c > 0) {
			return Named{}, fmt.Errorf("simulated twin %s: supervisor %s has CPU capacity %v; a twin needs every capacity above 0", name, host, c)
		}
		n.Nodes = append(n.Nodes, sim.Node{Name: host, Cores: c / 100, Speed: 1})
	}
	return n, nil
}

// OpenTwin is OpenNamed charged by model (nil: the cost model shipped with the project).
func OpenTwin(n Named, cs harness.ClusterSpec, scheduler string, model *sim.CostModel) (*Cluster, error) {
	if model == nil {
		return OpenNamed(n, cs, scheduler)
	}
	return openWith(n, model, cs, scheduler)
}
