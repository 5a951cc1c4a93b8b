package schedulers

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/stormlab/stormlab/topologies"
)

// DefaultExecutorMemoryMB is the memory an executor asks for when its
// vertex has no MemoryMB: Storm's default on-heap request per component
// (topology.component.resources.onheap.memory.mb = 128).
const DefaultExecutorMemoryMB = 128

// RStorm is R-Storm's resource-aware placement (Peng et al., "R-Storm:
// Resource-Aware Scheduling in Storm", Middleware 2015; Storm's
// ResourceAwareScheduler with DefaultResourceAwareStrategy), modelled in Go
// so it runs in graph and simulated experiments. On a real cluster Storm's
// own ResourceAwareScheduler stays the reference.
//
//   - Executor order (R-Storm's task selection): components in breadth-first
//     order from the spouts over the component graph (children and parents
//     are neighbours, names sorted for determinism; components not reached
//     start a new search); then, as Storm's orderExecutors does, for each
//     component in that order, repeatedly take one executor of the
//     component and one of each neighbour until none is left. A vertex
//     without Component is its own component. Spouts are components without
//     incoming edges from other components.
//   - Node selection: the first executor goes to the reference node, the
//     node with the most available resources (normalised CPU + memory); every
//     executor goes to the node minimising the Euclidean distance
//     sqrt((cpuAvail-cpuReq)^2/cpuMax^2 + (memAvail-memReq)^2/memMax^2 + net^2),
//     net = 0 on the reference node and 1 elsewhere (one rack: Storm's
//     rack/host ordering has nothing else to tell apart), among the nodes
//     where the executor fits. CPU and memory are hard limits here.
//   - Demands: executor CPU = vertex weight (percent of one core, as
//     Node.CPU); memory = Vertex.MemoryMB or DefaultExecutorMemoryMB. A node
//     with CPU or MemoryMB <= 0 has no limit on that resource; a node
//     without ports cannot host executors.
//   - Workers: one worker per used node, on its lowest port (R-Storm packs a
//     topology's executors into as few workers as possible); p.Workers is
//     not used.
type RStorm struct{}

var rstormInfo = Info{
	Name:        "rstorm",
	Description: "R-Storm: BFS executor order, min-distance node in CPU/memory/network space, capacities respected",
	Source:      `Peng, Hosseini, Hong, Farivar and Campbell, "R-Storm: Resource-Aware Scheduling in Storm", 2015; Storm DefaultResourceAwareStrategy`,
	New:         func(Options) (Scheduler, error) { return RStorm{}, nil },
}

// Schedule implements Scheduler.
func (r RStorm) Schedule(ctx context.Context, p *Problem) (*Assignment, error) {
	a, _, err := r.place(ctx, p)
	return a, err
}

// Explain implements Explainer: the placement and its reference node.
func (r RStorm) Explain(ctx context.Context, p *Problem) (*Assignment, *Decision, error) {
	a, ref, err := r.place(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	first := rstormOrder(p.Graph)[0]
	return a, &Decision{Apply: true, Trigger: "first placement", Reference: ref, First: &first,
		Reason: fmt.Sprintf("first executor (vertex %d, component %q) on reference node %s", first, p.Graph.Vertices[first].Component, a.NodeOf(first))}, nil
}

// place is Schedule, also returning the reference node's id.
func (RStorm) place(ctx context.Context, p *Problem) (*Assignment, string, error) {
	g := p.Graph
	if g == nil || g.N() == 0 {
		return nil, "", fmt.Errorf("rstorm: empty graph: nothing to place")
	}
	order := rstormOrder(g)
	nodes := p.Cluster.Nodes
	cpuAvail := make([]float64, len(nodes))
	memAvail := make([]float64, len(nodes))
	cpuMax, memMax := 0.0, 0.0
	for i, n := range nodes {
		cpuAvail[i], memAvail[i] = limit(n.CPU), limit(n.MemoryMB)
		if n.CPU > 0 {
			cpuMax = math.Max(cpuMax, n.CPU)
		}
		if n.MemoryMB > 0 {
			memMax = math.Max(memMax, n.MemoryMB)
		}
	}
	norm := func(x, max float64) float64 {
		if math.IsInf(x, 1) || max == 0 {
			return 0 // an unlimited resource does not steer the choice
		}
		return x / max
	}
	ref := -1
	nodeOf := make([]int, g.N())
	for _, v := range order {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		cpu, mem := g.Vertices[v].Weight, ExecutorMemory(g.Vertices[v])
		if ref < 0 {
			best, bestScore := -1, math.Inf(-1)
			for i, n := range nodes {
				if len(n.Ports) == 0 || cpuAvail[i] < cpu || memAvail[i] < mem {
					continue
				}
				if s := norm(cpuAvail[i], cpuMax) + norm(memAvail[i], memMax); s > bestScore {
					best, bestScore = i, s
				}
			}
			ref = best
			if ref >= 0 {
				// The first executor goes to the reference node itself (Storm's
				// DefaultResourceAwareStrategy schedules it there); the distance
				// below would send it elsewhere when the reference node has far
				// more free resources than the executor needs.
				cpuAvail[ref] -= cpu
				memAvail[ref] -= mem
				nodeOf[v] = ref
				continue
			}
		}
		best, bestDist := -1, math.Inf(1)
		for i, n := range nodes {
			if len(n.Ports) == 0 || cpuAvail[i] < cpu || memAvail[i] < mem {
				continue
			}
			net := 1.0
			if i == ref {
				net = 0
			}
			dc := norm(cpuAvail[i]-cpu, cpuMax)
			dm := norm(memAvail[i]-mem, memMax)
			if d := math.Sqrt(dc*dc + dm*dm + net*net); d < bestDist {
				best, bestDist = i, d
			}
		}
		if best < 0 {
			return nil, "", fmt.Errorf("impossible cluster: executor %d (component %q) needs %.4g%% CPU and %.4g MB, and no node with a free port has that much left (%s); add nodes or capacity, or lower the executors' demands",
				g.Vertices[v].ID, g.Vertices[v].Component, cpu, mem, freeList(nodes, cpuAvail, memAvail))
		}
		cpuAvail[best] -= cpu
		memAvail[best] -= mem
		nodeOf[v] = best
	}
	return workersPerNode(nodes, nodeOf), nodes[ref].ID, nil
}

// ExecutorMemory is the executor's memory demand: Vertex.MemoryMB or
// DefaultExecutorMemoryMB.
func ExecutorMemory(v topologies.Vertex) float64 {
	if v.MemoryMB > 0 {
		return v.MemoryMB
	}
	return DefaultExecutorMemoryMB
}

func limit(x float64) float64 {
	if x <= 0 {
		return math.Inf(1)
	}
	return x
}

func freeList(nodes []Node, cpu, mem []float64) string {
	s := "free:"
	for i, n := range nodes {
		if i == 8 {
			s += " ..."
			break
		}
		s += fmt.Sprintf(" %s %.4g%% CPU %.4g MB;", n.ID, cpu[i], mem[i])
	}
	return s
}

// workersPerNode gives every used node one worker on its lowest port.
// nodeOf[v] is a node index into nodes.
func workersPerNode(nodes []Node, nodeOf []int) *Assignment {
	worker := map[int]int{}
	a := &Assignment{Executors: make([]int, len(nodeOf))}
	for v, ni := range nodeOf {
		w, ok := worker[ni]
		if !ok {
			ports := append([]int(nil), nodes[ni].Ports...)
			sort.Ints(ports)
			w = len(a.Workers)
			worker[ni] = w
			a.Workers = append(a.Workers, Slot{Node: nodes[ni].ID, Port: ports[0]})
		}
		a.Executors[v] = w
	}
	return a
}

// rstormOrder returns vertex indices in R-Storm's scheduling order.
func rstormOrder(g *topologies.Graph) []int {
	comp := make([]string, g.N())
	execs := map[string][]int{}
	for i, v := range g.Vertices {
		c := v.Component
		if c == "" {
			c = "v" + strconv.Itoa(v.ID)
		}
		comp[i] = c
		execs[c] = append(execs[c], i)
	}
	names := make([]string, 0, len(execs))
	for c := range execs {
		names = append(names, c)
	}
	sort.Strings(names)
	idx := g.Index()
	nbrSet := map[string]map[string]bool{}
	hasParent := map[string]bool{}
	for _, e := range g.Edges {
		a, b := comp[idx[e.From]], comp[idx[e.To]]
		if a == b {
			continue
		}
		hasParent[b] = true
		for _, x := range [][2]string{{a, b}, {b, a}} {
			if nbrSet[x[0]] == nil {
				nbrSet[x[0]] = map[string]bool{}
			}
			nbrSet[x[0]][x[1]] = true
		}
	}
	nbrs := map[string][]string{}
	for c, s := range nbrSet {
		for x := range s {
			nbrs[c] = append(nbrs[c], x)
		}
		sort.Strings(nbrs[c])
	}
	// BFS from the spouts, then from any component not reached.
	var starts []string
	for _, c := range names {
		if !hasParent[c] {
			starts = append(starts, c)
		}
	}
	starts = append(starts, names...)
	seen := map[string]bool{}
	var bfs []string
	for _, s := range starts {
		if seen[s] {
			continue
		}
		seen[s] = true
		queue := []string{s}
		for len(queue) > 0 {
			c := queue[0]
			queue = queue[1:]
			bfs = append(bfs, c)
			for _, x := range nbrs[c] {
				if !seen[x] {
					seen[x] = true
					queue = append(queue, x)
				}
			}
		}
	}
	// Interleave: one executor of the component, one of each neighbour.
	next := map[string]int{}
	take := func(c string) (int, bool) {
		if next[c] < len(execs[c]) {
			next[c]++
			return execs[c][next[c]-1], true
		}
		return 0, false
	}
	order := make([]int, 0, g.N())
	for _, c := range bfs {
		for {
			took := false
			if v, ok := take(c); ok {
				order = append(order, v)
				took = true
			}
			for _, x := range nbrs[c] {
				if v, ok := take(x); ok {
					order = append(order, v)
					took = true
				}
			}
			if !took {
				break
			}
		}
	}
	return order
}
