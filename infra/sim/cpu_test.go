package sim

import (
	"math"
	"testing"
)

// TestSharingTimes: jobs started and cancelled at various times on one node end when egalitarian
// processor sharing says, worked out by hand (each row's comment), and each executor's CPU tally is
// the work it got. Exact in the model: the tolerance (1e-9 s) is rounding.
func TestSharingTimes(t *testing.T) {
	type start struct {
		at, work float64
		cancel   float64 // cancelled then (0: not)
	}
	for _, c := range []struct {
		name         string
		cores, speed float64
		jobs         []start
		ends, cpu    []float64 // -1: cancelled
	}{
		// A alone for 1 s (2 left), A and B at 1/2 each: B ends at 3, A (1 left) alone ends at 4.
		{"two on one core", 1, 1, []start{{0, 3, 0}, {1, 1, 0}}, []float64{4, 3}, []float64{3, 1}},
		// From 1.5 (A 1.75 left, B 0.75) three at 1/3: C ends at 2.25; A 1.5 and B 0.5 at 1/2: B at 3.25,
		// A (1 left) at 4.25.
		{"three on one core", 1, 1, []start{{0, 3, 0}, {1, 1, 0}, {1.5, 0.25, 0}}, []float64{4.25, 3.25, 2.25}, []float64{3, 1, 0.25}},
		// A and D at 1/2 until D is cancelled at 1 (A 1.5 left, D got 0.5): A ends at 2.5.
		{"cancelled", 1, 1, []start{{0, 2, 0}, {0, 10, 1}}, []float64{2.5, -1}, []float64{2, 0.5}},
		// Three on 2 cores at 2/3 each, speed 2 halves the work: 1 s of work ends at 0.75 s for all.
		{"equal ends", 2, 2, []start{{0, 1, 0}, {0, 1, 0}, {0, 1, 0}}, []float64{0.75, 0.75, 0.75}, []float64{0.5, 0.5, 0.5}},
	} {
		eng := &engine{}
		ends := make([]float64, len(c.jobs))
		var order []int
		cp := &cpu{eng: eng, cores: c.cores, speed: c.speed, done: func(x *executor) { ends[x.id] = eng.now; order = append(order, x.id) }}
		eng.addTimer(cp)
		execs := make([]*executor, len(c.jobs))
		for i, j := range c.jobs {
			x := &executor{id: i}
			execs[i] = x
			eng.at(j.at, func() { cp.run(x, j.work) })
			if j.cancel > 0 {
				ends[i] = -1
				eng.at(j.cancel, func() { cp.cancel(x) })
			}
		}
		eng.run(100)
		total := 0.0
		for i, x := range execs {
			if math.Abs(ends[i]-c.ends[i]) > 1e-9 || math.Abs(x.tally.cpu-c.cpu[i]) > 1e-9 {
				t.Errorf("%s: job %d ended at %v with %v core-s, want %v and %v", c.name, i, ends[i], x.tally.cpu, c.ends[i], c.cpu[i])
			}
			total += c.cpu[i]
		}
		if u := cp.usage(); math.Abs(u-total) > 1e-9 {
			t.Errorf("%s: node used %v core-s, want %v", c.name, u, total)
		}
		if c.name == "equal ends" && (len(order) != 3 || order[0] != 0 || order[1] != 1 || order[2] != 2) {
			t.Errorf("%s: jobs ending together done in order %v, want the order they started", c.name, order)
		}
	}
}
