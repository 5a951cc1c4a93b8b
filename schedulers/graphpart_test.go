package schedulers

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

// partitioners lists the graph-partition schedulers under property test.
func partitioners(t testing.TB, seed uint64) map[string]Partitioner {
	t.Helper()
	out := map[string]Partitioner{}
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"even", Options{}},
		{"kpart", Options{Seed: seed}},
		{"kpart-mul3", Options{Seed: seed, Mul: 3}},
		{"kpart-alpha", Options{Seed: seed, Alpha: 20}},
		{"mpart", Options{Seed: seed}},
		{"mpart-weighted", Options{Seed: seed, WeightVertices: true}},
		{"online", Options{Seed: seed}},
		{"tstorm", Options{Seed: seed}},
		{"tstorm-consolidate", Options{Seed: seed, Consolidation: 2}},
		{"mlfm", Options{Seed: seed}},
	} {
		name := c.name
		for _, base := range []string{"kpart", "mpart", "tstorm"} {
			if len(name) > len(base) && name[:len(base)+1] == base+"-" {
				name = base
			}
		}
		info, err := Lookup(name)
		if err != nil {
			continue // not registered yet
		}
		s, err := info.New(c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p, ok := s.(Partitioner)
		if !ok {
			t.Fatalf("%s does not implement Partitioner", c.name)
		}
		out[c.name] = p
	}
	return out
}

// checkPartition asserts every vertex is in exactly one part in [0,k).
func checkPartition(t *testing.T, name string, g *topologies.Graph, k int, parts []int) {
	t.Helper()
	if len(parts) != g.N() {
		t.Fatalf("%s: %d part labels for %d vertices", name, len(parts), g.N())
	}
	for v, p := range parts {
		if p < 0 || p >= k {
			t.Fatalf("%s: vertex %d in part %d, want 0..%d", name, v, p, k-1)
		}
	}
}

// TestPartitionProperties: over many seeded random graphs, every scheduler
// returns a valid labelling, the same seed gives the same result, and k=1
// puts everything in part 0.
func TestPartitionProperties(t *testing.T) {
	ctx := context.Background()
	for gi := 0; gi < 60; gi++ {
		n := 1 + gi%37
		maxM := n * (n - 1) / 2
		m := min(maxM, (gi*7)%(2*n+1))
		g, err := topologies.RandomGraph(n, m, uint64(gi))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 2, 3, (n + 1) / 2, n} {
			if k < 1 || k > n {
				continue
			}
			seed := uint64(gi*31 + k)
			a, b := partitioners(t, seed), partitioners(t, seed)
			for name, p := range a {
				label := fmt.Sprintf("%s G(%d,%d) seed %d k=%d", name, n, m, gi, k)
				parts, err := p.Partition(ctx, g, k)
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				checkPartition(t, label, g, k, parts)
				again, err := b[name].Partition(ctx, g, k)
				if err != nil {
					t.Fatalf("%s (again): %v", label, err)
				}
				if !reflect.DeepEqual(parts, again) {
					t.Fatalf("%s: same seed, different partitions:\n%v\n%v", label, parts, again)
				}
				if k == 1 {
					for v, x := range parts {
						if x != 0 {
							t.Fatalf("%s: k=1 but vertex %d in part %d", label, v, x)
						}
					}
				}
			}
		}
	}
}

// TestPartitionBadK: k outside 1..n is an error, not a panic.
func TestPartitionBadK(t *testing.T) {
	g, err := topologies.RandomGraph(5, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range partitioners(t, 1) {
		for _, k := range []int{-1, 0, 6} {
			if _, err := p.Partition(context.Background(), g, k); err == nil {
				t.Errorf("%s: k=%d accepted for 5 vertices", name, k)
			}
		}
	}
}

// TestPartitionNoEdges: graphs without edges still partition.
func TestPartitionNoEdges(t *testing.T) {
	g, err := topologies.RandomGraph(20, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range partitioners(t, 1) {
		for _, k := range []int{1, 4, 20} {
			parts, err := p.Partition(context.Background(), g, k)
			if err != nil {
				t.Fatalf("%s k=%d: %v", name, k, err)
			}
			checkPartition(t, name, g, k, parts)
		}
	}
}

// TestGraphSchedulersSchedule: every graph-partition scheduler is in the
// list and schedules onto a small cluster validly.
func TestGraphSchedulersSchedule(t *testing.T) {
	g, err := topologies.RandomGraph(30, 45, 7)
	if err != nil {
		t.Fatal(err)
	}
	cl := Cluster{Nodes: []Node{
		{ID: "a", CPU: 400, Ports: []int{6700, 6701, 6702}},
		{ID: "b", CPU: 400, Ports: []int{6700, 6701}},
		{ID: "c", CPU: 200, Ports: []int{6700}},
	}}
	for _, name := range []string{"even", "kpart", "kpart-dynamic", "mpart", "mlfm", "online", "tstorm"} {
		s, err := New(name, Options{Seed: 1, Mul: 1})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, workers := range []int{1, 4, 6} {
			a, err := s.Schedule(context.Background(), &Problem{Graph: g, Cluster: cl, Workers: workers})
			if err != nil {
				t.Fatalf("%s workers=%d: %v", name, workers, err)
			}
			if err := a.Validate(g, &cl); err != nil {
				t.Fatalf("%s workers=%d: %v", name, workers, err)
			}
			if len(a.Workers) > workers {
				t.Fatalf("%s: %d workers used, %d asked", name, len(a.Workers), workers)
			}
		}
	}
}

// TestEmptyProblem: a Problem without executors (no graph, or a graph
// without vertices) is an error for every registered scheduler, also with
// a current assignment and a load table, never a panic.
func TestEmptyProblem(t *testing.T) {
	cl := Cluster{Nodes: []Node{{ID: "a", CPU: 100, MemoryMB: 1000, Ports: []int{6700, 6701}}}}
	cur := &Assignment{Workers: []Slot{{"a", 6700}}, Executors: []int{0, 0}}
	load := &Load{Nodes: []NodeLoad{{Node: "a", CPUUsed: 99, MemoryTotalMB: 100, MemoryFreeMB: 1}}}
	for _, info := range List() {
		s, err := info.New(Options{})
		if err != nil {
			t.Fatalf("%s: %v", info.Name, err)
		}
		for _, g := range []*topologies.Graph{nil, {}} {
			for _, p := range []*Problem{
				{Graph: g, Cluster: cl, Workers: 2},
				{Graph: g, Cluster: cl, Workers: 2, Current: cur, Load: load},
			} {
				label := fmt.Sprintf("%s (graph nil %v, current %v)", info.Name, g == nil, p.Current != nil)
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s: panic: %v", label, r)
						}
					}()
					if _, err := s.Schedule(context.Background(), p); err == nil {
						t.Errorf("%s: no error", label)
					}
				}()
			}
		}
	}
}
