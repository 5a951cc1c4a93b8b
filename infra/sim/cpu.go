package sim

import (
	"math"
	"slices"
)

// cpu is a node's cores under egalitarian processor sharing: the executors in service share the cores
// equally and one executor (one thread) uses at most one core, so n busy executors on c cores each
// progress at min(1, c/n) of a core. Work is in CPU seconds of the reference machine; speed scales it.
// A cpu is its own timer in the engine (next, idx): one entry per node, moved when its jobs change,
// rather than one event per change.
//
// Since every job in service progresses at the same rate, the cpu keeps one virtual clock v (the
// core-seconds each job in service has received) and its jobs in a heap by the virtual time they end
// (vend): a job's arrival, departure or the next completion costs O(log n), not a pass over every job.
type cpu struct {
	eng   *engine
	cores float64
	speed float64
	jobs  jobHeap // the executors in service, by vend (then by start)
	v     float64 // virtual clock: core-seconds each job in service has received; reset when idle
	seq   uint64  // jobs started, the tie-break of equal vend
	last  float64 // when v and the integrals were last brought up to date
	busy  float64 // integral of cores in use over time (core-seconds)
	next  float64 // time of the next completion; +Inf when idle
	idx   int     // position in the engine's timer heap
	done  func(*executor)
	// bg workers' overhead threads (JVM, transfer, reporter) are always runnable, each wanting at most
	// bgCap cores: they share the cores with the executors (water-filling: capped at bgCap, equal
	// shares otherwise).
	bg     int
	bgCap  float64
	bgBusy float64 // integral of the overhead's cores over time
	// load is background load on the node (burners, stragglers). The harness's burners run their
	// threads at nice -20 (CFS weight 88761 against the workers' 1024), so the load takes what it
	// asks, up to the node's cores, and the workers' threads share the rest; loadBusy is its integral.
	load     float64
	loadBusy float64
	// spinners are the idle executors on the node whose thread spins in Storm's wait strategy
	// (Config.IdleSpin), each wanting at most spinCap cores; sv is the core-seconds each has received
	// (the same for all, as v is for the jobs), spinBusy its integral over the node.
	spinners  []*executor
	spinCap   float64
	spinShare float64 // Config.IdleSpinShare
	sv        float64
	// idleQ[idleHead:] are the spells of spinning that may end in sleep (sleep.go), oldest first, each
	// spinFor core-seconds long (0: spinners spin while idle); sleepAt is when the oldest live one ends.
	idleQ    []idleEntry
	idleHead int
	spinFor  float64
	sleepAt  float64
	ended    []*executor // complete's scratch
	// lv is level by the number of jobs, for lvKey's workers and load: it is asked several times per
	// event, the number of jobs changes on nearly every one, the rest seldom.
	lv    []float64
	lvKey levelKey
	// bw is the node's CPU bandwidth control (a container's quota), nil for none: cores is then its
	// capacity of the moment (its peak or its share of its host's cores, or 0 while throttled).
	bw   *bandwidth
	host *host // the machine it shares with other nodes under a quota (Node.Host), nil for none
}

type levelKey struct {
	bg          int
	bgCap, load float64
}

// level is the water-filling level of the node's threads beside the load: each gets min(its cap,
// level) of the cores the load leaves, executors capped at one core, overhead threads at bgCap; +Inf
// when every thread gets its cap.
func (c *cpu) level() float64 {
	if c.bw != nil { // bursts: the executors, spinners and load share what the overhead leaves
		return c.fillOf(len(c.jobs), c.capacity(), 0, 0)
	}
	if len(c.spinners) > 0 { // the spinners change with nearly every event: no cache
		return c.fill(len(c.jobs))
	}
	if c.bg == 0 || c.bgCap <= 0 { // executors alone beside the load: equal shares of what it leaves
		return (c.cores - c.loadRate()) / float64(max(1, len(c.jobs)))
	}
	if k := (levelKey{c.bg, c.bgCap, c.load}); k != c.lvKey { // cores change only under a quota, which has no cache
		c.lv, c.lvKey = c.lv[:0], k
	}
	for len(c.lv) <= len(c.jobs) {
		c.lv = append(c.lv, c.fill(len(c.lv)))
	}
	return c.lv[len(c.jobs)]
}

// fill is level's water-filling over the executors, the overhead threads and the spinners, with jobs
// executors in service, of the cores the load leaves.
func (c *cpu) fill(jobs int) float64 { return c.fillOf(jobs, c.cores, c.bg, c.loadFor(jobs, c.cores)) }

// fillOf is fill of cores less load, with bg overhead threads among the threads (0: none).
func (c *cpu) fillOf(jobs int, cores float64, bg int, load float64) float64 {
	type group struct{ n, cap float64 }
	// No allocation; the groups by cap, smallest first.
	gs := [3]group{{float64(jobs), 1}, {float64(bg), c.bgCap}, {float64(len(c.spinners)), c.spinCapAt(jobs, cores-load)}}
	for i := 1; i < len(gs); i++ {
		for j := i; j > 0 && gs[j].cap < gs[j-1].cap; j-- {
			gs[j], gs[j-1] = gs[j-1], gs[j]
		}
	}
	left, n := cores-load, gs[0].n+gs[1].n+gs[2].n
	for _, g := range gs {
		if g.n == 0 {
			continue
		}
		if g.cap*n <= left {
			left -= g.cap * g.n
			n -= g.n
			continue
		}
		return left / n
	}
	return math.Inf(1)
}

// rate is each busy executor's share of a core.
func (c *cpu) rate() float64 {
	if len(c.jobs) == 0 {
		return 0
	}
	return min(1, c.level())
}

// spinRate is each spinner's share.
func (c *cpu) spinRate() float64 {
	if len(c.spinners) == 0 {
		return 0
	}
	return min(c.spinCapAt(len(c.jobs), c.capacity()), c.level())
}

// spinCapAt is what each spinner wants beside jobs executors at work on cores: its cap, and where the
// node is short of cores (a quota, or more wanted than cores) with any at work, at most its part of a
// demand D that leaves the spinners about IdleSpinShare (s) of what the node's threads get: D = s/(1-s)
// x jobs while the jobs get a core each (a quota's burst), s x cores where they share them.
func (c *cpu) spinCapAt(jobs int, cores float64) float64 {
	n := float64(len(c.spinners))
	if c.spinShare <= 0 || jobs == 0 || n == 0 || c.bw == nil && float64(jobs)+n*c.spinCap <= cores {
		return c.spinCap
	}
	d := min(c.spinShare/(1-c.spinShare)*float64(jobs), c.spinShare*cores)
	return min(c.spinCap, d/n)
}

// bgRate is each overhead thread's share. Under a quota it is steady, the share the node's average
// cores give it, bursts and stalls alike: the overhead is work the worker has to do (its garbage, its
// messages), which a stall delays but does not remove, where a thread that took its share of each burst
// would do less of it the shorter the bursts.
func (c *cpu) bgRate() float64 {
	if c.bg == 0 || c.bgCap <= 0 {
		return 0
	}
	if c.bw != nil && c.bw.throttled {
		return c.bw.heldBg
	}
	if c.bw != nil {
		return min(c.bgCap, c.fillOf(len(c.jobs), c.bw.cores, c.bg, c.loadRate()))
	}
	return min(c.bgCap, c.level())
}

// capacity is the cores the executors, spinners and load share now: the node's (under a quota, its peak,
// its share of its host or nothing, less the steady shares of the overhead and the load).
func (c *cpu) capacity() float64 {
	if c.bw == nil {
		return c.cores
	}
	return max(0, c.cores-c.steady())
}

// steady is, under a quota, the cores of the threads that run at a steady share rather than in bursts:
// the workers' overhead and the background load.
func (c *cpu) steady() float64 { return float64(c.bg)*c.bgRate() + c.loadRate() }

// Weights of CFS (sched_prio_to_weight): a thread at nice -20, as the burners' are, and at nice 0.
const (
	weightNice20 = 88761
	weightNice0  = 1024
)

// loadRate is the cores the background load gets now (loadFor). Under a quota it is steady, the share
// the node's average cores give it, as the overhead's (bgRate): the burners carried their level on
// containers at their quota (0.25-0.26 cores of 0.25 beside saturated workers), their busy time
// delayed by a stall rather than lost.
func (c *cpu) loadRate() float64 {
	if c.load <= 0 {
		return 0
	}
	if c.bw != nil && c.bw.throttled {
		return c.bw.heldLoad
	}
	if c.bw != nil {
		return c.loadFor(len(c.jobs), c.bw.cores)
	}
	return c.loadFor(len(c.jobs), c.cores)
}

// loadFor is the cores the background load gets beside jobs executors in service: what it asks, up to
// what its ceil(load) threads' weight gives them beside the node's other runnable threads when the
// cores do not suffice.
func (c *cpu) loadFor(jobs int, cores float64) float64 {
	if c.load <= 0 {
		return 0
	}
	kw := math.Ceil(c.load) * weightNice20
	others := float64(jobs+c.bg+len(c.spinners)) * weightNice0
	return min(c.load, cores*kw/(kw+others))
}

// advance brings the virtual clock and the busy integrals up to now.
func (c *cpu) advance() {
	dt := c.eng.now - c.last
	if dt > 0 && c.bw != nil {
		c.bw.used += dt * c.totalRate()
	}
	if dt > 0 && c.bg > 0 {
		o := dt * c.bgRate() * float64(c.bg)
		c.bgBusy += o
		c.busy += o
	}
	if dt > 0 && c.load > 0 {
		c.loadBusy += dt * c.loadRate()
	}
	if dt > 0 && len(c.spinners) > 0 {
		r := c.spinRate()
		c.sv += dt * r
		c.busy += dt * r * float64(len(c.spinners))
	}
	if dt > 0 && len(c.jobs) > 0 {
		r := c.rate()
		c.v += dt * r
		c.busy += dt * r * float64(len(c.jobs))
	}
	c.last = c.eng.now
}

// charge adds to e's CPU tally what its job received since it was last charged.
func (c *cpu) charge(e *executor) {
	e.tally.cpu += c.v - e.vmark
	e.vmark = c.v
}

// flush brings every job's and spinner's CPU tally up to now.
func (c *cpu) flush() {
	c.advance()
	for _, e := range c.jobs {
		c.charge(e)
	}
	for _, e := range c.spinners {
		c.chargeSpin(e)
	}
}

// chargeSpin adds to e's CPU tally, as spinning, what its spinning used since it was last charged.
func (c *cpu) chargeSpin(e *executor) {
	d := c.sv - e.smark
	e.tally.cpu += d
	e.tally.spin += d
	e.smark = c.sv
}

// spin makes idle executor e a spinner of the node (its thread in Storm's wait strategy).
func (c *cpu) spin(e *executor) {
	c.advance()
	e.spin, e.smark, e.sidx = c, c.sv, len(c.spinners)
	c.spinners = append(c.spinners, e)
	c.spinning(e)
	c.schedule()
}

// unspin ends e's spinning, charging its thread what the spinning used.
func (c *cpu) unspin(e *executor) {
	c.advance()
	c.chargeSpin(e)
	last := c.spinners[len(c.spinners)-1]
	c.spinners[e.sidx], last.sidx = last, e.sidx
	c.spinners[len(c.spinners)-1] = nil
	c.spinners = c.spinners[:len(c.spinners)-1]
	e.spin = nil
	c.schedule()
}

// run starts e's job of work core-seconds (of the reference machine); c.done(e) is called when it ends.
func (c *cpu) run(e *executor, work float64) {
	c.advance()
	if len(c.jobs) == 0 {
		c.v = 0 // keep the virtual clock small, and its resolution fine
	}
	c.seq++
	e.vend, e.vmark, e.jseq, e.on = c.v+work/c.speed, c.v, c.seq, c
	c.jobs.push(e)
	c.schedule()
}

// schedule moves the cpu's timer to its next completion, and those of the nodes sharing its host, whose
// share of the host's cores its change moves.
func (c *cpu) schedule() {
	if c.host != nil {
		c.host.reschedule()
		return
	}
	c.scheduleOne()
}

// scheduleOne moves the cpu's timer to its next completion at its cores of the moment.
func (c *cpu) scheduleOne() {
	c.next = math.Inf(1)
	if len(c.jobs) > 0 {
		switch left, r := max(0, c.jobs[0].vend-c.v), c.rate(); {
		case left == 0:
			c.next = c.eng.now
		case r > 0: // none while throttled
			c.next = c.eng.now + left/r
		}
	}
	if c.bw != nil {
		c.bw.jobAt = c.next
		st := c.steady()
		c.bw.plan(c.eng.now, c.totalRate()-st, st)
		c.next = min(c.next, c.bw.at)
	}
	c.sleepAt = math.Inf(1)
	if c.spinFor > 0 {
		c.sleepAt = c.nextSleep()
		c.next = min(c.next, c.sleepAt)
	}
	c.eng.moved(c)
}

// complete ends the jobs whose work is done (the first in the heap, whose time this is, and any
// within rounding of it), then calls done for each in the order they started.
func (c *cpu) complete() {
	const eps = 1e-12
	c.advance()
	if c.spinFor > 0 && c.sleepAt <= c.eng.now { // spinners' spells end: a completion or quota event at the same time comes next
		c.sleepers()
		return
	}
	// A job that ends as its node's quota runs out used its CPU within the quota: it ends first (the
	// bandwidth event comes due again at once), whichever the rounding of the two times put first.
	if c.bandwidthDue() && !(len(c.jobs) > 0 && c.jobs[0].vend-c.v <= eps) {
		c.onBandwidth()
		return
	}
	done := c.ended[:0]
	for len(c.jobs) > 0 && (len(done) == 0 || c.jobs[0].vend-c.v <= eps) {
		e := c.jobs.pop()
		c.charge(e)
		done = append(done, e)
	}
	if len(done) > 1 {
		slices.SortFunc(done, func(a, b *executor) int { return cmpSeq(a.jseq, b.jseq) })
	}
	c.schedule()
	for i, e := range done {
		done[i] = nil
		e.on = nil
		c.done(e)
	}
	c.ended = done[:0]
}

func cmpSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// usage is the core-seconds used up to now.
func (c *cpu) usage() float64 {
	c.advance()
	return c.busy
}

// cancel ends e's job without completing it (its executor restarts).
func (c *cpu) cancel(e *executor) {
	c.advance()
	c.charge(e)
	c.jobs.remove(e.jidx)
	c.schedule()
}
