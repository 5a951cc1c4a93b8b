package schedulers

import (
	"context"
	"reflect"
	"testing"
)

// TestTStormTwoTriangles follows T-Storm's greedy by hand (k = 2,
// capacity 3). Total traffic: 2 and 3: 101, the others 100; order 2, 3, 0,
// 1, 4, 5.
//   - 2: nothing placed -> least-loaded worker 0.
//   - 3: traffic 1 to worker 0 -> worker 0.
//   - 0: 50 to worker 0 -> worker 0 (now full).
//   - 1: 100 to worker 0, full -> least-loaded with room: worker 1.
//   - 4, 5: worker 0 full -> worker 1.
//
// Result {0,2,3} / {1,4,5}: the greedy ties 3 to 2 by the light edge, cut =
// 0-1 + 1-2 + 3-4 + 3-5 = 200 of 301.
func TestTStormTwoTriangles(t *testing.T) {
	g := twoTriangles()
	parts, err := (&TStorm{Gamma: 1}).Partition(context.Background(), g, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 0, 0, 1, 1}; !reflect.DeepEqual(parts, want) {
		t.Errorf("parts %v, want %v", parts, want)
	}
	if m := Measure(g, parts, 2); m.CutRate != 200.0/301 {
		t.Errorf("cut rate %v, want 200/301", m.CutRate)
	}
}

// TestTStormConsolidation: k = 4 with gamma = 2 fills ceil(4/2) = 2
// workers of capacity 3, i.e. the same as k = 2 above; Schedule then uses
// two nodes, the two with the most CPU, one worker each.
func TestTStormConsolidation(t *testing.T) {
	g := twoTriangles()
	s := &TStorm{Gamma: 2}
	parts, err := s.Partition(context.Background(), g, 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 0, 0, 1, 1}; !reflect.DeepEqual(parts, want) {
		t.Errorf("parts %v, want %v", parts, want)
	}
	cl := Cluster{Nodes: []Node{
		{ID: "small", CPU: 100, Ports: []int{6700, 6701}},
		{ID: "big", CPU: 400, Ports: []int{6701, 6700}},
		{ID: "mid", CPU: 200, Ports: []int{6700}},
		{ID: "mid2", CPU: 200, Ports: []int{6700, 6701}},
	}}
	a, err := s.Schedule(context.Background(), &Problem{Graph: g, Cluster: cl, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Slot{{"big", 6700}, {"mid2", 6700}}; !reflect.DeepEqual(a.Workers, want) {
		t.Errorf("workers %v, want %v", a.Workers, want)
	}
	if err := a.Validate(g, &cl); err != nil {
		t.Error(err)
	}
	// Without consolidation, 8 workers asked on 4 nodes: k = 4 (one worker
	// per node), capacity 2. By hand: 2, 3 -> worker 0 (full); 0 -> least
	// loaded with room, worker 1; 1 -> worker 1 (50 to it; full); 4 -> its
	// neighbour 3's worker is full -> worker 2; 5 -> worker 2 (50). Worker 3
	// stays empty and is dropped: 3 workers on the 3 largest nodes (CPU, then
	// slot count: mid2 before mid).
	a, err = (&TStorm{Gamma: 1}).Schedule(context.Background(), &Problem{Graph: g, Cluster: cl, Workers: 8})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Slot{{"big", 6700}, {"mid2", 6700}, {"mid", 6700}}; !reflect.DeepEqual(a.Workers, want) {
		t.Errorf("workers %v, want %v", a.Workers, want)
	}
	if want := []int{1, 1, 0, 0, 2, 2}; !reflect.DeepEqual(a.Executors, want) {
		t.Errorf("executors %v, want %v", a.Executors, want)
	}
}

func TestNewTStormBadOptions(t *testing.T) {
	if _, err := NewTStorm(Options{Consolidation: 0.5}); err == nil {
		t.Error("consolidation 0.5 accepted")
	}
}
