package measure

import (
	"math"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

func TestRecover(t *testing.T) {
	// Window [0, 60 s), 5 s intervals, one worker acking 500 per interval (100 tuples/s); the fault
	// starts at 20 s. Hand computation below each case.
	base := func(rates map[int64]int64) []protocol.WorkerReport {
		var out []protocol.WorkerReport
		for s := int64(5); s <= 60; s += 5 {
			a, ok := rates[s]
			if !ok {
				a = 500
			}
			out = append(out, rep("s1", s, a, 0, 1))
		}
		return out
	}
	const tol = 1e-9
	t.Run("dip and back", func(t *testing.T) {
		// Intervals ending at 25, 30 ack 0 and 250, then 500 again: pre = 100/s (4 intervals before
		// 20 s); dip in (20,25]; back in (30,35] -> recovery 35-20 = 15 s; lost = 100*5 + 50*5 = 750.
		reps := base(map[int64]int64{25: 0, 30: 250})
		reps = append(reps, rep("s2", 30, 0, 7, 26_000), rep("s2", 60, 0, 3, 26_000))
		r := recoveryOf(reps, 0, 60_000, 20_000, 5000)
		if !r.Measured || !r.Dip || !r.Recovered || math.Abs(r.RecoveryS-15) > tol || math.Abs(r.PreTput-100) > tol || math.Abs(r.LostTuples-750) > tol {
			t.Errorf("got %+v", r)
		}
		if r.FailedTuples != 10 || r.WorkerStarts != 1 {
			t.Errorf("failed %d (want 7+3), worker starts %d (want 1: s2 started at 26 s)", r.FailedTuples, r.WorkerStarts)
		}
		if r.Verdict() != "recovered" {
			t.Errorf("verdict %q", r.Verdict())
		}
	})
	t.Run("nothing before the fault", func(t *testing.T) {
		// The four intervals before 20 s ack 0 (workers restarting), 500 each after: the pre-fault
		// level is 0, so there is nothing to recover to. It used to read "no dip below 90% of 0":
		// recovered in 0 s.
		r := recoveryOf(base(map[int64]int64{5: 0, 10: 0, 15: 0, 20: 0}), 0, 60_000, 20_000, 5000)
		if r.Measured || r.Recovered || r.Verdict() != "not measured" {
			t.Errorf("got %+v (%s), want not measured", r, r.Verdict())
		}
	})
	t.Run("not recovered", func(t *testing.T) {
		// From 25 s on 400 per interval = 80/s < 90/s: dip, never back; lost = 20/s * 5 s * 8 = 800.
		m := map[int64]int64{}
		for s := int64(25); s <= 60; s += 5 {
			m[s] = 400
		}
		r := recoveryOf(base(m), 0, 60_000, 20_000, 5000)
		if !r.Dip || r.Recovered || math.Abs(r.LostTuples-800) > tol || r.Verdict() != "not recovered" {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("no dip", func(t *testing.T) {
		// 460 per interval = 92/s >= 90/s: no dip, recovered at once.
		r := recoveryOf(base(map[int64]int64{25: 460}), 0, 60_000, 20_000, 5000)
		if r.Dip || !r.Recovered || r.RecoveryS != 0 {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("fault at the window's start", func(t *testing.T) {
		r := recoveryOf(base(nil), 0, 60_000, 0, 5000)
		if r.Measured || r.Verdict() != "not measured" {
			t.Errorf("got %+v", r)
		}
	})
}

func TestMovedExecutors(t *testing.T) {
	before := []ExecutorPlace{{"spout", 1, 1, "s1", 6700}, {"bolt", 2, 3, "s2", 6700}, {"sink", 4, 4, "s1", 6700}}
	after := []ExecutorPlace{{"spout", 1, 1, "s2", 6700}, {"bolt", 2, 3, "s2", 6701}, {"sink", 4, 4, "s1", 6700}}
	if got := movedExecutors(before, after); got != 1 {
		t.Errorf("moved %d, want 1 (the spout, s1 -> s2; a new port on the same host is no move)", got)
	}
}

// TestRecoverLostReport: a worker reporting totals every 5 s (500 acks each) whose report at 25 s was
// lost (the service was down): the report at 30 s carries 1000 more in AckedTotal, spread over (20, 30]
// s = 500 per interval, so there is no dip. Without totals the interval (20, 25] would read 0.
func TestRecoverLostReport(t *testing.T) {
	var reps []protocol.WorkerReport
	for s := int64(5); s <= 60; s += 5 {
		if s == 25 {
			continue
		}
		x := rep("s1", s, 500, 0, 1)
		x.AckedTotal = 100 * s
		reps = append(reps, x)
	}
	r := recoveryOf(reps, 0, 60_000, 20_000, 5000)
	if !r.Measured || r.Dip || !r.Recovered || r.LostTuples != 0 {
		t.Errorf("got %+v, want no dip", r)
	}
	// Spread by overlap, reports at 20 s and 30 s only: the first one's 500 fall in (15, 20], before the
	// intervals; the 1000 over (20, 30] give (20,24] 400, (24,28] 400, (28,32] 200.
	got := ackedPerInterval(reps[3:5], 20_000, 4000, 3)
	for i, want := range []float64{400, 400, 200} {
		if math.Abs(got[i]-want) > 1e-9 {
			t.Errorf("interval %d: %v acked, want %v (all %v)", i, got[i], want, got)
		}
	}
}

// TestFaultLatency: by hand, samples 10 and 20 before the start (15), 200 and 400 during (300); a
// report at the window's opening and one after the end are left out.
func TestFaultLatency(t *testing.T) {
	r := func(ms int64, lat ...float64) protocol.WorkerReport {
		return protocol.WorkerReport{TimeMs: ms, CompleteLatencyMs: lat}
	}
	reps := []protocol.WorkerReport{r(1000, 999), r(3000, 10), r(5000, 20), r(7000, 200, 400), r(9000), r(12000, 999)}
	pre, during := faultLatency(reps, 1000, 5000, 11000)
	if math.Abs(pre-15) > 1e-9 || math.Abs(during-300) > 1e-9 {
		t.Errorf("faultLatency = %v, %v; want 15, 300", pre, during)
	}
	if pre, during := faultLatency(nil, 0, 1, 2); pre != 0 || during != 0 {
		t.Errorf("no reports: %v, %v; want 0, 0", pre, during)
	}
}

// rep is one worker report of acked tuples at t seconds.
func rep(host string, t int64, acked, failed int64, start int64) protocol.WorkerReport {
	return protocol.WorkerReport{Host: host, Port: 6700, TimeMs: t * 1000, IntervalS: 5, Acked: acked, Failed: failed, WorkerStartMs: start}
}
