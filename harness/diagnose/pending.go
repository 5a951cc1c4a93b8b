package diagnose

import (
	"fmt"
	"strings"
)

// PendingFull is the share of the spouts' pending limit in flight at which a closed loop is held by it.
const PendingFull = 0.90

// Pending is a closed loop's tuple trees in flight against the spouts' limit. Storm does not report
// the spouts' pending counts, so they come from Little's law: trees in flight = acked trees per second
// x their mean complete latency. That is a lower bound of the trees pending at the spouts: Storm's
// acker times a tree from the first message of it that the acker executes to its last (Acker.java),
// so a tree's wait before that first message and its ack's way back to the spout are not in it. At
// PendingFull or more the spouts are at their limit; below, they may be or not (the step is unknown).
type Pending struct {
	InFlight float64 `json:"in_flight"`
	Limit    int     `json:"limit"` // topology.max.spout.pending x spout tasks
	Share    float64 `json:"share"` // InFlight / Limit
}

// pending reads in's spouts' pending limit, nil where it cannot: a limit not known (a user's topology),
// none (open loop), no acked tree with a latency, or no spout task found.
func pending(in Input) *Pending {
	if in.MaxPending <= 0 || !(in.Throughput > 0) || !(in.LatencyMeanMs > 0) {
		return nil
	}
	n := spoutTasks(in)
	if n == 0 {
		return nil
	}
	p := &Pending{InFlight: in.Throughput * in.LatencyMeanMs / 1000, Limit: n * in.MaxPending}
	p.Share = p.InFlight / float64(p.Limit)
	return p
}

// spoutTasks counts the tasks that send tuples and receive none (the ackers' messages to the spouts are
// not in the reports' traffic): the spouts. Storm's own executors are left out.
func spoutTasks(in Input) int {
	src, dst := map[int]bool{}, map[int]bool{}
	for _, r := range in.Reports {
		for _, t := range r.Traffic {
			src[t.Src], dst[t.Dst] = true, true
		}
	}
	n := 0
	for task := range src {
		if t, ok := in.Tasks[task]; ok && !dst[task] && !strings.HasPrefix(t.Component, "__") {
			n++
		}
	}
	return n
}

// pendingText is the pending-limit step's bottleneck: "spouts at their pending limit: 950 of 1000 trees
// in flight (10000 trees/s x 95.0 ms)".
func pendingText(p *Pending, in Input) string {
	return fmt.Sprintf("spouts at their pending limit: %.0f of %d trees in flight (%.0f trees/s x %.1f ms)", p.InFlight, p.Limit, in.Throughput, in.LatencyMeanMs)
}

// pendingRead says whether the pending-limit step could be judged: the spouts at their limit (the lower
// bound reaches it), or no limit (open loop).
func pendingRead(in Input, d Diagnosis) bool {
	return (d.Pending != nil && d.Pending.Share >= PendingFull) || (in.PendingKnown && in.MaxPending <= 0)
}
