package diagnose

import (
	"fmt"
	"strings"

	"github.com/stormlab/stormlab/infra/protocol"
)

// AppliedShort is how far below its level a load may be applied before the run is suspect: a burner
// that used less than 1 - AppliedShort of the cores asked did not put the node under the load the run
// claims.
const AppliedShort = 0.10

// burnerLagMs is how long after a burner is switched on its reports are not counted: it polls its
// level every 500 ms and reports every 2 s, so its first report after the switch still holds idle time.
const burnerLagMs = 2_500

// Applied is the load one burner carried on a node, against the load asked of it.
type Applied struct {
	Host  string  `json:"host"`
	Kind  string  `json:"kind"`        // the fault kind that asked for it ("straggler")
	Asked float64 `json:"asked_cores"` // cores of busy looping asked
	// Used is the burner worker's own process CPU over the load's span, mean of its reports (nil: no
	// report in the span, unknown).
	Used    *float64 `json:"used_cores,omitempty"`
	Reports int      `json:"reports"`
}

// BurnerCPU is the mean process CPU (cores) of the workers of the topologies whose id starts with
// idPrefix over the reports in (fromMs + burnerLagMs, toMs], and how many reports that is.
func BurnerCPU(tops []protocol.TopologyState, idPrefix string, fromMs, toMs int64) (cores float64, n int) {
	sum := 0.0
	for _, t := range tops {
		if !strings.HasPrefix(t.ID, idPrefix) {
			continue
		}
		for _, w := range t.WorkerCPU {
			if w.TimeMs > fromMs+burnerLagMs && w.TimeMs <= toMs {
				sum, n = sum+w.CPUPercent/100, n+1
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// ShortText is one text per load applied more than AppliedShort below its level ("straggler on sup1
// applied 0.03 of 0.40 cores asked (8%)"), the form of the run's suspect reason; a load whose use is
// unknown says so.
func ShortText(as []Applied) []string {
	var out []string
	for _, a := range as {
		switch {
		case a.Used == nil:
			out = append(out, fmt.Sprintf("%s on %s: the load applied is unknown (no report of its burner in the span)", a.Kind, a.Host))
		case *a.Used < (1-AppliedShort)*a.Asked:
			out = append(out, fmt.Sprintf("%s on %s applied %.2f of %.2f cores asked (%.0f%%)", a.Kind, a.Host, *a.Used, a.Asked, 100**a.Used/a.Asked))
		}
	}
	return out
}
