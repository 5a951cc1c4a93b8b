package schedulers

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// Adaptive is J. Fan et al.'s adaptive scheduler as Choi, Jeon, Lim, Bok and
// Yoo, "Dynamic Task Scheduling Scheme for Processing Real-Time Stream Data
// in Storm Environments", 2021 (sec. 2, ref. [13]) describe it: a static placement by network
// bandwidth and tuple size, then periodic dynamic migration from nodes whose
// CPU exceeds a threshold to unloaded nodes, weighing CPU and network cost.
// 002 gives no formulas; our reading:
//
//   - Static (Schedule): the traffic of an edge is its weight (tuples/s)
//     times the source executor's TaskLoad.TupleSize when measured (else 1).
//     Edges are taken heaviest first; both ends go into the same worker
//     when it stays within its CPU budget (total vertex weight / k, +20%),
//     otherwise an end goes to the least-loaded worker; executors without
//     edges go last, heaviest first, to the least-loaded worker. Workers are
//     spread over the nodes with SpreadSlots (k = p.Workers, at most n).
//   - Dynamic (Reschedule, each round; Fan et al. run it every 5 min): for
//     each node with CPU above Theta (NodeLoad.CPUUsed, highest first), move
//     the executor/target pair with the lowest cost
//     newCPU(target)/100 + (inter-node traffic added - removed)/total traffic
//     among targets below Theta that stay below Theta after the move
//     (executor CPU = TaskLoad.CPU or the vertex weight, percent of one core,
//     over Node.CPU). The node's executors are ranked by that cost once and
//     moved in rank order (each re-evaluated at its turn) until the node is
//     below Theta or nothing fits: O(n * nodes * degree) per round.
type Adaptive struct {
	Theta float64 // CPU threshold in (0,1]; 0 means 0.8
}

var adaptiveInfo = Info{
	Name:        "adaptive",
	Description: "Fan et al.'s adaptive scheduler: traffic-greedy static placement, CPU-threshold migration",
	Source:      `J. Fan et al.'s adaptive scheduler as described in Choi, Jeon, Lim, Bok and Yoo, "Dynamic Task Scheduling Scheme for Processing Real-Time Stream Data in Storm Environments", 2021, sec. 2 (ref. [13])`,
	New: func(o Options) (Scheduler, error) {
		if err := checkTheta("adaptive", o.Theta); err != nil {
			return nil, err
		}
		return Adaptive{Theta: o.Theta}, nil
	},
}

func (s Adaptive) theta() float64 { return thetaOrDefault(s.Theta) }

// traffic returns per-edge traffic (weight x tuple size) by edge index.
func adaptiveTraffic(p *Problem) []float64 {
	size := map[int]float64{}
	if p.Load != nil {
		for _, t := range p.Load.Tasks {
			if t.TupleSize > 0 {
				size[t.Executor] = t.TupleSize
			}
		}
	}
	idx := p.Graph.Index()
	tr := make([]float64, len(p.Graph.Edges))
	for i, e := range p.Graph.Edges {
		s, ok := size[idx[e.From]]
		if !ok {
			s = 1
		}
		tr[i] = e.Weight * s
	}
	return tr
}

// Schedule implements Scheduler (the static placement). With a current
// assignment and a load it returns Reschedule's assignment.
func (s Adaptive) Schedule(ctx context.Context, p *Problem) (*Assignment, error) {
	if err := p.checkGraph("adaptive"); err != nil {
		return nil, err
	}
	if p.Current != nil && p.Load != nil {
		a, _, err := s.Reschedule(ctx, p)
		return a, err
	}
	g := p.Graph
	n := g.N()
	k := min(p.Workers, n)
	if err := CheckK(k, n); err != nil {
		return nil, fmt.Errorf("adaptive: %w", err)
	}
	slots, err := SpreadSlots(&p.Cluster, k)
	if err != nil {
		return nil, err
	}
	budget := g.TotalVertexWeight() / float64(k) * 1.2
	tr := adaptiveTraffic(p)
	order := make([]int, len(g.Edges))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return tr[order[a]] > tr[order[b]] })
	idx := g.Index()
	part := make([]int, n)
	for i := range part {
		part[i] = -1
	}
	load := make([]float64, k)
	lightest := func() int {
		best := 0
		for w := 1; w < k; w++ {
			if load[w] < load[best] {
				best = w
			}
		}
		return best
	}
	put := func(v, w int) { part[v] = w; load[w] += g.Vertices[v].Weight }
	fits := func(v, w int) bool { return load[w]+g.Vertices[v].Weight <= budget }
	for _, ei := range order {
		a, b := idx[g.Edges[ei].From], idx[g.Edges[ei].To]
		switch {
		case a == b:
		case part[a] < 0 && part[b] < 0:
			w := lightest()
			put(a, w)
			if fits(b, w) {
				put(b, w)
			} else {
				put(b, lightest())
			}
		case part[a] < 0 || part[b] < 0:
			placed, free := a, b
			if part[a] < 0 {
				placed, free = b, a
			}
			if w := part[placed]; fits(free, w) {
				put(free, w)
			} else {
				put(free, lightest())
			}
		}
	}
	var rest []int
	for v := range part {
		if part[v] < 0 {
			rest = append(rest, v)
		}
	}
	sort.SliceStable(rest, func(a, b int) bool { return g.Vertices[rest[a]].Weight > g.Vertices[rest[b]].Weight })
	for _, v := range rest {
		put(v, lightest())
	}
	return dropIdleWorkers(&Assignment{Workers: slots, Executors: part}), nil
}

// Reschedule implements Dynamic.
func (s Adaptive) Reschedule(ctx context.Context, p *Problem) (*Assignment, bool, error) {
	a, d, err := s.Explain(ctx, p)
	if err != nil {
		return nil, false, err
	}
	return a, d.Apply, nil
}

// Explain implements Explainer.
func (s Adaptive) Explain(ctx context.Context, p *Problem) (*Assignment, *Decision, error) {
	trigger := fmt.Sprintf("node CPU over theta %.2g", s.theta())
	if p.Current == nil {
		a, err := Adaptive{Theta: s.Theta}.Schedule(ctx, &Problem{Topology: p.Topology, Graph: p.Graph, Cluster: p.Cluster, Workers: p.Workers})
		if err != nil {
			return nil, nil, err
		}
		return a, &Decision{Apply: true, Reason: "first placement", Trigger: "first placement"}, nil
	}
	if p.Load == nil {
		return p.Current, &Decision{Reason: "nothing measured yet: placement kept", Trigger: trigger, NotMeasured: []string{"task_load"}}, nil
	}
	if err := p.checkGraph("adaptive"); err != nil {
		return nil, nil, err
	}
	if err := p.Current.Validate(p.Graph, &p.Cluster); err != nil {
		return nil, nil, fmt.Errorf("adaptive: current assignment: %w", err)
	}
	moves := s.plan(p)
	if len(moves) == 0 {
		return p.Current, &Decision{Reason: "no node over theta, or no move fits", Trigger: trigger}, nil
	}
	a, applied, err := moveExecutors(p, moves)
	if err != nil {
		return nil, nil, err
	}
	d := &Decision{Apply: len(applied) > 0, Trigger: trigger, Migrations: applied, Moved: len(applied),
		Reason: fmt.Sprintf("%d executor(s) moved off nodes over theta", len(applied))}
	if !d.Apply {
		d.Reason = "no target node has a free slot"
		return p.Current, d, nil
	}
	return a, d, nil
}

func (s Adaptive) plan(p *Problem) []Migration {
	g := p.Graph
	th := s.theta() * 100
	nodes := p.Cluster.Nodes
	byID := map[string]int{}
	cpu := make([]float64, len(nodes))
	capa := make([]float64, len(nodes))
	for i, n := range nodes {
		byID[n.ID] = i
		capa[i] = n.CPU
		if capa[i] <= 0 {
			capa[i] = 100
		}
	}
	for _, l := range p.Load.Nodes {
		if i, ok := byID[l.Node]; ok {
			cpu[i] = l.CPUUsed
		}
	}
	taskCPU := make([]float64, g.N())
	for v := range taskCPU {
		taskCPU[v] = g.Vertices[v].Weight
	}
	for _, t := range p.Load.Tasks {
		if t.Executor >= 0 && t.Executor < g.N() {
			taskCPU[t.Executor] = t.CPU
		}
	}
	where := make([]int, g.N())
	for v := range where {
		where[v] = byID[p.Current.NodeOf(v)]
	}
	tr := adaptiveTraffic(p)
	total := 0.0
	adj := make([][]struct {
		u int
		t float64
	}, g.N())
	idx := g.Index()
	for i, e := range g.Edges {
		a, b := idx[e.From], idx[e.To]
		total += tr[i]
		adj[a] = append(adj[a], struct {
			u int
			t float64
		}{b, tr[i]})
		adj[b] = append(adj[b], struct {
			u int
			t float64
		}{a, tr[i]})
	}
	if total == 0 {
		total = 1
	}
	loaded := make([]int, 0)
	for i := range nodes {
		if cpu[i] > th {
			loaded = append(loaded, i)
		}
	}
	sort.SliceStable(loaded, func(a, b int) bool { return cpu[loaded[a]] > cpu[loaded[b]] })
	// best finds executor v's cheapest target from node ni, or -1.
	best := func(v, ni int) (int, float64) {
		bt, bs := -1, math.Inf(1)
		for ti := range nodes {
			if ti == ni || cpu[ti] >= th || len(nodes[ti].Ports) == 0 {
				continue
			}
			after := cpu[ti] + taskCPU[v]*100/capa[ti]
			if after > th {
				continue
			}
			delta := 0.0 // inter-node traffic added minus removed
			for _, x := range adj[v] {
				switch where[x.u] {
				case ni:
					delta += x.t
				case ti:
					delta -= x.t
				}
			}
			if score := after/100 + delta/total; score < bs {
				bt, bs = ti, score
			}
		}
		return bt, bs
	}
	var moves []Migration
	for _, ni := range loaded {
		// Rank the node's executors by their best score once, then move them
		// in that order, re-evaluating each at its turn (the state changes as
		// executors leave), until the node is below theta.
		type cand struct {
			v     int
			score float64
		}
		var cands []cand
		for v := range where {
			if where[v] == ni {
				if t, sc := best(v, ni); t >= 0 {
					cands = append(cands, cand{v, sc})
				}
			}
		}
		sort.SliceStable(cands, func(a, b int) bool { return cands[a].score < cands[b].score })
		for _, c := range cands {
			if cpu[ni] <= th {
				break
			}
			t, _ := best(c.v, ni)
			if t < 0 {
				continue
			}
			cpu[ni] -= taskCPU[c.v] * 100 / capa[ni]
			cpu[t] += taskCPU[c.v] * 100 / capa[t]
			where[c.v] = t
			moves = append(moves, Migration{Executor: c.v, From: nodes[ni].ID, To: nodes[t].ID})
		}
	}
	return moves
}

// AdaptiveStaticCut is a helper for tests and reports: the inter-node
// traffic of an assignment under the adaptive scheduler's traffic model.
func AdaptiveStaticCut(p *Problem, a *Assignment) float64 {
	tr := adaptiveTraffic(p)
	idx := p.Graph.Index()
	cut := 0.0
	for i, e := range p.Graph.Edges {
		if a.NodeOf(idx[e.From]) != a.NodeOf(idx[e.To]) {
			cut += tr[i]
		}
	}
	return cut
}
