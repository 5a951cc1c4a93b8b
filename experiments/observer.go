package experiments

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/images"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/topologies"
)

// observerMetrics are Storm's own figures over each run's window (harness.StormCounted): the same
// yardstick for both arms, so the comparison is not biased by the instrument under test.
var observerMetrics = []Metric{
	{Name: "throughput", Label: "throughput (Storm's acked tuples/s)"},
	{Name: "latency_mean_ms", Label: "complete latency mean (Storm's, ms)"},
	{Name: "failed", Label: "tuples failed in the window (Storm's count)"},
}

// Series of the observer experiment: the instrumentation on and off.
const (
	observerOn  = "on"
	observerOff = "off"
	// observerBound is the claimed largest throughput overhead.
	observerBound = 0.05
	// observerPending is the spouts' max spout pending: with an unpaced spout it is what saturates the
	// chain (the harness's default, the Java flag's default).
	observerPending = 1000
	observerProfile = "heterogeneous-2"
)

// observerKnobs are the observer experiment's settings per profile: runs per arm, fixed warm-up and
// window. ci has none (make test is near its budget; the claim logic is unit-tested).
var observerKnobs = map[string]struct {
	reps            int
	warmUp, measure time.Duration
}{
	"quick": {3, 20 * time.Second, 45 * time.Second},
	"full":  {6, 30 * time.Second, 120 * time.Second},
}

// Observer measures the observer effect of the harness's own instrumentation (the task hook in every
// task, the reporter thread and HdrHistograms in every worker): the Throughput chain at saturation with
// the instrumentation on and off, alternating on one cluster.
//
// Choices: saturation is the unpaced spout (--interval-ms 0) held by max spout pending 1000 per spout
// task, the harness's saturating setting; both arms are measured with Storm's own counters
// (harness.StormCounted: acked tuples per second and mean complete latency over the window, stats
// sample rate 1.0 in both arms) after the same fixed warm-up. The arms alternate in ABBA order (on,
// off, off, on, on, off, ...) so a linear drift of the shared machine cancels; the unit is one run.
// Throughput overhead is 1 - mean(on)/mean(off), the share of the uninstrumented throughput the
// instrumentation costs (positive = a cost); latency overhead is mean(on)/mean(off) - 1, the relative
// rise of the mean complete latency. Both have the 95% interval of the ratio of means (delta method).
func Observer() *Spec {
	return &Spec{
		Name:        "observer",
		Description: "observer effect of the harness's instrumentation: Throughput chain at saturation, instrumentation on vs off",
		Source:      "property of this harness; the Throughput chain of " + Cite(paperKPart, "sec. 2.1"),
		Setup: "profile " + observerProfile + " (supervisors of 0.5 and 1.0 cores), storm-even; Throughput chain (4 workers, parallelism 1, 100-byte payload) with an unpaced spout " +
			"held by max spout pending " + strconv.Itoa(observerPending) + " (saturation), C1-only worker JVMs (quick); the instrumentation (task hook, reporter, histograms) on or off " +
			"(--instrumentation), Storm's stats sample rate 1.0 in both; both arms measured by Storm's own counters over the window after a fixed warm-up " +
			"(quick: 20 s warm-up, 45 s window, 3 runs per arm; full: 30 s, 120 s, 6 runs per arm); arms alternate ABBA on one cluster; the unit is one run. Not in the ci profile.",
		SeriesLabel: "instrumentation",
		XName:       "max_spout_pending",
		XLabel:      "max spout pending per spout task",
		Metrics:     observerMetrics,
		Run:         runObserver,
		Claims:      observerClaims,
	}
}

// observerOrder is the arms' ABBA order over reps pairs: true = instrumentation on.
func observerOrder(reps int) []bool {
	var out []bool
	for i := 0; i < reps; i++ {
		out = append(out, i%2 == 0, i%2 != 0)
	}
	return out
}

// observerArgs are the Throughput topology's flags for one arm (after its defaults).
func observerArgs(on bool, seed int, prof ClusterProfile) []string {
	a := []string{"--interval-ms", "0", "--max-spout-pending", strconv.Itoa(observerPending), "--seed", strconv.Itoa(seed)}
	a = append(a, topologies.InstrumentationArgs(on)...)
	return append(a, prof.workerArgs()...)
}

func arm(on bool) string {
	if on {
		return observerOn
	}
	return observerOff
}

func runObserver(ctx context.Context, env Env) (*Results, error) {
	prof, err := profileOf(env)
	if err != nil {
		return nil, err
	}
	k, ok := observerKnobs[prof.Name]
	if !ok {
		return nil, fmt.Errorf("observer has no %s profile (%d cluster runs of a minute or more): run it with --profile quick or full", prof.Name, 6)
	}
	res := &Results{Experiment: "observer", Metrics: observerMetrics, Profile: prof.Name, Knobs: prof.Knobs()}
	if k.reps < MinVerdictReps {
		res.NoVerdict = fmt.Sprintf("%d runs per arm; a verdict needs >= %d", k.reps, MinVerdictReps)
	}
	res.Knobs["storm_version"] = images.StormVersion
	res.Knobs["observer_reps_per_arm"] = k.reps
	res.Knobs["observer_warmup"] = k.warmUp.String()
	res.Knobs["observer_measure"] = k.measure.String()
	res.Knobs["observer_max_spout_pending"] = observerPending
	order := observerOrder(k.reps)
	counter := newRunCounter(env, len(order))
	cs := harness.ClusterSpec{Profile: observerProfile, Seed: 1}
	err = withSession(ctx, env, cs, "storm-even", func(s *harness.Session) error {
		reps := map[bool]int{}
		for i, on := range order {
			rep := reps[on]
			reps[on]++
			name := fmt.Sprintf("obs-%s-r%d", arm(on), rep)
			topo, err := harness.StormTopology("throughput", name, observerArgs(on, i+1, prof)...)
			if err != nil {
				return err
			}
			counter.start(fmt.Sprintf("instrumentation %s, run %d", arm(on), rep), k.warmUp+k.measure)
			r, resumed, err := runOrResume(env, name, func() (*harness.RunResult, error) {
				return s.Run(ctx, harness.RunSpec{Topology: topo, WarmUp: k.warmUp, Measure: k.measure, End: harness.StormCounted{Uninstrumented: !on}})
			})
			if err := keepRun(env, name, r, err, resumed); err != nil {
				return err
			}
			st := r.Storm
			var failed int64
			for _, sp := range st.Spouts {
				failed += sp.Failed
			}
			line := fmt.Sprintf("observer: instrumentation %s, run %d: Storm %.1f tuples/s, complete latency %.1f ms, %d failed", arm(on), rep, st.Throughput, st.CompleteLatencyMs, failed)
			if on && st.Compared {
				line += fmt.Sprintf(" (ours: %.1f tuples/s, %.1f ms)", st.OurThroughput, st.OurLatencyMs)
			}
			fmt.Fprintln(env.Log, line)
			res.Add(Row{Series: arm(on), X: observerPending, Rep: rep, Seed: uint64(i + 1), Offered: "unpaced (saturation)", Values: map[string]float64{
				"throughput": st.Throughput, "latency_mean_ms": st.CompleteLatencyMs, "failed": float64(failed),
			}})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// overheads are the observer experiment's two effects with their 95% intervals (see Observer).
type overheads struct {
	thr, thrLo, thrHi float64 // 1 - on/off
	lat, latLo, latHi float64 // on/off - 1
	latP              float64 // Welch's two-sided p of the latency difference
	err               error
}

func observerOverheads(r *Results) overheads {
	var o overheads
	thrOn, thrOff := r.Values(observerOn, "throughput", nil), r.Values(observerOff, "throughput", nil)
	latOn, latOff := r.Values(observerOn, "latency_mean_ms", nil), r.Values(observerOff, "latency_mean_ms", nil)
	ratio, lo, hi, err := reports.RatioCI(thrOn, thrOff)
	o.thr, o.thrLo, o.thrHi = 1-ratio, 1-hi, 1-lo
	lr, llo, lhi, lerr := reports.RatioCI(latOn, latOff)
	o.lat, o.latLo, o.latHi = lr-1, llo-1, lhi-1
	o.latP = math.NaN()
	if w, werr := reports.Welch(latOn, latOff); werr == nil {
		o.latP = w.PTwoSided
	}
	o.err = joinErr(err, lerr)
	return o
}

// observerClaims: the harness's stated property, throughput overhead <= 5%, decided by the rule of a
// threshold check: the 95% CI of mean(on)/mean(off) wholly >= 0.95 (the overhead's CI wholly <= 5%)
// holds, wholly < 0.95 does not hold, else inconclusive.
func observerClaims(r *Results, a *Aggregate) []Claim {
	thrOn, thrOff := r.Values(observerOn, "throughput", nil), r.Values(observerOff, "throughput", nil)
	o := observerOverheads(r)
	evidence := fmt.Sprintf("throughput on %.0f/s vs off %.0f/s: overhead (1 - on/off) %s (95%% CI %s to %s); mean complete latency on %.1f ms vs off %.1f ms: overhead (on/off - 1) %s (95%% CI %s to %s, Welch p %.3g); n = %d + %d runs",
		mean(thrOn), mean(thrOff), signedPct(o.thr), signedPct(o.thrLo), signedPct(o.thrHi),
		mean(r.Values(observerOn, "latency_mean_ms", nil)), mean(r.Values(observerOff, "latency_mean_ms", nil)),
		signedPct(o.lat), signedPct(o.latLo), signedPct(o.latHi), o.latP, len(thrOn), len(thrOff))
	if o.err != nil {
		evidence += " (" + o.err.Error() + ")"
	}
	return []Claim{{
		Statement: fmt.Sprintf("the harness's instrumentation costs at most %.0f%% of the saturated throughput (throughput overhead <= %.0f%%)", 100*observerBound, 100*observerBound),
		Source:    "stormlab observer experiment (a stated property of the harness)",
		Evidence:  evidence,
		Checks: []reports.Check{
			reports.RatioCheck("throughput on / off", thrOn, thrOff, reports.Above(1-observerBound)),
		},
	}}
}

// signedPct formats a fraction as a signed percentage ("n/a" for NaN).
func signedPct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", 100*f)
}
