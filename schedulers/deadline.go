package schedulers

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Deadline is the deadline- and load-type-aware dynamic scheduler of Choi,
// Jeon, Lim, Bok and Yoo, "Dynamic Task Scheduling Scheme for Processing
// Real-Time Stream Data in Storm Environments", 2021 (sec. 3). It reads the load table (NodeLoad,
// Table 1) and the per-task monitor (TaskLoad, Table 2) in p.Load and
// follows the decision tree of Fig. 3 with threshold Theta:
//
//  1. the lowest memory usage of all nodes exceeds Theta: memory-load
//     scheduling (sec. 3.3.1);
//  2. some node exceeds Theta in CPU and in memory: CPU+memory scheduling
//     (sec. 3.3.3, eqs. 4-6);
//  3. some node exceeds Theta in CPU: CPU scheduling (sec. 3.3.2, eqs. 2-3);
//  4. otherwise static scheduling with R-Storm (the current placement is
//     kept; the first placement is RStorm's).
//
// Readings where the paper leaves room (each tested in deadline_test.go):
//
//   - Usage: node CPU is NodeLoad.CPUUsed (percent of the node); memory
//     usage is 1 - MemoryFreeMB/MemoryTotalMB. A cluster node without a load
//     row counts as idle (CPU 0, memory free). A task's CPU (TaskLoad.CPU) is
//     percent of one core, so it is CPU*100/Node.CPU percent of its node
//     (Node.CPU <= 0 counts as 100, one core); on another node m it costs
//     that times perf(n)/perf(m). Executors without a monitor row use the
//     vertex weight as CPU, the default memory and no deadline.
//   - Node performance ("CPU_avg-th", Table 1, used by the CPU branch and
//     eq. 6) is capacity, never load: NodeLoad.CPUThroughput, the tuples/s
//     the node can process (the scheduler service derives it from the
//     supervisor's CPU quota, see infra/service). A node without it counts
//     as its capacity in cores (Node.CPU/100), which keeps the ratios of the
//     CPU branch, and is reported as not measured.
//   - Eq. 1: T_dead = T_cpu * alpha * Now / (T_start + T_dline), Now =
//     Load.NowMs, T_start = TaskLoad.StartMs, T_dline = TaskLoad.DeadlineMs,
//     alpha = Options.DeadlineWeight (0 means 1). "Close" deadlines are
//     large Now/(T_start+T_dline). A measured task load in which no task has
//     a deadline is an error: the scheduler would rank every task alike.
//   - Memory load ("delay low-priority tasks"): Storm cannot pause an
//     executor through placement, and no node has memory to take one, so the
//     assignment is kept and the decision lists, per node, the lowest-priority
//     executors whose memory must be freed to bring the node to Theta, as a
//     priority queue (highest eq. 1 value first). The harness may throttle
//     them (e.g. spout backpressure); Reschedule reports apply = false.
//   - CPU load: loaded node = smallest deviation CPU_exp - CPU_n (eq. 3),
//     free node = largest deviation whose memory usage is <= Theta. If the
//     loaded node's performance is higher than the free node's, the task
//     with the farthest deadline moves, else the closest; if the free node
//     would exceed Theta, the next free node is tried. One migration per
//     round.
//   - CPU+memory load: for each such node (highest CPU first), ST = argmax
//     eq. 1 (eq. 4); for every other node m with free memory for ST and not
//     itself CPU+memory loaded, eq. 6 with units made explicit:
//     Cost_m = ST_rate/CPU_m,avg-th + ST_lat/B, where ST_rate is the tuples/s
//     ST executes (its measured input, or its output for a spout): the
//     paper's "ST_size / CPU_avg-th" is ST's work over the node's
//     throughput, and with CPU_avg-th in tuples/s the work is ST's tuple
//     rate, giving the share of m's capacity ST takes. ST_lat = ST_network *
//     ST_size (eq. 5: tuples/s leaving ST times TupleSize bytes), over the
//     inter-node bandwidth B (Options.BandwidthBytes, default 125e6 bytes/s,
//     1 Gbit/s), is the share of the link the move adds. Both terms are
//     seconds per second. ST moves to the cheapest m if that is cheaper than
//     staying (ST_rate/CPU_n,avg-th, no transfer), so large tuples keep a
//     chatty task where it is and small ones let it go to a faster node.
//     Without measured tuple sizes or node performance this branch moves
//     nothing and the decision says which input was not measured.
//   - A moved executor joins the topology's worker on the target node if
//     there is one, else a new worker on the node's lowest free port; nodes
//     without a free port are skipped.
type Deadline struct {
	Theta     float64 // load threshold in (0,1]; 0 means 0.8 (the paper's 80%)
	Alpha     float64 // eq. 1 weight of the deadline; 0 means 1
	Bandwidth float64 // inter-node bandwidth, bytes/s; 0 means 125e6
}

// defaultBandwidth is 1 Gbit/s in bytes/s.
const defaultBandwidth = 125e6

var deadlineInfo = Info{
	Name:        "deadline",
	Description: "deadline- and load-type-aware dynamic scheduler (decision tree over CPU/memory load; R-Storm static placement)",
	Source:      `Choi, Jeon, Lim, Bok and Yoo, "Dynamic Task Scheduling Scheme for Processing Real-Time Stream Data in Storm Environments", 2021, sec. 3`,
	New: func(o Options) (Scheduler, error) {
		if err := checkTheta("deadline", o.Theta); err != nil {
			return nil, err
		}
		if !(o.DeadlineWeight >= 0) || math.IsInf(o.DeadlineWeight, 0) {
			return nil, fmt.Errorf("deadline: deadline_weight = %v: use a finite weight >= 0 (0 means 1)", o.DeadlineWeight)
		}
		if !(o.BandwidthBytes >= 0) || math.IsInf(o.BandwidthBytes, 0) {
			return nil, fmt.Errorf("deadline: bandwidth_bytes = %v: use a finite bandwidth >= 0 in bytes/s (0 means 125e6)", o.BandwidthBytes)
		}
		return Deadline{Theta: o.Theta, Alpha: o.DeadlineWeight, Bandwidth: o.BandwidthBytes}, nil
	},
}

// LoadType is the branch of the decision tree of Fig. 3.
type LoadType string

// The load types of 002 sec. 3.3.
const (
	LoadNone      LoadType = "none" // static scheduling with R-Storm
	LoadMemory    LoadType = "memory"
	LoadCPUMemory LoadType = "cpu+memory"
	LoadCPU       LoadType = "cpu"
)

// Migration is one executor move.
type Migration struct {
	Executor int     `json:"executor"` // vertex index
	From     string  `json:"from"`
	To       string  `json:"to"`
	Value    float64 `json:"value"` // eq. 1 value of the task
}

// DeadlineDecision is what one round decided, for the decision log.
type DeadlineDecision struct {
	Type       LoadType    `json:"type"`
	Delayed    []int       `json:"delayed,omitempty"` // memory load: executors, highest priority first
	Migrations []Migration `json:"migrations,omitempty"`
	// MeanCPUBefore/After: CPU_exp (eq. 2) measured and as estimated after
	// the migrations, percent.
	MeanCPUBefore float64     `json:"mean_cpu_before"`
	MeanCPUAfter  float64     `json:"mean_cpu_after"`
	Assignment    *Assignment `json:"-"`
	// NotMeasured names inputs the load table lacks ("tuple_size",
	// "node_performance", "task_load").
	NotMeasured []string `json:"not_measured,omitempty"`
}

func (d Deadline) theta() float64 { return thetaOrDefault(d.Theta) }

func (d Deadline) bandwidth() float64 {
	if d.Bandwidth <= 0 {
		return defaultBandwidth
	}
	return d.Bandwidth
}

func (d Deadline) alpha() float64 {
	if d.Alpha <= 0 {
		return 1
	}
	return d.Alpha
}

// Schedule implements Scheduler: the first placement is R-Storm's; with a
// current assignment and a load it returns Reschedule's assignment.
func (d Deadline) Schedule(ctx context.Context, p *Problem) (*Assignment, error) {
	if p.Current != nil && p.Load != nil {
		a, _, err := d.Reschedule(ctx, p)
		return a, err
	}
	return RStorm{}.Schedule(ctx, p)
}

// Reschedule implements Dynamic.
func (d Deadline) Reschedule(ctx context.Context, p *Problem) (*Assignment, bool, error) {
	a, dec, err := d.Explain(ctx, p)
	if err != nil {
		return nil, false, err
	}
	return a, dec.Apply, nil
}

// Explain implements Explainer.
func (d Deadline) Explain(ctx context.Context, p *Problem) (*Assignment, *Decision, error) {
	if p.Current == nil {
		a, err := RStorm{}.Schedule(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return a, &Decision{Apply: true, Reason: "first placement (R-Storm)", Trigger: "first placement"}, nil
	}
	if p.Load == nil {
		return p.Current, &Decision{Reason: "nothing measured yet: placement kept", Trigger: "none", NotMeasured: []string{"task_load"}}, nil
	}
	dec, err := d.Decide(p)
	if err != nil {
		return nil, nil, err
	}
	out := &Decision{Apply: len(dec.Migrations) > 0, Trigger: string(dec.Type) + " load", Migrations: dec.Migrations,
		Moved: len(dec.Migrations), NotMeasured: dec.NotMeasured,
		Current: &Estimate{NodeCPU: dec.MeanCPUBefore}, New: &Estimate{NodeCPU: dec.MeanCPUAfter}}
	switch {
	case dec.Type == LoadNone:
		out.Reason = fmt.Sprintf("no node over theta %.2g: static placement kept", d.theta())
	case dec.Type == LoadMemory:
		out.Reason = fmt.Sprintf("memory load on every node: %d executors queued for delay, placement kept", len(dec.Delayed))
	case out.Apply:
		out.Reason = fmt.Sprintf("%s load: %d executor(s) migrated", dec.Type, len(dec.Migrations))
	default:
		out.Reason = fmt.Sprintf("%s load: no migration fits (cost or capacity)", dec.Type)
	}
	return dec.Assignment, out, nil
}

type dlNode struct {
	id                string
	cpu               float64 // percent of node
	memTotal, memFree float64
	th                float64 // node performance (CPU_avg-th), tuples/s; cores when not measured
	thMeasured        bool
	capacity          float64 // percent of one core
}

func (n *dlNode) memUse() float64 {
	if n.memTotal <= 0 {
		return 0
	}
	return 1 - n.memFree/n.memTotal
}

type dlTask struct {
	v                   int
	node                int // index into nodes
	cpu, mem, net, size float64
	rate                float64 // tuples/s the task executes (input; output for a spout)
	ratio               float64 // Now / (start + dline)
	value               float64 // eq. 1
}

// Decide runs one round of the decision tree and returns what it decided,
// with the resulting assignment (p.Current when nothing moves).
func (d Deadline) Decide(p *Problem) (*DeadlineDecision, error) {
	if p.Current == nil || p.Load == nil {
		return nil, fmt.Errorf("deadline: a decision needs the current assignment and a load table")
	}
	if err := p.checkGraph("deadline"); err != nil {
		return nil, err
	}
	if err := p.Current.Validate(p.Graph, &p.Cluster); err != nil {
		return nil, fmt.Errorf("deadline: current assignment: %w", err)
	}
	theta, alpha := d.theta(), d.alpha()
	nodes := make([]*dlNode, len(p.Cluster.Nodes))
	byID := map[string]int{}
	for i, n := range p.Cluster.Nodes {
		c := n.CPU
		if c <= 0 {
			c = 100
		}
		nodes[i] = &dlNode{id: n.ID, capacity: c}
		byID[n.ID] = i
	}
	for _, l := range p.Load.Nodes {
		i, ok := byID[l.Node]
		if !ok {
			continue // a node that left the cluster
		}
		n := nodes[i]
		n.cpu, n.memTotal, n.memFree, n.th = l.CPUUsed, l.MemoryTotalMB, l.MemoryFreeMB, l.CPUThroughput
		n.thMeasured = l.CPUThroughput > 0
	}
	var notMeasured []string
	for _, n := range nodes {
		if !n.thMeasured {
			n.th = n.capacity / 100
		}
	}
	for _, n := range nodes {
		if !n.thMeasured {
			notMeasured = append(notMeasured, "node_performance")
			break
		}
	}
	mon := map[int]TaskLoad{}
	for _, t := range p.Load.Tasks {
		mon[t.Executor] = t
	}
	in := make([]float64, p.Graph.N())
	idx := p.Graph.Index()
	for _, e := range p.Graph.Edges {
		in[idx[e.To]] += e.Weight
	}
	tasks := make([]*dlTask, p.Graph.N())
	deadlines, sizes := 0, 0
	for v := range tasks {
		t := &dlTask{v: v, node: byID[p.Current.NodeOf(v)], cpu: p.Graph.Vertices[v].Weight, mem: ExecutorMemory(p.Graph.Vertices[v])}
		if m, ok := mon[v]; ok {
			t.cpu, t.net, t.size = m.CPU, m.Network, m.TupleSize
			if m.MemoryMB > 0 {
				t.mem = m.MemoryMB
			}
			if m.DeadlineMs > 0 {
				deadlines++
			}
			if m.TupleSize > 0 {
				sizes++
			}
			if den := float64(m.StartMs) + m.DeadlineMs; den > 0 && m.DeadlineMs > 0 {
				t.ratio = float64(p.Load.NowMs) / den
			}
		}
		t.rate = in[v]
		if t.rate == 0 {
			t.rate = t.net
		}
		t.value = t.cpu * alpha * t.ratio
		tasks[v] = t
	}
	if len(mon) == 0 {
		notMeasured = append(notMeasured, "task_load")
	} else if deadlines == 0 {
		// No task has reported a deadline (yet: bolts report one once a
		// tuple carrying T_start reached them, so the first rounds of a
		// run can lack it; or never: the topology sets none). Eq. 1 cannot
		// rank tasks, so nothing moves and the decision says why; a run
		// whose decisions all lack it makes its claims inconclusive.
		notMeasured = append(notMeasured, "deadline")
	}
	if sizes == 0 {
		notMeasured = append(notMeasured, "tuple_size")
	}
	dec := &DeadlineDecision{Type: LoadNone, MeanCPUBefore: meanCPU(nodes), Assignment: p.Current, NotMeasured: notMeasured}
	cpuTh := theta * 100
	minMem := math.Inf(1)
	anyBoth, anyCPU := false, false
	for _, n := range nodes {
		minMem = math.Min(minMem, n.memUse())
		if n.cpu > cpuTh && n.memUse() > theta {
			anyBoth = true
		}
		if n.cpu > cpuTh {
			anyCPU = true
		}
	}
	var moves []Migration
	switch {
	case len(nodes) > 0 && minMem > theta:
		dec.Type = LoadMemory
		dec.Delayed = d.memoryDelay(nodes, tasks, theta)
	case anyBoth:
		dec.Type = LoadCPUMemory
		if !slices.Contains(notMeasured, "tuple_size") && !slices.Contains(notMeasured, "node_performance") {
			moves = d.cpuMemory(nodes, tasks, theta)
		}
	case anyCPU:
		dec.Type = LoadCPU
		moves = d.cpuOnly(nodes, tasks, theta)
	}
	if slices.Contains(notMeasured, "deadline") {
		moves, dec.Delayed = nil, nil // eq. 1 cannot rank tasks without deadlines
	}
	dec.MeanCPUAfter = meanCPU(nodes)
	if len(moves) > 0 {
		a, applied, err := moveExecutors(p, moves)
		if err != nil {
			return nil, err
		}
		dec.Assignment, dec.Migrations = a, applied
	}
	return dec, nil
}

func meanCPU(nodes []*dlNode) float64 { // eq. 2
	if len(nodes) == 0 {
		return 0
	}
	s := 0.0
	for _, n := range nodes {
		s += n.cpu
	}
	return s / float64(len(nodes))
}

func tasksOn(tasks []*dlTask, node int) []*dlTask {
	var out []*dlTask
	for _, t := range tasks {
		if t.node == node {
			out = append(out, t)
		}
	}
	return out
}

// memoryDelay: per node, dequeue lowest-priority tasks until memory usage
// is <= theta; the queue is served highest eq. 1 value first.
func (d Deadline) memoryDelay(nodes []*dlNode, tasks []*dlTask, theta float64) []int {
	var queue []*dlTask
	for i, n := range nodes {
		on := tasksOn(tasks, i)
		sort.SliceStable(on, func(a, b int) bool { return on[a].value < on[b].value })
		free := n.memFree
		for _, t := range on {
			if n.memTotal <= 0 || 1-free/n.memTotal <= theta {
				break
			}
			queue = append(queue, t)
			free += t.mem
		}
	}
	sort.SliceStable(queue, func(a, b int) bool { return queue[a].value > queue[b].value })
	out := make([]int, len(queue))
	for i, t := range queue {
		out[i] = t.v
	}
	return out
}

// costOn is the task's CPU in percent of node m when it runs on m.
func costOn(t *dlTask, from, to *dlNode) float64 {
	speed := 1.0
	if from.th > 0 && to.th > 0 {
		speed = from.th / to.th
	}
	return t.cpu * speed * 100 / to.capacity
}

func migrate(t *dlTask, nodes []*dlNode, to int) Migration {
	from := nodes[t.node]
	nodes[to].cpu += costOn(t, from, nodes[to])
	from.cpu -= t.cpu * 100 / from.capacity
	from.memFree += t.mem
	nodes[to].memFree -= t.mem
	m := Migration{Executor: t.v, From: from.id, To: nodes[to].id, Value: t.value}
	t.node = to
	return m
}

// cpuOnly is CPU load-based scheduling (eqs. 2-3).
func (d Deadline) cpuOnly(nodes []*dlNode, tasks []*dlTask, theta float64) []Migration {
	mean := meanCPU(nodes)
	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	// Deviation CPU_exp - CPU_n ascending: loaded first, free last.
	sort.SliceStable(order, func(a, b int) bool { return mean-nodes[order[a]].cpu < mean-nodes[order[b]].cpu })
	loaded := order[0]
	on := tasksOn(tasks, loaded)
	if len(on) == 0 {
		return nil
	}
	for k := len(order) - 1; k > 0; k-- {
		free := order[k]
		if nodes[free].memUse() > theta {
			continue // a task moved here could be lost
		}
		farthest := nodes[loaded].th > nodes[free].th
		best := on[0]
		for _, t := range on[1:] {
			if (farthest && t.ratio < best.ratio) || (!farthest && t.ratio > best.ratio) {
				best = t
			}
		}
		if nodes[free].cpu+costOn(best, nodes[loaded], nodes[free]) > theta*100 {
			continue // the free node would become loaded: try the next one
		}
		if nodes[free].memFree < best.mem && nodes[free].memTotal > 0 {
			continue
		}
		return []Migration{migrate(best, nodes, free)}
	}
	return nil
}

// cpuMemory is CPU and memory load-based scheduling (eqs. 4-6).
func (d Deadline) cpuMemory(nodes []*dlNode, tasks []*dlTask, theta float64) []Migration {
	both := func(n *dlNode) bool { return n.cpu > theta*100 && n.memUse() > theta }
	var loaded []int
	for i, n := range nodes {
		if both(n) {
			loaded = append(loaded, i)
		}
	}
	sort.SliceStable(loaded, func(a, b int) bool { return nodes[loaded[a]].cpu > nodes[loaded[b]].cpu })
	var moves []Migration
	for _, ni := range loaded {
		on := tasksOn(tasks, ni)
		if len(on) == 0 {
			continue
		}
		st := on[0] // eq. 4: argmax T_dead
		for _, t := range on[1:] {
			if t.value > st.value {
				st = t
			}
		}
		bw := d.bandwidth()
		cost := func(m *dlNode, transfer bool) float64 { // eq. 6, eq. 5 as transfer
			if m.th <= 0 {
				return math.Inf(1)
			}
			c := st.rate / m.th
			if transfer {
				c += st.net * st.size / bw
			}
			return c
		}
		stay := cost(nodes[ni], false)
		best, bestCost := -1, math.Inf(1)
		for mi, m := range nodes {
			if mi == ni || both(m) || (m.memTotal > 0 && m.memFree < st.mem) {
				continue
			}
			if c := cost(m, true); c < bestCost {
				best, bestCost = mi, c
			}
		}
		if best >= 0 && bestCost < stay {
			moves = append(moves, migrate(st, nodes, best))
		}
	}
	return moves
}

// moveExecutors applies the moves to a copy of p.Current. A move whose
// target node has no worker of the topology and no free port is dropped.
func moveExecutors(p *Problem, moves []Migration) (*Assignment, []Migration, error) {
	a := &Assignment{Workers: append([]Slot(nil), p.Current.Workers...), Executors: append([]int(nil), p.Current.Executors...)}
	used := map[Slot]bool{}
	for _, s := range a.Workers {
		used[s] = true
	}
	var applied []Migration
	for _, m := range moves {
		w := -1
		for i, s := range a.Workers {
			if s.Node == m.To {
				w = i
				break
			}
		}
		if w < 0 {
			n, _ := p.Cluster.Node(m.To)
			ports := append([]int(nil), n.Ports...)
			sort.Ints(ports)
			for _, port := range ports {
				if s := (Slot{Node: m.To, Port: port}); !used[s] {
					used[s] = true
					w = len(a.Workers)
					a.Workers = append(a.Workers, s)
					break
				}
			}
		}
		if w < 0 {
			continue
		}
		a.Executors[m.Executor] = w
		applied = append(applied, m)
	}
	return dropIdleWorkers(a), applied, nil
}

// dropIdleWorkers removes workers left without executors.
func dropIdleWorkers(a *Assignment) *Assignment {
	count := make([]int, len(a.Workers))
	for _, w := range a.Executors {
		count[w]++
	}
	remap := make([]int, len(a.Workers))
	var ws []Slot
	for i, s := range a.Workers {
		if count[i] > 0 {
			remap[i] = len(ws)
			ws = append(ws, s)
		}
	}
	for v, w := range a.Executors {
		a.Executors[v] = remap[w]
	}
	a.Workers = ws
	return a
}
