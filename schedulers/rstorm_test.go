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
	// the default 128 MB in a chain. Distances (cpuMax 400, memMax 2048):
	// executor 1: n1 (ref, net 0) sqrt(.875^2+.9375^2) = 1.282, n0
	// sqrt(.375^2+.4375^2+1) = 1.154 -> n0; executors 2-4 keep n0 (1.055,
	// 1.031, 1.017 against 1.282); n0 then has 0% CPU left, so executor 5
	// goes to n1.
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
	if want := []string{"n0", "n0", "n0", "n0", "n1"}; !reflect.DeepEqual(nodes, want) {
		t.Fatalf("nodes %v, want %v", nodes, want)
	}
	if a.Workers[0] != (Slot{Node: "n0", Port: 6700}) || len(a.Workers) != 2 {
		t.Fatalf("workers %v, want one per node on the lowest port", a.Workers)
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
