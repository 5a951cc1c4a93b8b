package experiments

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/topologies"
)

// observerRows builds synthetic observer results: reps pairs, each with a common disturbance of up to
// 30% (what the machine does to both arms side by side) and 1% uniform noise per arm.
func observerRows(t *testing.T, reps int, thrOn, thrOff, latOn, latOff float64) func() (*lab.Results, *lab.Aggregate) {
	const f = 0.01
	return func() (*lab.Results, *lab.Aggregate) {
		n := newNoise(12)
		r := &lab.Results{Experiment: "observer", Metrics: observerMetrics}
		for rep := 0; rep < reps; rep++ {
			common := n.rel(1, 0.3)
			r.Add(clusterRow(observerOn, observerPending, rep, map[string]float64{"throughput": n.rel(common*thrOn, f), "latency_mean_ms": n.rel(latOn/common, f), "failed": 0}))
			r.Add(clusterRow(observerOff, observerPending, rep, map[string]float64{"throughput": n.rel(common*thrOff, f), "latency_mean_ms": n.rel(latOff/common, f), "failed": 0}))
		}
		return agg(t, r)
	}
}

// TestObserverClaimVerdicts: the claim "throughput overhead <= 5%" by the CI rule on synthetic pairs.
// The common disturbance cancels in each pair's ratio; with 1% noise per arm and 3 pairs the paired
// ratio's 95% CI is a few percent wide (t with 2 df), so: 1000 vs 1000 (overhead 0%) lies wholly below
// 5%: holds; 800 vs 1000 (20%) wholly above: does not hold; pairs around the bound straddle it:
// inconclusive; one pair: no interval.
func TestObserverClaimVerdicts(t *testing.T) {
	runClaimCases(t, observerClaims, []claimCase{
		{"no overhead", observerRows(t, 3, 1000, 1000, 50, 50), reports.Holds},
		{"20% overhead", observerRows(t, 3, 800, 1000, 62, 50), reports.DoesNotHold},
		{"overhead at the bound", func() (*lab.Results, *lab.Aggregate) {
			// Paired ratios 0.93, 0.95, 0.97: geometric mean 0.9497, 95% CI about 0.90 to 1.00.
			r := &lab.Results{Experiment: "observer", Metrics: observerMetrics}
			for rep, on := range []float64{930, 1900, 970} {
				off := []float64{1000, 2000, 1000}[rep]
				r.Add(clusterRow(observerOn, observerPending, rep, map[string]float64{"throughput": on, "latency_mean_ms": 50, "failed": 0}))
				r.Add(clusterRow(observerOff, observerPending, rep, map[string]float64{"throughput": off, "latency_mean_ms": 50, "failed": 0}))
			}
			return agg(t, r)
		}, reports.Inconclusive},
		{"one run per arm", observerRows(t, 1, 1000, 1000, 50, 50), reports.Inconclusive},
	})
}

// TestObserverOverheads: the two effects and their signs by hand. Pairs (on/off) 900/1000 (on
// first), 900/1000 (off first), 910/1000 (on first), 910/1000 (off first): both position groups' mean
// log is ln(0.9 * 0.91) / 2, so the crossover's ratio is sqrt(0.9 * 0.91) = 0.904986, overhead
// 9.5014%, and the position effect is none; the interval (2 df) lies wholly below 0.95. Latency 55
// vs 50 ms in every pair: +10% with an empty interval (no variance).
func TestObserverOverheads(t *testing.T) {
	r := &lab.Results{Experiment: "observer", Metrics: observerMetrics}
	for i, on := range []float64{900, 900, 910, 910} {
		r.Add(clusterRow(observerOn, observerPending, i, map[string]float64{"throughput": on, "latency_mean_ms": 55, "failed": 0}))
		r.Add(clusterRow(observerOff, observerPending, i, map[string]float64{"throughput": 1000, "latency_mean_ms": 50, "failed": 0}))
	}
	o := observerOverheads(r)
	if o.err != nil {
		t.Fatal(o.err)
	}
	const tol = 1e-9
	want := 1 - math.Sqrt(0.9*0.91)
	if math.Abs(o.position-1) > tol {
		t.Errorf("position effect %.6f, want 1 (none)", o.position)
	}
	if math.Abs(o.thr-want) > tol || !(o.thrLo < want && o.thrHi > want) {
		t.Errorf("throughput overhead %.6f [%.4f, %.4f], want %.6f inside its interval", o.thr, o.thrLo, o.thrHi, want)
	}
	if math.Abs(o.lat-0.10) > tol || math.Abs(o.latLo-0.10) > tol || math.Abs(o.latHi-0.10) > tol {
		t.Errorf("latency overhead %.6f [%.6f, %.6f], want 0.10 exactly", o.lat, o.latLo, o.latHi)
	}
	c := judged(observerClaims(r, nil), "")
	if len(c) != 1 || c[0].Verdict != reports.DoesNotHold || !strings.Contains(c[0].Evidence, "+9.5%") || !strings.Contains(c[0].Evidence, "+10.0%") {
		t.Errorf("claims %+v: want one refuted claim whose evidence shows +9.5%% and +10.0%%", c)
	}
}

// TestObserverSpec: the experiment is registered, alternates its arms ABBA with as many runs of each,
// runs the unpaced (saturating) chain with the instrumentation switched by the shared flag; every
// scale but ci (a one-pair walking check, no verdict) has enough pairs for one.
func TestObserverSpec(t *testing.T) {
	spec, err := Lookup("observer")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Run == nil || spec.Claims == nil || len(spec.Metrics) == 0 {
		t.Fatalf("observer spec incomplete: %+v", spec)
	}
	for prof, k := range observerProfiles {
		if (k.Pairs < lab.MinVerdictReps) != (prof == "ci") || (k.DiagPairs < lab.MinVerdictReps) != (prof == "ci") || k.WarmUp <= 0 || k.Measure <= 0 {
			t.Errorf("scale %s: %+v; want >= %d pairs of each series (ci: fewer; its diagnosis series may be left out) and positive windows", prof, k, lab.MinVerdictReps)
		}
	}
	var roles []bool
	for i := 0; i < 4; i++ {
		roles = append(roles, observerMainOn(i))
	}
	if want := []bool{true, false, true, false}; !slices.Equal(roles, want) {
		t.Errorf("the run's own topology is the instrumented one in pairs 0-3: %v, want alternating %v", roles, want)
	}
	prof := observerProfiles["quick"]
	for _, on := range []bool{true, false} {
		a := strings.Join(observerArgs(on, 1, prof), " ")
		for _, w := range []string{"--interval-ms 0", "--max-spout-pending 1000", strings.Join(topologies.InstrumentationArgs(on), " ")} {
			if !strings.Contains(a, w) {
				t.Errorf("arm %s: args %q lack %q", arm(on), a, w)
			}
		}
	}
}

// TestObserverPositionEffect: the run's own topology runs 10% slower than the one beside it whichever
// arm it is, and the arms are equal within 1%. The crossover takes the position out: overhead near 0
// (inside [-1%, +1%]), position effect -10% (sqrt(0.9 / (1 / 0.9)) = 0.9), and the claim holds, where a
// plain paired analysis of the same 6 pairs counts the position as noise and cannot decide.
func TestObserverPositionEffect(t *testing.T) {
	r := &lab.Results{Experiment: "observer", Metrics: observerMetrics}
	jitter := []float64{1.00, 1.01, 0.995, 1.005, 1.00, 0.99}
	for i, j := range jitter {
		main, beside := 900*j, 1000.0
		on, off := main, beside
		if !observerMainOn(i) {
			on, off = beside, main
		}
		r.Add(clusterRow(observerOn, observerPending, i, map[string]float64{"throughput": on, "latency_mean_ms": 50, "failed": 0}))
		r.Add(clusterRow(observerOff, observerPending, i, map[string]float64{"throughput": off, "latency_mean_ms": 50, "failed": 0}))
	}
	o := observerOverheads(r)
	if o.err != nil || math.Abs(o.thr) > 0.01 || math.Abs(o.position-0.9) > 0.01 {
		t.Errorf("overhead %.4f, position %.4f, err %v; want within 0.01 of 0 and 0.9", o.thr, o.position, o.err)
	}
	if c := judged(observerClaims(r, nil), ""); len(c) != 1 || c[0].Verdict != reports.Holds {
		t.Errorf("claims %+v: want one claim that holds", c)
	}
	on, off, _ := pairedValues(r, "throughput")
	if c := reports.PairedRatioCheck("", on, off, reports.Above(1-observerBound)); c.Verdict != reports.Inconclusive {
		t.Errorf("paired analysis: %s, want inconclusive (the position counted as noise)", c.Verdict)
	}
}

// TestObserverDiagnosisClaim: the diagnosis's cost is judged on the amplified arm, scaled to a run's own
// two sets of reads, against 2%. Separate runs with the amplified arm first in even pairs; the first run
// of a pair is 5% faster whichever it is (an order effect the crossover takes out), with 0.5% alternating
// jitter (the 95% CI of the ratio, 4 df, within about +-1%). With 92 sets per amplified run the bound on
// the amplified ratio is 1 - 0.02 x 92 / 2 = 0.08: an amplified cost of 10% scales to 0.2% and holds; of
// 95% (ratio 0.05) scales to 2.07% and does not hold. With no extra sets recorded (2 per run) nothing
// is scaled: a 1% cost holds against 2% and 6% does not (the first design's rule).
func TestObserverDiagnosisClaim(t *testing.T) {
	rows := func(cost, sets float64) *lab.Results {
		r := &lab.Results{Experiment: "observer", Metrics: observerMetrics}
		for i, j := range []float64{1.005, 0.995, 1.005, 0.995, 1.00, 1.00} {
			on, off := 1000*(1-cost)*j, 1000.0
			if observerMainOn(i) {
				on *= 1.05
			} else {
				off *= 1.05
			}
			r.Add(clusterRow(diagOn, observerPending, i, map[string]float64{"throughput": on, "latency_mean_ms": 50, "failed": 0, diagSetsValue: sets}))
			r.Add(clusterRow(diagOff, observerPending, i, map[string]float64{"throughput": off, "latency_mean_ms": 50, "failed": 0}))
		}
		return r
	}
	for _, tc := range []struct {
		cost, sets float64
		want       reports.Verdict
	}{
		{0.10, 92, reports.Holds},
		{0.95, 92, reports.DoesNotHold},
		{0.01, 2, reports.Holds},
		{0.06, 2, reports.DoesNotHold},
	} {
		cs := judged(observerClaims(rows(tc.cost, tc.sets), nil), "")
		v, why, ok := verdictOf(cs, "the run diagnosis costs at most 2%")
		if !ok || v != tc.want {
			t.Errorf("cost %.2f over %.0f sets: diagnosis claim %q (%s), want %q", tc.cost, tc.sets, v, why, tc.want)
		}
	}
	if _, ok := diagnosisClaim(&lab.Results{Experiment: "observer", Metrics: observerMetrics}); ok {
		t.Error("a diagnosis claim without the diagnosis series")
	}
}
