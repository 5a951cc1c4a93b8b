package hostspeed

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Probe names the probe's work. Figures compare only between equal names: a change to the work below
// changes the name.
const Probe = "mul8/warm/v2"

// Steps is one sample's timed length: about 15 ms of one core (and as much untimed before it), so
// sampling every few seconds costs the host about 1% of a core.
const Steps = 1_600_000

// sink keeps the compiler from removing the probe's work.
var sink uint64

// Sample runs the probe for steps steps untimed, then for steps steps timed, and returns the thread CPU
// time each timed step took, in ns: a step is 8 dependent multiply-adds (a 64-bit linear congruential
// generator), work that stays in the core's registers. Memory is left out on purpose: reads over a
// table the workers' JVMs evict from the shared caches made a window's samples spread by half and
// tracked nothing (docs/results-log.md). The untimed half is there because a CPU that was idle runs the
// first tens of ms about half again slower: the figure is the speed of a busy CPU, which is what a
// saturated worker meets. Thread CPU, not wall time: time the probe waited for a CPU is not in it, so
// the figure is the speed of a CPU while it runs, not how busy the host is (the nodes' cgroups read
// that). ok is false when the clock cannot be read.
func Sample(steps int) (nsPerStep float64, ok bool) {
	if steps <= 0 {
		return 0, false
	}
	runtime.LockOSThread() // the thread's CPU clock must be this goroutine's for the whole sample
	defer runtime.UnlockOSThread()
	sink += run(steps)
	t0, ok0 := threadCPU()
	sink += run(steps)
	t1, ok1 := threadCPU()
	if !ok0 || !ok1 || t1 <= t0 {
		return 0, false
	}
	return float64(t1-t0) / float64(steps), true
}

// run is the probe's work: steps steps of 8 dependent multiply-adds.
func run(steps int) uint64 {
	x := uint64(steps)
	for range steps {
		for range 8 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}

// threadCPU is the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID).
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
