package schedulers

import (
	"context"
	"fmt"
	"sort"
)

// SpreadSlots picks k worker slots spread over the nodes the way Storm's
// EvenScheduler does: nodes sorted by free slot count (most first), then one
// slot per node in turn. Nodes with as many free slots go by host, then by
// id. Storm's own sortSlots goes by supervisor id, which is random per
// supervisor start: on a heterogeneous cluster it decides which node gets
// which part of a partition (the papers' clusters are homogeneous and say
// nothing of it), so two starts of one cluster could place a topology
// mirrored, with very different throughput (docs/results-log.md). The host
// keeps the placement the same across starts, real or simulated.
func SpreadSlots(c *Cluster, k int) ([]Slot, error) {
	total := 0
	byNode := make([][]Slot, len(c.Nodes))
	order := make([]int, len(c.Nodes))
	for i, n := range c.Nodes {
		order[i] = i
		ports := append([]int(nil), n.Ports...)
		sort.Ints(ports)
		for _, p := range ports {
			byNode[i] = append(byNode[i], Slot{Node: n.ID, Port: p})
		}
		total += len(ports)
	}
	if k > total {
		return nil, fmt.Errorf("impossible cluster: %d workers requested but the cluster has %d slots; add supervisors or slots, or ask for fewer workers", k, total)
	}
	sort.SliceStable(order, func(a, b int) bool {
		na, nb := len(byNode[order[a]]), len(byNode[order[b]])
		if na != nb {
			return na > nb
		}
		x, y := c.Nodes[order[a]], c.Nodes[order[b]]
		if x.Host != y.Host {
			return x.Host < y.Host
		}
		return x.ID < y.ID
	})
	out := make([]Slot, 0, k)
	for round := 0; len(out) < k; round++ {
		for _, i := range order {
			if round < len(byNode[i]) && len(out) < k {
				out = append(out, byNode[i][round])
			}
		}
	}
	return out, nil
}

// PartitionScheduler turns a Partitioner into a Scheduler: it splits the
// executor graph into p.Workers parts (one per worker) and spreads the
// workers over the nodes with SpreadSlots. Schedulers whose paper gives its
// own worker-to-node step (g: W -> R) implement Schedule themselves.
type PartitionScheduler struct{ Partitioner }

// Schedule implements Scheduler.
func (s PartitionScheduler) Schedule(ctx context.Context, p *Problem) (*Assignment, error) {
	if err := p.checkGraph("schedule"); err != nil {
		return nil, err
	}
	k := p.Workers
	if k > p.Graph.N() {
		k = p.Graph.N() // a worker without executors would be idle
	}
	if err := CheckK(k, p.Graph.N()); err != nil {
		return nil, err
	}
	parts, err := s.Partition(ctx, p.Graph, k)
	if err != nil {
		return nil, err
	}
	slots, err := SpreadSlots(&p.Cluster, k)
	if err != nil {
		return nil, err
	}
	return &Assignment{Workers: slots, Executors: parts}, nil
}

// slotNodes returns the nodes with at least one slot, by CPU capacity
// (largest first), then slot count, then host, then id: the node order of the
// schedulers that give big nodes the heavy work (kpart-dynamic, tstorm).
func slotNodes(c *Cluster) []Node {
	var nodes []Node
	for _, nd := range c.Nodes {
		if len(nd.Ports) > 0 {
			nodes = append(nodes, nd)
		}
	}
	sort.SliceStable(nodes, func(a, b int) bool {
		if nodes[a].CPU != nodes[b].CPU {
			return nodes[a].CPU > nodes[b].CPU
		}
		if len(nodes[a].Ports) != len(nodes[b].Ports) {
			return len(nodes[a].Ports) > len(nodes[b].Ports)
		}
		if nodes[a].Host != nodes[b].Host { // stable across a cluster's starts, as SpreadSlots
			return nodes[a].Host < nodes[b].Host
		}
		return nodes[a].ID < nodes[b].ID
	})
	return nodes
}

// nodeCapacity is a node's CPU capacity in percent of one core; a node
// without a stated capacity (CPU <= 0) counts as one core.
func nodeCapacity(n Node) float64 {
	if n.CPU <= 0 {
		return 100
	}
	return n.CPU
}
