package sim

import "container/heap"

// engine is the event loop: a clock and a heap of timed events, run in time order (ties in the order
// they were scheduled, so a run is deterministic). The Go discrete-event libraries run processes as
// goroutines, which ties the order of simultaneous events to the Go scheduler; a heap of callbacks is
// deterministic and is all this model needs.
type engine struct {
	now    float64 // seconds of simulated time
	events eventHeap
	seq    uint64
	count  uint64 // events run, for the benchmark
}

type event struct {
	at  float64
	seq uint64
	fn  func()
}

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// at runs fn at simulated time t (not before now).
func (e *engine) at(t float64, fn func()) {
	if t < e.now {
		t = e.now
	}
	e.seq++
	heap.Push(&e.events, event{at: t, seq: e.seq, fn: fn})
}

// after runs fn d seconds from now.
func (e *engine) after(d float64, fn func()) { e.at(e.now+d, fn) }

// run runs events until none is left or the next is after until; the clock ends at until.
func (e *engine) run(until float64) {
	for e.events.Len() > 0 && e.events[0].at <= until {
		ev := heap.Pop(&e.events).(event)
		e.now = ev.at
		e.count++
		ev.fn()
	}
	e.now = until
}
