package topologies

import "testing"

// TestMaxSpoutPending: the limit TopologySetup (topologies/storm/.../TopologySetup.java) sets, per spout
// task, for the flags a run gives.
func TestMaxSpoutPending(t *testing.T) {
	const chain = "org.stormlab.topologies.ThroughputTopology"
	for _, tc := range []struct {
		name  string
		class string
		args  []string
		limit int
		known bool
	}{
		{"closed loop, default", chain, []string{"--workers", "4"}, DefaultMaxSpoutPending, true},
		{"closed loop, given", chain, []string{"--max-spout-pending", "50"}, 50, true},
		{"the last counts", chain, []string{"--max-spout-pending", "50", "--max-spout-pending=70"}, 70, true},
		{"zero is none", chain, []string{"--max-spout-pending", "0"}, 0, true},
		{"open loop: none", chain, []string{"--rate", "500"}, 0, true},
		{"open loop, given", chain, []string{"--rate", "500", "--max-spout-pending", "200"}, 200, true},
		{"a paced spout is closed loop", chain, []string{"--interval-ms", "5"}, DefaultMaxSpoutPending, true},
		{"a replay is open loop", ReplayClass, nil, 0, true},
		{"a user's topology", "com.example.Mine", []string{"--max-spout-pending", "50"}, 0, false},
		{"not a number", chain, []string{"--max-spout-pending", "many"}, 0, false},
	} {
		limit, known := MaxSpoutPending(tc.class, tc.args)
		if limit != tc.limit || known != tc.known {
			t.Errorf("%s: %d, %v; want %d, %v", tc.name, limit, known, tc.limit, tc.known)
		}
	}
}
