package measure

import (
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// TestSteadySpan: one worker reports every second over 0..30 s; its acked rate per second is given
// per test. The span judged is 15..30 s, cut in 7 parts (two report intervals each); it is unsteady
// when a part falls below 80% of their mean, or the rates' fitted line changes by more than 10% of
// their mean over the span and its slope is significant. Reference rates are the per-second acks themselves: a linear ramp of 6% passes, one of
// 15% does not; a step of 5% passes; a drop of 20% over the last 5 s does not; seconds that swing by
// 30% with no direction pass.
func TestSteadySpan(t *testing.T) {
	unsteady := Reason{ReasonUnsteady, Suspect, "the window opened at the maximum warm-up"}
	storm := Reason{ReasonStormLatency, Suspect, "latency disagrees"}
	tests := []struct {
		name      string
		rate      func(s int64) int64 // acked in second s (ending at s)
		reasons   []Reason
		wantOK    bool
		wantLevel Level
	}{
		{"ramp before the span, steady in it: doubt dropped", func(s int64) int64 { return min(100, 10*s) }, []Reason{unsteady}, true, Valid},
		{"a step of 5% within the span: steady", func(s int64) int64 { return map[bool]int64{true: 105, false: 100}[s > 22] }, []Reason{unsteady}, true, Valid},
		{"still ramping in the span: doubt kept", func(s int64) int64 { return 5 * s }, []Reason{unsteady}, false, Suspect},
		{"20% drop over the last 5 s", func(s int64) int64 { return map[bool]int64{true: 80, false: 100}[s > 25] }, nil, false, Suspect},
		{"seconds swinging by 30% without a direction: steady", func(s int64) int64 { return []int64{105, 135, 120, 100}[s%4] }, []Reason{unsteady}, true, Valid},
		{"a 6% rise over the span, significant but within 10%", func(s int64) int64 { return 100 + (max(s, 15)-15)*6/15 }, []Reason{unsteady}, true, Valid},
		{"a 15% decline over the span", func(s int64) int64 { return 115 - max(s, 15) + 15 }, nil, false, Suspect},
		{"other reasons stay", func(s int64) int64 { return 100 }, []Reason{unsteady, storm}, true, Suspect},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &steadyRun{Validity: Validity{Level: Valid}.merge(tc.reasons...)}
			total := int64(0)
			for s := int64(1); s <= 30; s++ {
				total += tc.rate(s)
				r.Reports = append(r.Reports, protocol.WorkerReport{Topology: "t", Host: "h", Port: 6700, TimeMs: 1000 * s,
					IntervalS: 1, WorkerStartMs: 1, AckedTotal: total, Acked: tc.rate(s)})
			}
			v := r.SteadySpan(nil, 15_000, 30_000)
			ok := !hasKind(v, ReasonUnsteady)
			if ok != tc.wantOK || v.Level != tc.wantLevel {
				t.Errorf("steady %v, validity %+v; want steady %v, level %s, an unsteady reason only when not steady", ok, v, tc.wantOK, tc.wantLevel)
			}
			if tc.wantOK && len(v.Reasons) != len(tc.reasons)-1 {
				t.Errorf("reasons %+v: want every reason but the unsteady one kept", v.Reasons)
			}
		})
	}
}

// TestSteadySpanOpenLoop: with a schedule offering 100 tuples/s, the span [15 s, 30 s] is steady when
// it acks within 10% of that rate, however the acks fall into its parts, and its latency p50 from the
// intended send time stays flat (halves within 100 ms, or 25% of the lower p50); unsteady when a
// backlog builds (fewer acked) or drains (more acked, or latency falling with the acked rate in
// bounds). Rates are per second, so the span's means are exact: jitter 130/70/100 per 5 s part (mean
// 100), a 15% shortfall, a 20% excess. Latency is one value per second, so each half's p50 is the
// value at its middle second, to the histogram's precision (3 significant digits).
func TestSteadySpanOpenLoop(t *testing.T) {
	flat := func(int64) int64 { return 50 }
	tests := []struct {
		name    string
		acked   func(s int64) int64 // acked in second s (ending at s)
		latency func(s int64) int64 // latency from the intended send time of second s's tuples (ms)
		steady  bool
		why     string // in the reason when not steady
	}{
		{"acks jitter between parts, mean = offered", func(s int64) int64 {
			switch {
			case s > 25:
				return 100
			case s > 20:
				return 70
			default:
				return 130
			}
		}, flat, true, ""},
		{"backlog building: 85 acked of 100", func(int64) int64 { return 85 }, flat, false, "of the 100 tuples/s offered"},
		{"backlog draining: 120 acked of 100", func(int64) int64 { return 120 }, flat, false, "of the 100 tuples/s offered"},
		{"backlog draining: 108 acked, latency falling 3.5 s -> 2 s", func(int64) int64 { return 108 },
			func(s int64) int64 { return 5000 - 100*s }, false, "latency p50 from the intended send time"},
		{"latency drifting 60 ms, within 100 ms", func(int64) int64 { return 100 },
			func(s int64) int64 { return map[bool]int64{true: 160, false: 100}[s > 22] }, true, ""},
		{"latency 1 s, halves 200 ms apart, within 25%", func(int64) int64 { return 100 },
			func(s int64) int64 { return map[bool]int64{true: 1200, false: 1000}[s > 22] }, true, ""},
		{"latency 200 then 400 ms: more than 100 ms and 25%", func(int64) int64 { return 100 },
			func(s int64) int64 { return map[bool]int64{true: 400, false: 200}[s > 22] }, false, "200 then 400 ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &steadyRun{Validity: Validity{Level: Valid}}
			total := int64(0)
			for s := int64(1); s <= 30; s++ {
				total += tc.acked(s)
				r.Reports = append(r.Reports, protocol.WorkerReport{Topology: "t", Host: "h", Port: 6700, TimeMs: 1000 * s,
					IntervalS: 1, WorkerStartMs: 1, AckedTotal: total, Acked: tc.acked(s),
					LatencyIntendedHist: hist(t, protocol.LatencyHistHighest, tc.latency(s)), SendLagHist: hist(t, protocol.LatencyHistHighest, 1),
					SpoutLoad: []protocol.SpoutLoad{{Task: 1, OfferedTotal: 100 * s, EmittedTotal: 100 * s}}})
			}
			v := r.SteadySpan(nil, 15_000, 30_000)
			if steady := !hasKind(v, ReasonUnsteady); steady != tc.steady {
				t.Errorf("steady %v (%+v), want %v", steady, v, tc.steady)
			}
			if !tc.steady && !strings.Contains(v.Reasons[0].Text, tc.why) {
				t.Errorf("reason %q: want %q named", v.Reasons[0].Text, tc.why)
			}
		})
	}
}

// TestSteadySpanWorkerStarted: a worker incarnation that starts inside the span (a restart or a
// migration) makes it unsteady even when its rates show no trend; one that started before does not.
func TestSteadySpanWorkerStarted(t *testing.T) {
	for _, tc := range []struct {
		name    string
		startMs int64 // the second incarnation's start; its reports follow it
		steady  bool
	}{
		{"restarted at 22 s, inside the span", 22_000, false},
		{"restarted at 10 s, before the span", 10_000, true},
	} {
		r := &steadyRun{Validity: Validity{Level: Valid}}
		var total, start int64 = 0, 1
		for s := int64(1); s <= 30; s++ {
			if 1000*s > tc.startMs && start == 1 {
				start, total = tc.startMs, 0
			}
			total += 100
			r.Reports = append(r.Reports, protocol.WorkerReport{Topology: "t", Host: "h", Port: 6700, TimeMs: 1000 * s,
				IntervalS: 1, WorkerStartMs: start, AckedTotal: total, Acked: 100})
		}
		v := r.SteadySpan(nil, 15_000, 30_000)
		if steady := !hasKind(v, ReasonUnsteady); steady != tc.steady || (!steady && !strings.Contains(v.Reasons[0].Text, "a worker started 7 s into it")) {
			t.Errorf("%s: %+v, want steady %v (else the start named)", tc.name, v, tc.steady)
		}
	}
}

// TestSteadySpanTwoSecondReports: kpart-cluster's case, 2 s reports and a judged span of 20 s
// (20..40 s), so 5 parts of 4 s. Per-interval acked rates are given per case (tuples/s); a collapse or
// a drop late in the span is unsteady although it makes no significant linear trend over 5 parts.
func TestSteadySpanTwoSecondReports(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rate   func(s int64) int64 // acked rate of the interval ending at s
		steady bool
	}{
		{"constant", func(int64) int64 { return 1000 }, true},
		{"swinging 1108 / 1456 / 1285 without a direction", func(s int64) int64 { return []int64{1108, 1456, 1285}[(s/2)%3] }, true},
		{"collapse in the last part", func(s int64) int64 { return map[bool]int64{true: 0, false: 1000}[s > 36] }, false},
		{"halved over the last 8 s", func(s int64) int64 { return map[bool]int64{true: 500, false: 1000}[s > 32] }, false},
		{"declining 30% over the span", func(s int64) int64 { return 1000 - 15*(max(s, 20)-20) }, false},
	} {
		r := &steadyRun{Validity: Validity{Level: Valid}}
		total := int64(0)
		for s := int64(2); s <= 40; s += 2 {
			total += 2 * tc.rate(s)
			r.Reports = append(r.Reports, protocol.WorkerReport{Topology: "t", Host: "h", Port: 6700, TimeMs: 1000 * s,
				IntervalS: 2, WorkerStartMs: 1, AckedTotal: total, Acked: 2 * tc.rate(s)})
		}
		v := r.SteadySpan(nil, 20_000, 40_000)
		if steady := !hasKind(v, ReasonUnsteady); steady != tc.steady {
			t.Errorf("%s: %+v, want steady %v", tc.name, v, tc.steady)
		}
	}
}

// steadyRun is what SteadySpan reads of a run.
type steadyRun struct {
	Validity  Validity
	Reports   []protocol.WorkerReport
	Executors []ExecutorPlace
}

func (r *steadyRun) SteadySpan(capacity map[string]float64, fromMs, toMs int64) Validity {
	return SteadySpan(r.Validity, r.Reports, PlacementOf(r.Executors), capacity, fromMs, toMs)
}

func hasKind(v Validity, k ReasonKind) bool {
	return slices.ContainsFunc(v.Reasons, func(r Reason) bool { return r.Kind == k })
}

// TestSteadySpanShortWindow: a quick-scale window of 41.9 s with one acking worker reporting every
// 5.01 s (the geometry of a chain run on heterogeneous-2, 2026-12-07). Cut in 5 parts of 8.4 s, some
// part held one counter reading only and read as nothing acked, a false collapse; read by interpolating
// the counters at the parts' bounds, every part reads its share. A ramp from 2,000 to 6,800 tuples/s
// (that run's) is still unsteady; a 12 s span (fewer than 3 report intervals) cannot be judged.
func TestSteadySpanShortWindow(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rate     func(s float64) int64
		from, to int64
		steady   bool
		why      string
	}{
		{"constant", func(float64) int64 { return 4000 }, 4_000, 45_900, true, ""},
		{"ramp", func(s float64) int64 { return 2000 + int64(100*s) }, 4_000, 45_900, false, "acked rates of its 5 parts"},
		{"constant, 20 s: 3 parts", func(float64) int64 { return 4000 }, 4_000, 24_000, true, ""},
		{"too short", func(float64) int64 { return 4000 }, 4_000, 16_000, false, "too short to judge"},
	} {
		r := &steadyRun{Validity: Validity{Level: Valid}.merge(Reason{ReasonUnsteady, Suspect, "the window opened at the maximum warm-up"})}
		total := int64(0)
		for i := int64(1); i <= 12; i++ {
			at := 5010 * i
			acked := int64(5.01 * float64(tc.rate(float64(at)/1000)))
			total += acked
			r.Reports = append(r.Reports, protocol.WorkerReport{Topology: "t", Host: "h", Port: 6700, TimeMs: at,
				IntervalS: 5.01, WorkerStartMs: 1, AckedTotal: total, Acked: acked})
		}
		v := r.SteadySpan(nil, tc.from, tc.to)
		text := ""
		for _, x := range v.Reasons {
			text += x.Text
		}
		if steady := !hasKind(v, ReasonUnsteady); steady != tc.steady || !tc.steady && !strings.Contains(text, tc.why) {
			t.Errorf("%s: %+v, want steady %v (%s)", tc.name, v, tc.steady, tc.why)
		}
	}
}
