package schedulers

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

func TestAdaptiveStaticHand(t *testing.T) {
	// Four executors of weight 10; traffic 0-1: 100, 2-3: 90, 1-2: 1; k = 2.
	// Budget 40/2*1.2 = 24. Hand trace: edge 0-1 -> both on worker 0 (20);
	// edge 2-3 -> worker 1 is lightest, both there; edge 1-2 is already
	// placed. Inter-node traffic = 1.
	g := &topologies.Graph{Vertices: []topologies.Vertex{{ID: 0, Weight: 10}, {ID: 1, Weight: 10}, {ID: 2, Weight: 10}, {ID: 3, Weight: 10}},
		Edges: []topologies.Edge{{From: 1, To: 2, Weight: 1}, {From: 0, To: 1, Weight: 100}, {From: 2, To: 3, Weight: 90}}}
	c := Cluster{Nodes: []Node{{ID: "a", Ports: []int{6700}}, {ID: "b", Ports: []int{6700}}}}
	p := &Problem{Graph: g, Cluster: c, Workers: 2}
	a, err := Adaptive{}.Schedule(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 0, 1, 1}; !reflect.DeepEqual(a.Executors, want) {
		t.Fatalf("executors %v, want %v", a.Executors, want)
	}
	if cut := AdaptiveStaticCut(p, a); cut != 1 {
		t.Fatalf("inter-node traffic %v, want 1", cut)
	}
}

func TestAdaptiveDynamicHand(t *testing.T) {
	// Nodes A (90% CPU, loaded), B (30%), C (50%), one core each, theta 0.8.
	// On A: e0 (20%) <-> e1 (50%) traffic 100; e2 (20%) <-> e3 (on C)
	// traffic 100. Total traffic 200. Costs (hand): e2->C 0.70 - 100/200 =
	// 0.20; e2->B 0.50; e0->B 0.50 + 0.5 = 1.0; e1->B 0.80 + 0.5 = 1.3;
	// e1->C exceeds theta. So e2 moves to C and A drops to 70%: done.
	g := &topologies.Graph{Vertices: []topologies.Vertex{{ID: 0, Weight: 20}, {ID: 1, Weight: 50}, {ID: 2, Weight: 20}, {ID: 3, Weight: 10}},
		Edges: []topologies.Edge{{From: 0, To: 1, Weight: 100}, {From: 2, To: 3, Weight: 100}}}
	c := Cluster{Nodes: []Node{{ID: "A", CPU: 100, Ports: []int{6700}}, {ID: "B", CPU: 100, Ports: []int{6700}}, {ID: "C", CPU: 100, Ports: []int{6700}}}}
	cur := &Assignment{Workers: []Slot{{Node: "A", Port: 6700}, {Node: "C", Port: 6700}}, Executors: []int{0, 0, 0, 1}}
	load := &Load{Nodes: []NodeLoad{{Node: "A", CPUUsed: 90}, {Node: "B", CPUUsed: 30}, {Node: "C", CPUUsed: 50}}}
	p := &Problem{Graph: g, Cluster: c, Current: cur, Load: load}
	a, apply, err := Adaptive{}.Reschedule(context.Background(), p)
	if err != nil || !apply {
		t.Fatalf("apply=%v err=%v", apply, err)
	}
	var nodes []string
	for v := range g.Vertices {
		nodes = append(nodes, a.NodeOf(v))
	}
	if want := []string{"A", "A", "C", "C"}; !reflect.DeepEqual(nodes, want) {
		t.Fatalf("nodes %v, want %v", nodes, want)
	}
	// Nothing above theta: keep.
	load.Nodes[0].CPUUsed = 70
	if _, apply, _ := (Adaptive{}).Reschedule(context.Background(), p); apply {
		t.Fatal("moved with no node above theta")
	}
}

func TestAdaptiveProperties(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		p := randomDeadlineProblem(40, 4, seed)
		cur := p.Current
		p.Current, p.Load = nil, nil
		a, err := Adaptive{}.Schedule(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Validate(p.Graph, &p.Cluster); err != nil {
			t.Fatal(err)
		}
		b, _ := Adaptive{}.Schedule(context.Background(), p)
		if !reflect.DeepEqual(a, b) {
			t.Fatal("static placement not deterministic")
		}
		p2 := randomDeadlineProblem(40, 4, seed)
		p2.Current = cur
		r, _, err := Adaptive{}.Reschedule(context.Background(), p2)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Validate(p2.Graph, &p2.Cluster); err != nil {
			t.Fatal(err)
		}
		r2, _, _ := Adaptive{}.Reschedule(context.Background(), p2)
		if !reflect.DeepEqual(r, r2) {
			t.Fatal("rescheduling not deterministic")
		}
	}
}

func BenchmarkAdaptive(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		p := randomDeadlineProblem(n, 16, 3)
		p.Load.Nodes[0].CPUUsed = 95
		static := &Problem{Graph: p.Graph, Cluster: p.Cluster, Workers: 16}
		b.Run(fmt.Sprintf("static/executors=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := (Adaptive{}).Schedule(context.Background(), static); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("dynamic/executors=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, _, err := (Adaptive{}).Reschedule(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
