package simcluster

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/sim"
)

// Named is a simulated cluster by name: its nodes (cores, relative speed, link bandwidth), slots and
// memory per node, and where its layout comes from.
type Named struct {
	Name  string
	About string
	Nodes []sim.Node
	Slots int
	// MemoryMB is every node's memory as Nimbus sees it (supervisor.memory.capacity.mb), but where
	// NodeMemoryMB names the node: heterogeneous clusters differ in memory too, and resource-aware
	// schedulers (R-Storm, the deadline scheduler) fill nodes by it.
	MemoryMB     float64
	NodeMemoryMB map[string]float64
	// Batch is the tuples each simulated tuple stands for (sim.Config.Batch): 1 but on the largest
	// clusters, where it buys speed at the price of latency's resolution (docs/simulator.md).
	Batch int
	// SupervisorIDs are the nodes' supervisor ids by node name (a node without one is named by its
	// name). Storm's own EvenScheduler orders nodes by id, and a real cluster's ids are random per
	// start: a twin that stands beside a real cluster, or re-simulates a recorded run, takes that
	// cluster's ids to place as it did (WithSupervisorIDs).
	SupervisorIDs map[string]string
}

// WithSupervisorIDs is n with the nodes' supervisor ids (by node name) of a real cluster; ids of hosts n
// does not have are ignored, and ids that name two nodes leave n's nodes named by their names.
func (n Named) WithSupervisorIDs(ids map[string]string) Named {
	n.SupervisorIDs = nil
	if !oneToOne(ids) {
		return n
	}
	for _, node := range n.Nodes {
		if id := ids[node.Name]; id != "" {
			if n.SupervisorIDs == nil {
				n.SupervisorIDs = map[string]string{}
			}
			n.SupervisorIDs[node.Name] = id
		}
	}
	return n
}

// supervisorID is node's supervisor id: its real cluster's, or its name.
func (n *Named) supervisorID(node string) string {
	if id := n.SupervisorIDs[node]; id != "" {
		return id
	}
	return node
}

// gigabit is a 1 Gbit/s link's bandwidth, bytes per second.
const gigabit = 125e6

// named lists the simulated clusters. The container shapes come first (the clusters the cost model
// was measured on: validation compares them with real runs), then the papers' clusters. A paper's
// CPU differs from the machine the costs were measured on; its nodes get speed 1 unless the paper's
// CPUs differ among themselves (then by base clock, the one figure the papers give).
func named() []Named {
	out := []Named{
		homogeneous("kpart-paper", 4, "Jian, Lu and Zhang, \"Storm heuristic balanced graph-partition scheduling optimization method\" (2018), sec. 4.1: virtual nodes of 4 cores at 2.67 GHz, 4 GB and 1 Gbit/s; its Table 1 (the layout) is not in our copy, so 4 nodes, as its largest Throughput Test (n4)", 4096),
		deadlinePaper(),
		homogeneous("nodes-16", 16, "16 nodes of 4 cores, 4 slots, 4 GB, 1 Gbit/s", 4096),
		batched(homogeneous("nodes-64", 64, "64 nodes of 4 cores, 4 slots, 4 GB, 1 Gbit/s; tuples simulated in batches of 10", 4096), 10),
		batched(homogeneous("nodes-256", 256, "256 nodes of 4 cores, 4 slots, 4 GB, 1 Gbit/s; tuples simulated in batches of 10", 4096), 10),
	}
	for _, shape := range docker.Shapes() {
		sups, _ := docker.Shape(shape) // names from Shapes always resolve
		n := Named{Name: shape, About: "this project's container shape " + shape + " (links unlimited: one host's bridge)", Slots: len(sups[0].Ports())}
		for _, s := range sups {
			n.Nodes = append(n.Nodes, sim.Node{Name: s.Host, Cores: s.CPUs, Speed: 1, QuotaPeriod: dockerCPUPeriod})
			n.setMemory(s.Host, float64(s.CapacityMemoryMB())) // what Nimbus sees: the container less the daemon's reserve
		}
		out = append(out, n)
	}
	return out
}

// setMemory gives node its memory (MB).
func (n *Named) setMemory(node string, mb float64) {
	if n.NodeMemoryMB == nil {
		n.NodeMemoryMB = map[string]float64{}
	}
	n.NodeMemoryMB[node] = mb
}

// memoryOf is node's memory (MB): its own, or every node's.
func (n *Named) memoryOf(node string) float64 {
	if mb, ok := n.NodeMemoryMB[node]; ok {
		return mb
	}
	return n.MemoryMB
}

func batched(n Named, b int) Named {
	n.Batch = b
	return n
}

func homogeneous(name string, nodes int, about string, memMB float64) Named {
	n := Named{Name: name, About: about, Slots: 4, MemoryMB: memMB}
	for i := range nodes {
		n.Nodes = append(n.Nodes, sim.Node{Name: fmt.Sprintf("node%d", i+1), Cores: 4, Speed: 1, NICBytesPerS: gigabit})
	}
	return n
}

// deadlinePaper is the deadline paper's ten workers (Table 3): worker 1 an i7-3610QM (4 cores, 2.3 GHz
// base) with 4 GB, workers 2-10 i5-3570K (4 cores, 3.4 GHz base) with 2 GB. The paper gives no
// network; 1 Gbit/s is assumed.
func deadlinePaper() Named {
	n := Named{Name: "deadline-paper", Slots: 4, MemoryMB: 2048,
		About: "the ten heterogeneous workers of the deadline- and load-type-aware scheduler's evaluation (Table 3): one i7-3610QM (speed 2.3/3.4 by base clock), nine i5-3570K; 1 Gbit/s assumed"}
	for i := range 10 {
		speed := 1.0
		if i == 0 {
			speed = 2.3 / 3.4
			n.setMemory("worker1", 4096)
		}
		n.Nodes = append(n.Nodes, sim.Node{Name: fmt.Sprintf("worker%d", i+1), Cores: 4, Speed: speed, NICBytesPerS: gigabit})
	}
	return n
}

// Names lists the simulated clusters' names.
func Names() []string {
	var out []string
	for _, n := range named() {
		out = append(out, n.Name)
	}
	return out
}

// Paper is the name that stands, in an experiment, for the simulated cluster of its paper's testbed
// (lab.Spec.PaperCluster): --cluster sim:paper.
const Paper = "paper"

// Lookup is the simulated cluster called name, or an error listing them.
func Lookup(name string) (Named, error) {
	if name == Paper {
		return Named{}, fmt.Errorf("--cluster sim:%s stands for each experiment's paper cluster (stormlab experiment); here give a cluster: %s", Paper, strings.Join(Names(), ", "))
	}
	all := named()
	if i := slices.IndexFunc(all, func(n Named) bool { return n.Name == name }); i >= 0 {
		return all[i], nil
	}
	return Named{}, fmt.Errorf("--cluster sim:%s: no simulated cluster %q; known: %s", name, name, strings.Join(Names(), ", "))
}

// oneToOne says whether no two hosts of ids share an id.
func oneToOne(ids map[string]string) bool {
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return false
		}
		seen[id] = true
	}
	return true
}
