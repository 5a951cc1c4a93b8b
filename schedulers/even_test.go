package schedulers

import (
	"context"
	"reflect"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

// TestEvenRoundRobin: vertices listed out of id order; in id order 10, 11,
// 12, 13, 14 go to workers 0, 1, 0, 1, 0 (i mod 2), as Storm's
// EvenScheduler assigns executors sorted by start task.
func TestEvenRoundRobin(t *testing.T) {
	g := &topologies.Graph{}
	for _, id := range []int{13, 10, 14, 12, 11} {
		g.Vertices = append(g.Vertices, topologies.Vertex{ID: id, Weight: 1})
	}
	parts, err := Even{}.Partition(context.Background(), g, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 0, 0, 0, 1}; !reflect.DeepEqual(parts, want) {
		t.Errorf("parts %v, want %v", parts, want)
	}
}

// TestEvenSchedule: 3 workers on nodes a (2 slots) and b (1 slot): Storm
// sorts nodes by free slots and interleaves: a:6700, b:6700, a:6701.
func TestEvenSchedule(t *testing.T) {
	g, _ := topologies.RandomGraph(6, 5, 1)
	cl := Cluster{Nodes: []Node{{ID: "b", Ports: []int{6700}}, {ID: "a", Ports: []int{6701, 6700}}}}
	a, err := Even{}.Schedule(context.Background(), &Problem{Graph: g, Cluster: cl, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []Slot{{"a", 6700}, {"b", 6700}, {"a", 6701}}
	if !reflect.DeepEqual(a.Workers, want) {
		t.Errorf("workers %v, want %v", a.Workers, want)
	}
	if want := []int{0, 1, 2, 0, 1, 2}; !reflect.DeepEqual(a.Executors, want) {
		t.Errorf("executors %v, want %v", a.Executors, want)
	}
}
