package sim

import "math"

// cpu is a node's cores under egalitarian processor sharing: the executors in service share the cores
// equally and one executor (one thread) uses at most one core, so n busy executors on c cores each
// progress at min(1, c/n) of a core. Work is in CPU seconds of the reference machine; speed scales it.
// A cpu is its own timer in the engine (next, idx): one entry per node, moved when its jobs change,
// rather than one event per change.
type cpu struct {
	eng   *engine
	cores float64
	speed float64
	jobs  []*executor
	last  float64 // when the jobs' remaining work was last brought up to date
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
}

// level is the water-filling level of the node's threads beside the load: each gets min(its cap,
// level) of the cores the load leaves, executors capped at one core, overhead threads at bgCap; +Inf
// when every thread gets its cap.
func (c *cpu) level() float64 {
	left := c.cores - c.loadRate()
	if c.bg == 0 || c.bgCap <= 0 { // executors alone: equal shares of the cores
		return left / float64(max(1, len(c.jobs)))
	}
	type group struct{ n, cap float64 }
	gs := [2]group{{float64(len(c.jobs)), 1}, {float64(c.bg), c.bgCap}} // no allocation: this runs on every event of the node
	if gs[1].cap < gs[0].cap {
		gs[0], gs[1] = gs[1], gs[0]
	}
	n := gs[0].n + gs[1].n
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
	return math.Min(1, c.level())
}

// bgRate is each overhead thread's share.
func (c *cpu) bgRate() float64 {
	if c.bg == 0 || c.bgCap <= 0 {
		return 0
	}
	return math.Min(c.bgCap, c.level())
}

// Weights of CFS (sched_prio_to_weight): a thread at nice -20, as the burners' are, and at nice 0.
const (
	weightNice20 = 88761
	weightNice0  = 1024
)

// loadRate is the cores the background load gets: what it asks, up to what its ceil(load) threads'
// weight gives them beside the node's other runnable threads when the cores do not suffice.
func (c *cpu) loadRate() float64 {
	if c.load <= 0 {
		return 0
	}
	kw := math.Ceil(c.load) * weightNice20
	others := float64(len(c.jobs)+c.bg) * weightNice0
	return math.Min(c.load, c.cores*kw/(kw+others))
}

// advance brings every job's remaining work and the busy integral up to now.
func (c *cpu) advance() {
	dt := c.eng.now - c.last
	if dt > 0 && c.bg > 0 {
		o := dt * c.bgRate() * float64(c.bg)
		c.bgBusy += o
		c.busy += o
	}
	if dt > 0 && c.load > 0 {
		c.loadBusy += dt * c.loadRate()
	}
	if dt > 0 && len(c.jobs) > 0 {
		r := c.rate()
		for _, e := range c.jobs {
			e.left -= dt * r
			e.tally.cpu += dt * r
		}
		c.busy += dt * r * float64(len(c.jobs))
	}
	c.last = c.eng.now
}

// run starts e's job of work core-seconds (of the reference machine); c.done(e) is called when it ends.
func (c *cpu) run(e *executor, work float64) {
	c.advance()
	e.left, e.on = work/c.speed, c
	c.jobs = append(c.jobs, e)
	c.schedule()
}

// schedule moves the cpu's timer to its next completion.
func (c *cpu) schedule() {
	c.next = math.Inf(1)
	if len(c.jobs) > 0 {
		least := c.jobs[0].left
		for _, e := range c.jobs[1:] {
			least = math.Min(least, e.left)
		}
		c.next = c.eng.now + math.Max(0, least)/c.rate()
	}
	c.eng.moved(c)
}

// complete ends the jobs whose work is done, then calls done for each.
func (c *cpu) complete() {
	c.advance()
	const eps = 1e-12
	var ended [8]*executor
	done := ended[:0]
	kept := c.jobs[:0]
	for _, e := range c.jobs {
		if e.left <= eps {
			done = append(done, e)
		} else {
			kept = append(kept, e)
		}
	}
	clear(c.jobs[len(kept):])
	c.jobs = kept
	c.schedule()
	for _, e := range done {
		e.on = nil
		c.done(e)
	}
}

// usage is the core-seconds used up to now.
func (c *cpu) usage() float64 {
	c.advance()
	return c.busy
}

// cancel ends e's job without completing it (its executor restarts).
func (c *cpu) cancel(e *executor) {
	c.advance()
	for i, x := range c.jobs {
		if x == e {
			c.jobs = append(c.jobs[:i], c.jobs[i+1:]...)
			break
		}
	}
	c.schedule()
}
