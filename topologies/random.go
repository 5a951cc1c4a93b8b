package topologies

import (
	"fmt"
	"math/rand/v2"
)

// Size limits of the generators (RandomGraph, RandomSPD): 10^7 vertices and
// 5*10^7 edges are a few GB, far above the 10^5 executors of the
// benchmarks, so only mistyped sizes hit them.
const (
	MaxRandomVertices = 10_000_000
	MaxRandomEdges    = 50_000_000
)

// RandomGraph is the generator of Jian, Lu and Zhang, "Storm heuristic
// balanced graph-partition scheduling optimization method", 2018, sec. 3.2: n vertices, m distinct directed edges between distinct vertices
// (no self loops, at most one edge per unordered pair so the graph stays
// simple), vertex and edge weights uniform integers in [1, 100]. The same
// seed gives the same graph.
//
// The paper does not say whether the graph is connected; we do not force it.
// Sizes above MaxRandomVertices and MaxRandomEdges are errors: they would
// exhaust memory instead of failing with a message.
func RandomGraph(n, m int, seed uint64) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("random graph needs at least 1 vertex, got %d", n)
	}
	if n > MaxRandomVertices {
		return nil, fmt.Errorf("random graph with %d vertices is too large: use at most %d", n, MaxRandomVertices)
	}
	maxEdges, why := n*(n-1)/2, "simple graph"
	if maxEdges > MaxRandomEdges {
		maxEdges, why = MaxRandomEdges, "the generator's limit"
	}
	if m < 0 || m > maxEdges {
		return nil, fmt.Errorf("random graph with %d vertices holds 0..%d edges (%s), got %d", n, maxEdges, why, m)
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	g := &Graph{Vertices: make([]Vertex, n), Edges: make([]Edge, 0, m)}
	for i := range g.Vertices {
		g.Vertices[i] = Vertex{ID: i, Weight: float64(1 + r.IntN(100))}
	}
	type pair struct{ a, b int }
	used := make(map[pair]bool, m)
	for len(g.Edges) < m {
		a, b := r.IntN(n), r.IntN(n)
		if a == b {
			continue
		}
		p := pair{min(a, b), max(a, b)}
		if used[p] {
			continue
		}
		used[p] = true
		g.Edges = append(g.Edges, Edge{From: a, To: b, Weight: float64(1 + r.IntN(100))})
	}
	return g, nil
}
