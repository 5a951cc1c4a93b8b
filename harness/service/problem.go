package service

import (
	"fmt"
	"sort"

	"github.com/stormlab/stormlab/harness/protocol"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// execIndex is the side table between a topology's executors and the graph
// vertices of its Problem: vertex v is execs[v] (executors sorted by first
// task, so the problem does not depend on the order Java sent them in).
type execIndex struct {
	execs      []protocol.Executor
	components []string
	vertexOf   map[protocol.Executor]int
	taskVertex map[int]int // task id -> vertex
}

func newExecIndex(t *protocol.Topology) (*execIndex, error) {
	if len(t.Executors) == 0 {
		return nil, fmt.Errorf("topology %q has no executors: the snapshot must list every executor, system ones included", t.ID)
	}
	ce := append([]protocol.ComponentExecutor(nil), t.Executors...)
	sort.Slice(ce, func(i, j int) bool { return ce[i].Executor.Start < ce[j].Executor.Start })
	ix := &execIndex{
		execs:      make([]protocol.Executor, len(ce)),
		components: make([]string, len(ce)),
		vertexOf:   make(map[protocol.Executor]int, len(ce)),
		taskVertex: make(map[int]int, len(ce)),
	}
	for v, c := range ce {
		e := c.Executor
		if e.End < e.Start {
			return nil, fmt.Errorf("topology %q: executor [%d %d] ends before it starts", t.ID, e.Start, e.End)
		}
		for task := e.Start; task <= e.End; task++ {
			if _, dup := ix.taskVertex[task]; dup {
				return nil, fmt.Errorf("topology %q: task %d is in two executors", t.ID, task)
			}
			ix.taskVertex[task] = v
		}
		ix.execs[v] = e
		ix.components[v] = c.Component
		ix.vertexOf[e] = v
	}
	return ix, nil
}

// rates are one topology's measured rates from the newest worker reports.
type rates struct {
	taskCPU  map[int]float64    // percent of one core
	traffic  map[[2]int]float64 // (src task, dst task) -> tuples/s
	deadline map[int]float64    // task -> mean per-tuple deadline, ms
}

func (r *rates) empty() bool { return r == nil || (len(r.taskCPU) == 0 && len(r.traffic) == 0) }

// buildGraph makes the executor graph: measured weights when there are
// some, unit weights and component streams before.
func buildGraph(t *protocol.Topology, ix *execIndex, r *rates) *topologies.Graph {
	n := len(ix.execs)
	g := &topologies.Graph{Vertices: make([]topologies.Vertex, n)}
	cpu := make([]float64, n)
	seen := make([]bool, n)
	measured, sum := 0, 0.0
	if r != nil {
		for task, c := range r.taskCPU {
			if v, ok := ix.taskVertex[task]; ok {
				cpu[v] += c
				seen[v] = true
			}
		}
		for v := range seen {
			if seen[v] {
				measured++
				sum += cpu[v]
			}
		}
	}
	fill := 1.0
	if measured > 0 {
		fill = sum / float64(measured)
	}
	for v := range g.Vertices {
		w := fill
		if seen[v] {
			w = cpu[v]
		}
		g.Vertices[v] = topologies.Vertex{ID: v, Weight: w, Component: ix.components[v]}
	}
	if r != nil && len(r.traffic) > 0 {
		agg := map[[2]int]float64{}
		for k, rate := range r.traffic {
			a, okA := ix.taskVertex[k[0]]
			b, okB := ix.taskVertex[k[1]]
			if !okA || !okB || a == b || rate <= 0 {
				continue
			}
			agg[[2]int{a, b}] += rate
		}
		keys := make([][2]int, 0, len(agg))
		for k := range agg {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i][0] != keys[j][0] {
				return keys[i][0] < keys[j][0]
			}
			return keys[i][1] < keys[j][1]
		})
		g.Edges = make([]topologies.Edge, len(keys))
		for i, k := range keys {
			g.Edges[i] = topologies.Edge{From: k[0], To: k[1], Weight: agg[k]}
		}
		return g
	}
	byComp := map[string][]int{}
	for v, c := range ix.components {
		byComp[c] = append(byComp[c], v)
	}
	for _, s := range t.Streams {
		for _, a := range byComp[s.From] {
			for _, b := range byComp[s.To] {
				if a != b {
					g.Edges = append(g.Edges, topologies.Edge{From: a, To: b, Weight: 1})
				}
			}
		}
	}
	return g
}

// buildCluster lists the supervisors (sorted by id) with the ports this
// topology may use: free ones and those it holds now. Supervisors without
// such a port are left out.
func buildCluster(t *protocol.Topology, sups []protocol.Supervisor) schedulers.Cluster {
	own := map[string]map[int]bool{}
	for _, a := range t.Assignment {
		if own[a.Supervisor] == nil {
			own[a.Supervisor] = map[int]bool{}
		}
		own[a.Supervisor][a.Port] = true
	}
	var c schedulers.Cluster
	for _, s := range sups {
		all := map[int]bool{}
		for _, p := range s.Ports {
			all[p] = true
		}
		use := map[int]bool{}
		for _, p := range s.FreePorts {
			if all[p] || len(s.Ports) == 0 {
				use[p] = true
			}
		}
		for p := range own[s.ID] {
			use[p] = true
		}
		if len(use) == 0 {
			continue
		}
		ports := make([]int, 0, len(use))
		for p := range use {
			ports = append(ports, p)
		}
		sort.Ints(ports)
		c.Nodes = append(c.Nodes, schedulers.Node{ID: s.ID, Host: s.Host, CPU: s.CPU, MemoryMB: s.MemoryMB, Ports: ports})
	}
	sort.Slice(c.Nodes, func(i, j int) bool { return c.Nodes[i].ID < c.Nodes[j].ID })
	return c
}

// currentAssignment is the topology's placement as an Assignment, or nil
// unless every executor has a slot.
func currentAssignment(t *protocol.Topology, ix *execIndex) *schedulers.Assignment {
	if len(t.Assignment) == 0 {
		return nil
	}
	a := &schedulers.Assignment{Executors: make([]int, len(ix.execs))}
	for v := range a.Executors {
		a.Executors[v] = -1
	}
	worker := map[schedulers.Slot]int{}
	for _, es := range t.Assignment {
		v, ok := ix.vertexOf[es.Executor]
		if !ok {
			continue
		}
		s := schedulers.Slot{Node: es.Supervisor, Port: es.Port}
		w, ok := worker[s]
		if !ok {
			w = len(a.Workers)
			worker[s] = w
			a.Workers = append(a.Workers, s)
		}
		a.Executors[v] = w
	}
	for _, w := range a.Executors {
		if w < 0 {
			return nil
		}
	}
	return a
}

// toDecision turns an assignment into the wire form, dropping workers
// without executors (Storm cannot run an empty worker).
func toDecision(id string, a *schedulers.Assignment, ix *execIndex) protocol.TopologyDecision {
	byWorker := make([][]protocol.Executor, len(a.Workers))
	for v, w := range a.Executors {
		byWorker[w] = append(byWorker[w], ix.execs[v])
	}
	d := protocol.TopologyDecision{ID: id}
	for w, s := range a.Workers {
		if len(byWorker[w]) == 0 {
			continue
		}
		d.Workers = append(d.Workers, protocol.WorkerAssignment{Supervisor: s.Node, Port: s.Port, Executors: byWorker[w]})
	}
	return d
}

// samePlacement reports whether a and b put every executor on the same slot.
func samePlacement(a, b *schedulers.Assignment) bool {
	if a == nil || b == nil || len(a.Executors) != len(b.Executors) {
		return false
	}
	for v := range a.Executors {
		if a.Workers[a.Executors[v]] != b.Workers[b.Executors[v]] {
			return false
		}
	}
	return true
}

// predict measures an assignment on its node partition: k = number of
// cluster nodes, so nodes left idle count in the balance.
func predict(g *topologies.Graph, c *schedulers.Cluster, a *schedulers.Assignment) schedulers.PartitionMetrics {
	if len(c.Nodes) == 0 {
		return schedulers.PartitionMetrics{}
	}
	num := make(map[string]int, len(c.Nodes))
	for i, n := range c.Nodes {
		num[n.ID] = i
	}
	parts := make([]int, len(a.Executors))
	for v := range parts {
		parts[v] = num[a.NodeOf(v)]
	}
	return schedulers.Measure(g, parts, len(c.Nodes))
}
