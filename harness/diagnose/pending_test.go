package diagnose

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// withSpouts is base with spouts tasks of "sentence" (tasks 10, 11, ...) on sup1 sending to split (1),
// split to count (2), and every one acking to the acker (3): the spouts are the tasks that only send.
func withSpouts(spouts int) Input {
	in := base()
	traffic := []protocol.TaskTraffic{{Src: 1, Dst: 2, Count: 10}, {Src: 1, Dst: 3, Count: 5}, {Src: 2, Dst: 3, Count: 5}}
	for i := range spouts {
		in.Tasks[10+i] = Task{"sentence", "sup1", 6700}
		traffic = append(traffic, protocol.TaskTraffic{Src: 10 + i, Dst: 1, Count: 10}, protocol.TaskTraffic{Src: 10 + i, Dst: 3, Count: 5})
	}
	for i := range in.Reports {
		if in.Reports[i].Host == "sup1" {
			in.Reports[i].Traffic = traffic
		}
	}
	in.MaxPending, in.PendingKnown = 1000, true
	return in
}

// TestPendingLimit: trees in flight by Little's law against the spouts' limit (a lower bound: at 90% of
// the limit or more the spouts are at it, below it the step is unknown), and the step of the precedence
// it decides. Reference figures by hand: 10,000 trees/s x 95 ms = 950 trees in flight, of
// 1 spout task x 1,000 (share 0.95); x 54.2 ms = 542 (0.542); 2 spout tasks: a limit of 2,000.
func TestPendingLimit(t *testing.T) {
	for _, tc := range []struct {
		name      string
		spouts    int
		edit      func(*Input)
		inFlight  float64 // NaN: not read
		limit     int
		rule      string
		want      string
		unknownOK bool // the pending limit not among the unknown steps
	}{
		{"at the limit", 1, func(in *Input) { in.Throughput, in.LatencyMeanMs = 10000, 95 }, 950, 1000,
			"pending limit", "spouts at their pending limit: 950 of 1000 trees in flight (10000 trees/s x 95.0 ms)", true},
		// A lower bound below the limit: the spouts may be at it or not.
		{"below it", 1, func(in *Input) { in.Throughput, in.LatencyMeanMs = 10000, 54.2 }, 542, 1000,
			"none found", "not read: host starvation, pending limits, links, transfer threads)", false},
		{"two spout tasks", 2, func(in *Input) { in.Throughput, in.LatencyMeanMs = 10000, 95 }, 950, 2000, "none found", "none found", false},
		{"a full node first", 1, func(in *Input) { in.Throughput, in.LatencyMeanMs, in.NodeCPU["sup2"] = 10000, 95, 49 }, 950, 1000,
			"node at its quota", "sup2 CPU 98% of 0.50 core", true},
		{"open loop: no limit", 1, func(in *Input) { in.Throughput, in.LatencyMeanMs, in.MaxPending = 10000, 95, 0 }, math.NaN(), 0,
			"none found", "not read: host starvation, links, transfer threads)", true},
		{"a user's topology", 1, func(in *Input) { in.Throughput, in.LatencyMeanMs, in.MaxPending, in.PendingKnown = 10000, 95, 0, false }, math.NaN(), 0,
			"none found", "not read: host starvation, pending limits, links, transfer threads)", false},
		{"no latency measured", 1, func(in *Input) { in.Throughput = 10000 }, math.NaN(), 0,
			"none found", "pending limits", false},
		{"no traffic reported", 1, func(in *Input) {
			in.Throughput, in.LatencyMeanMs = 10000, 95
			for i := range in.Reports {
				in.Reports[i].Traffic = nil
			}
		}, math.NaN(), 0,
			"none found", "pending limits", false},
	} {
		in := withSpouts(tc.spouts)
		tc.edit(&in)
		d := Run(in)
		switch p := d.Pending; {
		case math.IsNaN(tc.inFlight) != (p == nil):
			t.Errorf("%s: pending %+v, want in flight %v", tc.name, p, tc.inFlight)
		case p != nil && (math.Abs(p.InFlight-tc.inFlight) > 1e-9 || p.Limit != tc.limit || math.Abs(p.Share-tc.inFlight/float64(tc.limit)) > 1e-12):
			t.Errorf("%s: pending %+v, want %v of %d", tc.name, p, tc.inFlight, tc.limit)
		}
		if d.Rule != tc.rule || !strings.Contains(d.Bottleneck, tc.want) {
			t.Errorf("%s: rule %q, bottleneck %q; want %q containing %q", tc.name, d.Rule, d.Bottleneck, tc.rule, tc.want)
		}
		if slices.Contains(d.Unknown, unreadPending) == tc.unknownOK {
			t.Errorf("%s: unknown %v: the pending limit named unknown exactly when it was not read", tc.name, d.Unknown)
		}
	}
}
