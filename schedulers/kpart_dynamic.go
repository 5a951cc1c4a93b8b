package schedulers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/stormlab/stormlab/topologies"
)

// KPartDynamic is the dynamic scheduler of Jian, Lu and Zhang, "Storm
// heuristic balanced graph-partition scheduling optimization method", 2018
// (sec. 3.3). The graph it gets carries the
// measured load (vertex weight = executor CPU, edge weight = tuples/s), so
// every estimate below is "from the old monitoring data" as the paper says.
//
// 1. Scheduling strategy (sec. 3.3 part 1):
//   - f(E)->W: K-PART (KPart with Seed, Mul, Alpha) splits the executors
//     into k = min(p.Workers, n) workers.
//   - g(W)->R: the paper only says workers go to nodes "by the set goal"
//     (low communication, balance). We apply K-PART again, to the worker
//     graph (vertex = worker, weight = its CPU; edge = inter-worker
//     tuple rate) with r = min(nodes with a slot, k) parts (Mul at least 1,
//     so no node group stays empty when it need not), and give the
//     heaviest group to the node with the most CPU capacity (then more
//     slots, then id). When a group has more workers than its node has
//     slots, its lightest workers move to the least-loaded node with a free
//     slot.
//   - Intra-node equalisation: where a node holds several workers of the
//     topology, its executors are split evenly again among them: K-PART
//     with Mul >= 1 on the node's induced subgraph (balanced, and keeping
//     the intra-node inter-worker traffic low).
//   - Workers left without executors are dropped.
//
// 2. Apply rule: with a current assignment, the new one is applied only
// when both the estimated inter-node tuple rate (cut weight between nodes
// over total edge weight, the paper's sec. 4.2 measure) and the balance
// (population std dev of node CPU in percent of the node's capacity,
// Node.CPU, over every node with a slot: the balance metric the cluster
// experiments report, so a node of two cores carrying twice the CPU of a
// one-core node is balanced with it) are
// strictly lower than the current ones, computed on the same graph
// weights. Equal is not better. Without a current assignment the new one is
// applied.
//
// 3. Parallelism recommendation (sec. 3.3 part 2): see Parallelism.
//
// 4. Migration-minimising rescheduling (sec. 3.3 part 3): before deciding,
// the new assignment is relabelled to keep as much as possible in place:
// its node groups are matched to physical nodes by the CPU of executors
// already there (greedy, largest overlap first; this treats nodes as
// interchangeable, like the paper's identical nodes), then on each node its
// workers are matched to the topology's current slots by overlap. A worker
// whose slot and executor set are unchanged is not touched. The others are
// the moves, lightest (CPU) first, cut into consecutive batches so that no
// node restarts more than one worker per batch (the paper moves "in
// batches" without a size; one restart per node per batch keeps every node
// serving, and the order stays strictly lightest first). The
// relabelling changes neither estimate (std over all nodes is the same
// for any permutation of node loads).
//
// Stateless: every decision is a function of the Problem (Decide); the
// state the paper keeps (monitoring data) lives in the Problem's graph.
type KPartDynamic struct {
	Seed  uint64
	Mul   int
	Alpha float64
}

// NewKPartDynamic builds the dynamic scheduler from Options.Seed, Mul, Alpha.
func NewKPartDynamic(o Options) (Scheduler, error) {
	if _, err := NewKPart(o); err != nil {
		return nil, fmt.Errorf("kpart-dynamic: %w", err)
	}
	return &KPartDynamic{Seed: o.Seed, Mul: o.Mul, Alpha: o.Alpha}, nil
}

var kpartDynamicInfo = Info{
	Name:        "kpart-dynamic",
	Description: "K-PART dynamic scheduler: K-PART f(E)->W and g(W)->R, apply only if inter-node rate and balance improve, minimal migration",
	Source:      `Jian, Lu and Zhang, "Storm heuristic balanced graph-partition scheduling optimization method", 2018, sec. 3.3`,
	New:         NewKPartDynamic,
}

// Estimate is what the apply rule compares.
type Estimate struct {
	InterNodeRate float64 `json:"inter_node_rate"` // inter-node tuple rate / total tuple rate
	NodeStd       float64 `json:"node_std"`        // std dev of node CPU, percent of each node's capacity
	// NodeCPU is the mean node CPU in percent of capacity (the deadline
	// scheduler's CPU_exp, eq. 2); 0 when the scheduler does not estimate it.
	NodeCPU float64 `json:"node_cpu,omitempty"`
}

// WorkerMove is one worker to (re)start on Slot with its executors.
type WorkerMove struct {
	Worker    int     `json:"worker"` // index in the proposed Assignment.Workers
	Slot      Slot    `json:"slot"`
	CPU       float64 `json:"cpu"`
	Executors int     `json:"executors"`
}

// KPartDecision is one decision of the dynamic scheduler.
type KPartDecision struct {
	Proposed *Assignment  `json:"proposed"`
	Apply    bool         `json:"apply"`
	Reason   string       `json:"reason"`
	Current  *Estimate    `json:"current,omitempty"` // nil on first placement
	New      Estimate     `json:"new"`
	Moves    []WorkerMove `json:"moves"`   // changed workers, lightest first
	Batches  [][]int      `json:"batches"` // indices into Moves, in order
	Stop     []Slot       `json:"stop"`    // current slots of the topology left unused
}

// Schedule implements Scheduler: the decision's proposed assignment.
func (s *KPartDynamic) Schedule(ctx context.Context, p *Problem) (*Assignment, error) {
	d, err := s.Decide(ctx, p)
	if err != nil {
		return nil, err
	}
	if !d.Apply {
		return p.Current, nil
	}
	return d.Proposed, nil
}

// Explain implements Explainer: Reschedule with the decision's estimates.
func (s *KPartDynamic) Explain(ctx context.Context, p *Problem) (*Assignment, *Decision, error) {
	d, err := s.Decide(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	nw := d.New
	out := &Decision{Apply: d.Apply, Reason: d.Reason, Trigger: "inter-node rate and balance both lower", Current: d.Current, New: &nw}
	a := d.Proposed
	if !d.Apply {
		a = p.Current
	}
	out.Moved = movedExecutors(p.Current, d.Proposed)
	if !d.Apply {
		out.Moved = 0
	}
	return a, out, nil
}

// Reschedule implements Dynamic.
func (s *KPartDynamic) Reschedule(ctx context.Context, p *Problem) (*Assignment, bool, error) {
	d, err := s.Decide(ctx, p)
	if err != nil {
		return nil, false, err
	}
	if !d.Apply {
		return p.Current, false, nil
	}
	return d.Proposed, true, nil
}

// Decide computes a new assignment, the apply decision and the migration
// plan.
func (s *KPartDynamic) Decide(ctx context.Context, p *Problem) (*KPartDecision, error) {
	g := p.Graph
	if g == nil || g.N() == 0 {
		return nil, errors.New("kpart-dynamic: the problem has no executors")
	}
	if p.Current != nil {
		if err := p.Current.Validate(g, &p.Cluster); err != nil {
			return nil, fmt.Errorf("kpart-dynamic: current assignment: %w", err)
		}
	}
	a, groups, err := s.place(ctx, p)
	if err != nil {
		return nil, err
	}
	d := &KPartDecision{}
	if p.Current != nil {
		a = relabel(g, &p.Cluster, p.Current, a, groups)
	}
	d.Proposed = a
	d.New = EstimateAssignment(g, &p.Cluster, a)
	if p.Current == nil {
		d.Apply, d.Reason = true, "first placement"
	} else {
		cur := EstimateAssignment(g, &p.Cluster, p.Current)
		d.Current = &cur
		switch {
		case d.New.InterNodeRate < cur.InterNodeRate && d.New.NodeStd < cur.NodeStd:
			d.Apply, d.Reason = true, "inter-node rate and balance both improve"
		case d.New.InterNodeRate >= cur.InterNodeRate && d.New.NodeStd >= cur.NodeStd:
			d.Reason = "neither inter-node rate nor balance improves"
		case d.New.InterNodeRate >= cur.InterNodeRate:
			d.Reason = "inter-node rate does not improve"
		default:
			d.Reason = "balance does not improve"
		}
	}
	d.Moves, d.Batches, d.Stop = migrationPlan(g, p.Current, a)
	return d, nil
}

// EstimateAssignment computes the apply rule's measures of a on g's weights.
func EstimateAssignment(g *topologies.Graph, c *Cluster, a *Assignment) Estimate {
	var e Estimate
	idx := g.Index()
	total, cut := 0.0, 0.0
	for _, ed := range g.Edges {
		total += ed.Weight
		if a.NodeOf(idx[ed.From]) != a.NodeOf(idx[ed.To]) {
			cut += ed.Weight
		}
	}
	if total > 0 {
		e.InterNodeRate = cut / total
	}
	load := map[string]float64{}
	for v := range a.Executors {
		load[a.NodeOf(v)] += g.Vertices[v].Weight
	}
	var xs []float64
	for _, nd := range c.Nodes {
		if len(nd.Ports) > 0 {
			xs = append(xs, 100*load[nd.ID]/nodeCapacity(nd))
		}
	}
	if len(xs) > 0 {
		mean := 0.0
		for _, x := range xs {
			mean += x
		}
		mean /= float64(len(xs))
		ss := 0.0
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		e.NodeStd = math.Sqrt(ss / float64(len(xs)))
	}
	return e
}

// place runs f, g and the equalisation. It returns the assignment and, per
// node id, the indices of its workers.
func (s *KPartDynamic) place(ctx context.Context, p *Problem) (*Assignment, map[string][]int, error) {
	g := p.Graph
	n := g.N()
	k := min(p.Workers, n)
	if err := CheckK(k, n); err != nil {
		return nil, nil, fmt.Errorf("kpart-dynamic: workers: %w", err)
	}
	nodes := slotNodes(&p.Cluster)
	slots := 0
	for _, nd := range nodes {
		slots += len(nd.Ports)
	}
	if k > slots {
		return nil, nil, fmt.Errorf("kpart-dynamic: %d workers requested but the cluster has %d slots; add supervisors or slots, or ask for fewer workers", k, slots)
	}
	kp := &KPart{Seed: s.Seed, Mul: s.Mul, Alpha: s.Alpha}
	parts, err := kp.Partition(ctx, g, k) // f: E -> W
	if err != nil {
		return nil, nil, err
	}
	// g: W -> R on the worker graph.
	wg := &topologies.Graph{Vertices: make([]topologies.Vertex, k)}
	for i := range wg.Vertices {
		wg.Vertices[i].ID = i
	}
	for v, q := range parts {
		wg.Vertices[q].Weight += g.Vertices[v].Weight
	}
	idx := g.Index()
	type wpair struct{ a, b int }
	between := map[wpair]float64{}
	var order []wpair
	for _, e := range g.Edges {
		a, b := parts[idx[e.From]], parts[idx[e.To]]
		if a == b {
			continue
		}
		pr := wpair{min(a, b), max(a, b)}
		if _, ok := between[pr]; !ok {
			order = append(order, pr)
		}
		between[pr] += e.Weight
	}
	for _, pr := range order {
		wg.Edges = append(wg.Edges, topologies.Edge{From: pr.a, To: pr.b, Weight: between[pr]})
	}
	r := min(len(nodes), k)
	// Mul >= 1 here: with few workers, growth alone can leave a node group
	// empty (a group takes workers until it passes w_e).
	gp := &KPart{Seed: s.Seed, Mul: max(s.Mul, 1), Alpha: s.Alpha}
	group, err := gp.Partition(ctx, wg, r)
	if err != nil {
		return nil, nil, err
	}
	gcpu := make([]float64, r)
	for w, q := range group {
		gcpu[q] += wg.Vertices[w].Weight
	}
	gorder := make([]int, r)
	for i := range gorder {
		gorder[i] = i
	}
	sort.SliceStable(gorder, func(a, b int) bool { return gcpu[gorder[a]] > gcpu[gorder[b]] })
	nodeOfGroup := make([]int, r)
	for rank, q := range gorder {
		nodeOfGroup[q] = rank
	}
	nodeOf := make([]int, k) // worker -> index into nodes
	count := make([]int, len(nodes))
	nload := make([]float64, len(nodes))
	for w := range nodeOf {
		nodeOf[w] = nodeOfGroup[group[w]]
		count[nodeOf[w]]++
		nload[nodeOf[w]] += wg.Vertices[w].Weight
	}
	// Slot overflow: lightest workers of a full node go to the least-loaded
	// node with a free slot.
	for ni := range nodes {
		for count[ni] > len(nodes[ni].Ports) {
			light := -1
			for w := range nodeOf {
				if nodeOf[w] == ni && (light < 0 || wg.Vertices[w].Weight < wg.Vertices[light].Weight) {
					light = w
				}
			}
			dst := -1
			for nj := range nodes {
				if count[nj] < len(nodes[nj].Ports) && (dst < 0 || nload[nj] < nload[dst]) {
					dst = nj
				}
			}
			nodeOf[light] = dst
			count[ni]--
			count[dst]++
			nload[ni] -= wg.Vertices[light].Weight
			nload[dst] += wg.Vertices[light].Weight
		}
	}
	// Intra-node equalisation.
	eq := &KPart{Seed: s.Seed, Mul: max(s.Mul, 1), Alpha: s.Alpha}
	workersOn := make([][]int, len(nodes))
	for w, ni := range nodeOf {
		workersOn[ni] = append(workersOn[ni], w)
	}
	execsOn := make([][]int, len(nodes))
	for v, q := range parts {
		execsOn[nodeOf[q]] = append(execsOn[nodeOf[q]], v)
	}
	for ni, ws := range workersOn {
		if len(ws) < 2 || len(execsOn[ni]) < len(ws) {
			continue
		}
		sub, back := inducedSubgraph(g, execsOn[ni])
		sp, err := eq.Partition(ctx, sub, len(ws))
		if err != nil {
			return nil, nil, err
		}
		for i, q := range sp {
			parts[back[i]] = ws[q]
		}
	}
	// Build the assignment, dropping empty workers; ports in order per node.
	used := make([]bool, k)
	for _, q := range parts {
		used[q] = true
	}
	a := &Assignment{Executors: make([]int, n)}
	renum := make([]int, k)
	groups := map[string][]int{}
	for ni, ws := range workersOn {
		ports := append([]int(nil), nodes[ni].Ports...)
		sort.Ints(ports)
		pi := 0
		for _, w := range ws {
			if !used[w] {
				renum[w] = -1
				continue
			}
			renum[w] = len(a.Workers)
			groups[nodes[ni].ID] = append(groups[nodes[ni].ID], len(a.Workers))
			a.Workers = append(a.Workers, Slot{Node: nodes[ni].ID, Port: ports[pi]})
			pi++
		}
	}
	for v, q := range parts {
		a.Executors[v] = renum[q]
	}
	return a, groups, nil
}

// inducedSubgraph returns the subgraph of g on vertex indices vs and, per
// subgraph vertex index, the original index.
func inducedSubgraph(g *topologies.Graph, vs []int) (*topologies.Graph, []int) {
	in := make(map[int]bool, len(vs))
	sub := &topologies.Graph{Vertices: make([]topologies.Vertex, len(vs))}
	for i, v := range vs {
		sub.Vertices[i] = g.Vertices[v]
		in[g.Vertices[v].ID] = true
	}
	for _, e := range g.Edges {
		if in[e.From] && in[e.To] {
			sub.Edges = append(sub.Edges, e)
		}
	}
	return sub, vs
}

// relabel moves a's node groups and workers onto the physical nodes and
// slots where most of their executors already run (see KPartDynamic).
func relabel(g *topologies.Graph, c *Cluster, cur, a *Assignment, groups map[string][]int) *Assignment {
	nodes := slotNodes(c)
	var gids []string
	for id := range groups {
		gids = append(gids, id)
	}
	sort.Strings(gids)
	// Overlap of each new node group with each physical node (current CPU).
	type cand struct {
		gid, node string
		ov        float64
	}
	ov := map[[2]string]float64{}
	for v := range a.Executors {
		ov[[2]string{a.NodeOf(v), cur.NodeOf(v)}] += g.Vertices[v].Weight
	}
	var cands []cand
	for key, x := range ov {
		cands = append(cands, cand{key[0], key[1], x})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].ov != cands[j].ov {
			return cands[i].ov > cands[j].ov
		}
		if cands[i].gid != cands[j].gid {
			return cands[i].gid < cands[j].gid
		}
		return cands[i].node < cands[j].node
	})
	ports := map[string]int{}
	for _, nd := range nodes {
		ports[nd.ID] = len(nd.Ports)
	}
	target := map[string]string{}
	taken := map[string]bool{}
	for _, cd := range cands {
		if target[cd.gid] == "" && !taken[cd.node] && ports[cd.node] >= len(groups[cd.gid]) {
			target[cd.gid], taken[cd.node] = cd.node, true
		}
	}
	for _, gid := range gids { // groups with no overlap: original node if free, else any that fits
		if target[gid] != "" {
			continue
		}
		if !taken[gid] && ports[gid] >= len(groups[gid]) {
			target[gid], taken[gid] = gid, true
			continue
		}
		for _, nd := range nodes {
			if !taken[nd.ID] && len(nd.Ports) >= len(groups[gid]) {
				target[gid], taken[nd.ID] = nd.ID, true
				break
			}
		}
		if target[gid] == "" {
			return a // cannot relabel consistently: keep g's placement
		}
	}
	// Within each node: match new workers to the topology's current slots.
	out := &Assignment{Workers: make([]Slot, len(a.Workers)), Executors: append([]int(nil), a.Executors...)}
	wov := map[[2]int]float64{} // (new worker, current worker) -> CPU
	for v := range a.Executors {
		wov[[2]int{a.Executors[v], cur.Executors[v]}] += g.Vertices[v].Weight
	}
	for _, gid := range gids {
		node := target[gid]
		ws := groups[gid]
		type wc struct {
			nw, cw int
			ov     float64
		}
		var wcs []wc
		for _, nw := range ws {
			for cw, sl := range cur.Workers {
				if sl.Node == node {
					if x := wov[[2]int{nw, cw}]; x > 0 {
						wcs = append(wcs, wc{nw, cw, x})
					}
				}
			}
		}
		sort.Slice(wcs, func(i, j int) bool {
			if wcs[i].ov != wcs[j].ov {
				return wcs[i].ov > wcs[j].ov
			}
			if wcs[i].nw != wcs[j].nw {
				return wcs[i].nw < wcs[j].nw
			}
			return wcs[i].cw < wcs[j].cw
		})
		usedPort := map[int]bool{}
		done := map[int]bool{}
		for _, x := range wcs {
			port := cur.Workers[x.cw].Port
			if !done[x.nw] && !usedPort[port] {
				out.Workers[x.nw] = Slot{Node: node, Port: port}
				done[x.nw], usedPort[port] = true, true
			}
		}
		nd, _ := c.Node(node)
		free := append([]int(nil), nd.Ports...)
		sort.Ints(free)
		fi := 0
		for _, nw := range ws {
			if done[nw] {
				continue
			}
			for usedPort[free[fi]] {
				fi++
			}
			out.Workers[nw] = Slot{Node: node, Port: free[fi]}
			usedPort[free[fi]] = true
		}
	}
	return out
}

// migrationPlan lists the workers of a that differ from cur (slot or
// executor set), lightest first, in batches with at most one restart per
// node, and the current slots a no longer uses.
func migrationPlan(g *topologies.Graph, cur, a *Assignment) ([]WorkerMove, [][]int, []Slot) {
	members := func(x *Assignment) map[Slot][]int {
		m := map[Slot][]int{}
		for v, w := range x.Executors {
			m[x.Workers[w]] = append(m[x.Workers[w]], v)
		}
		return m
	}
	newM := members(a)
	var curM map[Slot][]int
	if cur != nil {
		curM = members(cur)
	}
	var moves []WorkerMove
	for w, sl := range a.Workers {
		execs := newM[sl]
		if old, ok := curM[sl]; ok && slices.Equal(old, execs) {
			continue
		}
		cpu := 0.0
		for _, v := range execs {
			cpu += g.Vertices[v].Weight
		}
		moves = append(moves, WorkerMove{Worker: w, Slot: sl, CPU: cpu, Executors: len(execs)})
	}
	sort.SliceStable(moves, func(i, j int) bool {
		if moves[i].CPU != moves[j].CPU {
			return moves[i].CPU < moves[j].CPU
		}
		return moves[i].Slot.String() < moves[j].Slot.String()
	})
	var batches [][]int
	var inBatch map[string]bool
	for i, m := range moves {
		if len(batches) == 0 || inBatch[m.Slot.Node] {
			batches = append(batches, nil)
			inBatch = map[string]bool{}
		}
		batches[len(batches)-1] = append(batches[len(batches)-1], i)
		inBatch[m.Slot.Node] = true
	}
	var stop []Slot
	if cur != nil {
		for _, sl := range cur.Workers {
			if _, ok := newM[sl]; !ok {
				stop = append(stop, sl)
			}
		}
	}
	return moves, batches, stop
}

// ComponentParallelism is one component's line of the recommendation.
type ComponentParallelism struct {
	Component   string  `json:"component"`
	CPU         float64 `json:"cpu"`         // L(c): sum of its executors' CPU
	Current     int     `json:"current"`     // executors now
	Recommended int     `json:"recommended"` // >= 1
}

// ParallelismReport is the parallelism recommendation of sec. 3.3 part 2.
type ParallelismReport struct {
	Workers          int                    `json:"workers"`
	ThreadsPerWorker int                    `json:"threads_per_worker"` // chosen in [10, 15]
	Total            int                    `json:"total"`              // sum of Recommended
	Components       []ComponentParallelism `json:"components"`         // by name
}

// Parallelism recommends component parallelism (Jian, Lu and Zhang 2018,
// sec. 3.3 part 2): group executors by component and sum their CPU L(c);
// parallelism follows L(c_i):L(c_j) (for components joined by a stream the
// paper sets PARALL ratios to the load ratios; over a connected topology
// that is proportional to L); the sum is scaled to the recommended threads
// per worker (10..15, Nathan Marz's advice) times the number of workers.
// Choices: every component gets at least 1; rounding by largest remainder;
// among 10..15 threads per worker we pick the one whose rounded result is
// closest to the exact ratios (least max relative error; fewer threads on
// ties). Components with zero total CPU share equally. Storm applies
// parallelism only at submit or rebalance, so this is a report.
func Parallelism(g *topologies.Graph, workers int) (ParallelismReport, error) {
	if workers < 1 {
		return ParallelismReport{}, fmt.Errorf("parallelism: workers = %d, need at least 1", workers)
	}
	cpu := map[string]float64{}
	cur := map[string]int{}
	for _, v := range g.Vertices {
		cpu[v.Component] += v.Weight
		cur[v.Component]++
	}
	var names []string
	total := 0.0
	for c, x := range cpu {
		names = append(names, c)
		total += x
	}
	sort.Strings(names)
	share := make([]float64, len(names))
	for i, c := range names {
		if total > 0 {
			share[i] = cpu[c] / total
		} else {
			share[i] = 1 / float64(len(names))
		}
	}
	var best ParallelismReport
	bestErr := math.Inf(1)
	for t := 10; t <= 15; t++ {
		T := max(t*workers, len(names))
		rec := apportion(share, T)
		err := 0.0
		for i, x := range rec {
			if share[i] > 0 {
				err = math.Max(err, math.Abs(float64(x)/float64(T)-share[i])/share[i])
			}
		}
		if err < bestErr {
			bestErr = err
			best = ParallelismReport{Workers: workers, ThreadsPerWorker: t, Total: T}
			best.Components = best.Components[:0]
			for i, c := range names {
				best.Components = append(best.Components, ComponentParallelism{Component: c, CPU: cpu[c], Current: cur[c], Recommended: rec[i]})
			}
		}
	}
	return best, nil
}

// apportion splits total into integers >= 1 proportional to share
// (largest remainder; ties to the earlier entry). Needs total >= len(share).
func apportion(share []float64, total int) []int {
	out := make([]int, len(share))
	rest := total - len(share) // one each first
	type rem struct {
		i int
		r float64
	}
	var rems []rem
	given := 0
	for i, s := range share {
		x := s * float64(total)
		extra := max(0, int(math.Floor(x))-1)
		extra = min(extra, rest-given)
		out[i] = 1 + extra
		given += extra
		rems = append(rems, rem{i, x - float64(out[i])})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for j := 0; given < rest; j = (j + 1) % len(rems) {
		out[rems[j].i]++
		given++
	}
	return out
}
