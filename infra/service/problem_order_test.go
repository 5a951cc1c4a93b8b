package service

import (
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// TestBuildClusterOrder: the schedulers see the supervisors by host, then id, whatever their ids, which
// Storm draws anew on every supervisor start (the ids are two starts' of heterogeneous-2 containers, the
// quick sim-validation, 2026-12-05: one start's sorted as the hosts, the other's not).
func TestBuildClusterOrder(t *testing.T) {
	sup := func(id, host string) protocol.Supervisor {
		return protocol.Supervisor{ID: id, Host: host, Ports: []int{6700}, FreePorts: []int{6700}}
	}
	for _, sups := range [][]protocol.Supervisor{
		{sup("9fe2f2c1", "sup1"), sup("ce3a09f6", "sup2")},
		{sup("27c73f64", "sup1"), sup("1b2b777e", "sup2")},
		{sup("1b2b777e", "sup2"), sup("27c73f64", "sup1")},
	} {
		c := buildCluster(&protocol.Topology{}, sups)
		if len(c.Nodes) != 2 || c.Nodes[0].Host != "sup1" || c.Nodes[1].Host != "sup2" {
			t.Errorf("supervisors %v: nodes %v, want sup1 then sup2", sups, c.Nodes)
		}
	}
}
