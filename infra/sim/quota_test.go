package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQuotaTimes: jobs on a node under CPU bandwidth control (a container's quota) end when its
// periods say, worked out by hand in each row's comment. Exact in the model: the tolerance (1e-9 s)
// is rounding.
func TestQuotaTimes(t *testing.T) {
	type start struct{ at, work float64 }
	for _, c := range []struct {
		name               string
		cores, peak, perio float64
		jobs               []start
		ends               []float64
	}{
		// Without a period the 0.5 cores are steady: 0.3 core-s at 0.5 cores take 0.6 s.
		{"steady", 0.5, 0, 0, []start{{0, 0.3}}, []float64{0.6}},
		// 0.05 core-s per 0.1 s, one thread at 1 core: 0.05 s of work, then a stall, each period; the
		// sixth period's first 0.05 s end it: 0.55 s.
		{"one thread in bursts", 0.5, 1, 0.1, []start{{0, 0.3}}, []float64{0.55}},
		// Two threads at 1 core each use the period's quota in 0.025 s, 0.025 core-s each: the fourth
		// period's burst ends them, at 0.325 s.
		{"two threads at peak 2", 0.5, 2, 0.1, []start{{0, 0.1}, {0, 0.1}}, []float64{0.325, 0.325}},
		// A works 0-0.05 and is throttled; B arrives in the stall (0.07) and waits for the period's end;
		// from 0.1 they share the core (0.5 each): B's 0.001 ends at 0.102, A (0.009 left) at 0.111.
		{"arrival in a stall", 0.5, 1, 0.1, []start{{0, 0.06}, {0.07, 0.001}}, []float64{0.111, 0.102}},
		// A peak at the cores never throttles: steady.
		{"peak at the cores", 0.5, 0.5, 0.1, []start{{0, 0.3}}, []float64{0.6}},
	} {
		eng := &engine{}
		ends := make([]float64, len(c.jobs))
		cp := &cpu{eng: eng, cores: c.cores, speed: 1, done: func(x *executor) { ends[x.id] = eng.now },
			bw: newBandwidth(Node{Cores: c.cores, QuotaPeriod: c.perio, Peak: c.peak})}
		if cp.bw != nil {
			cp.cores = cp.bw.capacity()
		}
		eng.addTimer(cp)
		for i, j := range c.jobs {
			x := &executor{id: i}
			eng.at(j.at, func() { cp.run(x, j.work) })
		}
		eng.run(10)
		for i := range c.jobs {
			if math.Abs(ends[i]-c.ends[i]) > 1e-9 {
				t.Errorf("%s: job %d ended at %v, want %v", c.name, i, ends[i], c.ends[i])
			}
		}
	}
}

// TestQuotaNeverExceeded (property): whatever the jobs, a node under bandwidth control uses at most its
// quota in any period, and a saturated one uses all of it: over 20 random arrival patterns, each
// period's usage is <= cores x period (+1e-9), and on average exactly cores once it is saturated.
func TestQuotaNeverExceeded(t *testing.T) {
	const period, cores, peak = 0.1, 0.5, 2.0
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		eng := &engine{}
		cp := &cpu{eng: eng, speed: 1, done: func(*executor) {}, bw: newBandwidth(Node{Cores: cores, QuotaPeriod: period, Peak: peak})}
		cp.cores = cp.bw.capacity()
		eng.addTimer(cp)
		for i := range 200 { // arrivals over the first 5 s, then 3 jobs that saturate the node
			x := &executor{id: i}
			eng.at(r.Float64()*5, func() { cp.run(x, r.ExpFloat64()*0.01) })
		}
		for i := range 3 {
			x := &executor{id: 1000 + i}
			eng.at(6, func() { cp.run(x, 100) })
		}
		used := make([]float64, 101)
		for k := range used {
			eng.at(float64(k)*period, func() { used[k] = cp.usage() })
		}
		eng.run(10)
		overQuota(t, fmt.Sprintf("seed %d", seed), used, cores*period)
		if d := used[100] - used[61]; math.Abs(d-cores*3.9) > 1e-9 {
			t.Errorf("seed %d: saturated 6.1-10 s used %v core-s, want the quota's %v", seed, d, cores*3.9)
		}
	}
}

// TestQuotaNeverExceededWithOverhead (property): the same with overhead threads beside the jobs, whose
// steady share moves as jobs start and end, some of them with no work (they end even in a stall, so
// the overhead's share grows there): each period's usage is <= cores x period (+1e-9) over 20 random
// patterns.
func TestQuotaNeverExceededWithOverhead(t *testing.T) {
	const period, cores, peak = 0.1, 0.5, 2.0
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 11))
		eng := &engine{}
		cp := &cpu{eng: eng, speed: 1, done: func(*executor) {}, bg: 3, bgCap: 0.08, bw: newBandwidth(Node{Cores: cores, QuotaPeriod: period, Peak: peak})}
		cp.cores = cp.bw.capacity()
		eng.addTimer(cp)
		for i := range 2000 {
			x := &executor{id: i}
			work := r.ExpFloat64() * 0.005
			if i%3 == 0 {
				work = 0
			}
			eng.at(r.Float64()*10, func() {
				if x.jidx == 0 && !slices.Contains(cp.jobs, x) {
					cp.run(x, work)
				}
			})
		}
		used := make([]float64, 101)
		for k := range used {
			eng.at(float64(k)*period, func() { used[k] = cp.usage() })
		}
		eng.run(10)
		overQuota(t, fmt.Sprintf("seed %d", seed), used, cores*period)
	}
}

// TestQuotaSteadyOverrun: the overhead's steady share alone can overrun what a period's quota has left
// when it grows (jobs end) or overhead threads join in a stall (a worker moved there); the period still
// takes at most its quota (+1e-9). 0.5 cores, peak 2, 3 overhead threads of 0.08: (a) 5 jobs of 6 ms
// from 0 s (the overhead's share grows as they end, with nothing bursting after); (b) 3 jobs that
// saturate the node, and at 70 ms, in the stall, a fourth overhead thread.
func TestQuotaSteadyOverrun(t *testing.T) {
	const period, cores, peak = 0.1, 0.5, 2.0
	for _, c := range []struct {
		name       string
		jobs       int
		work, join float64
	}{
		{"jobs end, nothing bursts", 5, 0.006, 0},
		{"a worker joins in a stall", 3, 100, 0.07},
	} {
		eng := &engine{}
		cp := &cpu{eng: eng, speed: 1, done: func(*executor) {}, bg: 3, bgCap: 0.08, bw: newBandwidth(Node{Cores: cores, QuotaPeriod: period, Peak: peak})}
		cp.cores = cp.bw.capacity()
		eng.addTimer(cp)
		for i := range c.jobs {
			x := &executor{id: i}
			eng.at(0, func() { cp.run(x, c.work) })
		}
		if c.join > 0 {
			eng.at(c.join, func() {
				if !cp.bw.throttled {
					t.Errorf("%s: not in a stall at %v s", c.name, c.join)
				}
				cp.advance()
				cp.bg++
				cp.rehold()
				cp.schedule()
			})
		}
		used := make([]float64, 11)
		for k := range used {
			eng.at(float64(k)*period, func() { used[k] = cp.usage() })
		}
		eng.run(1)
		overQuota(t, c.name, used, cores*period)
	}
}

// TestQuotaOverheadSteady: under a quota the workers' overhead threads take the steady share that
// the node's cores give them without one (they are work a stall delays, not removes), and the
// executors the rest of the quota in bursts: saturated by 3 executors beside 4 overhead threads of
// 0.08 cores on 0.5 cores, water-filling gives each of the 7 threads 0.5/7 cores, so over 10 s the
// overhead uses 4 x 0.5/7 x 10 core-s and the node its whole quota (5 core-s), with or without the
// quota; unsaturated, the overhead takes its 0.08 each.
func TestQuotaOverheadSteady(t *testing.T) {
	for _, c := range []struct {
		name      string
		jobs      int
		peak      float64
		bg, total float64
	}{
		{"saturated, steady cores", 3, 0, 4 * 0.5 / 7 * 10, 5},
		{"saturated, quota", 3, 2, 4 * 0.5 / 7 * 10, 5},
		{"idle, quota", 0, 2, 4 * 0.08 * 10, 4 * 0.08 * 10},
	} {
		eng := &engine{}
		cp := &cpu{eng: eng, cores: 0.5, speed: 1, done: func(*executor) {}, bg: 4, bgCap: 0.08,
			bw: newBandwidth(Node{Cores: 0.5, QuotaPeriod: 0.1, Peak: c.peak})}
		if cp.bw != nil {
			cp.cores = cp.bw.capacity()
		}
		eng.addTimer(cp)
		for i := range c.jobs {
			x := &executor{id: i}
			eng.at(0, func() { cp.run(x, 100) })
		}
		var used, bg float64
		eng.at(10, func() { used, bg = cp.usage(), cp.bgBusy })
		eng.run(10)
		if math.Abs(used-c.total) > 1e-9 || math.Abs(bg-c.bg) > 1e-9 {
			t.Errorf("%s: node used %v core-s, overhead %v; want %v and %v", c.name, used, bg, c.total, c.bg)
		}
	}
}

// hostOf is nodes under a quota of the given cores on one host of peak cores (Node.Host), each cpu a
// timer of eng; done records nothing.
func hostOf(eng *engine, peak float64, cores ...float64) []*cpu {
	h := &host{cores: peak}
	for _, c := range cores {
		cp := &cpu{eng: eng, speed: 1, done: func(*executor) {}, bw: newBandwidth(Node{Cores: c, QuotaPeriod: 0.1, Peak: peak}), host: h}
		cp.cores = cp.bw.capacity()
		h.nodes = append(h.nodes, cp)
		eng.addTimer(cp)
	}
	return h.nodes
}

// TestSharedHostTimes: nodes under a quota on one host share its cores while they burst together,
// worked out by hand in each row's comment (node A: quota 1 core; B: quota 0.5; host and peak 2
// cores; period 0.1 s). Exact in the model: the tolerance (1e-9 s) is rounding.
func TestSharedHostTimes(t *testing.T) {
	for _, c := range []struct {
		name   string
		shared bool
		bJobs  int
		end    float64 // when A's two jobs of 0.06 core-s end
	}{
		// A alone on the host: 2 cores, a core a job, its 0.1 core-s used at 0.05 (0.05 done each); throttled
		// to 0.1; the last 0.01 each at a core: 0.11.
		{"B idle", true, 0, 0.11},
		// B's 2 jobs want 2 cores too: a core each node; B's 0.05 core-s run out at 0.05 (A's jobs 0.025 done
		// each, A used 0.05); then A has the host, 0.05 core-s more at 2 cores: throttled at 0.075 with 0.01
		// left each; at 0.1 both burst again, a core each node, half a core a job: 0.12.
		{"B bursting", true, 2, 0.12},
		// Each node a machine of its own: B does not matter, as B idle: 0.11.
		{"not shared", false, 2, 0.11},
	} {
		eng := &engine{}
		cps := hostOf(eng, 2, 1, 0.5)
		if !c.shared {
			for _, cp := range cps {
				cp.host = nil
			}
		}
		a, b := cps[0], cps[1]
		end := 0.0
		a.done = func(*executor) { end = eng.now }
		for i := range 2 {
			x := &executor{id: i}
			eng.at(0, func() { a.run(x, 0.06) })
		}
		for i := range c.bJobs {
			x := &executor{id: 10 + i}
			eng.at(0, func() { b.run(x, 100) })
		}
		eng.run(1)
		if math.Abs(end-c.end) > 1e-9 {
			t.Errorf("%s: A's jobs ended at %v, want %v", c.name, end, c.end)
		}
	}
}

// TestSharedHostNeverExceeded (property): whatever the jobs, nodes sharing a host use at most its cores
// together at any time and each at most its quota in any period: three nodes of 1, 0.5 and 0.25 cores
// on a host of 2, 20 random arrival patterns, usage sampled every millisecond for 3 s (tolerance 1e-9
// core-s).
func TestSharedHostNeverExceeded(t *testing.T) {
	const step, period = 0.001, 0.1
	quotas := []float64{1, 0.5, 0.25}
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 11))
		eng := &engine{}
		cps := hostOf(eng, 2, quotas...)
		for i := range 300 {
			x, cp := &executor{id: i}, cps[r.IntN(len(cps))]
			eng.at(r.Float64()*3, func() { cp.run(x, r.ExpFloat64()*0.02) })
		}
		used := make([][]float64, 3001)
		for k := range used {
			eng.at(float64(k)*step, func() {
				for _, cp := range cps {
					used[k] = append(used[k], cp.usage())
				}
			})
		}
		eng.run(3)
		for k := 1; k < len(used); k++ {
			sum := 0.0
			for i := range cps {
				sum += used[k][i] - used[k-1][i]
			}
			if sum > 2*step+1e-9 {
				t.Fatalf("seed %d: %v-%v s the nodes used %v core-s, over the host's %v", seed, float64(k-1)*step, float64(k)*step, sum, 2*step)
			}
		}
		for i, q := range quotas {
			for k := 100; k < len(used); k += 100 {
				if d := used[k][i] - used[k-100][i]; d > q*period+1e-9 {
					t.Fatalf("seed %d: node %d used %v core-s in period %d, over its quota %v", seed, i, d, k/100, q*period)
				}
			}
		}
	}
}

// TestQuotaPhase: a node's periods start at its phase, the run's first part being the end of the period
// before, with its whole quota. One thread at 1 core, a quota of 0.05 core-s per 0.1 s, phase 0.05 s: it
// works 0-0.05 (the period before), 0.05-0.1, 0.15-0.2, 0.25-0.3, 0.35-0.4 and 0.45-0.5, so 0.3 core-s
// end at 0.5 (0.55 in phase with the run: TestQuotaTimes). Exact: tolerance 1e-9 s.
func TestQuotaPhase(t *testing.T) {
	eng := &engine{}
	end := 0.0
	cp := &cpu{eng: eng, speed: 1, done: func(*executor) { end = eng.now }, bw: newBandwidth(Node{Cores: 0.5, QuotaPeriod: 0.1, Peak: 1, QuotaPhase: 0.05})}
	cp.cores = cp.bw.capacity()
	eng.addTimer(cp)
	eng.at(0, func() { cp.run(&executor{}, 0.3) })
	eng.run(10)
	if math.Abs(end-0.5) > 1e-9 {
		t.Errorf("ended at %v, want 0.5", end)
	}
}

// TestQuotaLoadSteady: under a quota the background load (the burners, at nice -20) carries what it asks
// at a steady rate, as the overhead does, where bursts and stalls would cut it: on containers at their
// quota the burners carried their level. 0.25 cores of load beside 3 saturating executors on a quota of
// 0.5 cores (peak 2): over 10 s the load carries 2.5 core-s and the executors the rest of the quota,
// 2.5 (usage counts the workers' threads, not the load; tolerance 1e-9: exact).
func TestQuotaLoadSteady(t *testing.T) {
	eng := &engine{}
	cp := &cpu{eng: eng, speed: 1, done: func(*executor) {}, load: 0.25, bw: newBandwidth(Node{Cores: 0.5, QuotaPeriod: 0.1, Peak: 2})}
	cp.cores = cp.bw.capacity()
	eng.addTimer(cp)
	for i := range 3 {
		x := &executor{id: i}
		eng.at(0, func() { cp.run(x, 100) })
	}
	var used, load float64
	eng.at(10, func() { used, load = cp.usage(), cp.loadBusy })
	eng.run(10)
	if math.Abs(used-2.5) > 1e-9 || math.Abs(load-2.5) > 1e-9 {
		t.Errorf("executors used %v core-s, load %v; want 2.5 each", used, load)
	}
}

// overQuota fails the test for each period whose use, the difference of the node's usage sampled at
// the periods' bounds, is over quota (+1e-9).
func overQuota(t *testing.T, name string, used []float64, quota float64) {
	t.Helper()
	for k := 1; k < len(used); k++ {
		if d := used[k] - used[k-1]; d > quota+1e-9 {
			t.Errorf("%s: period %d used %v core-s, over the quota %v", name, k-1, d, quota)
		}
	}
}
