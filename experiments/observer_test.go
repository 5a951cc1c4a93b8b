package experiments

import (
	"context"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/topologies"
)

// observerRows builds synthetic observer results: reps runs per arm, throughput on and off with 1%
// uniform noise, latency on and off.
func observerRows(t *testing.T, reps int, thrOn, thrOff, latOn, latOff float64) func() (*Results, *Aggregate) {
	return func() (*Results, *Aggregate) {
		n := newNoise(12)
		r := &Results{Experiment: "observer", Metrics: observerMetrics}
		for rep := 0; rep < reps; rep++ {
			r.Add(clusterRow(observerOn, observerPending, rep, map[string]float64{"throughput": n.rel(thrOn, 0.01), "latency_mean_ms": n.rel(latOn, 0.01), "failed": 0}))
			r.Add(clusterRow(observerOff, observerPending, rep, map[string]float64{"throughput": n.rel(thrOff, 0.01), "latency_mean_ms": n.rel(latOff, 0.01), "failed": 0}))
		}
		return agg(t, r)
	}
}

// TestObserverClaimVerdicts: the claim "throughput overhead <= 5%" by the CI rule on synthetic rows.
// With 1% noise and 3 runs per arm the ratio's 95% CI is about +-2.5% wide (delta method, ~4 df), so:
// 1000 vs 1000 (overhead 0%) lies wholly below 5%: holds; 800 vs 1000 (20%) wholly above: does not
// hold; 950 vs 1000 (exactly at the bound) straddles it: inconclusive; one run per arm: no interval.
func TestObserverClaimVerdicts(t *testing.T) {
	runClaimCases(t, observerClaims, []claimCase{
		{"no overhead", observerRows(t, 3, 1000, 1000, 50, 50), reports.Holds},
		{"20% overhead", observerRows(t, 3, 800, 1000, 62, 50), reports.DoesNotHold},
		{"overhead at the bound", observerRows(t, 3, 950, 1000, 52, 50), reports.Inconclusive},
		{"one run per arm", observerRows(t, 1, 1000, 1000, 50, 50), reports.Inconclusive},
	})
}

// TestObserverOverheads: the two effects and their signs by hand. Throughput on 900, 910, 920 (mean
// 910) vs off 1000, 1000, 1000: overhead 1 - 910/1000 = 9%; latency 55 vs 50 ms (constant): +10%
// with an empty interval (no variance).
func TestObserverOverheads(t *testing.T) {
	r := &Results{Experiment: "observer", Metrics: observerMetrics}
	for i, on := range []float64{900, 910, 920} {
		r.Add(clusterRow(observerOn, observerPending, i, map[string]float64{"throughput": on, "latency_mean_ms": 55, "failed": 0}))
		r.Add(clusterRow(observerOff, observerPending, i, map[string]float64{"throughput": 1000, "latency_mean_ms": 50, "failed": 0}))
	}
	o := observerOverheads(r)
	if o.err != nil {
		t.Fatal(o.err)
	}
	const tol = 1e-9
	if math.Abs(o.thr-0.09) > tol || !(o.thrLo < 0.09 && o.thrHi > 0.09) {
		t.Errorf("throughput overhead %.6f [%.4f, %.4f], want 0.09 inside its interval", o.thr, o.thrLo, o.thrHi)
	}
	if math.Abs(o.lat-0.10) > tol || math.Abs(o.latLo-0.10) > tol || math.Abs(o.latHi-0.10) > tol {
		t.Errorf("latency overhead %.6f [%.6f, %.6f], want 0.10 exactly", o.lat, o.latLo, o.latHi)
	}
	c := judged(observerClaims(r, nil), "")
	if len(c) != 1 || c[0].Verdict != reports.DoesNotHold || !strings.Contains(c[0].Evidence, "+9.0%") || !strings.Contains(c[0].Evidence, "+10.0%") {
		t.Errorf("claims %+v: want one refuted claim whose evidence shows +9.0%% and +10.0%%", c)
	}
}

// TestObserverSpec: the experiment is registered, alternates its arms ABBA with as many runs of each,
// runs the unpaced (saturating) chain with the instrumentation switched by the shared flag, and refuses
// the ci profile with a one-line error naming the fix.
func TestObserverSpec(t *testing.T) {
	spec, err := Lookup("observer")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Run == nil || spec.Claims == nil || len(spec.Metrics) == 0 {
		t.Fatalf("observer spec incomplete: %+v", spec)
	}
	for prof, k := range observerKnobs {
		if k.reps < MinVerdictReps || k.warmUp <= 0 || k.measure <= 0 {
			t.Errorf("profile %s: %+v; want >= %d runs per arm and positive windows", prof, k, MinVerdictReps)
		}
	}
	order := observerOrder(3)
	want := []bool{true, false, false, true, true, false}
	if !slices.Equal(order, want) {
		t.Errorf("observerOrder(3) = %v, want ABBA %v", order, want)
	}
	prof, err := ClusterProfileNamed("quick")
	if err != nil {
		t.Fatal(err)
	}
	for _, on := range []bool{true, false} {
		a := strings.Join(observerArgs(on, 1, prof), " ")
		for _, w := range []string{"--interval-ms 0", "--max-spout-pending 1000", strings.Join(topologies.InstrumentationArgs(on), " ")} {
			if !strings.Contains(a, w) {
				t.Errorf("arm %s: args %q lack %q", arm(on), a, w)
			}
		}
	}
	_, err = spec.Run(context.Background(), Env{Log: os.Stderr, Profile: "ci"})
	if err == nil || !strings.Contains(err.Error(), "--profile quick or full") || strings.Contains(err.Error(), "\n") {
		t.Errorf("ci profile: %v; want a one-line error naming --profile quick or full", err)
	}
}

// TestExperimentObserver runs the observer experiment on a real cluster under quick or full only (6+
// cluster runs; make test's ci budget has no room for it).
func TestExperimentObserver(t *testing.T) {
	if p := os.Getenv(ProfileEnv); p != "quick" && p != "full" {
		t.Skipf("observer: six or more cluster runs; not run under the ci profile (set %s=quick to run it)", ProfileEnv)
	}
	runForTest(t, "observer")
}
