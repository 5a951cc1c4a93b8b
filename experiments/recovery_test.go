package experiments

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
)

// TestRecoveryClaimVerdicts: synthetic rows with a known answer. Dynamic schedulers back in 10 s with
// 20% lost against storm-even's 40 s and 60% (2% noise): every claim holds; the reverse: none does;
// one run per scheduler: inconclusive.
func TestRecoveryClaimVerdicts(t *testing.T) {
	build := func(reps int, dyn, even float64) func() (*lab.Results, *lab.Aggregate) {
		return func() (*lab.Results, *lab.Aggregate) {
			n := newNoise(11)
			r := &lab.Results{Experiment: "recovery", Metrics: recoveryMetrics}
			for _, s := range recoverySchedulers {
				rec := dyn
				if s == "storm-even" || s == "storm-ras" {
					rec = even
				}
				for rep := 0; rep < reps; rep++ {
					r.Add(clusterRow(s, 30, rep, map[string]float64{"recovery_s": n.rel(rec, 0.02), "recovered": 1, "lost_pct": n.rel(rec*1.5, 0.02),
						"lost_tuples": 100, "failed_tuples": 10, "executors_moved": 2, "pre_tput": 100}))
				}
			}
			return agg(t, r)
		}
	}
	// Three good runs each (deadline back in 60 s, every other scheduler in 40 s) plus a fourth deadline
	// run judged invalid (nothing acked before the fault), whose zeros would read as recovered
	// in 0 s: it is left out, so deadline's claim is judged on its three good runs (does not hold:
	// slower than storm-even); with the zeros in, the spread would leave it inconclusive.
	withUnmeasured := func() (*lab.Results, *lab.Aggregate) {
		n := newNoise(12)
		r := &lab.Results{Experiment: "recovery", Metrics: recoveryMetrics}
		for _, s := range recoverySchedulers {
			rec := 40.0
			if s == "deadline" {
				rec = 60
			}
			for rep := 0; rep < 3; rep++ {
				r.Add(clusterRow(s, 30, rep, map[string]float64{"recovery_s": n.rel(rec, 0.02), "recovered": 1, "lost_pct": n.rel(rec*1.5, 0.02),
					"lost_tuples": 100, "failed_tuples": 10, "executors_moved": 2, "pre_tput": 100}))
			}
		}
		row := clusterRow("deadline", 30, 3, map[string]float64{"recovery_s": 0, "recovered": 1, "lost_pct": 0, "pre_tput": 0})
		row.Validity = invalidRun(harness.Reason{Kind: harness.ReasonNoThroughput, Level: harness.Invalid, Text: "no throughput before the fault (workers restarting)"}).Validity
		r.Add(row)
		return agg(t, r)
	}
	runClaimCases(t, recoveryClaims, []claimCase{
		{"dynamic faster", build(3, 10, 40), reports.Holds},
		{"dynamic slower", build(3, 40, 10), reports.DoesNotHold},
		{"one run each", build(1, 10, 40), reports.Inconclusive},
	})
	for _, c := range judged(recoveryClaims(withUnmeasured()), "") {
		if !strings.HasPrefix(c.Statement, "deadline ") {
			continue
		}
		if c.Verdict != reports.DoesNotHold || len(c.Screen.Excluded) != 1 {
			t.Errorf("deadline with an unmeasurable run: %s, excluded %v; want does not hold with that run left out\n  %s", c.Verdict, c.Screen.Excluded, c.Line())
		}
	}
}

// A run in whose window nothing was acked does not stop the recovery experiment (it is "not
// measured"); any other reason a run does not count still does.
func TestNothingFlowed(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *harness.RunResult
		want bool
	}{
		{"nothing acked", invalidRun(nothingAcked), true},
		{"acked", &harness.RunResult{Measurement: harness.Measurement{Throughput: 5}, Validity: harness.Validity{Level: harness.Valid}}, false},
		{"nothing acked and executors unassigned", invalidRun(nothingAcked, harness.Reason{Kind: harness.ReasonUnassigned, Level: harness.Invalid, Text: "2 executors stayed unassigned"}), false},
		{"nothing acked and invalid", invalidRun(nothingAcked, harness.Reason{Kind: harness.ReasonScheduler, Level: harness.Invalid, Text: "bridge fell back"}), false},
		{"nothing acked, latency suspect", invalidRun(nothingAcked, harness.Reason{Kind: harness.ReasonStormLatency, Level: harness.Suspect, Text: "latency"}), true},
	} {
		err := keepRun(lab.Env{}, "rec-x-r0", c.r, nil, false)
		if got := err != nil && nothingFlowed(c.r, err); got != c.want {
			t.Errorf("%s: nothingFlowed %v (keepRun: %v), want %v", c.name, got, err, c.want)
		}
	}
	if err := keepRun(lab.Env{}, "rec-x-r0", nil, errors.New("cluster gone"), false); nothingFlowed(nil, err) {
		t.Error("a failed run read as nothing flowed")
	}
}

// nothingAcked is the reason of a run in whose window no tuple was acked.
var nothingAcked = harness.Reason{Kind: harness.ReasonNoThroughput, Level: harness.Invalid, Text: "throughput is zero: no tuple was acked in the measurement window"}

// invalidRun is a run judged invalid (harness's judge) for the given reasons.
func invalidRun(rs ...harness.Reason) *harness.RunResult {
	return &harness.RunResult{Validity: harness.Validity{Level: harness.Invalid, Reasons: rs}}
}

// TestRecoveryRowValidity: a fault run's row carries its run's validity, with the cross-check against
// Storm's counters set aside (the killed supervisor takes its workers' counts with it) and every other
// reason kept: a run whose warm-up ended unsteady stays suspect and feeds no claim.
func TestRecoveryRowValidity(t *testing.T) {
	counts := harness.Reason{Kind: harness.ReasonStormCounts, Level: harness.Suspect, Text: "throughput 10% from Storm's"}
	unsteady := harness.Reason{Kind: harness.ReasonUnsteady, Level: harness.Suspect, Text: "opened unsteady"}
	for _, tc := range []struct {
		name    string
		reasons []harness.Reason
		counts  bool
	}{
		{"valid", nil, true},
		{"Storm's counts off under the kill", []harness.Reason{counts}, true},
		{"unsteady warm-up", []harness.Reason{counts, unsteady}, false},
	} {
		rr := &recoveryRunner{runBase: runBase{env: lab.Env{Log: io.Discard}, res: &lab.Results{Experiment: "recovery", Metrics: recoveryMetrics}}, k: recoveryScales["quick"]}
		r := &harness.RunResult{MeasureTo: 60_000, Validity: harness.Validity{Level: harness.Valid, Reasons: tc.reasons},
			Faults: []harness.FaultRecord{{StartMs: 10_000, Recovery: harness.Recovery{Measured: true, PreTput: 100, Recovered: true, RecoveryS: 12}}}}
		if len(tc.reasons) > 0 {
			r.Validity.Level = harness.Suspect
		}
		if err := rr.record("storm-even", "rec-storm-even-r0", 0, r); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		row := rr.res.Rows[0]
		if got := row.Validity.Counts("recovery_s"); got != tc.counts || len(row.Validity.Reasons) != len(tc.reasons) {
			t.Errorf("%s: row validity %+v counts %v; want %v with every reason listed", tc.name, row.Validity, got, tc.counts)
		}
	}
}

// TestRecoveryStatedCalibration: a stated calibration sets the open-loop rate without a run (no
// session is needed) and the manifest says it was stated.
func TestRecoveryStatedCalibration(t *testing.T) {
	rr := &recoveryRunner{runBase: runBase{env: lab.Env{Log: io.Discard, Calibration: 2000}, res: &lab.Results{Experiment: "recovery", Knobs: map[string]any{}}}, k: recoveryScales["quick"]}
	if err := rr.calibrate(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if rr.rate != 1000 || rr.res.Knobs["recovery_calibration_stated"] != true || rr.res.Knobs["recovery_calibration_tps"] != 2000.0 {
		t.Errorf("rate %v, knobs %v: want 1000 (50%% of 2000) and the calibration recorded as stated", rr.rate, rr.res.Knobs)
	}
}

// TestCheckCalibration: none stated always passes; a stated rate must be positive and finite and go to
// an experiment that offers fractions of one.
func TestCheckCalibration(t *testing.T) {
	for _, c := range []struct {
		name string
		tps  float64
		ok   bool
	}{
		{"comm-cost", 0, true},
		{"kpart-cluster", 1200, true},
		{"load-curve", 80, true},
		{"recovery", 2000, true},
		{"kpart-cluster", -1, false},
		{"kpart-cluster", math.Inf(1), false},
		{"comm-cost", 100, false},
		{"default", 100, false},
	} {
		if err := CheckCalibration(c.name, c.tps); (err == nil) != c.ok {
			t.Errorf("CheckCalibration(%s, %v) = %v, want ok %v", c.name, c.tps, err, c.ok)
		}
	}
}

// TestRecoveryRowNotMeasured: an input the scheduler lacked before the fault counts against the run;
// one it lacked once the supervisor was down is the fault's doing and does not.
func TestRecoveryRowNotMeasured(t *testing.T) {
	dec := func(ms int64) protocol.DecisionRecord {
		return protocol.DecisionRecord{TimeMs: ms, Kind: "reschedule", Decision: &schedulers.Decision{NotMeasured: []string{"deadline"}}}
	}
	for _, tc := range []struct {
		name string
		at   int64 // the decision without the deadline, ms; the fault starts at 10,000
		want int
	}{{"before the fault", 5_000, 1}, {"after the fault", 20_000, 0}} {
		rr := &recoveryRunner{runBase: runBase{env: lab.Env{Log: io.Discard}, res: &lab.Results{Experiment: "recovery", Metrics: recoveryMetrics}}, k: recoveryScales["quick"]}
		r := &harness.RunResult{MeasureTo: 60_000, Validity: harness.Validity{Level: harness.Valid}, Decisions: []protocol.DecisionRecord{dec(tc.at), dec(tc.at + 1)},
			Faults: []harness.FaultRecord{{StartMs: 10_000, Recovery: harness.Recovery{Measured: true, PreTput: 100, Recovered: true, RecoveryS: 12}}}}
		if err := rr.record("deadline", "rec-deadline-r0", 0, r); err != nil {
			t.Fatal(err)
		}
		if got := len(rr.res.Rows[0].NotMeasured); got != tc.want {
			t.Errorf("%s: not measured %v, want %d input(s)", tc.name, rr.res.Rows[0].NotMeasured, tc.want)
		}
	}
}
