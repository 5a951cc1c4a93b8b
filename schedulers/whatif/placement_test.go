package whatif

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// TestFromPlacement: hosts match node ids exactly, then node hosts, then by first DNS label; a
// placement on the cluster's slots is an Assignment, one on other ports is known by node only.
func TestFromPlacement(t *testing.T) {
	g := chain4() // vertices 0..3
	c := schedulers.Cluster{Nodes: []schedulers.Node{
		{ID: "n1", CPU: 100, Ports: []int{6700, 6701}},
		{ID: "n2", Host: "sup2.lab.example", CPU: 100, Ports: []int{6700}},
		{ID: "SUP3.lab.example", CPU: 100, Ports: []int{6700}},
	}}
	cur, nodes, err := FromPlacement(g, &c, topologies.Placement{0: "n1:6700", 1: "n1:6701", 2: "sup2.lab.example:6700", 3: "sup3:6700"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"n1", "n1", "n2", "SUP3.lab.example"}; strings.Join(nodes, ",") != strings.Join(want, ",") {
		t.Errorf("nodes %v, want %v", nodes, want)
	}
	if cur == nil || len(cur.Workers) != 4 || cur.Validate(g, &c) != nil {
		t.Fatalf("current %+v: want a valid assignment on 4 workers", cur)
	}
	// Moved against it: everything on n1's first slot moves vertices 2 and 3.
	a := &schedulers.Assignment{Workers: []schedulers.Slot{{Node: "n1", Port: 6700}}, Executors: []int{0, 0, 0, 0}}
	if m := Measure(g, &c, a, cur).Moved; m != 2 {
		t.Errorf("moved %d, want 2", m)
	}
	if m := movedNodes(a, nodes); m != 2 {
		t.Errorf("moved by node %d, want 2", m)
	}
	// A port the cluster does not have: no assignment, nodes still known.
	cur, nodes, err = FromPlacement(g, &c, topologies.Placement{0: "n1:6800", 1: "n1:6700", 2: "n2:6700", 3: "n2:6700"})
	if err != nil || cur != nil || nodes[0] != "n1" {
		t.Errorf("unknown port: current %v nodes %v err %v; want no assignment, nodes known", cur, nodes, err)
	}
	for _, x := range []struct {
		p    topologies.Placement
		want string
	}{
		{topologies.Placement{0: "n1:6700", 1: "n1:6700", 2: "n1:6700"}, "lacks vertex 3"},
		{topologies.Placement{0: "zz:6700", 1: "n1:6700", 2: "n1:6700", 3: "n1:6700"}, "placement host zz is no node of the cluster (nodes: n1, n2, SUP3.lab.example)"},
		{topologies.Placement{0: "n1", 1: "n1:6700", 2: "n1:6700", 3: "n1:6700"}, "want host:port"},
	} {
		if _, _, err := FromPlacement(g, &c, x.p); err == nil || !strings.Contains(err.Error(), x.want) {
			t.Errorf("%v: error %v, want %q", x.p, err, x.want)
		}
	}
	twins := schedulers.Cluster{Nodes: []schedulers.Node{{ID: "a.x", CPU: 1, Ports: []int{1}}, {ID: "a.y", CPU: 1, Ports: []int{1}}}}
	if _, _, err := FromPlacement(&topologies.Graph{Vertices: []topologies.Vertex{{ID: 0}}}, &twins, topologies.Placement{0: "a:1"}); err == nil || !strings.Contains(err.Error(), "matches several nodes") {
		t.Errorf("ambiguous host: error %v", err)
	}
}
