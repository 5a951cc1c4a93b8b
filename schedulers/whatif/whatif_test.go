package whatif

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

func chain4() *topologies.Graph {
	return &topologies.Graph{
		Vertices: []topologies.Vertex{{ID: 0, Weight: 1}, {ID: 1, Weight: 1}, {ID: 2, Weight: 1}, {ID: 3, Weight: 1}},
		Edges:    []topologies.Edge{{From: 0, To: 1, Weight: 10}, {From: 1, To: 2, Weight: 20}, {From: 2, To: 3, Weight: 30}},
	}
}

func twoNodes() schedulers.Cluster {
	return schedulers.Cluster{Nodes: []schedulers.Node{
		{ID: "n1", CPU: 50, MemoryMB: 1024, Ports: []int{6700}},
		{ID: "n2", CPU: 100, MemoryMB: 1024, Ports: []int{6700}},
	}}
}

// TestMeasure checks the measures on a hand-worked placement: the chain 0-1-2-3 (traffic 10, 20, 30)
// split {0,1} on n1 (50% of a core) and {2,3} on n2 (100%). Reference numbers worked by hand:
// cut = 20/60; CPU shares 1/2 and 1/2 over capacity shares 1/3 and 2/3 give load ratios 1.5 and
// 0.75, population std 0.375; against everything on n2, executors 0 and 1 move.
func TestMeasure(t *testing.T) {
	g, c := chain4(), twoNodes()
	a := &schedulers.Assignment{Workers: c.Slots(), Executors: []int{0, 0, 1, 1}}
	cur := &schedulers.Assignment{Workers: c.Slots(), Executors: []int{1, 1, 1, 1}}
	r := Measure(g, &c, a, cur)
	const tol = 1e-12
	for _, x := range []struct {
		name      string
		got, want float64
	}{
		{"cut rate", r.CutRate, 20.0 / 60},
		{"inter-node", r.InterNode, 20},
		{"n1 load ratio", r.Nodes[0].LoadRatio, 1.5},
		{"n2 load ratio", r.Nodes[1].LoadRatio, 0.75},
		{"max load ratio", r.MaxLoadRatio, 1.5},
		{"imbalance", r.Imbalance, 0.375},
		{"moved", float64(r.Moved), 2},
	} {
		if math.Abs(x.got-x.want) > tol {
			t.Errorf("%s = %v, want %v (tol %g)", x.name, x.got, x.want, tol)
		}
	}
	if r := Measure(g, &c, a, nil); r.Moved != -1 {
		t.Errorf("moved without a current placement = %d, want -1", r.Moved)
	}
}

// TestAskProperties runs every scheduler on seeded random graphs: each row either places every
// executor (cut rate in [0,1], load ratios whose capacity-weighted mean is 1) or says why not.
func TestAskProperties(t *testing.T) {
	c := schedulers.Cluster{Nodes: []schedulers.Node{
		{ID: "sup1", CPU: 25, MemoryMB: 640, Ports: []int{6700, 6701}},
		{ID: "sup2", CPU: 50, MemoryMB: 896, Ports: []int{6700, 6701}},
		{ID: "sup3", CPU: 100, MemoryMB: 1152, Ports: []int{6700, 6701}},
	}}
	names := schedulers.Names()
	for seed := uint64(1); seed <= 3; seed++ {
		g, err := topologies.RandomGraph(24, 36, seed)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := Ask(context.Background(), Question{Graph: g, Cluster: c}, names)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(names) {
			t.Fatalf("%d rows for %d schedulers", len(rows), len(names))
		}
		for _, r := range rows {
			if r.Err != "" {
				continue
			}
			mean := 0.0
			for _, n := range r.Nodes {
				mean += n.LoadRatio * n.Capacity / 175
			}
			if r.CutRate < 0 || r.CutRate > 1 || math.Abs(mean-1) > 1e-9 {
				t.Errorf("seed %d %s: cut rate %v, capacity-weighted load ratio %v (want [0,1] and 1)", seed, r.Scheduler, r.CutRate, mean)
			}
		}
	}
}

func TestAskBadInput(t *testing.T) {
	g, c := chain4(), twoNodes()
	for _, x := range []struct {
		name  string
		q     Question
		sched []string
	}{
		{"empty graph", Question{Graph: &topologies.Graph{}, Cluster: c}, []string{"kpart"}},
		{"no slots", Question{Graph: g, Cluster: schedulers.Cluster{Nodes: []schedulers.Node{{ID: "n", CPU: 100}}}}, []string{"kpart"}},
		{"negative workers", Question{Graph: g, Cluster: c, Workers: -1}, []string{"kpart"}},
		{"unknown scheduler", Question{Graph: g, Cluster: c}, []string{"nope"}},
	} {
		if _, err := Ask(context.Background(), x.q, x.sched); err == nil {
			t.Errorf("%s: no error", x.name)
		}
	}
}

// TestOptimum checks the reference on the chain: two parts of equal weight cut the middle edge only
// (20 of 60), which is the minimum (any balanced 2-split of a 4-chain by weight cuts one edge, and
// the middle one is the only balanced cut).
func TestOptimum(t *testing.T) {
	ref, err := Optimum(context.Background(), chain4(), 2, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ref == nil || !ref.Proven || math.Abs(ref.CutRate-20.0/60) > 1e-12 {
		t.Errorf("optimum = %+v, want proven cut rate 1/3", ref)
	}
	big, err := topologies.RandomGraph(100, 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ref, err := Optimum(context.Background(), big, 2, 0, 0); ref != nil || err != nil {
		t.Errorf("100 vertices: %+v, %v; want no reference and no error", ref, err)
	}
}

// BenchmarkAsk100 asks every scheduler but exact about 100 executors on 4 nodes (the size the
// `whatif` command is meant to answer in seconds).
func BenchmarkAsk100(b *testing.B) {
	g, err := topologies.RandomGraph(100, 300, 1)
	if err != nil {
		b.Fatal(err)
	}
	c := schedulers.Cluster{}
	for i, cpu := range []float64{2500, 5000, 5000, 10000} {
		c.Nodes = append(c.Nodes, schedulers.Node{ID: fmt.Sprintf("sup%d", i+1), CPU: cpu, MemoryMB: 4096, Ports: []int{6700, 6701, 6702, 6703}})
	}
	var names []string
	for _, n := range schedulers.Names() {
		if n != "exact" {
			names = append(names, n)
		}
	}
	for b.Loop() {
		if _, err := Ask(context.Background(), Question{Graph: g, Cluster: c, Workers: 8}, names); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAsk100Current is BenchmarkAsk100 with a running placement (round robin over the 16
// slots), as a captured graph brings: dynamic schedulers then plan migrations from it, and every row
// counts the executors moved.
func BenchmarkAsk100Current(b *testing.B) {
	g, err := topologies.RandomGraph(100, 300, 1)
	if err != nil {
		b.Fatal(err)
	}
	c := schedulers.Cluster{}
	p := topologies.Placement{}
	for i, cpu := range []float64{2500, 5000, 5000, 10000} {
		c.Nodes = append(c.Nodes, schedulers.Node{ID: fmt.Sprintf("sup%d", i+1), CPU: cpu, MemoryMB: 4096, Ports: []int{6700, 6701, 6702, 6703}})
	}
	for _, v := range g.Vertices {
		p[v.ID] = fmt.Sprintf("sup%d:%d", v.ID%4+1, 6700+v.ID/4%4)
	}
	cur, nodes, err := FromPlacement(g, &c, p)
	if err != nil || cur == nil {
		b.Fatalf("placement: %v %v", cur, err)
	}
	var names []string
	for _, n := range schedulers.Names() {
		if n != "exact" {
			names = append(names, n)
		}
	}
	for b.Loop() {
		rows, err := Ask(context.Background(), Question{Graph: g, Cluster: c, Workers: 16, Current: cur, CurrentNodes: nodes}, names)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rows {
			if r.Err == "" && r.Moved < 0 {
				b.Fatalf("%s: no moved count", r.Scheduler)
			}
		}
	}
}
