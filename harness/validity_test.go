package harness

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/protocol"
)

func hasKind(v Validity, k ReasonKind) bool {
	return slices.ContainsFunc(v.Reasons, func(r Reason) bool { return r.Kind == k })
}

// TestJudge: one judgement from a run's records, merged as merge-valid (invalid beats suspect beats
// valid), and a run that cannot be judged is suspect ("unknown"), never valid.
func TestJudge(t *testing.T) {
	applied := []protocol.DecisionRecord{{Applied: true}}
	ok := Measurement{Throughput: 100}
	latencyOff := StormCheck{Compared: true, Quantity: "throughput", Diff: 0.01, LatencyDiff: 0.2}
	countsOff := StormCheck{Compared: true, Quantity: "throughput", Diff: 0.2}
	short := 0.03 // cores used of the 0.40 asked (a recorded straggler)
	for _, tc := range []struct {
		name  string
		r     *RunResult
		level Level
		kinds []ReasonKind
	}{
		{"valid native", &RunResult{Spec: RunSpec{Scheduler: "storm-even"}, Measurement: ok}, Valid, nil},
		{"valid bridged", &RunResult{Spec: RunSpec{Scheduler: "kpart"}, ServiceScheduler: "kpart", Decisions: applied, Measurement: ok}, Valid, nil},
		{"latency only", &RunResult{Spec: RunSpec{Scheduler: "storm-even"}, Measurement: ok, Storm: latencyOff}, Suspect, []ReasonKind{ReasonStormLatency}},
		{"counts", &RunResult{Spec: RunSpec{Scheduler: "storm-even"}, Measurement: ok, Storm: countsOff}, Suspect, []ReasonKind{ReasonStormCounts}},
		{"invalid beats suspect", &RunResult{Spec: RunSpec{Scheduler: "kpart"}, ServiceScheduler: "r-storm", Decisions: applied, Measurement: ok, Storm: countsOff},
			Invalid, []ReasonKind{ReasonScheduler, ReasonStormCounts}},
		{"no throughput, unassigned", &RunResult{Spec: RunSpec{Scheduler: "storm-even"}, Unassigned: 2}, Invalid, []ReasonKind{ReasonUnassigned, ReasonNoThroughput}},
		{"cannot judge", nil, Suspect, []ReasonKind{ReasonUnknown}},
		{"window opened unsteady", &RunResult{Spec: RunSpec{Scheduler: "storm-even"}, EndKind: "timed", Measurement: ok,
			WarmUp: WarmUp{MaxS: 5, Rates: []float64{449, 1280, 2122}}}, Suspect, []ReasonKind{ReasonUnsteady}},
		{"opened at the maximum, a steady window", windowRun(func(s int64) int64 { return []int64{105, 135, 120, 100}[s%4] }), Valid, nil},
		{"opened at the maximum, still ramping in the window", windowRun(func(s int64) int64 { return 5 * s }), Suspect, []ReasonKind{ReasonUnsteady}},
		{"steady window", &RunResult{Spec: RunSpec{Scheduler: "storm-even"}, EndKind: "timed", Measurement: ok,
			WarmUp: WarmUp{MaxS: 5, Steady: true}}, Valid, nil},
		{"no warm-up asked", &RunResult{Spec: RunSpec{Scheduler: "storm-even"}, EndKind: "timed", Measurement: ok}, Valid, nil},
		{"host-starved", &RunResult{Spec: RunSpec{Scheduler: "storm-even"}, Measurement: ok,
			Diagnosis: &Diagnosis{Cgroups: []diagnose.Cgroup{{Host: "sup4", Quota: 100, Used: 71, UsedOfQuota: 0.71, Starved: true}}}}, Suspect, []ReasonKind{measure.ReasonHostStarved}},
		{"straggler applied short", &RunResult{Spec: RunSpec{Scheduler: "storm-even"}, Measurement: ok,
			Diagnosis: &Diagnosis{Applied: []diagnose.Applied{{Host: "sup1", Kind: "straggler", Asked: 0.4, Used: &short}}}}, Suspect, []ReasonKind{measure.ReasonLoadShort}},
	} {
		v := judge(tc.r)
		var kinds []ReasonKind
		for _, r := range v.Reasons {
			kinds = append(kinds, r.Kind)
		}
		if v.Level != tc.level || !slices.Equal(kinds, tc.kinds) {
			t.Errorf("%s: judge = %+v; want %s with kinds %v", tc.name, v, tc.level, tc.kinds)
		}
		if hasKind(v, ReasonUnsteady) && tc.r.MeasureTo > 0 && !strings.Contains(v.Text(Suspect), "nor was the window (acked rates of its") {
			t.Errorf("%s: %q does not say what the window measured", tc.name, v.Text(Suspect))
		}
		if (v.Err() == nil) != (tc.level != Invalid) {
			t.Errorf("%s: Err() = %v for level %s", tc.name, v.Err(), v.Level)
		}
	}
}

// windowRun is a timed run whose warm-up ended at its 15 s maximum and whose window is 15..30 s: one
// worker reporting every second, acking rate(s) in second s. TestJudge's reference: seconds swinging by
// 30% without a direction are steady by the span rules (TestSteadySpan), a ramp of 5 tuples/s per
// second is not.
func windowRun(rate func(s int64) int64) *RunResult {
	r := &RunResult{Spec: RunSpec{Scheduler: "storm-even"}, EndKind: "timed", Measurement: Measurement{Throughput: 100},
		WarmUp: WarmUp{MaxS: 15, Rates: []float64{105, 135, 120}}, MeasureFrom: 15_000, MeasureTo: 30_000}
	total := int64(0)
	for s := int64(1); s <= 30; s++ {
		total += rate(s)
		r.Reports = append(r.Reports, protocol.WorkerReport{Topology: "t", Host: "h", Port: 6700, TimeMs: 1000 * s,
			IntervalS: 1, WorkerStartMs: 1, AckedTotal: total, Acked: rate(s)})
	}
	return r
}

// TestValidityFromOldRunJSON: run.json of earlier versions has "invalid" and "suspect" strings; they
// load as reasons (a suspect whose counts agreed with Storm's is suspect on latency only).
func TestValidityFromOldRunJSON(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		level      Level
		kinds      []ReasonKind
	}{
		{"valid", `{"measurement":{"throughput":5}}`, Valid, nil},
		{"invalid", `{"invalid":"bridge fell back to EvenScheduler 2 times"}`, Invalid, []ReasonKind{ReasonScheduler}},
		{"latency", `{"suspect":"disagrees: mean complete latency","storm_check":{"diff":0.01,"latency_diff":0.3}}`, Suspect, []ReasonKind{ReasonStormLatency}},
		{"counts", `{"suspect":"disagrees: throughput","storm_check":{"diff":0.2}}`, Suspect, []ReasonKind{ReasonStormCounts}},
		{"new", `{"validity":{"level":"suspect","reasons":[{"kind":"unknown","level":"suspect","text":"x"}]}}`, Suspect, []ReasonKind{ReasonUnknown}},
	} {
		var r RunResult
		if err := json.Unmarshal([]byte(tc.json), &r); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var kinds []ReasonKind
		for _, x := range r.Validity.Reasons {
			kinds = append(kinds, x.Kind)
		}
		if r.Validity.Level != tc.level || !slices.Equal(kinds, tc.kinds) {
			t.Errorf("%s: validity %+v; want %s with %v", tc.name, r.Validity, tc.level, tc.kinds)
		}
	}
	b, err := json.Marshal(&RunResult{Validity: Validity{Level: Suspect, Reasons: []Reason{{Kind: ReasonStormCounts, Level: Suspect, Text: "t"}}}})
	if err != nil || !strings.Contains(string(b), `"validity":{"level":"suspect","reasons":[{"kind":"storm-counts"`) || strings.Contains(string(b), `"invalid"`) {
		t.Errorf("saved run.json %s, %v; want a validity object and no invalid string", b, err)
	}
}
