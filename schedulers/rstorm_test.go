package schedulers

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

func TestRStormOrder(t *testing.T) {
	// spout -> a -> b, two executors each. BFS: spout, a, b. Interleaving
	// (hand-derived from Storm's orderExecutors): spout's turn takes s0, a0,
	// s1, a1; a's turn takes b0, b1 (its neighbour b); b's turn finds none.
	g := &topologies.Graph{}
	for i, c := range []string{"spout", "spout", "a", "a", "b", "b"} {
		g.Vertices = append(g.Vertices, topologies.Vertex{ID: i, Weight: 1, Component: c})
	}
	g.Edges = []topologies.Edge{{From: 0, To: 2, Weight: 1}, {From: 1, To: 3, Weight: 1}, {From: 2, To: 4, Weight: 1}, {From: 3, To: 5, Weight: 1}}
	if got, want := rstormOrder(g), []int{0, 2, 1, 3, 4, 5}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

func TestRStormHand(t *testing.T) {
	// n0: 200% CPU, 1024 MB; n1: 400%, 2048 MB. Five executors of 50% CPU and
	// the default 128 MB in a chain. Reference node: most free resources,
	// n1 (400/400 + 2048/2048 = 2 against 0.5 + 0.5 = 1); executor 1 goes
	// there as R-Storm's first executor does. Distances after that (cpuMax
	// 400, memMax 2048), n1 (net 0) against n0 (net 1,
	// sqrt(.375^2+.4375^2+1) = 1.1541 while n0 is empty):
	// executor 2: n1 sqrt(.75^2+.875^2) = 1.1524 -> n1 (by 0.0017);
	// executor 3: sqrt(.625^2+.8125^2) = 1.0251; 4: sqrt(.5^2+.75^2) =
	// 0.9014; 5: sqrt(.375^2+.6875^2) = 0.7831 -> all on n1.
	g := &topologies.Graph{}
	for i := 0; i < 5; i++ {
		g.Vertices = append(g.Vertices, topologies.Vertex{ID: i, Weight: 50})
		if i > 0 {
			g.Edges = append(g.Edges, topologies.Edge{From: i - 1, To: i, Weight: 1})
		}
	}
	c := Cluster{Nodes: []Node{{ID: "n0", CPU: 200, MemoryMB: 1024, Ports: []int{6701, 6700}}, {ID: "n1", CPU: 400, MemoryMB: 2048, Ports: []int{6700}}}}
	a, err := RStorm{}.Schedule(context.Background(), &Problem{Graph: g, Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for v := range g.Vertices {
		nodes = append(nodes, a.NodeOf(v))
	}
	if want := []string{"n1", "n1", "n1", "n1", "n1"}; !reflect.DeepEqual(nodes, want) {
		t.Fatalf("nodes %v, want %v", nodes, want)
	}
	if a.Workers[0] != (Slot{Node: "n1", Port: 6700}) || len(a.Workers) != 1 {
		t.Fatalf("workers %v, want one per node on the lowest port", a.Workers)
	}
	_, d, err := RStorm{}.Explain(context.Background(), &Problem{Graph: g, Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	if d.Reference != "n1" || d.First == nil || *d.First != 0 || !d.Apply {
		t.Fatalf("decision %+v: want reference n1, first vertex 0 (the chain's spout), applied", d)
	}
	// The first executor goes to the reference node even when the distance
	// would pick another: n0 2 cores/1024 MB, n1 4 cores/2048 MB, one
	// executor of 50 %: distance n1 1.282 > n0 1.154, yet it is on n1.
	one := &topologies.Graph{Vertices: []topologies.Vertex{{ID: 0, Weight: 50}}}
	a1, err := RStorm{}.Schedule(context.Background(), &Problem{Graph: one, Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	if a1.NodeOf(0) != "n1" {
		t.Fatalf("first executor on %s, want the reference node n1", a1.NodeOf(0))
	}
	// Sixth executor of 500%: no node can take it.
	g.Vertices = append(g.Vertices, topologies.Vertex{ID: 5, Weight: 500, Component: "big"})
	_, err = RStorm{}.Schedule(context.Background(), &Problem{Graph: g, Cluster: c})
	if err == nil || !strings.Contains(err.Error(), "impossible cluster") || !strings.Contains(err.Error(), "executor 5") {
		t.Fatalf("err = %v, want an impossible-cluster error naming executor 5", err)
	}
}

// capacityCluster gives nodes enough room for g with some slack.
func capacityCluster(g *topologies.Graph, nodes int, slack float64) Cluster {
	cpu := g.TotalVertexWeight() / float64(nodes) * slack
	mem := float64(g.N()) * DefaultExecutorMemoryMB / float64(nodes) * slack
	var c Cluster
	for i := 0; i < nodes; i++ {
		c.Nodes = append(c.Nodes, Node{ID: fmt.Sprintf("node%02d", i), CPU: cpu * (1 + float64(i%3)/2), MemoryMB: mem, Ports: []int{6700, 6701, 6702, 6703}})
	}
	return c
}

// checkCapacity reports the first node whose CPU or memory is exceeded.
func checkCapacity(g *topologies.Graph, c *Cluster, a *Assignment) error {
	cpu, mem := map[string]float64{}, map[string]float64{}
	for v := range g.Vertices {
		n := a.NodeOf(v)
		cpu[n] += g.Vertices[v].Weight
		mem[n] += ExecutorMemory(g.Vertices[v])
	}
	for _, n := range c.Nodes {
		if n.CPU > 0 && cpu[n.ID] > n.CPU+1e-9 {
			return fmt.Errorf("node %s: CPU %v > %v", n.ID, cpu[n.ID], n.CPU)
		}
		if n.MemoryMB > 0 && mem[n.ID] > n.MemoryMB+1e-9 {
			return fmt.Errorf("node %s: memory %v > %v", n.ID, mem[n.ID], n.MemoryMB)
		}
	}
	return nil
}

func TestRStormProperties(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		g, _ := topologies.RandomGraph(40, 80, seed)
		c := capacityCluster(g, 4, 1.3)
		p := &Problem{Graph: g, Cluster: c, Workers: 4}
		a, err := RStorm{}.Schedule(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Validate(g, &c); err != nil {
			t.Fatal(err)
		}
		if err := checkCapacity(g, &c, a); err != nil {
			t.Fatal(err)
		}
		b, _ := RStorm{}.Schedule(context.Background(), p)
		if !reflect.DeepEqual(a, b) {
			t.Fatal("not deterministic")
		}
	}
}

func BenchmarkRStorm(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		g, _ := topologies.RandomGraph(n, 2*n, 1)
		p := &Problem{Graph: g, Cluster: capacityCluster(g, 16, 1.2), Workers: 16}
		b.Run(fmt.Sprintf("executors=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := (RStorm{}).Schedule(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
