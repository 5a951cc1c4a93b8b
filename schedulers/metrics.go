package schedulers

import (
	"math"

	"github.com/stormlab/stormlab/topologies"
)

// PartitionMetrics are the quality measures of Jian, Lu and Zhang, "Storm
// heuristic balanced graph-partition scheduling optimization method", 2018,
// sec. 3.2 (eqs. 7-8), for a k-way partition.
type PartitionMetrics struct {
	CutRate float64 `json:"cut_rate"` // eq. 7: cut edge weight / total edge weight (0 if no edges)
	Std     float64 `json:"std"`      // population std dev of the k part weights
	MaxDev  float64 `json:"max_dev"`  // eq. 8: max |w(V_i) - w_e| / w_e, w_e = total/k
	MaxOver float64 `json:"max_over"` // largest part weight / w_e
}

// PartWeights sums vertex weights per part.
func PartWeights(g *topologies.Graph, parts []int, k int) []float64 {
	w := make([]float64, k)
	for v, p := range parts {
		w[p] += g.Vertices[v].Weight
	}
	return w
}

// CutWeight is the weight of edges whose endpoints are in different parts.
func CutWeight(g *topologies.Graph, parts []int) float64 {
	idx := g.Index()
	cut := 0.0
	for _, e := range g.Edges {
		if parts[idx[e.From]] != parts[idx[e.To]] {
			cut += e.Weight
		}
	}
	return cut
}

// Measure computes PartitionMetrics. The standard deviation is the
// population one over all k parts (empty parts count as weight 0), which is
// how the paper compares subsets.
func Measure(g *topologies.Graph, parts []int, k int) PartitionMetrics {
	var m PartitionMetrics
	if tw := g.TotalEdgeWeight(); tw > 0 {
		m.CutRate = CutWeight(g, parts) / tw
	}
	w := PartWeights(g, parts, k)
	we := g.TotalVertexWeight() / float64(k)
	ss := 0.0
	for _, x := range w {
		ss += (x - we) * (x - we)
		if we > 0 {
			m.MaxDev = math.Max(m.MaxDev, math.Abs(x-we)/we)
			m.MaxOver = math.Max(m.MaxOver, x/we)
		}
	}
	m.Std = math.Sqrt(ss / float64(k))
	return m
}
