package schedulers

import (
	"context"
	"fmt"
	"math"

	"github.com/stormlab/stormlab/topologies"
)

// MPart is M-PART, the METIS-based P-Scheduler of Eskandari, Huang and Eyers
// ("P-Scheduler: adaptive hierarchical scheduling in Apache Storm", ACSW
// 2016), as the K-PART paper (Jian, Lu and Zhang 2018, sec. 1 ref. [6],
// sec. 3.2 "M-PART") re-implements it for the partition experiments: one
// multilevel k-way partition of the executor graph by METIS, edge weights
// = tuple rates, vertices unweighted ("圖分時沒有考慮頂點權重", sec. 1).
//
// It calls the real METIS 5.1 (METIS_PartGraphKway, Debian's libmetis via
// cgo) on the merged undirected graph (g.Undirected()) with METIS's default
// options except METIS_OPTION_SEED = Options.Seed mod 2^31 and 0-based
// numbering; the imbalance tolerance is METIS's default (1.03 for k-way).
//
// Choices:
//   - METIS needs integer weights. Edge weights w are passed as
//     round(w·s), at least 1 for a nonzero edge (0 stays 0). The scale is
//     s = 1 when every weight is an integer and 2·Σw <= 2^29 (the random
//     graphs' weights 1..100 go through unchanged); otherwise
//     s = 2^29 / (2·Σw), which keeps every METIS sum inside its 32-bit
//     idx_t while giving about nine significant digits to the largest
//     weights. Vertex weights (Options.WeightVertices) are scaled the same
//     way on their own sum; when they sum to 0 METIS gets none.
//   - k = 1 returns all zeros without calling METIS. A graph without edges
//     is passed to METIS as it is.
//   - P-Scheduler's second level (workers onto nodes, also by METIS) is not
//     modelled: Schedule spreads the workers with SpreadSlots.
//   - METIS return codes other than METIS_OK become errors.
type MPart struct {
	Seed           uint64
	WeightVertices bool
}

// NewMPart builds M-PART from Options.Seed and Options.WeightVertices.
func NewMPart(o Options) (Scheduler, error) {
	return &MPart{Seed: o.Seed, WeightVertices: o.WeightVertices}, nil
}

var mpartInfo = Info{
	Name:        "mpart",
	Description: "M-PART: METIS 5.1 k-way partition of the executor graph (unweighted vertices by default)",
	Source:      `Eskandari, Huang and Eyers, "P-Scheduler: adaptive hierarchical scheduling in Apache Storm", 2016; as M-PART in Jian, Lu and Zhang, "Storm heuristic balanced graph-partition scheduling optimization method", 2018, sec. 3.2`,
	New:         NewMPart,
}

// Schedule implements Scheduler (partition, then SpreadSlots).
func (s *MPart) Schedule(ctx context.Context, p *Problem) (*Assignment, error) {
	return PartitionScheduler{s}.Schedule(ctx, p)
}

// metisBudget bounds the sum of scaled weights so METIS's 32-bit sums hold.
const metisBudget = 1 << 29

// metisScale returns the factor for METIS integer weights of the given
// values (see MPart).
func metisScale(ws []float64) float64 {
	sum, integral := 0.0, true
	for _, w := range ws {
		sum += w
		if w != math.Trunc(w) {
			integral = false
		}
	}
	if sum == 0 || (integral && sum <= metisBudget) {
		return 1
	}
	return metisBudget / sum
}

func metisInt(w, s float64) int32 {
	if w <= 0 {
		return 0
	}
	return int32(max(1, math.Round(w*s)))
}

// metisGraph is the CSR input of METIS with integer weights.
type metisGraph struct {
	xadj, adjncy, adjwgt, vwgt []int32
}

func newMetisGraph(g *topologies.Graph, weightVertices bool) *metisGraph {
	adj := g.Undirected()
	m := &metisGraph{xadj: make([]int32, len(adj.Start)), adjncy: make([]int32, len(adj.Nbr)), adjwgt: make([]int32, len(adj.Weight))}
	for i, x := range adj.Start {
		m.xadj[i] = int32(x)
	}
	for i, x := range adj.Nbr {
		m.adjncy[i] = int32(x)
	}
	s := metisScale(adj.Weight) // each edge appears twice: 2·Σw, as documented
	for i, w := range adj.Weight {
		m.adjwgt[i] = metisInt(w, s)
	}
	if weightVertices && g.TotalVertexWeight() > 0 {
		vw := make([]float64, g.N())
		for i, v := range g.Vertices {
			vw[i] = v.Weight
		}
		s := metisScale(vw)
		m.vwgt = make([]int32, g.N())
		for i, w := range vw {
			m.vwgt[i] = metisInt(w, s)
		}
	}
	return m
}

// Partition implements Partitioner.
func (s *MPart) Partition(ctx context.Context, g *topologies.Graph, k int) ([]int, error) {
	if err := CheckK(k, g.N()); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if k == 1 {
		return make([]int, g.N()), nil
	}
	mg := newMetisGraph(g, s.WeightVertices)
	part, err := metisPartKway(mg, k, int32(s.Seed%(1<<31)))
	if err != nil {
		return nil, fmt.Errorf("mpart: %w", err)
	}
	for v, p := range part {
		if p < 0 || p >= k {
			return nil, fmt.Errorf("mpart: METIS put vertex %d in part %d of %d", v, p, k)
		}
	}
	return part, nil
}
