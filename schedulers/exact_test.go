package schedulers

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/topologies"
)

// graphOf builds a graph with vertex weights w (ids 0..) and undirected
// edges {a, b, weight}.
func graphOf(w []float64, edges [][3]float64) *topologies.Graph {
	g := &topologies.Graph{}
	for i, x := range w {
		g.Vertices = append(g.Vertices, topologies.Vertex{ID: i, Weight: x})
	}
	for _, e := range edges {
		g.Edges = append(g.Edges, topologies.Edge{From: int(e[0]), To: int(e[1]), Weight: e[2]})
	}
	return g
}

// unitTriangles: triangles {0,1,2} and {3,4,5} (edges 10) joined by the
// bridge 2-3 (weight 1), unit vertex weights.
func unitTriangles() *topologies.Graph {
	return graphOf([]float64{1, 1, 1, 1, 1, 1}, [][3]float64{
		{0, 1, 10}, {1, 2, 10}, {0, 2, 10}, {3, 4, 10}, {4, 5, 10}, {3, 5, 10}, {2, 3, 1}})
}

// starGraph: vertex 0 (weight 3) joined to 1, 2, 3 (weight 1 each) by
// edges of 5, plus the edge 1-2 of 1.
func starGraph() *topologies.Graph {
	return graphOf([]float64{3, 1, 1, 1}, [][3]float64{{0, 1, 5}, {0, 2, 5}, {0, 3, 5}, {1, 2, 1}})
}

// TestExactHandChecked: minimum cuts computed by hand.
func TestExactHandChecked(t *testing.T) {
	for _, c := range []struct {
		name string
		g    *topologies.Graph
		k    int
		eps  float64
		want float64
		why  string
	}{
		{"two triangles", unitTriangles(), 2, 0.03, 1,
			"w_e = 3 and eps 0.03 force 3+3 vertices; any 3/3 split other than the triangles cuts >= 2 triangle edges (20), the triangles cut only the bridge (1)"},
		{"star, tight", starGraph(), 2, 0.03, 15,
			"w_e = 3: a part holding vertex 0 (weight 3) and anything else weighs >= 4 > 3.09, so {0}|{1,2,3} is the only balanced split: cut 5+5+5"},
		{"star, loose", starGraph(), 2, 0.5, 10,
			"bounds [1.5, 4.5]: {0} or {1,2,3} alone cut 15; {0,x}|rest: x=1 or 2 cut 5+5+1 = 11, x=3 cuts 0-1 and 0-2 = 10"},
	} {
		for _, method := range []string{"bb", "cbc"} {
			t.Run(c.name+"/"+method, func(t *testing.T) {
				r, err := (&Exact{Epsilon: c.eps, TimeLimit: 30 * time.Second, Method: method}).Solve(context.Background(), c.g, c.k)
				if err != nil {
					t.Fatal(err)
				}
				if !r.Optimal {
					t.Fatalf("not proven optimal: %s", r.Status)
				}
				if d := r.Cut - c.want; d > 1e-9 || d < -1e-9 {
					t.Fatalf("cut %g, want %g (%s)", r.Cut, c.want, c.why)
				}
				if got := CutWeight(c.g, r.Parts); got != r.Cut {
					t.Fatalf("reported cut %g, partition cuts %g", r.Cut, got)
				}
				if m := Measure(c.g, r.Parts, c.k); m.MaxDev > c.eps+1e-9 {
					t.Fatalf("max deviation %g above epsilon %g", m.MaxDev, c.eps)
				}
			})
		}
	}
}

// TestExactMethodsAgree (property): the branch and bound and CBC prove the
// same minimum cut on random graphs (k = 2..4, 8..11 vertices; CBC needs
// seconds per graph beyond that).
func TestExactMethodsAgree(t *testing.T) {
	ctx := context.Background()
	for gi := 0; gi < 9; gi++ {
		n := 8 + gi%4
		g, err := topologies.RandomGraph(n, n+n/2, uint64(300+gi))
		if err != nil {
			t.Fatal(err)
		}
		k := 2 + gi%3
		var cuts [2]float64
		for i, m := range []string{"bb", "cbc"} {
			r, err := (&Exact{Epsilon: 0.2, TimeLimit: 30 * time.Second, Method: m}).Solve(ctx, g, k)
			if errors.Is(err, ErrExactInfeasible) {
				cuts[i] = -1
				continue
			}
			if err != nil {
				t.Fatalf("graph %d %s: %v", gi, m, err)
			}
			if !r.Optimal {
				t.Fatalf("graph %d %s: not proven", gi, m)
			}
			cuts[i] = r.Cut
			t.Logf("graph %d n=%d k=%d %s: cut %g in %v", gi, n, k, m, r.Cut, r.Elapsed)
		}
		if d := cuts[0] - cuts[1]; d > 1e-6 || d < -1e-6 {
			t.Errorf("graph %d (n=%d, k=%d): branch and bound %g, CBC %g", gi, n, k, cuts[0], cuts[1])
		}
	}
}

// TestExactBadInput: infeasible bounds, oversized graphs, a missing solver
// and bad epsilons are clear errors naming the fix.
func TestExactBadInput(t *testing.T) {
	ctx := context.Background()
	big, err := topologies.RandomGraph(MaxExactVertices+1, 60, 1)
	if err != nil {
		t.Fatal(err)
	}
	small, err := topologies.RandomGraph(10, 15, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Weights 1 and 3, k = 2: w_e = 2, parts must weigh 1.8..2.2: impossible.
	lopsided := graphOf([]float64{1, 3}, [][3]float64{{0, 1, 1}})
	for _, m := range []string{"bb", "cbc"} {
		_, err = (&Exact{Epsilon: 0.1, Method: m}).Solve(ctx, lopsided, 2)
		if !errors.Is(err, ErrExactInfeasible) || !strings.Contains(err.Error(), "raise --epsilon") {
			t.Errorf("infeasible (%s): got %v", m, err)
		}
	}
	for _, c := range []struct {
		name string
		e    *Exact
		g    *topologies.Graph
		k    int
		want string
	}{
		{"too many vertices", &Exact{}, big, 2, "mlfm"},
		{"k too large", &Exact{}, small, MaxExactK + 1, "use k <= 4"},
		{"no solver", &Exact{Solver: "no-such-cbc-binary"}, small, 2, "apt-get install coinor-cbc"},
		{"bad method", &Exact{Method: "simplex"}, small, 2, "method"},
		{"negative epsilon", &Exact{Epsilon: -0.1}, small, 2, "epsilon"},
		{"bad k", &Exact{}, small, 0, "out of range"},
	} {
		if _, err := c.e.Partition(ctx, c.g, c.k); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", c.name, err, c.want)
		}
	}
	if _, err := NewExact(Options{Epsilon: -1}); err == nil {
		t.Error("NewExact accepted epsilon -1")
	}
}

// TestExactBelowEveryPartitioner (property): on random graphs, the proven
// optimum cuts no more than any other partitioner whose partition meets
// the same balance bound (max deviation <= epsilon), and meets it itself.
func TestExactBelowEveryPartitioner(t *testing.T) {
	ctx := context.Background()
	const eps = 0.15
	compared := 0
	for gi := 0; gi < 8; gi++ {
		n := 8 + gi%5
		g, err := topologies.RandomGraph(n, n+n/2, uint64(100+gi))
		if err != nil {
			t.Fatal(err)
		}
		k := 2 + gi%2
		r, err := (&Exact{Epsilon: eps, TimeLimit: 30 * time.Second}).Solve(ctx, g, k)
		if errors.Is(err, ErrExactInfeasible) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if !r.Optimal {
			t.Fatalf("graph %d: not proven optimal", gi)
		}
		if m := Measure(g, r.Parts, k); m.MaxDev > eps+1e-9 {
			t.Fatalf("graph %d: exact breaks the bound: max dev %g", gi, m.MaxDev)
		}
		others := partitioners(t, uint64(gi))
		others["mlfm-eps"] = &MLFM{Seed: uint64(gi), Epsilon: eps}
		others["kpart-mul5"] = &KPart{Seed: uint64(gi), Mul: 5}
		for name, p := range others {
			parts, err := p.Partition(ctx, g, k)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if Measure(g, parts, k).MaxDev > eps {
				continue // looser balance: not comparable
			}
			compared++
			if c := CutWeight(g, parts); c < r.Cut-1e-9 {
				t.Errorf("graph %d k=%d: %s cuts %g below the proven optimum %g", gi, k, name, c, r.Cut)
			}
		}
	}
	if compared < 10 {
		t.Fatalf("only %d comparisons at equal balance: the property was barely tested", compared)
	}
	t.Logf("%d comparisons", compared)
}

// TestExactRegistered: exact is a registered Partitioner and schedules.
func TestExactRegistered(t *testing.T) {
	s, err := New("exact", Options{Epsilon: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	e, ok := s.(*Exact)
	if !ok || e.Epsilon != 0.2 {
		t.Fatalf("New(exact) = %#v", s)
	}
	cl := Cluster{Nodes: []Node{{ID: "a", Ports: []int{6700, 6701}}}}
	a, err := s.Schedule(context.Background(), &Problem{Graph: unitTriangles(), Cluster: cl, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(unitTriangles(), &cl); err != nil {
		t.Fatal(err)
	}
	if c := CutWeight(unitTriangles(), a.Executors); c != 1 {
		t.Fatalf("cut %g, want 1 (the bridge)", c)
	}
}
