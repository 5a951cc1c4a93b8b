package sim

import "math"

// cpu is a node's cores under egalitarian processor sharing: the jobs in service share the cores
// equally and one job (one thread) uses at most one core, so n jobs on c cores each progress at
// min(1, c/n) of a core. Work is in CPU seconds of the reference machine; speed scales it.
type cpu struct {
	eng   *engine
	cores float64
	speed float64
	jobs  []*job
	last  float64 // when the jobs' remaining work was last brought up to date
	gen   uint64  // the scheduled completion belongs to this generation; a change makes it stale
	busy  float64 // integral of cores in use over time (core-seconds)
}

type job struct {
	left float64 // remaining work, core-seconds at this node's speed
	done func()
}

func (c *cpu) rate() float64 {
	if len(c.jobs) == 0 {
		return 0
	}
	return math.Min(1, c.cores/float64(len(c.jobs)))
}

// advance brings every job's remaining work and the busy integral up to now.
func (c *cpu) advance() {
	dt := c.eng.now - c.last
	if dt > 0 {
		r := c.rate()
		for _, j := range c.jobs {
			j.left -= dt * r
		}
		c.busy += dt * r * float64(len(c.jobs))
	}
	c.last = c.eng.now
}

// run starts a job of work core-seconds (of the reference machine); done is called when it ends.
func (c *cpu) run(work float64, done func()) {
	c.advance()
	c.jobs = append(c.jobs, &job{left: work / c.speed, done: done})
	c.schedule()
}

// schedule plans the next completion; earlier plans become stale.
func (c *cpu) schedule() {
	c.gen++
	if len(c.jobs) == 0 {
		return
	}
	next := c.jobs[0].left
	for _, j := range c.jobs[1:] {
		next = math.Min(next, j.left)
	}
	g := c.gen
	c.eng.after(math.Max(0, next)/c.rate(), func() {
		if g == c.gen {
			c.complete()
		}
	})
}

// complete ends the jobs whose work is done, then calls their done functions.
func (c *cpu) complete() {
	c.advance()
	const eps = 1e-12
	var done []func()
	kept := c.jobs[:0]
	for _, j := range c.jobs {
		if j.left <= eps {
			done = append(done, j.done)
		} else {
			kept = append(kept, j)
		}
	}
	c.jobs = kept
	c.schedule()
	for _, f := range done {
		f()
	}
}

// usage is the core-seconds used up to now.
func (c *cpu) usage() float64 {
	c.advance()
	return c.busy
}
