package topologies

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func treeString(z *SPDNode) string {
	b, _ := json.Marshal(z)
	return string(b)
}

func TestTreeEdges(t *testing.T) {
	// Diamond s(0, p(1,2), 3): edges 0->1, 0->2, 1->3, 2->3 (hand-derived from
	// the serial-composition rule: every sink of G1 to every source of G2).
	z := Ser(Leaf(0), Par(Leaf(1), Leaf(2)), Leaf(3))
	got := z.TreeEdges()
	want := []Edge{{From: 0, To: 1}, {From: 0, To: 2}, {From: 1, To: 3}, {From: 2, To: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("edges = %v, want %v", got, want)
	}
	// K_{2,2}: s(p(0,1), p(2,3)) has the 4 edges of the complete bipartite graph.
	if n := len(Ser(Par(Leaf(0), Leaf(1)), Par(Leaf(2), Leaf(3))).TreeEdges()); n != 4 {
		t.Fatalf("K22 has %d edges, want 4", n)
	}
}

func TestDecomposeSPD(t *testing.T) {
	cases := []struct {
		name string
		tree *SPDNode
	}{
		{"chain", Ser(Leaf(0), Leaf(1), Leaf(2))},
		{"diamond", Ser(Leaf(0), Par(Leaf(1), Leaf(2)), Leaf(3))},
		{"k22", Ser(Par(Leaf(0), Leaf(1)), Par(Leaf(2), Leaf(3)))},
		{"nested", Par(Ser(Leaf(0), Par(Leaf(1), Ser(Leaf(2), Leaf(3))), Leaf(4)), Leaf(5))},
	}
	for _, c := range cases {
		g := &Graph{}
		for _, id := range c.tree.Leaves() {
			g.Vertices = append(g.Vertices, Vertex{ID: id, Weight: 1})
		}
		g.Edges = c.tree.TreeEdges()
		got, err := DecomposeSPD(g)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// The decomposition must define the same graph (the tree itself may
		// order parallel children differently).
		s := &SPD{Graph: g, Tree: got}
		if err := s.Validate(); err != nil {
			t.Fatalf("%s: decomposed tree %s does not match: %v", c.name, treeString(got), err)
		}
		if got.Op != c.tree.Op || len(got.Children) != len(c.tree.Children) {
			t.Errorf("%s: root %s, want %s", c.name, treeString(got), treeString(c.tree))
		}
	}
}

func TestDecomposeRejectsNonSPD(t *testing.T) {
	// The paper's example of a series-parallel but not SPD graph:
	// 0->1, 1->2, 0->2.
	g := &Graph{Vertices: []Vertex{{ID: 0}, {ID: 1}, {ID: 2}},
		Edges: []Edge{{From: 0, To: 1}, {From: 1, To: 2}, {From: 0, To: 2}}}
	if _, err := DecomposeSPD(g); err == nil || !strings.Contains(err.Error(), "not series-parallel") {
		t.Fatalf("err = %v, want a not-SPD error", err)
	}
	// The N graph 0->2, 1->2, 1->3 is the forbidden pattern of SP orders.
	g = &Graph{Vertices: []Vertex{{ID: 0}, {ID: 1}, {ID: 2}, {ID: 3}},
		Edges: []Edge{{From: 0, To: 2}, {From: 1, To: 2}, {From: 1, To: 3}}}
	if _, err := DecomposeSPD(g); err == nil {
		t.Fatal("N graph accepted as SPD")
	}
	g = &Graph{Vertices: []Vertex{{ID: 0}, {ID: 1}}, Edges: []Edge{{From: 0, To: 1}, {From: 1, To: 0}}}
	if _, err := DecomposeSPD(g); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("err = %v, want a cycle error", err)
	}
}

// Property: random SPD graphs are valid, deterministic per seed, and
// DecomposeSPD recovers a tree defining the same edges.
func TestRandomSPDProperties(t *testing.T) {
	for _, n := range []int{1, 2, 5, 17, 100, 1000} {
		for seed := uint64(1); seed <= 3; seed++ {
			s, err := RandomSPD(n, seed, SPDOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("n=%d seed=%d: %v", n, seed, err)
			}
			if s.Graph.N() != n {
				t.Fatalf("n=%d: got %d vertices", n, s.Graph.N())
			}
			s2, _ := RandomSPD(n, seed, SPDOptions{})
			if !reflect.DeepEqual(s, s2) {
				t.Fatalf("n=%d seed=%d: not deterministic", n, seed)
			}
			tree, err := DecomposeSPD(s.Graph)
			if err != nil {
				t.Fatalf("n=%d seed=%d: decompose: %v", n, seed, err)
			}
			if err := (&SPD{Graph: s.Graph, Tree: tree}).Validate(); err != nil {
				t.Fatalf("n=%d seed=%d: decomposed tree differs: %v", n, seed, err)
			}
		}
	}
	if _, err := RandomSPD(0, 1, SPDOptions{}); err == nil {
		t.Fatal("n=0 accepted")
	}
}

func TestSPDFileRoundTrip(t *testing.T) {
	s, _ := RandomSPD(20, 7, SPDOptions{})
	var buf bytes.Buffer
	if err := WriteSPD(&buf, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"tree"`) {
		t.Fatal("file does not carry the tree")
	}
	got, err := ReadSPD(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Fatal("round trip changed the SPD graph")
	}
	// Without a tree the reader decomposes the graph.
	var plain bytes.Buffer
	_ = WriteGraph(&plain, s.Graph)
	if _, err := ReadSPD(&plain); err != nil {
		t.Fatalf("tree-less file: %v", err)
	}
	bad := []struct{ in, want string }{
		{`{"vertices":[{"id":0,"weight":1},{"id":1,"weight":1}],"edges":[],"tree":{"op":"s","children":[{"task":0},{"task":1}]}}`, "implies edge 0->1"},
		{`{"vertices":[{"id":0,"weight":1},{"id":1,"weight":1}],"edges":[],"tree":{"op":"x","children":[{"task":0},{"task":1}]}}`, "op \"x\""},
		{`{"vertices":[{"id":0,"weight":1},{"id":1,"weight":1}],"edges":[],"tree":{"op":"p","children":[{"task":0},{"task":0}]}}`, "twice"},
		{`{"vertices":[{"id":0,"weight":1},{"id":1,"weight":1}],"edges":[],"tree":{"op":"p","children":[{"task":0}]}}`, "at least 2"},
	}
	for _, b := range bad {
		if _, err := ReadSPD(strings.NewReader(b.in)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ReadSPD(%s) err = %v, want %q", b.in, err, b.want)
		}
	}
}

func BenchmarkRandomSPD(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := RandomSPD(n, uint64(i), SPDOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecomposeSPD(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		s, _ := RandomSPD(n, 1, SPDOptions{})
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := DecomposeSPD(s.Graph); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
