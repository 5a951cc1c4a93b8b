package schedulers

import (
	"context"
	"fmt"
	"sort"

	"github.com/stormlab/stormlab/topologies"
)

// Online is T-PART, the partition step of Aniello, Baldoni and Querzoni's
// traffic-based online scheduler ("Adaptive online scheduling in Storm",
// DEBS 2013, sec. 4.3, first phase: executors to worker slots), which the
// K-PART paper (Jian, Lu and Zhang, "Storm heuristic balanced graph-partition
// scheduling optimization method", 2018, sec. 3.2) re-implements as T-PART.
// We follow the authors' code (storm-adaptive-schedulers,
// OnlineScheduler.computeBestScheduling, first phase), which the paper
// describes:
//
//  1. The pairs of communicating executors (directed edges a->b, a != b,
//     weight > 0) are taken in descending order of traffic.
//  2. Neither executor placed: both go to the least-loaded slot that can
//     take two more; if none can, the source goes to the least-loaded slot
//     that can take one, the destination joins it if it still has room,
//     else goes to the least-loaded slot that can take one.
//  3. Otherwise the candidate slots are those holding either executor plus
//     the least-loaded slot that can take one more (chosen before the pair
//     is lifted out); both executors are lifted out and every combination
//     (slot for the source) x (slot for the destination) that fits is
//     tried; the one with the lowest inter-slot traffic wins (the first
//     found on ties, in slot order).
//  4. Executors without traffic are left over (the authors hand them to
//     Storm's EvenScheduler); here each goes, in vertex order, to the
//     least-loaded slot with room.
//  5. Every still-empty slot receives, from the slots holding more than one
//     executor, the executor whose move raises inter-slot traffic least.
//
// Capacity: a slot takes at most ceil(n/k) executors (the code's
// maxExecutorsPerSlot with its default alfa = 0). "Load" is the executors'
// CPU (vertex weight), as the code's slot load; least-loaded ties go to the
// lower slot number. Inter-slot traffic counts both directions of a pair
// (the merged undirected edge weight). The code's optional per-slot CPU cap
// (gamma) is off by default there and not modelled. The second phase
// (slots onto nodes) is not modelled: Schedule spreads the workers with
// SpreadSlots. The algorithm is deterministic; Options.Seed is unused.
//
// Online re-planning (Reschedule, Dynamic): the online scheduler runs
// periodically on the traffic measured since its last run (the service's
// reschedule period plays the paper's period; the graph weights are the
// measured tuples/s). Each run computes the partition above afresh and,
// as Aniello et al. do to avoid costly reassignments that gain little,
// applies it only when it lowers the inter-node traffic by at least a
// threshold: Options.Improvement of the current inter-node traffic (0
// means 10 %; the paper leaves the value to the deployment). The new
// workers are relabelled to keep executors on their current slots where
// the partition allows (see keepInPlace), so only the executors that must
// move are restarted. Before traffic is measured the placement is kept.
type Online struct {
	Improvement float64 // re-plan trigger in [0,1); 0 means 0.1
}

// NewOnline builds T-PART from Options.Improvement.
func NewOnline(o Options) (Scheduler, error) {
	if err := checkImprovement("online", o.Improvement); err != nil {
		return nil, err
	}
	return Online{Improvement: o.Improvement}, nil
}

var onlineInfo = Info{
	Name:        "online",
	Description: "T-PART: Aniello et al.'s traffic-based online scheduler; re-plans from measured traffic when inter-node traffic drops enough",
	Source:      `Aniello, Baldoni and Querzoni, "Adaptive Online Scheduling in Storm", 2013; as T-PART in Jian, Lu and Zhang, "Storm heuristic balanced graph-partition scheduling optimization method", 2018, sec. 3.2`,
	New:         NewOnline,
}

// Reschedule implements Dynamic.
func (s Online) Reschedule(ctx context.Context, p *Problem) (*Assignment, bool, error) {
	a, d, err := s.Explain(ctx, p)
	if err != nil {
		return nil, false, err
	}
	return a, d.Apply, nil
}

// Explain implements Explainer.
func (s Online) Explain(ctx context.Context, p *Problem) (*Assignment, *Decision, error) {
	return trafficReplan(ctx, p, "online", improvementOrDefault(s.Improvement), s.Schedule)
}

// Schedule implements Scheduler (partition, then SpreadSlots).
func (s Online) Schedule(ctx context.Context, p *Problem) (*Assignment, error) {
	return PartitionScheduler{s}.Schedule(ctx, p)
}

type onlineState struct {
	adj  *topologies.Adjacency
	w    []float64
	slot []int
	cnt  []int
	load []float64
	cap  int
}

func (o *onlineState) assign(v, s int) {
	o.slot[v] = s
	o.cnt[s]++
	o.load[s] += o.w[v]
}

func (o *onlineState) lift(v int) {
	if s := o.slot[v]; s >= 0 {
		o.cnt[s]--
		o.load[s] -= o.w[v]
		o.slot[v] = -1
	}
}

// leastLoaded returns the least-loaded slot with room for need more
// executors, or -1.
func (o *onlineState) leastLoaded(need int) int {
	best := -1
	for s := range o.cnt {
		if o.cap-o.cnt[s] >= need && (best < 0 || o.load[s] < o.load[best]) {
			best = s
		}
	}
	return best
}

// cutTo returns, for each candidate slot, the traffic from v to placed
// neighbours outside it (ignoring other), and the merged weight v-other.
func (o *onlineState) cutTo(v, other int, cands []int) (cut []float64, wOther float64) {
	cut = make([]float64, len(cands))
	nbr, ws := o.adj.Neighbors(v)
	for j, x := range nbr {
		if x == other {
			wOther = ws[j]
			continue
		}
		if o.slot[x] < 0 {
			continue
		}
		for c, s := range cands {
			if o.slot[x] != s {
				cut[c] += ws[j]
			}
		}
	}
	return cut, wOther
}

// Partition implements Partitioner.
func (Online) Partition(ctx context.Context, g *topologies.Graph, k int) ([]int, error) {
	n := g.N()
	if err := CheckK(k, n); err != nil {
		return nil, err
	}
	o := &onlineState{adj: g.Undirected(), w: make([]float64, n), slot: make([]int, n),
		cnt: make([]int, k), load: make([]float64, k), cap: (n + k - 1) / k}
	for i, v := range g.Vertices {
		o.w[i] = v.Weight
		o.slot[i] = -1
	}
	idx := g.Index()
	type pair struct {
		s, d int
		w    float64
	}
	pairs := make([]pair, 0, len(g.Edges))
	for _, e := range g.Edges {
		if a, b := idx[e.From], idx[e.To]; a != b && e.Weight > 0 {
			pairs = append(pairs, pair{a, b, e.Weight})
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].w > pairs[j].w })

	for i, p := range pairs {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if o.slot[p.s] < 0 && o.slot[p.d] < 0 {
			if ll := o.leastLoaded(2); ll >= 0 {
				o.assign(p.s, ll)
				o.assign(p.d, ll)
				continue
			}
			ll := o.leastLoaded(1) // exists: k*cap >= n and not all placed
			o.assign(p.s, ll)
			if o.cnt[ll] >= o.cap {
				ll = o.leastLoaded(1)
			}
			if ll < 0 {
				return nil, fmt.Errorf("online: no slot can take executor %d (capacity %d x %d slots)", g.Vertices[p.d].ID, o.cap, k)
			}
			o.assign(p.d, ll)
			continue
		}
		var cands []int
		for s := 0; s < k; s++ { // slot order, as the code scans its slot list
			if o.slot[p.s] == s || o.slot[p.d] == s {
				cands = append(cands, s)
			}
		}
		if ll := o.leastLoaded(1); ll >= 0 && o.slot[p.s] != ll && o.slot[p.d] != ll {
			cands = append(cands, ll)
		}
		o.lift(p.s)
		o.lift(p.d)
		cutS, wsd := o.cutTo(p.s, p.d, cands)
		cutD, _ := o.cutTo(p.d, p.s, cands)
		bestA, bestB, bestCost := -1, -1, 0.0
		for a, sa := range cands {
			for b, sb := range cands {
				need := 1
				if sa == sb {
					need = 2
				}
				if o.cap-o.cnt[sa] < 1 || o.cap-o.cnt[sb] < need {
					continue
				}
				cost := cutS[a] + cutD[b]
				if sa != sb {
					cost += wsd
				}
				if bestA < 0 || cost < bestCost {
					bestA, bestB, bestCost = a, b, cost
				}
			}
		}
		if bestA < 0 {
			return nil, fmt.Errorf("online: no slot pair can take executors %d and %d", g.Vertices[p.s].ID, g.Vertices[p.d].ID)
		}
		o.assign(p.s, cands[bestA])
		o.assign(p.d, cands[bestB])
	}
	for v := range o.slot { // executors without traffic
		if o.slot[v] < 0 {
			o.assign(v, o.leastLoaded(1))
		}
	}
	o.fillEmpty()
	return o.slot, nil
}

// fillEmpty moves into each empty slot the executor, from a slot holding
// more than one, whose move raises inter-slot traffic least: its traffic
// to its own slot (the empty slot has no traffic yet).
func (o *onlineState) fillEmpty() {
	var used []int
	for s, c := range o.cnt {
		if c > 0 {
			used = append(used, s)
		}
	}
	members := make([][]int, len(o.cnt))
	for v, s := range o.slot {
		members[s] = append(members[s], v)
	}
	for empty, c := range o.cnt {
		if c > 0 {
			continue
		}
		best, bestCost := -1, 0.0
		for _, s := range used {
			if o.cnt[s] <= 1 {
				continue
			}
			for _, v := range members[s] {
				if o.slot[v] != s {
					continue // moved to an earlier empty slot
				}
				own := 0.0
				nbr, ws := o.adj.Neighbors(v)
				for j, x := range nbr {
					if o.slot[x] == s {
						own += ws[j]
					}
				}
				if best < 0 || own < bestCost {
					best, bestCost = v, own
				}
			}
		}
		if best < 0 {
			return
		}
		o.lift(best)
		o.assign(best, empty)
	}
}
