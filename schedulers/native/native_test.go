package native

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

func TestLookup(t *testing.T) {
	for _, name := range []string{"storm-even", "storm-default", "storm-ras"} {
		s, err := Lookup(name)
		if err != nil || s.Name() != name {
			t.Errorf("Lookup(%q) = %v, %v", name, s, err)
		}
	}
	_, err := Lookup("even")
	if err == nil || !strings.Contains(err.Error(), `"even"`) || !strings.Contains(err.Error(), "storm-default, storm-even, storm-ras") {
		t.Errorf("Lookup(even) error %v: want the name and the known ones", err)
	}
}

func TestBadInput(t *testing.T) {
	top := spoutTopology(2, 2)
	c := nodes([][]int{{1}, {1}}, "a", "b")
	cases := []struct {
		name    string
		c       schedulers.Cluster
		t       Topology
		current Assignment
		want    string
	}{
		{"no workers", c, spoutTopology(2, 0), Assignment{}, "topology.workers must be at least 1"},
		{"slot twice", nodes([][]int{{1, 1}}, "a"), top, Assignment{}, "listed twice"},
		{"task twice", c, Topology{ID: "x", Workers: 1, Executors: []Executor{{"1", 1, 2}, {"1", 2, 2}}}, Assignment{}, "task 2 is in two executors"},
		{"foreign executor", c, top, Assignment{Slots: map[Executor]schedulers.Slot{{"9", 9, 9}: slot("a", 1)}}, "not one of topology"},
		{"dead slot", c, top, Assignment{Slots: map[Executor]schedulers.Slot{{"1", 1, 1}: slot("c", 1)}}, "leave the executors of dead workers out"},
		{"negative request", c, Topology{ID: "x", Workers: 1, Executors: top.Executors, Resources: map[string]Resources{"1": {CPU: -1}}}, Assignment{}, "finite and >= 0"},
	}
	for _, cs := range cases {
		for _, name := range Names() {
			s, _ := Lookup(name)
			if name == "storm-ras" && cs.name == "no workers" {
				continue // RAS ignores topology.workers
			}
			_, err := s.Schedule(context.Background(), cs.c, cs.t, cs.current)
			if err == nil || !strings.Contains(err.Error(), cs.want) || !strings.HasPrefix(err.Error(), name+": ") {
				t.Errorf("%s, %s: error %v, want %q", cs.name, name, err, cs.want)
			}
		}
	}
}

func TestFromGraphAndIndexed(t *testing.T) {
	g := &topologies.Graph{
		Vertices: []topologies.Vertex{{ID: 1, Component: "__acker"}, {ID: 2, Component: "a"}, {ID: 3, Component: "b"}, {ID: 4, Component: "b"}},
		Edges:    []topologies.Edge{{From: 2, To: 3}, {From: 2, To: 4}, {From: 3, To: 1}},
	}
	top, err := FromGraph("t", g, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(top.Inputs["b"], []string{"a"}) || top.Inputs["a"] != nil || len(top.Inputs) != 2 {
		t.Errorf("inputs %v, want b <- a and a spout", top.Inputs)
	}
	c := nodes([][]int{{6700}}, "n")
	a, err := Even{}.Schedule(context.Background(), HideDeadPorts(c, []schedulers.Slot{slot("n", 6700)}), top, Assignment{})
	if err != nil || len(a.Unassigned) != 4 {
		t.Fatalf("with the only port dead: %s (%v), want all unassigned", describe(a), err)
	}
	ix := a.Indexed(top)
	if len(ix.Workers) != 0 || !slices.Equal(ix.Executors, []int{-1, -1, -1, -1}) {
		t.Errorf("indexed %+v, want every executor at -1", ix)
	}
	a, err = Even{}.Schedule(context.Background(), c, top, Assignment{})
	if err != nil {
		t.Fatal(err)
	}
	if ix := a.Indexed(top); !slices.Equal(ix.Workers, []schedulers.Slot{slot("n", 6700)}) || !slices.Equal(ix.Executors, []int{0, 0, 0, 0}) {
		t.Errorf("indexed %+v, want all on n:6700", ix)
	}
	if _, err := FromGraph("t", &topologies.Graph{Vertices: []topologies.Vertex{{ID: 1}}}, 1); err == nil || !strings.Contains(err.Error(), "names no component") {
		t.Errorf("vertex without component: %v", err)
	}
}
