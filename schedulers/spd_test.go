package schedulers

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

// spdFromTree builds an SPD with the given task weights (ID = position) and
// one transfer weight b on every edge.
func spdFromTree(tree *topologies.SPDNode, w []float64, b float64) *topologies.SPD {
	g := &topologies.Graph{}
	for i, x := range w {
		g.Vertices = append(g.Vertices, topologies.Vertex{ID: i, Weight: x})
	}
	g.Edges = tree.TreeEdges()
	for i := range g.Edges {
		g.Edges[i].Weight = b
	}
	return &topologies.SPD{Graph: g, Tree: tree}
}

const spdTol = 1e-9

func TestStreamingCostHand(t *testing.T) {
	// Diamond s(0, p(1,2), 3), w = 1,2,3,4, b = 10 on every edge, parts
	// {0,1} on R0 and {2,3} on R1, so n(R) = 2 everywhere. Hand computation:
	// d(0)=2, d(1)=4, d(2)=6, d(3)=8; path 0-2-3 = 2 + 10 + 6 + 0 + 8 = 26,
	// path 0-1-3 = 2 + 0 + 4 + 10 + 8 = 24, so d(G) = 26; without transfer
	// (d-hat) the worst path is 0-2-3 = 16.
	s := spdFromTree(topologies.Ser(topologies.Leaf(0), topologies.Par(topologies.Leaf(1), topologies.Leaf(2)), topologies.Leaf(3)), []float64{1, 2, 3, 4}, 10)
	d, err := StreamingCost(s.Graph, []int{0, 0, 1, 1})
	if err != nil || math.Abs(d-26) > spdTol {
		t.Fatalf("d(G) = %v, %v; want 26", d, err)
	}
	dh, _ := ProcessingCost(s.Graph, []int{0, 0, 1, 1})
	if math.Abs(dh-16) > spdTol {
		t.Fatalf("d-hat(G) = %v, want 16", dh)
	}
	if _, err := StreamingCost(s.Graph, []int{0}); err == nil {
		t.Fatal("short allocation accepted")
	}
}

func TestContinuousAndDiscreteHand(t *testing.T) {
	chain := spdFromTree(topologies.Ser(topologies.Leaf(0), topologies.Leaf(1)), []float64{3, 5}, 2)
	par := spdFromTree(topologies.Par(topologies.Leaf(0), topologies.Leaf(1)), []float64{3, 5}, 0)
	cases := []struct {
		name string
		s    *topologies.SPD
		c    int
		// Hand computations:
		lb   float64 // chain: (sqrt3+sqrt5)^2/c = (8+2 sqrt15)/c; parallel: (3+5)/c
		opt  float64 // chain: together 2*3+2*5=16, apart 3+2+5=10; parallel: together max(6,10)=10, apart 5
		disc float64 // A^disc: shares capped to (1,1) at c=2, 2*2^(2/2)/1 = 4 >= 2 tasks -> one resource
	}{
		{"chain c=1", chain, 1, 8 + 2*math.Sqrt(15), 16, 16},
		{"chain c=2", chain, 2, (8 + 2*math.Sqrt(15)) / 2, 10, 16},
		{"parallel c=1", par, 1, 8, 10, 10},
		{"parallel c=2", par, 2, 4, 5, 10},
	}
	for _, c := range cases {
		lb, err := LowerBound(c.s, c.c)
		if err != nil || math.Abs(lb-c.lb) > 1e-9 {
			t.Errorf("%s: lower bound %v, %v; want %v", c.name, lb, err, c.lb)
		}
		_, opt, err := OptimalAllocation(c.s.Graph, c.c)
		if err != nil || math.Abs(opt-c.opt) > spdTol {
			t.Errorf("%s: optimum %v, %v; want %v", c.name, opt, err, c.opt)
		}
		parts, err := DiscreteAllocation(c.s, c.c)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := StreamingCost(c.s.Graph, parts)
		if math.Abs(d-c.disc) > spdTol {
			t.Errorf("%s: A^disc cost %v (parts %v), want %v", c.name, d, parts, c.disc)
		}
	}
}

func TestContinuousShares(t *testing.T) {
	// Serial w = (1, 4, 9), c = 6: shares proportional to sqrt(w) = 1:2:3,
	// so x = (1, 2, 3); cost = (1+2+3)^2/6 = 6, and each task costs w/x =
	// 1 + 2 + 3 = 6 along the only path.
	s := spdFromTree(topologies.Ser(topologies.Leaf(0), topologies.Leaf(1), topologies.Leaf(2)), []float64{1, 4, 9}, 0)
	a, err := ContinuousAllocation(s, 6)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1, 2, 3} {
		if math.Abs(a.Shares[i]-want) > spdTol {
			t.Errorf("x(%d) = %v, want %v", i, a.Shares[i], want)
		}
	}
	if math.Abs(a.Cost-6) > spdTol {
		t.Errorf("cost %v, want 6", a.Cost)
	}
	// Capping (Algorithm 3, lines 1-9): parallel w = (1, 9), c = 4 gives
	// x = (0.4, 3.6); task 1 is fixed to 1 and A^cont re-runs on capacity 3,
	// which gives task 0 all of it (3 > 1), so it is fixed too: (1, 1).
	p := spdFromTree(topologies.Par(topologies.Leaf(0), topologies.Leaf(1)), []float64{1, 9}, 0)
	x, _ := DiscreteShares(p, 4)
	if !reflect.DeepEqual(x, []float64{1, 1}) {
		t.Errorf("capped shares %v, want [1 1]", x)
	}
	// 8 equal parallel tasks, c = 8: shares 1; A^disc groups
	// ceil(2*8^(2/8)/1) = ceil(3.36) = 4 tasks: two resources of 4, cost 4;
	// the spd-shares variant groups ceil(1/1) = 1: cost 1 = the lower bound.
	tree := topologies.Par(topologies.Leaf(0), topologies.Leaf(1), topologies.Leaf(2), topologies.Leaf(3),
		topologies.Leaf(4), topologies.Leaf(5), topologies.Leaf(6), topologies.Leaf(7))
	e := spdFromTree(tree, []float64{1, 1, 1, 1, 1, 1, 1, 1}, 0)
	parts, _ := DiscreteAllocation(e, 8)
	if d, _ := StreamingCost(e.Graph, parts); math.Abs(d-4) > spdTol {
		t.Errorf("A^disc on 8 parallel tasks: cost %v (parts %v), want 4", d, parts)
	}
	parts, _ = SharesAllocation(e, 8)
	if d, _ := StreamingCost(e.Graph, parts); math.Abs(d-1) > spdTol {
		t.Errorf("spd-shares on 8 parallel tasks: cost %v, want 1", d)
	}
}

// Property on random tiny SPD graphs: lower bound <= optimum <= every
// scheduler's cost, allocations use resources 0..c-1, and are deterministic.
func TestSPDBoundsProperty(t *testing.T) {
	for n := 1; n <= 10; n++ {
		seeds := uint64(6)
		if n > 8 {
			seeds = 1 // Bell(10) = 115975 partitions per exact solve
		}
		for seed := uint64(1); seed <= seeds; seed++ {
			for _, maxB := range []int{1, 100} {
				s, err := topologies.RandomSPD(n, seed, topologies.SPDOptions{MaxEdgeWeight: maxB})
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range []int{1, 2, 3, 5} {
					lb, _ := LowerBound(s, c)
					_, opt, err := OptimalAllocation(s.Graph, c)
					if err != nil {
						t.Fatal(err)
					}
					if opt < lb-1e-9 {
						t.Fatalf("n=%d seed=%d c=%d: optimum %v beats the lower bound %v", n, seed, c, opt, lb)
					}
					for name, alloc := range map[string]func(*topologies.SPD, int) ([]int, error){
						"spd": DiscreteAllocation, "spd-shares": SharesAllocation} {
						parts, err := alloc(s, c)
						if err != nil {
							t.Fatal(err)
						}
						for _, p := range parts {
							if p < 0 || p >= c {
								t.Fatalf("%s: resource %d outside 0..%d", name, p, c-1)
							}
						}
						d, _ := StreamingCost(s.Graph, parts)
						if d < opt-1e-9 {
							t.Fatalf("%s n=%d seed=%d c=%d: cost %v beats the optimum %v", name, n, seed, c, d, opt)
						}
						again, _ := alloc(s, c)
						if !reflect.DeepEqual(parts, again) {
							t.Fatalf("%s: not deterministic", name)
						}
					}
				}
			}
		}
	}
}

func TestSPDScheduler(t *testing.T) {
	s, _ := topologies.RandomSPD(60, 3, topologies.SPDOptions{})
	p := &Problem{Graph: s.Graph, Cluster: spdTestCluster(4, 4), Workers: 8}
	for _, name := range []string{"spd", "spd-shares"} {
		var info Info
		for _, i := range []Info{spdInfo, spdSharesInfo} {
			if i.Name == name {
				info = i
			}
		}
		sch, _ := info.New(Options{})
		a, err := sch.Schedule(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Validate(s.Graph, &p.Cluster); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// A graph that is not SPD is refused with a clear error.
	bad := &topologies.Graph{Vertices: []topologies.Vertex{{ID: 0}, {ID: 1}, {ID: 2}},
		Edges: []topologies.Edge{{From: 0, To: 1}, {From: 1, To: 2}, {From: 0, To: 2}}}
	if _, err := (SPDPartitioner{}).Partition(context.Background(), bad, 2); err == nil {
		t.Fatal("non-SPD graph accepted")
	}
}

func spdTestCluster(nodes, ports int) Cluster {
	var c Cluster
	for i := 0; i < nodes; i++ {
		n := Node{ID: fmt.Sprintf("n%d", i), CPU: 400, MemoryMB: 4096}
		for p := 0; p < ports; p++ {
			n.Ports = append(n.Ports, 6700+p)
		}
		c.Nodes = append(c.Nodes, n)
	}
	return c
}

func BenchmarkSPD(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		s, _ := topologies.RandomSPD(n, 1, topologies.SPDOptions{})
		p := &Problem{Graph: s.Graph, Cluster: spdTestCluster(8, 4), Workers: 32}
		sch, _ := spdInfo.New(Options{})
		b.Run(fmt.Sprintf("executors=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := sch.Schedule(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("streaming-cost/executors=%d", n), func(b *testing.B) {
			parts := make([]int, n)
			for i := range parts {
				parts[i] = i % 32
			}
			for i := 0; i < b.N; i++ {
				if _, err := StreamingCost(s.Graph, parts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
