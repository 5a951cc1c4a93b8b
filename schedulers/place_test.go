package schedulers

import (
	"slices"
	"testing"
)

// TestSpreadSlots: nodes with the most free slots first, then by host, then by id, one slot per node in
// turn. The host, not Storm's id (random per supervisor start), decides between equal nodes, so two
// starts of one cluster give the same slots; the ids below are those of two starts of heterogeneous-2
// (the quick sim-validation, 2026-12-05), whose order differed.
func TestSpreadSlots(t *testing.T) {
	node := func(id, host string, ports ...int) Node { return Node{ID: id, Host: host, Ports: ports} }
	for _, tc := range []struct {
		name  string
		nodes []Node
		k     int
		want  []Slot
	}{
		{"one start", []Node{node("27c73f64", "sup1", 6700, 6701), node("1b2b777e", "sup2", 6700, 6701)}, 4,
			[]Slot{{"27c73f64", 6700}, {"1b2b777e", 6700}, {"27c73f64", 6701}, {"1b2b777e", 6701}}},
		{"another start", []Node{node("ce3a09f6", "sup2", 6700, 6701), node("9fe2f2c1", "sup1", 6700, 6701)}, 4,
			[]Slot{{"9fe2f2c1", 6700}, {"ce3a09f6", 6700}, {"9fe2f2c1", 6701}, {"ce3a09f6", 6701}}},
		{"more free slots first", []Node{node("a", "sup1", 6700), node("b", "sup2", 6700, 6701)}, 3,
			[]Slot{{"b", 6700}, {"a", 6700}, {"b", 6701}}},
		{"no hosts: by id", []Node{node("b", "", 6700), node("a", "", 6700)}, 2,
			[]Slot{{"a", 6700}, {"b", 6700}}},
	} {
		got, err := SpreadSlots(&Cluster{Nodes: tc.nodes}, tc.k)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := SpreadSlots(&Cluster{Nodes: []Node{node("a", "sup1", 6700)}}, 2); err == nil {
		t.Error("2 workers on 1 slot: no error, want the impossible cluster named")
	}
}
