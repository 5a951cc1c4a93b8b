package schedulers

import (
	"context"
	"fmt"
	"sort"
)

// defaultImprovement is the re-plan trigger of online and tstorm when
// Options.Improvement is 0: a new placement must cut inter-node traffic by
// at least 10 % of the current.
const defaultImprovement = 0.1

// checkImprovement rejects a trigger outside [0,1) for scheduler name.
func checkImprovement(name string, x float64) error {
	if !(x >= 0 && x < 1) {
		return fmt.Errorf("%s: improvement = %v: need 0 <= improvement < 1 (0 means %v)", name, x, defaultImprovement)
	}
	return nil
}

func improvementOrDefault(x float64) float64 {
	if x <= 0 {
		return defaultImprovement
	}
	return x
}

// trafficReplan is the dynamic step shared by the traffic-based online
// schedulers (online, tstorm): place the topology afresh on the measured
// traffic (the graph weights) with schedule, keep as many executors in
// place as the new partition allows (relabel), and apply the new placement
// only when its inter-node traffic is lower than the current one's by at
// least the fraction imp of the current. Without a measured load the
// placement is kept and the decision says the traffic was not measured.
func trafficReplan(ctx context.Context, p *Problem, name string, imp float64,
	schedule func(context.Context, *Problem) (*Assignment, error)) (*Assignment, *Decision, error) {
	if p.Current == nil {
		a, err := schedule(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return a, &Decision{Apply: true, Reason: "first placement", Trigger: "first placement"}, nil
	}
	if err := p.checkGraph(name); err != nil {
		return nil, nil, err
	}
	if err := p.Current.Validate(p.Graph, &p.Cluster); err != nil {
		return nil, nil, fmt.Errorf("%s: current assignment: %w", name, err)
	}
	trigger := fmt.Sprintf("inter-node traffic lower by >= %.0f%%", 100*imp)
	if p.Load == nil || len(p.Load.Tasks) == 0 {
		return p.Current, &Decision{Reason: "no traffic measured yet: placement kept", Trigger: trigger, NotMeasured: []string{"traffic"}}, nil
	}
	a, err := schedule(ctx, &Problem{Topology: p.Topology, Graph: p.Graph, Cluster: p.Cluster, Workers: p.Workers})
	if err != nil {
		return nil, nil, err
	}
	a = keepInPlace(p.Current, a)
	cur := EstimateAssignment(p.Graph, &p.Cluster, p.Current)
	nw := EstimateAssignment(p.Graph, &p.Cluster, a)
	d := &Decision{Trigger: trigger, Current: &cur, New: &nw}
	switch {
	case cur.InterNodeRate == 0:
		d.Reason = "no inter-node traffic now: nothing to gain"
	case nw.InterNodeRate <= cur.InterNodeRate*(1-imp):
		d.Apply = true
		d.Reason = fmt.Sprintf("inter-node traffic %.3g -> %.3g of the total (%.0f%% lower)", cur.InterNodeRate, nw.InterNodeRate, 100*(1-nw.InterNodeRate/cur.InterNodeRate))
	default:
		d.Reason = fmt.Sprintf("inter-node traffic %.3g -> %.3g of the total: less than %.0f%% lower", cur.InterNodeRate, nw.InterNodeRate, 100*imp)
	}
	if !d.Apply {
		return p.Current, d, nil
	}
	d.Moved = movedExecutors(p.Current, a)
	return a, d, nil
}

// keepInPlace relabels the workers of a so that as many executors as
// possible keep their current slot: new workers are matched to current
// workers by the number of executors they share (greedy, largest overlap
// first, then lower indices) and take the current worker's slot when no
// other new worker holds it. Only done when both assignments have one
// worker per node, so the relabelling cannot change which executors share
// a node (the inter-node traffic); otherwise a is returned as it is.
func keepInPlace(cur, a *Assignment) *Assignment {
	if !oneWorkerPerNode(cur) || !oneWorkerPerNode(a) {
		return a
	}
	type pair struct{ nw, cw, n int }
	ov := map[[2]int]int{}
	for v := range a.Executors {
		ov[[2]int{a.Executors[v], cur.Executors[v]}]++
	}
	var pairs []pair
	for k, n := range ov {
		pairs = append(pairs, pair{k[0], k[1], n})
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].n != pairs[j].n {
			return pairs[i].n > pairs[j].n
		}
		if pairs[i].nw != pairs[j].nw {
			return pairs[i].nw < pairs[j].nw
		}
		return pairs[i].cw < pairs[j].cw
	})
	slot := make([]Slot, len(a.Workers))
	done := make([]bool, len(a.Workers))
	taken := map[Slot]bool{}
	for _, pr := range pairs {
		s := cur.Workers[pr.cw]
		if done[pr.nw] || taken[s] {
			continue
		}
		slot[pr.nw], done[pr.nw], taken[s] = s, true, true
	}
	// Unmatched new workers keep their own slot unless a matched one took
	// it or its node; then the first free slot of a's that is left.
	usedNode := map[string]bool{}
	for i := range slot {
		if done[i] {
			usedNode[slot[i].Node] = true
		}
	}
	for i, s := range a.Workers {
		if done[i] {
			continue
		}
		if !taken[s] && !usedNode[s.Node] {
			slot[i], done[i], taken[s], usedNode[s.Node] = s, true, true, true
			continue
		}
		for _, s2 := range a.Workers {
			if !taken[s2] && !usedNode[s2.Node] {
				slot[i], done[i], taken[s2], usedNode[s2.Node] = s2, true, true, true
				break
			}
		}
		if !done[i] {
			return a // no free node: keep a's own labels
		}
	}
	return &Assignment{Workers: slot, Executors: append([]int(nil), a.Executors...)}
}

func oneWorkerPerNode(a *Assignment) bool {
	seen := map[string]bool{}
	for _, s := range a.Workers {
		if seen[s.Node] {
			return false
		}
		seen[s.Node] = true
	}
	return true
}
