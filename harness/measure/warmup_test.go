package measure

import (
	"math"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

func TestIntervalRates(t *testing.T) {
	// Two workers with unaligned 1 s and 2 s report intervals. Hand computation, oldest first:
	// interval 1: 100/1 + 300/2 = 250; interval 2: 110/1 + 280/2 = 250; interval 3: 90/1 + 320/2 = 250.
	// Worker a's oldest report (5 acks) is outside the three newest.
	reports := []protocol.WorkerReport{
		{Host: "sup1", Port: 6700, TimeMs: 1000, IntervalS: 1, Acked: 5},
		{Host: "sup1", Port: 6700, TimeMs: 4000, IntervalS: 1, Acked: 90},
		{Host: "sup1", Port: 6700, TimeMs: 2000, IntervalS: 1, Acked: 100},
		{Host: "sup1", Port: 6700, TimeMs: 3000, IntervalS: 1, Acked: 110},
		{Host: "sup2", Port: 6700, TimeMs: 2500, IntervalS: 2, Acked: 300},
		{Host: "sup2", Port: 6700, TimeMs: 4500, IntervalS: 2, Acked: 280},
		{Host: "sup2", Port: 6700, TimeMs: 6500, IntervalS: 2, Acked: 320},
	}
	rates, ok := intervalRates(reports, 3)
	if !ok {
		t.Fatal("intervalRates: not ok with three reports per worker")
	}
	want := []float64{250, 250, 250}
	for i := range want {
		if math.Abs(rates[i]-want[i]) > 1e-9 {
			t.Errorf("rates = %v, want %v", rates, want)
			break
		}
	}
	if _, ok := intervalRates(reports[:6], 3); ok {
		t.Error("intervalRates: ok although worker sup2 has only two reports")
	}
	if _, ok := intervalRates(nil, 3); ok {
		t.Error("intervalRates(nil): ok")
	}
}

// Without any ack in the reports the rates count the sink's executed tuples. Hand computation: task 1
// sends to 2 and 2 to 3, so 3 is the sink; one worker, 2 s intervals, 20, 22 and 18 tuples into task 3:
// 10, 11 and 9 tuples/s (the traffic 1 -> 2 does not count).
func TestIntervalRatesAtSinks(t *testing.T) {
	tr := func(n int64) []protocol.TaskTraffic {
		return []protocol.TaskTraffic{{Src: 1, Dst: 2, Count: 99}, {Src: 2, Dst: 3, Count: n}}
	}
	reports := []protocol.WorkerReport{
		{Host: "sup1", Port: 6700, TimeMs: 2000, IntervalS: 2, Traffic: tr(20)},
		{Host: "sup1", Port: 6700, TimeMs: 4000, IntervalS: 2, Traffic: tr(22)},
		{Host: "sup1", Port: 6700, TimeMs: 6000, IntervalS: 2, Traffic: tr(18)},
	}
	rates, ok := intervalRates(reports, 3)
	if !ok || len(rates) != 3 || math.Abs(rates[0]-10) > 1e-9 || math.Abs(rates[1]-11) > 1e-9 || math.Abs(rates[2]-9) > 1e-9 {
		t.Errorf("rates %v (ok %v), want [10 11 9]", rates, ok)
	}
}

func TestSteady(t *testing.T) {
	tests := []struct {
		rates []float64
		want  bool
	}{
		{[]float64{100, 105, 109}, true},  // spread 9 <= 10% of mean 104.7
		{[]float64{100, 105, 112}, false}, // spread 12 > 10.57
		{[]float64{0, 0, 0}, false},       // nothing acked yet is not steady
		{[]float64{200, 200, 200}, true},  // flat
		{[]float64{}, false},
	}
	for _, tc := range tests {
		if got := steady(tc.rates, steadyTolerance); got != tc.want {
			t.Errorf("steady(%v) = %v, want %v", tc.rates, got, tc.want)
		}
	}
}

// TestOfferedRate: the growth of the spout tasks' offered totals over the n newest intervals, per
// worker, summed (hand-computed: sup1 two tasks 2 x 300 tuples in 3 s = 200/s, sup2 one task 150 in
// 3 s = 50/s); workers without spout load do not count; too few reports is not open.
func TestOfferedRate(t *testing.T) {
	load := func(totals ...int64) []protocol.SpoutLoad {
		var l []protocol.SpoutLoad
		for i, n := range totals {
			l = append(l, protocol.SpoutLoad{Task: i, OfferedTotal: n, EmittedTotal: n})
		}
		return l
	}
	reports := []protocol.WorkerReport{
		{Host: "sup1", Port: 6700, TimeMs: 1000, SpoutLoad: load(100, 100)},
		{Host: "sup1", Port: 6700, TimeMs: 2000, SpoutLoad: load(200, 200)},
		{Host: "sup1", Port: 6700, TimeMs: 3000, SpoutLoad: load(300, 300)},
		{Host: "sup1", Port: 6700, TimeMs: 4000, SpoutLoad: load(400, 400)},
		{Host: "sup2", Port: 6700, TimeMs: 1500, SpoutLoad: load(0)},
		{Host: "sup2", Port: 6700, TimeMs: 2500, SpoutLoad: load(50)},
		{Host: "sup2", Port: 6700, TimeMs: 3500, SpoutLoad: load(100)},
		{Host: "sup2", Port: 6700, TimeMs: 4500, SpoutLoad: load(150)},
		{Host: "sup2", Port: 6701, TimeMs: 4500, Acked: 10}, // a bolt-only worker
	}
	rate, open := offeredRate(reports, 3)
	if !open || math.Abs(rate-250) > 1e-9 {
		t.Errorf("offeredRate = %v, %v; want 250, true", rate, open)
	}
	if _, open := offeredRate(reports[:7], 3); open {
		t.Error("open although sup2 has only three reports")
	}
	if _, open := offeredRate(reports[8:], 3); open {
		t.Error("open although no report has spout load")
	}
}

// TestDrained: within 10% of the offered rate either way; draining a backlog (above) is not drained.
func TestDrained(t *testing.T) {
	for _, tc := range []struct {
		rates   []float64
		offered float64
		want    bool
	}{
		{[]float64{95, 100, 105}, 100, true},
		{[]float64{150, 160, 155}, 100, false}, // working off the start-up backlog
		{[]float64{80, 85, 82}, 100, false},    // not keeping up
		{[]float64{100, 100, 100}, 0, false},
	} {
		if got := drained(tc.rates, tc.offered, steadyTolerance); got != tc.want {
			t.Errorf("drained(%v, %v) = %v, want %v", tc.rates, tc.offered, got, tc.want)
		}
	}
}

// TestNewestPerWorker keeps each worker's newest report, oldest first.
func TestNewestPerWorker(t *testing.T) {
	reps := []protocol.WorkerReport{
		{Host: "sup1", Port: 6700, TimeMs: 1000}, {Host: "sup1", Port: 6700, TimeMs: 3000},
		{Host: "sup2", Port: 6700, TimeMs: 2500}, {Host: "sup1", Port: 6700, TimeMs: 2000},
	}
	got := newestPerWorker(reps)
	if len(got) != 2 || got[0].Host != "sup2" || got[1].TimeMs != 3000 {
		t.Errorf("newestPerWorker = %+v", got)
	}
}
