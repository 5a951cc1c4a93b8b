package service

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// execIndex is the side table between a topology's executors and the graph
// vertices of its Problem: vertex v is execs[v] (executors sorted by first
// task, so the problem does not depend on the order Java sent them in).
type execIndex struct {
	execs      []protocol.Executor
	components []string
	memoryMB   []float64 // declared (protocol.ComponentExecutor.MemoryMB); 0: not said
	vertexOf   map[protocol.Executor]int
	taskVertex map[int]int // task id -> vertex
	// dense is taskVertex as a slice from task id base, -1 for no vertex;
	// nil when the task ids are too sparse for it. Lookups per traffic
	// entry dominate a round, and a slice is several times faster than a map.
	dense []int32
	base  int
}

// vertex returns the vertex of a task.
func (ix *execIndex) vertex(task int) (int, bool) {
	if ix.dense != nil {
		i := task - ix.base
		if i < 0 || i >= len(ix.dense) || ix.dense[i] < 0 {
			return 0, false
		}
		return int(ix.dense[i]), true
	}
	v, ok := ix.taskVertex[task]
	return v, ok
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
		memoryMB:   make([]float64, len(ce)),
		vertexOf:   make(map[protocol.Executor]int, len(ce)),
		taskVertex: make(map[int]int, len(ce)),
	}
	for v, c := range ce {
		e := c.Executor
		if e.End < e.Start {
			return nil, fmt.Errorf("topology %q: executor [%d %d] ends before it starts", t.ID, e.Start, e.End)
		}
		if e.End-e.Start > 1<<20 {
			return nil, fmt.Errorf("topology %q: executor [%d %d] has more than 2^20 tasks", t.ID, e.Start, e.End)
		}
		for task := e.Start; task <= e.End; task++ {
			if _, dup := ix.taskVertex[task]; dup {
				return nil, fmt.Errorf("topology %q: task %d is in two executors", t.ID, task)
			}
			ix.taskVertex[task] = v
		}
		ix.execs[v] = e
		ix.components[v] = c.Component
		ix.memoryMB[v] = c.MemoryMB
		ix.vertexOf[e] = v
	}
	lo, hi := ix.execs[0].Start, ix.execs[0].End
	for _, e := range ix.execs {
		lo, hi = min(lo, e.Start), max(hi, e.End)
	}
	if span := hi - lo + 1; span <= 4*len(ix.taskVertex)+64 {
		ix.base = lo
		ix.dense = make([]int32, span)
		for i := range ix.dense {
			ix.dense[i] = -1
		}
		for task, v := range ix.taskVertex {
			ix.dense[task-lo] = int32(v)
		}
	}
	return ix, nil
}

// aggregate sums task-to-task rates into executor-to-executor edges,
// sorted by (from, to), without self loops. Two stable counting sorts
// (by destination, then by source) order the entries, then equal pairs are
// merged: O(entries + n) time, no map and no comparison sort, which keeps a
// 1,000-executor round with a full shuffle matrix well inside its budget.
func aggregate(n int, traffic []taskRate, ix *execIndex) []topologies.Edge {
	type entry struct {
		a, b int32
		rate float64
	}
	es := make([]entry, 0, len(traffic))
	for _, x := range traffic {
		a, okA := ix.vertex(x.src)
		b, okB := ix.vertex(x.dst)
		if okA && okB && a != b && x.rate > 0 {
			es = append(es, entry{int32(a), int32(b), x.rate})
		}
	}
	byKey := func(in []entry, key func(entry) int32) []entry {
		pos := make([]int, n+1)
		for _, e := range in {
			pos[key(e)+1]++
		}
		for v := 0; v < n; v++ {
			pos[v+1] += pos[v]
		}
		out := make([]entry, len(in))
		for _, e := range in {
			k := key(e)
			out[pos[k]] = e
			pos[k]++
		}
		return out
	}
	es = byKey(es, func(e entry) int32 { return e.b })
	es = byKey(es, func(e entry) int32 { return e.a })
	edges := make([]topologies.Edge, 0, len(es))
	for i, e := range es {
		if i > 0 && e.a == es[i-1].a && e.b == es[i-1].b {
			edges[len(edges)-1].Weight += e.rate
			continue
		}
		edges = append(edges, topologies.Edge{From: int(e.a), To: int(e.b), Weight: e.rate})
	}
	return edges
}

// rates are one topology's measured rates from the newest worker reports.
type rates struct {
	taskCPU  map[int]float64 // percent of one core
	traffic  []taskRate      // one entry per (report, src, dst); pairs may repeat
	deadline map[int]float64 // task -> mean per-tuple deadline, ms
	in       taskInputs      // T_start, tuple sizes (load.go)
}

// taskRate is tuples/s from task src executed by task dst.
type taskRate struct {
	src, dst int
	rate     float64
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
			if v, ok := ix.vertex(task); ok {
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
		g.Vertices[v] = topologies.Vertex{ID: v, Weight: w, Component: ix.components[v], MemoryMB: ix.memoryMB[v]}
	}
	if r != nil && len(r.traffic) > 0 {
		g.Edges = aggregate(n, r.traffic, ix)
		return g
	}
	byComp := map[string][]int{}
	for v, c := range ix.components {
		byComp[c] = append(byComp[c], v)
	}
	m := 0
	for _, s := range t.Streams {
		m += len(byComp[s.From]) * len(byComp[s.To])
	}
	g.Edges = make([]topologies.Edge, 0, m)
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

// buildCluster lists the supervisors (sorted by host, then id) with the ports this
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
	// By host, then id: Storm's supervisor ids are random per start, and the schedulers' ties go by
	// this order (R-Storm's among nodes of equal distance, for one); the hosts keep one placement
	// across a cluster's starts.
	sort.Slice(c.Nodes, func(i, j int) bool {
		if c.Nodes[i].Host != c.Nodes[j].Host {
			return c.Nodes[i].Host < c.Nodes[j].Host
		}
		return c.Nodes[i].ID < c.Nodes[j].ID
	})
	return c
}

// currentAssignment is the topology's placement as an Assignment, or nil
// unless every executor has a slot on a supervisor of sups. A placement on a
// supervisor that is gone (killed, lost) is no placement the cluster has:
// the topology is placed anew, as a first placement, instead of handing the
// scheduler a current assignment that fails its validation.
func currentAssignment(t *protocol.Topology, ix *execIndex, sups []protocol.Supervisor) *schedulers.Assignment {
	if len(t.Assignment) == 0 {
		return nil
	}
	live := map[string]bool{}
	for _, s := range sups {
		live[s.ID] = true
	}
	for _, es := range t.Assignment {
		if _, ok := ix.vertexOf[es.Executor]; ok && !live[es.Supervisor] {
			return nil
		}
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

// loadTable is the load table of snap (see measurements.nodeLoad) with each
// node's performance, CPU_avg-th of Table 1 of Dynamic Task Scheduling
// Scheme for Real-Time Stream Data in Storm (used by its CPU branch and
// eq. 6), set as capacity, never load:
//
//	CPU_avg-th(n) = cores(n) * R,   cores(n) = supervisor.cpu.capacity / 100
//
// where the capacity is the supervisor container's CPU quota (the harness
// sets them equal) and R is the tuples executed per busy core-second,
// measured over the fresh reports of every topology: sum of the measured
// task-to-task tuple rates over the sum of the tasks' CPU in cores. The
// model: every supervisor shares this machine's CPU model, so a core of one
// container processes as many tuples per second as a core of another, and a
// node can process cores(n)*R tuples/s whatever it is doing now. An idle
// node is therefore as fast as its quota says, not slow. R is one number
// for the cluster, a short calibration taken from the running workload
// itself; while it cannot be measured (no traffic or no CPU yet)
// CPU_avg-th stays 0 and the schedulers report "node_performance" as not
// measured. Call with s.mu held.
func (s *Service) loadTable(snap *protocol.Snapshot) []schedulers.NodeLoad {
	rows := s.m.nodeLoad(snap)
	if len(rows) == 0 {
		return rows
	}
	r := s.tuplesPerCore()
	capacity := map[string]float64{}
	host := map[string]string{}
	for _, sup := range snap.Supervisors {
		capacity[sup.ID] = sup.CPU
		host[sup.ID] = sup.Host
	}
	now := s.now().UnixMilli()
	beside := s.m.besideCPU(snap, now)
	for i := range rows {
		rows[i].CPUThroughput = 0
		c := capacity[rows[i].Node]
		if c > 0 && r > 0 {
			rows[i].CPUThroughput = c / 100 * r
		}
		if c > 0 {
			rows[i].CPUUsed += 100 * beside[host[rows[i].Node]] / c
		}
		// CPU_use is the node's: a fresh whole-node report (workers plus
		// anything else on the node, e.g. background load) replaces the sum
		// of the workers' own CPU.
		if nr, ok := s.nodeCPU[host[rows[i].Node]]; ok && c > 0 && now-nr.TimeMs <= max(int64(3*nr.IntervalS*1000), 30_000) {
			rows[i].CPUUsed = 100 * nr.CPUPercent / c
		}
	}
	return rows
}

// tuplesPerCore is R of loadTable: tuples/s executed per core busy in the
// tasks, over every topology's fresh reports; 0 when not measurable.
// Call with s.mu held.
func (s *Service) tuplesPerCore() float64 {
	tuples, cores := 0.0, 0.0
	for id := range s.m.topos {
		r := s.m.rates(id)
		if r == nil || len(r.traffic) == 0 {
			continue // a topology that moved no tuples (a burner) says nothing about tuples per core
		}
		for _, x := range r.traffic {
			tuples += x.rate
		}
		for _, c := range r.taskCPU {
			cores += c / 100
		}
	}
	if tuples <= 0 || cores <= 0 {
		return 0
	}
	return tuples / cores
}

// notMeasured names the inputs of a topology's load table the workers did
// not report: "task_cpu" when a non-system executor has no CPU reading (its
// vertex weight is then a fill-in), "traffic" when no task-to-task rate
// came in, "worker_memory" when a fresh worker report has no memory
// reading, "node_performance" when no node has a performance, and every
// field a fresh worker report lists in its own not_measured. Nil when
// everything is there. Call with s.mu held.
func (s *Service) notMeasured(id string, ix *execIndex, r *rates, nodes []schedulers.NodeLoad) []string {
	if r.empty() {
		return []string{"task_load"}
	}
	var out []string
	for v, e := range ix.execs {
		if strings.HasPrefix(ix.components[v], "__") {
			continue // Storm's system executors (__acker, __system) need not report
		}
		seen := false
		for task := e.Start; task <= e.End && !seen; task++ {
			_, seen = r.taskCPU[task]
		}
		if !seen {
			out = append(out, "task_cpu")
			break
		}
	}
	if len(r.traffic) == 0 {
		out = append(out, "traffic")
	}
	if len(r.in.size) == 0 {
		out = append(out, protocol.FieldTupleSizes) // no worker sampled a tuple size
	}
	if t := s.m.topos[id]; t != nil {
		memory := false
		for _, w := range t.fresh() {
			if !memory && w.WorkerMemoryMB <= 0 {
				out, memory = append(out, "worker_memory"), true
			}
			// What the workers themselves say they could not measure.
			for _, f := range w.NotMeasured {
				if !slices.Contains(out, f) {
					out = append(out, f)
				}
			}
		}
	}
	perf := false
	for _, n := range nodes {
		perf = perf || n.CPUThroughput > 0
	}
	if !perf {
		out = append(out, "node_performance")
	}
	return out
}
