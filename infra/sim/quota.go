package sim

import (
	"cmp"
	"slices"
)

// bandwidth is CFS bandwidth control of a node, as a container's cgroup has it (Docker's --cpus sets
// cpu.max to cores x 100 ms per 100 ms period): the node's threads may use up to quota core-seconds
// in each period, at up to peak cores at once; once a period's quota is used they all wait for the
// next period (the node is throttled). A node at its quota on average therefore works in bursts and
// stalls, and a tuple that arrives in a stall waits for the period's end: the real clusters' latency
// tail at moderate load. Without it the node's cores are a steady capacity.
//
// The workers' overhead threads and the background load are the exception: they run at a steady share
// of the node's cores (cpu.bgRate, cpu.loadRate), and the rest of the threads share the rest of the
// quota in bursts.
//
// The periods are aligned for the whole run (the k-th starts at phase + k x period), as a cgroup's timer
// is; each container's timer starts when its own cgroup does, so nodes may differ in phase
// (Node.QuotaPhase; the container twins draw each node's per run).
// The quota is accounted continuously; the kernel hands it to each CPU in 5 ms slices, which the
// model leaves out.
type bandwidth struct {
	period, peak float64
	cores        float64 // the quota: cores x period core-seconds per period
	phase        float64 // when period 0 starts (the one before it ends then)
	k            int     // the current period (it started at phase + k x period)
	used         float64 // core-seconds the node's threads used in the current period
	throttled    bool
	at           float64 // the next bandwidth event: the quota runs out, or the period ends
	periodEnds   bool    // at is the period's end
	jobAt        float64 // the cpu's next completion, beside at in its timer
	// heldBg and heldLoad are each overhead thread's and the load's cores while throttled: their
	// shares as the quota ran out, cut to what the period's quota has left (hold).
	heldBg, heldLoad float64
}

// newBandwidth is n's bandwidth control, nil when it has none (no period, or a peak that cannot use more
// than its cores in a period anyway).
func newBandwidth(n Node) *bandwidth {
	if n.QuotaPeriod <= 0 || n.Peak <= n.Cores {
		return nil
	}
	b := &bandwidth{period: n.QuotaPeriod, peak: n.Peak, cores: n.Cores, phase: n.QuotaPhase}
	if b.phase > 0 {
		b.k = -1 // the run starts in the period that ends at its phase
	}
	return b
}

// capacity is the cores the node's threads can use now (the overhead's included).
func (b *bandwidth) capacity() float64 {
	if b.throttled {
		return 0
	}
	return b.peak
}

// plan sets the next bandwidth event, with the node's threads using rate cores from now besides the
// steady bg cores (the overhead and the load), for which the period's quota holds what they will use
// at that rate to its end. Their share changes with the node's busy executors, and each change plans
// again; through a stall they keep the share they had as it began (hold), so a period never uses more
// than its quota.
func (b *bandwidth) plan(now, rate, bg float64) {
	b.roll(now)
	end := b.end(b.k)
	b.at, b.periodEnds = end, true
	if b.throttled {
		return
	}
	left := b.cores*b.period - b.used - bg*(end-now)
	switch {
	case left <= 0: // the steady threads alone would overrun it (their share grew): the stall starts now
		b.at, b.periodEnds = now, false
	case rate > 0 && now+left/rate < end:
		b.at, b.periodEnds = now+left/rate, false
	}
}

// roll starts the period now is in, with its whole quota, if the current one has ended: periods that
// passed before the node was first scheduled, or one that ended while another node's change (a shared
// host) moved its timer. The periods are counted up, not divided out, so that a period's end computed as
// end(k) starts period k+1 exactly.
func (b *bandwidth) roll(now float64) {
	if b.end(b.k) > now {
		return
	}
	k := max(b.k+1, int((now-b.phase)/b.period)-1)
	for b.end(k) <= now {
		k++
	}
	b.k, b.used, b.throttled = k, 0, false
}

// end is when period k ends.
func (b *bandwidth) end(k int) float64 { return b.phase + float64(k+1)*b.period }

// event is the bandwidth event at its time: the period ends (a new one starts with its whole quota),
// or the quota runs out.
func (b *bandwidth) event() {
	if b.periodEnds {
		b.k++
		b.used, b.throttled = 0, false
		return
	}
	b.throttled = true
}

// hold keeps the steady threads at their shares of the moment (bg cores each of n overhead threads,
// load for the load) through the stall that starts now. The quota held their use to the period's end
// at the shares it was last planned with; a share that grew since then (an executor finished) is cut
// to what is left, so the period never uses more than its quota.
func (b *bandwidth) hold(now, bg, n, load float64) {
	scale := 1.0
	if want := (bg*n + load) * (b.end(b.k) - now); want > 0 {
		scale = min(1, max(0, b.cores*b.period-b.used)/want)
	}
	b.heldBg, b.heldLoad = bg*scale, load*scale
}

// rehold takes a change of the steady threads in a stall (overhead threads added or removed, the load
// lowered) into their held shares: each overhead thread keeps its share, the load at most its new
// level, all cut to what the period's quota has left.
func (c *cpu) rehold() {
	if c.bw == nil || !c.bw.throttled {
		return
	}
	c.bw.hold(c.eng.now, c.bw.heldBg, float64(c.bg), min(c.bw.heldLoad, c.load))
}

// totalRate is the cores the node's threads use now: executors, overhead threads, spinners and the
// background load, all of which the node's quota counts.
func (c *cpu) totalRate() float64 {
	r := c.loadRate() + c.bgRate()*float64(c.bg) + c.spinRate()*float64(len(c.spinners))
	if len(c.jobs) > 0 {
		r += c.rate() * float64(len(c.jobs))
	}
	return r
}

// bandwidthDue is whether the cpu's timer fired for its bandwidth control rather than a completion.
func (c *cpu) bandwidthDue() bool { return c.bw != nil && c.bw.at <= c.bw.jobAt }

// onBandwidth handles a bandwidth event: the node's capacity changes, so its rates do.
func (c *cpu) onBandwidth() {
	c.advance()
	bg, load := c.bgRate(), c.loadRate()
	c.bw.event()
	if c.bw.throttled {
		c.bw.hold(c.eng.now, bg, float64(c.bg), load)
	}
	c.cores = c.bw.capacity()
	c.schedule()
}

// host is a machine that nodes under a quota share (Node.Host), as this project's containers share the
// machine they run on: while several burst at once they compete for its cores. Between cgroups of equal
// weight (Docker gives every container cpu.shares 1024) CFS gives each runnable one an equal share, one
// that wants less leaving the rest to the others: the cores are water-filled over the nodes' demands.
// Any node's change moves the others' shares, so each change reschedules every node of the host (a
// handful on a container cluster).
type host struct {
	cores float64
	nodes []*cpu
}

// reschedule brings the host's nodes up to now at their old shares, shares the cores again and moves
// every node's timer.
func (h *host) reschedule() {
	for _, c := range h.nodes {
		c.advance()
		c.bw.roll(c.eng.now)
	}
	h.share()
	for _, c := range h.nodes {
		c.scheduleOne()
	}
}

// share sets each node's cores of the moment: nothing while throttled, else its water-filled share of
// the host's cores over the demands of the nodes not throttled.
func (h *host) share() {
	type want struct {
		c *cpu
		d float64
	}
	var ws []want
	for _, c := range h.nodes {
		if c.bw.throttled {
			c.cores = 0
			continue
		}
		ws = append(ws, want{c, min(c.bw.peak, c.demand())})
	}
	slices.SortFunc(ws, func(a, b want) int { return cmp.Compare(a.d, b.d) })
	left := h.cores
	for i, w := range ws {
		fair := left / float64(len(ws)-i)
		w.c.cores = min(w.d, fair)
		left -= w.c.cores
	}
}

// demand is the cores the node's threads would use with as many as they like: its busy executors a core
// each, its spinners and overhead threads their caps (the overhead its steady share under a quota), the
// load what it asks.
func (c *cpu) demand() float64 {
	return float64(len(c.jobs)) + float64(len(c.spinners))*c.spinCapAt(len(c.jobs), c.bw.peak) + c.steady()
}
