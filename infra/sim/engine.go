package sim

import "math"

// engine is the event loop: a clock and a heap of timed events, run in time order (ties in the order
// they were scheduled, so a run is deterministic). The Go discrete-event libraries run processes as
// goroutines, which ties the order of simultaneous events to the Go scheduler; a heap of events
// (callbacks, and typed events for what every tuple does) is deterministic and is all this model needs.
type engine struct {
	now    float64     // seconds of simulated time
	handle func(event) // runs the events that are not callbacks (event.kind)
	events eventHeap
	timers timerHeap // the nodes' CPUs, by their next completion
	seq    uint64
	count  uint64 // events run, for the benchmark
}

// timerHeap is a binary min-heap of the CPUs by their next completion (ties by position, which is
// stable), written out like eventHeap: a CPU's timer moves on nearly every event.
type timerHeap []*cpu

func (h timerHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}

// addTimer registers c, idle.
func (e *engine) addTimer(c *cpu) {
	c.next = math.Inf(1)
	c.idx = len(e.timers)
	e.timers = append(e.timers, c)
	e.moved(c)
}

// moved restores the timer heap after c.next changed.
func (e *engine) moved(c *cpu) {
	h := e.timers
	i := c.idx
	for i > 0 { // up
		p := (i - 1) / 2
		if !(h[i].next < h[p].next) {
			break
		}
		h.swap(i, p)
		i = p
	}
	for n := len(h); ; { // down
		l, small := 2*i+1, i
		if l < n && h[l].next < h[small].next {
			small = l
		}
		if r := l + 1; r < n && h[r].next < h[small].next {
			small = r
		}
		if small == i {
			return
		}
		h.swap(i, small)
		i = small
	}
}

// event is a callback (fn) or, for the events every tuple makes, a kind with its executor and tuple:
// a closure per tuple was most of a large run's garbage.
type event struct {
	at   float64
	seq  uint64
	fn   func()
	kind eventKind
	x    *executor
	t    tuple
}

// eventKind says what an event without a callback does (sim.dispatch).
type eventKind uint8

const (
	evFn      eventKind = iota // run fn
	evEnqueue                  // tuple t reaches x's receive queue
	evAck                      // t.root's completion reaches its spout
	evArrive                   // an open-loop arrival at spout x
	evNext                     // x is back from a restart
)

// eventHeap is a binary min-heap of events by (at, seq), written out rather than through
// container/heap: the interface calls of container/heap took a third of a large run's time.
type eventHeap []event

func (h eventHeap) less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q[n] = event{}
	q = q[:n]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < n && q.less(l, small) {
			small = l
		}
		if r := l + 1; r < n && q.less(r, small) {
			small = r
		}
		if small == i {
			break
		}
		q[i], q[small] = q[small], q[i]
		i = small
	}
	*h = q
	return top
}

// at runs fn at simulated time t (not before now).
func (e *engine) at(t float64, fn func()) {
	if t < e.now {
		t = e.now
	}
	e.seq++
	e.events.push(event{at: t, seq: e.seq, fn: fn})
}

// after runs fn d seconds from now.
func (e *engine) after(d float64, fn func()) { e.at(e.now+d, fn) }

// post schedules ev (a kind, not a callback) at simulated time t (not before now).
func (e *engine) post(t float64, ev event) {
	if t < e.now {
		t = e.now
	}
	e.seq++
	ev.at, ev.seq = t, e.seq
	e.events.push(ev)
}

// run runs events and CPU completions in time order (an event before a completion at the same time)
// until none is left before until; the clock ends at until.
func (e *engine) run(until float64) {
	for {
		at := math.Inf(1)
		if len(e.events) > 0 {
			at = e.events[0].at
		}
		if len(e.timers) > 0 && e.timers[0].next < at {
			if c := e.timers[0]; c.next <= until {
				e.now = c.next
				e.count++
				c.complete()
				continue
			}
		}
		if at > until {
			break
		}
		ev := e.events.pop()
		e.now = ev.at
		e.count++
		if ev.fn != nil {
			ev.fn()
		} else {
			e.handle(ev)
		}
	}
	e.now = until
}
