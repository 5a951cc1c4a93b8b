package sim

import "math"

// An idle bolt's thread spins in Storm's wait strategy for a thousand parks, then sleeps
// (Config.IdleSpinFor). A park is a little CPU and a short wait, so the parks advance as the thread
// gets CPU: none while its node is throttled, slower while it shares its cores. The model counts
// them in the spinning's CPU: a thread sleeps once its spell of spinning has received IdleSpin x
// IdleSpinFor core-seconds, which at its cap takes IdleSpinFor. Every spinner of a node receives the
// same (cpu.sv), so the spells end in the order they started: each node's CPU keeps them in that
// order and times the oldest live one's end with its completions (cpu.sleepAt). A spinner that took a
// tuple meanwhile is skipped as stale, so going idle costs no event of its own.

// idleEntry is one spell of spinning: executor e went idle at at, and sleeps when its node's
// spinners' CPU (cpu.sv) reaches until.
type idleEntry struct {
	e         *executor
	at, until float64
}

// spinning records that e, spinning on c from now, sleeps after its spell unless it takes a tuple
// first.
func (c *cpu) spinning(e *executor) {
	if c.spinFor <= 0 {
		return
	}
	e.idleAt = c.eng.now
	c.idleQ = append(c.idleQ, idleEntry{e, c.eng.now, c.sv + c.spinFor})
}

// live reports whether it is e's spell of spinning on c now.
func (c *cpu) live(it idleEntry) bool { return it.e.spin == c && it.e.idleAt == it.at }

// nextSleep drops the stale spells at the front and returns when the oldest live one ends at the
// spinners' share of now; +Inf for none, or while the spinners get nothing.
func (c *cpu) nextSleep() float64 {
	for c.idleHead < len(c.idleQ) && !c.live(c.idleQ[c.idleHead]) {
		c.idleQ[c.idleHead] = idleEntry{}
		c.idleHead++
	}
	if c.idleHead > 1024 && 2*c.idleHead > len(c.idleQ) { // reclaim the consumed front
		c.idleQ = append(c.idleQ[:0], c.idleQ[c.idleHead:]...)
		c.idleHead = 0
	}
	if c.idleHead == len(c.idleQ) {
		return math.Inf(1)
	}
	r := c.spinRate()
	if r <= 0 {
		return math.Inf(1)
	}
	return c.eng.now + max(0, c.idleQ[c.idleHead].until-c.sv)/r
}

// over reports whether live spell it has ended: within rounding of its CPU, or so near that the clock
// cannot tell its end from now (late in a long run).
func (c *cpu) over(it idleEntry) bool {
	left := it.until - c.sv
	if left <= 1e-12*max(1, c.sv) {
		return true
	}
	r := c.spinRate()
	return r > 0 && c.eng.now+left/r <= c.eng.now
}

// sleepers puts to sleep the spinners whose spell is over.
func (c *cpu) sleepers() {
	for c.idleHead < len(c.idleQ) {
		it := c.idleQ[c.idleHead]
		if c.live(it) && !c.over(it) {
			break
		}
		c.idleQ[c.idleHead] = idleEntry{}
		c.idleHead++
		if c.live(it) {
			c.unspin(it.e)
			it.e.asleep, it.e.sleptAt = true, c.eng.now
		}
	}
	c.schedule()
}

// asleep reports whether e's thread sleeps through its next tuple for now: a tuple that finds it
// asleep is taken at its next wake-up (every IdleSleep from when it fell asleep; a transfer thread's
// every transferSleep), which is timed here.
func (s *sim) asleep(e *executor) bool {
	switch {
	case !e.asleep:
		return false
	case !e.waking:
		e.waking = true
		sleep := s.cfg.IdleSleep
		if e.th != nil {
			sleep = s.transferSleep()
		}
		ticks := int((s.eng.now-e.sleptAt)/sleep) + 1
		e.wakeAt = e.sleptAt + float64(ticks)*sleep
		s.eng.post(e.wakeAt, event{kind: evNext, x: e})
		return true
	case s.eng.now < e.wakeAt:
		return true
	}
	e.asleep, e.waking = false, false
	return false
}
