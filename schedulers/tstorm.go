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

// TStorm is Xu, Chen, Tang and Su's T-Storm ("T-Storm: traffic-aware online
// scheduling in Storm", ICDCS 2014, sec. IV, the traffic-aware scheduling
// algorithm). What we keep:
//
//   - Executors are sorted by descending total traffic (incoming plus
//     outgoing tuple rate; the merged undirected edge weights).
//   - Each, in turn, goes to the worker with the most traffic to the
//     executors already placed there (the least incremental inter-worker
//     traffic), among workers not yet full; ties go to the less-loaded
//     worker (CPU, the vertex weights), then the lower worker number. An
//     executor with no placed neighbour in a worker with room goes to the
//     least-loaded worker with room.
//   - One worker per node for a topology (T-Storm's rule, which removes
//     inter-process traffic inside a node): Schedule uses
//     min(p.Workers, nodes with a slot) workers, each on its own node.
//   - Consolidation (T-Storm's control over how many nodes a topology
//     uses): with factor γ = Options.Consolidation >= 1 (0 means 1), only
//     ceil(k/γ) of the k workers are filled, each with at most
//     ceil(n / ceil(k/γ)) executors; the other parts stay empty and
//     Schedule drops them, so the topology runs on fewer nodes. γ = 1 fills
//     all k workers with at most ceil(n/k) executors each.
//   - Nodes are taken in order of CPU capacity (largest first, then more
//     slots, then id), the lowest port of each.
//
// Periodic re-scheduling (Reschedule, Dynamic): T-Storm's schedule
// generator runs periodically on the traffic its load monitors measured
// (the service's reschedule period; graph weights are the measured
// tuples/s) and the custom scheduler applies a new schedule only when it
// is worth a reassignment. Our trigger, the same as online's: the new
// placement's inter-node traffic must be lower than the current one's by
// at least Options.Improvement of it (0 means 10 %). Workers are relabelled
// to keep executors in place (keepInPlace). Not modelled: T-Storm's
// per-node CPU overload check. Deterministic; Options.Seed is unused.
type TStorm struct {
	Gamma       float64 // consolidation factor >= 1
	Improvement float64 // re-plan trigger in [0,1); 0 means 0.1
}

// NewTStorm builds T-Storm from Options.Consolidation.
func NewTStorm(o Options) (Scheduler, error) {
	g := o.Consolidation
	if g == 0 {
		g = 1
	}
	if g < 1 || math.IsNaN(g) || math.IsInf(g, 0) {
		return nil, fmt.Errorf("tstorm: consolidation = %v: use a finite factor >= 1 (1 fills every worker)", o.Consolidation)
	}
	if err := checkImprovement("tstorm", o.Improvement); err != nil {
		return nil, err
	}
	return &TStorm{Gamma: g, Improvement: o.Improvement}, nil
}

// Reschedule implements Dynamic.
func (s *TStorm) Reschedule(ctx context.Context, p *Problem) (*Assignment, bool, error) {
	a, d, err := s.Explain(ctx, p)
	if err != nil {
		return nil, false, err
	}
	return a, d.Apply, nil
}

// Explain implements Explainer.
func (s *TStorm) Explain(ctx context.Context, p *Problem) (*Assignment, *Decision, error) {
	return trafficReplan(ctx, p, "tstorm", improvementOrDefault(s.Improvement), s.Schedule)
}

var tstormInfo = Info{
	Name:        "tstorm",
	Description: "T-Storm: executors by descending traffic to the worker with most traffic to them, one worker per node, consolidation; periodic re-planning",
	Source:      `Xu, Chen, Tang and Su, "T-Storm: Traffic-Aware Online Scheduling in Storm", 2014`,
	New:         NewTStorm,
}

// Partition implements Partitioner.
func (s *TStorm) Partition(ctx context.Context, g *topologies.Graph, k int) ([]int, error) {
	n := g.N()
	if err := CheckK(k, n); err != nil {
		return nil, err
	}
	gamma := s.Gamma
	if gamma < 1 {
		gamma = 1
	}
	used := min(k, max(1, int(math.Ceil(float64(k)/gamma))))
	capacity := (n + used - 1) / used
	adj := g.Undirected()
	traffic := make([]float64, n)
	order := make([]int, n)
	for v := range order {
		order[v] = v
		_, ws := adj.Neighbors(v)
		for _, c := range ws {
			traffic[v] += c
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return traffic[order[a]] > traffic[order[b]] })
	part := make([]int, n)
	for v := range part {
		part[v] = -1
	}
	cnt := make([]int, used)
	load := make([]float64, used)
	acc := make([]float64, used)
	var touched []int
	for i, v := range order {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		touched = touched[:0]
		nbr, ws := adj.Neighbors(v)
		for j, x := range nbr {
			if q := part[x]; q >= 0 {
				if acc[q] == 0 {
					touched = append(touched, q)
				}
				acc[q] += ws[j]
			}
		}
		best := -1
		for _, q := range touched {
			if cnt[q] < capacity && acc[q] > 0 && (best < 0 || acc[q] > acc[best] ||
				(acc[q] == acc[best] && (load[q] < load[best] || (load[q] == load[best] && q < best)))) {
				best = q
			}
		}
		for _, q := range touched {
			acc[q] = 0
		}
		if best < 0 {
			for q := range cnt {
				if cnt[q] < capacity && (best < 0 || load[q] < load[best]) {
					best = q
				}
			}
		}
		part[v] = best
		cnt[best]++
		load[best] += g.Vertices[v].Weight
	}
	return part, nil
}

// Schedule implements Scheduler with T-Storm's one worker per node.
func (s *TStorm) Schedule(ctx context.Context, p *Problem) (*Assignment, error) {
	if err := p.checkGraph("tstorm"); err != nil {
		return nil, err
	}
	nodes := slotNodes(&p.Cluster) // CPU capacity first, then slots, then id
	if len(nodes) == 0 {
		return nil, errors.New("tstorm: the cluster has no worker slots: add supervisors with ports")
	}
	k := min(p.Workers, len(nodes), p.Graph.N())
	if err := CheckK(k, p.Graph.N()); err != nil {
		return nil, fmt.Errorf("tstorm: %w", err)
	}
	parts, err := s.Partition(ctx, p.Graph, k)
	if err != nil {
		return nil, err
	}
	// Drop empty workers (consolidation), numbering the rest in order.
	renum := make([]int, k)
	for i := range renum {
		renum[i] = -1
	}
	for _, q := range parts {
		renum[q] = 0
	}
	a := &Assignment{Executors: make([]int, len(parts))}
	for q := range renum {
		if renum[q] == 0 {
			renum[q] = len(a.Workers)
			nd := nodes[len(a.Workers)]
			a.Workers = append(a.Workers, Slot{Node: nd.ID, Port: slices.Min(nd.Ports)})
		}
	}
	for v, q := range parts {
		a.Executors[v] = renum[q]
	}
	return a, nil
}
