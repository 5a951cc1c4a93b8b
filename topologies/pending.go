package topologies

import (
	"slices"
	"strconv"
	"strings"
)

// DefaultMaxSpoutPending is TopologySetup's default --max-spout-pending (per spout task).
const DefaultMaxSpoutPending = 1000

// MaxSpoutPending is the topology.max.spout.pending (per spout task; 0: none) that one of the project's
// main classes (StormMains, ReplayClass) sets for args, as TopologySetup does: --max-spout-pending
// (default DefaultMaxSpoutPending, 0 or less: none), left unset in open loop (--rate, and every replay)
// unless given. The last of a repeated flag counts, as in the Java parser. known is false for any other
// class (a user's topology sets its own, which the harness does not see).
func MaxSpoutPending(class string, args []string) (limit int, known bool) {
	if class != ReplayClass && !slices.ContainsFunc(StormMains(), func(m StormMain) bool { return m.Class == class }) {
		return 0, false
	}
	given, open := "", class == ReplayClass
	for i := 0; i < len(args); i++ {
		k, v, eq := strings.Cut(args[i], "=")
		if !eq && i+1 < len(args) && (k == "--max-spout-pending" || k == "--rate") {
			v = args[i+1]
			i++
		}
		switch k {
		case "--max-spout-pending":
			given = v
		case "--rate":
			open = true
		}
	}
	if given == "" {
		if open {
			return 0, true
		}
		return DefaultMaxSpoutPending, true
	}
	n, err := strconv.Atoi(given)
	if err != nil {
		return 0, false // the Java main refuses it: no run to read
	}
	return max(0, n), true
}
