package whatif

import (
	"fmt"
	"strings"

	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// FromPlacement turns a running placement (vertex ID -> worker "host:port", as a captured graph file
// holds it: see topologies.Captured) into the current placement on cluster c, for Question.Current
// and Question.CurrentNodes.
//
// Nodes are matched by host name: a worker's host is the node whose ID equals it, else whose Host
// equals it, else whose ID or Host has the same first DNS label, case-insensitively ("sup1" matches
// "SUP1.lab.example"); a host that matches no node, or more than one, is an error naming the nodes.
// nodes[v] is the node of the vertex at index v. cur is the placement as an Assignment when every
// worker is a slot of c (a node with that port); otherwise it is nil and only nodes are known (moves
// are then counted by node, and schedulers do not see the current placement).
func FromPlacement(g *topologies.Graph, c *schedulers.Cluster, p topologies.Placement) (cur *schedulers.Assignment, nodes []string, err error) {
	nodes = make([]string, g.N())
	slotOf := map[schedulers.Slot]int{}
	cur = &schedulers.Assignment{Executors: make([]int, g.N())}
	onCluster := true
	for i, v := range g.Vertices {
		w, ok := p[v.ID]
		if !ok {
			return nil, nil, fmt.Errorf("the placement lacks vertex %d: it must place every vertex", v.ID)
		}
		host, port, err := topologies.SplitWorker(w)
		if err != nil {
			return nil, nil, err
		}
		n, err := matchNode(c, host)
		if err != nil {
			return nil, nil, err
		}
		nodes[i] = n.ID
		s := schedulers.Slot{Node: n.ID, Port: port}
		if !hasPort(n, port) {
			onCluster = false
		}
		k, ok := slotOf[s]
		if !ok {
			k = len(cur.Workers)
			slotOf[s] = k
			cur.Workers = append(cur.Workers, s)
		}
		cur.Executors[i] = k
	}
	if !onCluster {
		cur = nil
	}
	return cur, nodes, nil
}

func hasPort(n *schedulers.Node, port int) bool {
	for _, p := range n.Ports {
		if p == port {
			return true
		}
	}
	return false
}

// matchNode finds host's node (see FromPlacement).
func matchNode(c *schedulers.Cluster, host string) (*schedulers.Node, error) {
	for _, exact := range []bool{true, false} {
		var found []*schedulers.Node
		for i := range c.Nodes {
			n := &c.Nodes[i]
			if sameHost(host, n.ID, exact) || n.Host != "" && sameHost(host, n.Host, exact) {
				found = append(found, n)
			}
		}
		if len(found) == 1 {
			return found[0], nil
		}
		if len(found) > 1 {
			return nil, fmt.Errorf("placement host %s matches several nodes (%s): name the nodes by their full host names", host, nodeIDs(found))
		}
	}
	all := make([]*schedulers.Node, len(c.Nodes))
	for i := range c.Nodes {
		all[i] = &c.Nodes[i]
	}
	return nil, fmt.Errorf("placement host %s is no node of the cluster (nodes: %s): compare on the cluster the topology ran on", host, nodeIDs(all))
}

func sameHost(a, b string, exact bool) bool {
	if exact {
		return a == b
	}
	la, _, _ := strings.Cut(a, ".")
	lb, _, _ := strings.Cut(b, ".")
	return strings.EqualFold(la, lb)
}

func nodeIDs(ns []*schedulers.Node) string {
	ids := make([]string, len(ns))
	for i, n := range ns {
		ids[i] = n.ID
	}
	return strings.Join(ids, ", ")
}

// movedNodes counts the vertices a places on another node than nodes says.
func movedNodes(a *schedulers.Assignment, nodes []string) int {
	m := 0
	for v, n := range nodes {
		if a.NodeOf(v) != n {
			m++
		}
	}
	return m
}
