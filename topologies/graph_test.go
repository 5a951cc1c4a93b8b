package topologies

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestRandomGraphProperties: the K-PART generator gives n vertices with ids
// 0..n-1, m distinct edges between distinct vertices (at most one per
// unordered pair), integer weights in 1..100, and the same graph for the
// same seed.
func TestRandomGraphProperties(t *testing.T) {
	for _, c := range []struct{ n, m int }{{1, 0}, {2, 1}, {5, 10}, {24, 36}, {200, 1000}} {
		g, err := RandomGraph(c.n, c.m, 7)
		if err != nil {
			t.Fatalf("G(%d,%d): %v", c.n, c.m, err)
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("G(%d,%d): %v", c.n, c.m, err)
		}
		if g.N() != c.n || len(g.Edges) != c.m {
			t.Fatalf("G(%d,%d): %d vertices, %d edges", c.n, c.m, g.N(), len(g.Edges))
		}
		inRange := func(w float64) bool { return w >= 1 && w <= 100 && w == float64(int(w)) }
		for i, v := range g.Vertices {
			if v.ID != i || !inRange(v.Weight) {
				t.Fatalf("G(%d,%d): vertex %d = %+v", c.n, c.m, i, v)
			}
		}
		pairs := map[[2]int]bool{}
		for _, e := range g.Edges {
			p := [2]int{min(e.From, e.To), max(e.From, e.To)}
			if e.From == e.To || pairs[p] || !inRange(e.Weight) {
				t.Fatalf("G(%d,%d): edge %+v is a self loop, a repeated pair or has a weight outside 1..100", c.n, c.m, e)
			}
			pairs[p] = true
		}
		again, _ := RandomGraph(c.n, c.m, 7)
		if !reflect.DeepEqual(g, again) {
			t.Fatalf("G(%d,%d): same seed, different graphs", c.n, c.m)
		}
	}
}

// TestRandomGraphBadSizes: sizes that cannot be built are errors naming the
// valid range, including ones that would exhaust memory.
func TestRandomGraphBadSizes(t *testing.T) {
	for _, c := range []struct {
		n, m int
		want string
	}{
		{0, 0, "at least 1 vertex"},
		{-1, 0, "at least 1 vertex"},
		{5, 11, "holds 0..10 edges"},
		{5, -1, "holds 0..10 edges"},
		{MaxRandomVertices + 1, 1, "too large"},
		{100_000, MaxRandomEdges + 1, "holds 0..50000000 edges (the generator's limit)"},
	} {
		if _, err := RandomGraph(c.n, c.m, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RandomGraph(%d, %d): error %v, want one containing %q", c.n, c.m, err, c.want)
		}
	}
	if _, err := RandomSPD(MaxRandomVertices+1, 1, SPDOptions{}); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("RandomSPD above the limit: error %v", err)
	}
}

// TestReadGraphRejects: inputs whose every value is valid on its own but
// which no metric can use, or which hold more than one graph.
func TestReadGraphRejects(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"vertex weights overflow", `{"vertices":[{"id":0,"weight":1e308},{"id":1,"weight":1e308}],"edges":[]}`, "vertex weights sum to more than"},
		{"edge weights overflow", `{"vertices":[{"id":0,"weight":1},{"id":1,"weight":1}],"edges":[{"from":0,"to":1,"weight":1e308},{"from":1,"to":0,"weight":1e308}]}`, "edge weights sum to more than"},
		{"trailing object", `{"vertices":[{"id":0,"weight":1}],"edges":[]} {"vertices":[]}`, "trailing data"},
		{"trailing garbage", `{"vertices":[{"id":0,"weight":1}],"edges":[]} x`, "trailing data"},
		{"vertex without weight", `{"vertices":[{"id":0,"weight":1},{"id":7}],"edges":[]}`, `vertex 7 (index 1) has no "weight": give every vertex its CPU weight`},
		{"edge without weight", `{"vertices":[{"id":0,"weight":1},{"id":1,"weight":1}],"edges":[{"from":0,"to":1}]}`, `edge 0 (0->1) has no "weight"`},
		// Without the check these decode as id 0 and fail later as "duplicate vertex id 0", or as an edge from vertex 0.
		{"vertices without id", `{"vertices":[{"weight":1},{"weight":2}],"edges":[]}`, `vertex at index 0 has no "id": give every vertex a unique integer id`},
		{"second vertex without id", `{"vertices":[{"id":0,"weight":1},{"weight":2}],"edges":[]}`, `vertex at index 1 has no "id"`},
		{"edge without from", `{"vertices":[{"id":0,"weight":1},{"id":1,"weight":1}],"edges":[{"to":1,"weight":1}]}`, `edge 0 has no "from"`},
		{"edge without to", `{"vertices":[{"id":0,"weight":1},{"id":1,"weight":1}],"edges":[{"from":1,"weight":1}]}`, `edge 0 has no "to"`},
	} {
		if _, err := ReadGraph(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := ReadSPD(strings.NewReader(`{"vertices":[{"id":0,"weight":1}],"edges":[]} []`)); err == nil || !strings.Contains(err.Error(), "trailing data") {
		t.Errorf("SPD file with trailing data: error %v", err)
	}
	// WriteGraph's own output (one object and a newline) reads back.
	g, _ := RandomGraph(6, 5, 2)
	var buf bytes.Buffer
	if err := WriteGraph(&buf, g); err != nil {
		t.Fatal(err)
	}
	back, err := ReadGraph(&buf)
	if err != nil || !reflect.DeepEqual(back, g) {
		t.Fatalf("round trip: %v", err)
	}
}

// Hand-checked merge: ids not 0..n-1 (10, 20, 30), a parallel edge 10->20
// (5 + 2), an opposite edge 20->10 (+1) and a self loop on 30 (dropped).
// Expected: 10 -- 20 weight 8, 20 -- 30 weight 4; neighbour order follows
// the first edge that touches each pair.
func TestUndirectedMergesEdges(t *testing.T) {
	g := &Graph{
		Vertices: []Vertex{{ID: 10}, {ID: 20}, {ID: 30}},
		Edges:    []Edge{{From: 10, To: 20, Weight: 5}, {From: 20, To: 30, Weight: 4}, {From: 10, To: 20, Weight: 2}, {From: 20, To: 10, Weight: 1}, {From: 30, To: 30, Weight: 9}},
	}
	a := g.Undirected()
	want := []struct {
		nbr []int
		w   []float64
	}{{[]int{1}, []float64{8}}, {[]int{0, 2}, []float64{8, 4}}, {[]int{1}, []float64{4}}}
	for v, wv := range want {
		nbr, w := a.Neighbors(v)
		if !slices.Equal(nbr, wv.nbr) || !slices.Equal(w, wv.w) {
			t.Errorf("vertex %d: neighbours %v weights %v, want %v %v", v, nbr, w, wv.nbr, wv.w)
		}
	}
}

func BenchmarkUndirectedDense(b *testing.B) {
	g, err := ThroughputChain(250).Graph() // 1000 executors, 187,500 edges
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		g.Undirected()
	}
}
