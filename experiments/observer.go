package experiments

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/topologies"
)

// observerMetrics are Storm's own figures over each run's window (harness.StormCounted): the same
// yardstick for both arms, so the comparison is not biased by the instrument under test.
var observerMetrics = []lab.Metric{
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
	// The diagnosis arms: one instrumented copy of the chain per run, with what the run diagnosis reads
	// while a run runs repeated every diagEvery of the window (harness.RunSpec.NodeSamplesEvery), and
	// without any of it (harness.RunSpec.NoNodeSamples); the claimed largest cost of a run's own reads.
	diagOn    = "diagnosis amplified"
	diagOff   = "diagnosis off"
	diagBound = 0.02
	diagEvery = 500 * time.Millisecond
	// diagSets is the sets of node reads a run's diagnosis makes: one at each end of the window.
	diagSets = 2
)

// observerKnobs are the observer experiment's settings under one
// scale: pairs (one run each, both arms side by side), fixed warm-up
// and window.
type observerKnobs struct {
	Scale           string
	Pairs           int
	DiagPairs       int // pairs of runs with and without the diagnosis's reads
	WarmUp, Measure time.Duration
	WorkerOpts      string // extra worker JVM options
}

func (k *observerKnobs) reps() *int { return &k.Pairs }

// Manifest lists the knobs for manifest.json.
func (k observerKnobs) Manifest() map[string]any {
	return map[string]any{"profile": k.Scale, "worker_opts": k.WorkerOpts, "observer_pairs": k.Pairs, "observer_diagnosis_pairs": k.DiagPairs,
		"observer_warmup": k.WarmUp.String(), "observer_measure": k.Measure.String(), "observer_max_spout_pending": observerPending}
}

// observerProfiles: ci is a walking check for make test (one side-by-side pair, short windows, no
// verdict; the claim logic is unit-tested). Its diagnosis series is left out there: its runs are single
// runs of one topology, the path every other cluster experiment's target test walks, with one switch
// (harness.RunSpec.NoNodeSamples) off.
var observerProfiles = map[string]observerKnobs{
	"ci":    {Scale: "ci", Pairs: 1, DiagPairs: 0, WarmUp: 10 * time.Second, Measure: 20 * time.Second, WorkerOpts: c1Only},
	"quick": {Scale: "quick", Pairs: 6, DiagPairs: 6, WarmUp: 20 * time.Second, Measure: 45 * time.Second, WorkerOpts: c1Only},
	"full":  {Scale: "full", Pairs: 10, DiagPairs: 10, WarmUp: 30 * time.Second, Measure: 120 * time.Second},
}

// Observer measures the observer effect of the harness's own instrumentation (the task hook in every
// task, the reporter thread and HdrHistograms in every worker): the Throughput chain at saturation with
// the instrumentation on and off, side by side on one cluster.
//
// Choices: saturation is the unpaced spout (--interval-ms 0) held by max spout pending 1000 per spout
// task, the harness's saturating setting. The design is paired: each run deploys both arms at once, two
// copies of the chain (one instrumented, one not) on the same supervisors (storm-even gives each the
// same worker layout), read by Storm's own counters over the same window (harness.StormCounted with
// Beside: acked tuples per second and mean complete latency, stats sample rate 1.0 in both) after the
// same fixed warm-up. Both copies share every disturbance of this shared 2-core machine, which had
// made separate runs of one arm vary by up to a factor of two (earlier design: arms in ABBA order,
// separate runs; CV 13-36% per arm and 95% intervals of +-30% or more on the overhead). Both saturate
// the same CPU, so their throughput ratio is the ratio of their per-tuple costs. Which arm is the
// run's own topology and which runs beside it alternates by pair, because the position matters: in
// 18 quick pairs the run's own topology (submitted first) ran at about 91% of the throughput of the
// one beside it, whichever arm it was. So the pairs are an AB/BA crossover and are analysed as one
// (reports.CrossoverRatioCI): the log ratio on/off of each pair is the arms' effect plus or minus the
// position's, the position's share is taken out of the spread, and the interval is Student's t on
// n - 2 degrees of freedom (a plain paired analysis counts the position as noise: twice the spread on
// those 18 pairs). The unit is one pair. Throughput overhead is 1 - r, r the arms' ratio on/off;
// latency overhead is the same ratio of the mean complete latencies minus 1.
//
// The run diagnosis's own cost is a second pair of series. What it reads while a run runs (every
// supervisor's cgroup at both ends of the window, one exec each; the rest is computed from records
// after the window) acts on the nodes, so both arms cannot share a run: each diagnosis pair is two
// runs of one instrumented copy, in an order that alternates by pair, analysed by the same crossover
// (the order's effect taken out as the position's is). Two sets of reads in a run cost too little to
// tell from the spread of separate runs on this host (12 pairs of runs with and without them: -1.2%,
// 95% CI -5.1% to +2.6%), so the arm with the reads repeats them every 0.5 s of the window as well
// (harness.RunSpec.NodeSamplesEvery; about 90 sets at quick) and the arm without reads none
// (harness.RunSpec.NoNodeSamples): the cost of a run's own two sets is the amplified arm's cost times
// 2 / its sets (the run records how many succeeded). The scaling assumes each set costs the same CPU,
// taken from a CPU-bound saturated chain, so throughput falls in proportion; the claim holds when the
// scaled 95% CI lies wholly at or under 2%.
func Observer() *lab.Spec {
	return &lab.Spec{
		Name:        "observer",
		Description: "observer effect of the harness's instrumentation: Throughput chain at saturation, instrumentation on vs off",
		Source:      "property of this harness; the Throughput chain of " + lab.Cite(paperKPart, "sec. 2.1"),
		Setup: "shape " + observerProfile + " (supervisors of 0.5 and 1.0 cores; on a target, its supervisors), " +
			"storm-even; two copies of the Throughput chain side by side (2 workers each, parallelism 1, 100-byte " +
			"payload) with an unpaced spout held by max spout pending " + strconv.Itoa(observerPending) + " " +
			"(saturation), C1-only worker JVMs (quick); the instrumentation (task hook, reporter, histograms) on or " +
			"off (--instrumentation), Storm's stats sample rate 1.0 in both; paired: each run deploys both arms side " +
			"by side, measured by Storm's own counters over the same window after a fixed warm-up (ci: 10 s warm-up, " +
			"20 s window, 1 pair, no verdict; quick: 20 s, 45 s, 6 pairs; full: 30 s, 120 s, 10 pairs); which arm is " +
			"the run's own topology alternates; the unit is one pair. Series \"diagnosis amplified\"/\"diagnosis off\": as " +
			"many pairs of separate runs of one instrumented copy, with the run diagnosis's reads (the supervisors' cgroups) " +
			"at the window's ends and every 0.5 s between, and with none, their order alternating by pair, at quick and full; " +
			"the cost is scaled to a run's own two sets of reads; the unit is one pair.",
		SeriesLabel: "instrumentation",
		XName:       "max_spout_pending",
		XLabel:      "max spout pending per spout task",
		Metrics:     observerMetrics,
		// Cost: quick measured with the diagnosis pairs (29 min); ci is one side-by-side pair.
		Cost: lab.Cost{CI: "~2 min", Quick: "~30 min", Full: "~90 min"},
		Needs: lab.Needs{Need: lab.NeedsCluster,
			Why:       "it runs two copies of the Throughput chain side by side, read by Storm's own counters, on a Storm cluster: its own containers, or a target",
			RealStorm: "it measures the instrumentation's cost on Storm's own counters"},
		Scales: scales(observerProfiles),
		Run:    runObserver,
		Claims: observerClaims,
	}
}

// observerMainOn says which arm is the run's own topology in pair i (the other runs beside it):
// alternating, so neither arm is always the one submitted first.
func observerMainOn(i int) bool { return i%2 == 0 }

// observerArgs are the Throughput topology's flags for one arm (after its defaults).
func observerArgs(on bool, seed int, prof observerKnobs) []string {
	// Two workers per copy: with both copies side by side each supervisor runs one worker of each, the
	// four workers the cluster's memory holds (sup1: 1,024 MB less the daemons' reserve).
	a := []string{"--workers", "2", "--interval-ms", "0", "--max-spout-pending", strconv.Itoa(observerPending), "--seed", strconv.Itoa(seed)}
	a = append(a, topologies.InstrumentationArgs(on)...)
	return append(a, workerArgs(prof.WorkerOpts)...)
}

func arm(on bool) string {
	if on {
		return observerOn
	}
	return observerOff
}

func runObserver(ctx context.Context, env lab.Env) (*lab.Results, error) {
	_, k, _, err := knobsOf(env, observerProfiles)
	if err != nil {
		return nil, err
	}
	if env.Reps > 0 {
		k.DiagPairs = env.Reps // --reps sets both series' pairs: each claim is judged on its own pairs
	}
	res := &lab.Results{Experiment: "observer", Metrics: observerMetrics, Scale: k.Scale, Knobs: knobsManifest(k)}
	if k.Pairs < lab.MinVerdictReps {
		res.NoVerdict = fmt.Sprintf("%d pairs; a verdict needs >= %d", k.Pairs, lab.MinVerdictReps)
	}
	ob := &observerRunner{runBase: runBase{env: env, res: res, counter: newRunCounter(env, k.Pairs+2*k.DiagPairs)}, k: k}
	cs := harness.ClusterSpec{Shape: observerProfile, Seed: 1}
	err = withCluster(ctx, env, cs, "storm-even", func(s *clusterView) error {
		for i := 0; i < k.Pairs; i++ {
			if err := ob.run(ctx, s, i); err != nil {
				return err
			}
		}
		for i := 0; i < k.DiagPairs; i++ {
			if err := ob.runDiagnosis(ctx, s, i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// observerRunner runs observer's pairs.
type observerRunner struct {
	runBase
	k observerKnobs
}

// run runs (or reads back) pair i, both arms side by side, and adds a row per arm.
func (ob *observerRunner) run(ctx context.Context, s *clusterView, i int) error {
	env, k := ob.env, ob.k
	mainOn := observerMainOn(i)
	topo := func(on bool) (harness.TopologyRun, error) {
		return harness.StormTopology("throughput", fmt.Sprintf("obs-%s-r%d", arm(on), i), observerArgs(on, i+1, k)...)
	}
	main, err := topo(mainOn)
	if err != nil {
		return err
	}
	beside, err := topo(!mainOn)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("obs-pair-r%d", i)
	ob.counter.start(fmt.Sprintf("pair %d (instrumented and not, side by side)", i), k.WarmUp+k.Measure)
	r, resumed, err := runOrResume(env, name, func() (*harness.RunResult, error) {
		return s.Run(ctx, harness.RunSpec{Topology: main, WarmUp: k.WarmUp, Measure: k.Measure,
			End: harness.StormCounted{Uninstrumented: !mainOn, Beside: &beside}})
	})
	if err := keepRun(env, name, r, err, resumed); err != nil {
		return err
	}
	if r.Beside == nil {
		return fmt.Errorf("%s: the run kept no figures of the topology beside it (%s): run it again without --resume", name, beside.Name)
	}
	on, off := r.Storm, r.Beside.Storm
	if !mainOn {
		on, off = off, on
	}
	lay, besideLay := layout(r.Executors), layout(r.Beside.Executors)
	fmt.Fprintf(env.Log, "observer: pair %d: on %.1f tuples/s, %.1f ms; off %.1f tuples/s, %.1f ms (Storm's counters); layouts: %s %s, beside %s %s\n",
		i, on.Throughput, on.CompleteLatencyMs, off.Throughput, off.CompleteLatencyMs, arm(mainOn), lay, arm(!mainOn), besideLay)
	if lay != besideLay {
		fmt.Fprintf(env.Log, "observer: pair %d: the two copies are laid out differently; their ratio mixes placement with instrumentation\n", i)
	}
	for _, a := range []struct {
		on bool
		c  harness.StormCheck
	}{{true, on}, {false, off}} {
		var failed int64
		for _, sp := range a.c.Spouts {
			failed += sp.Failed
		}
		ob.res.Add(lab.Row{Series: arm(a.on), X: observerPending, Rep: i, Seed: uint64(i + 1), Offered: "unpaced (saturation), side by side", Values: map[string]float64{
			"throughput": a.c.Throughput, "latency_mean_ms": a.c.CompleteLatencyMs, "failed": float64(failed),
		}})
	}
	return nil
}

// runDiagnosis runs (or reads back) diagnosis pair i: one instrumented copy of the chain twice, with
// the diagnosis's reads and without, the first of them alternating by pair (observerMainOn), and adds
// a row per run.
func (ob *observerRunner) runDiagnosis(ctx context.Context, s *clusterView, i int) error {
	env, k := ob.env, ob.k
	order := []bool{observerMainOn(i), !observerMainOn(i)}
	for _, on := range order {
		name := fmt.Sprintf("obs-diagx-%s-r%d", arm(on), i)
		topo, err := harness.StormTopology("throughput", name, observerArgs(true, i+1, k)...)
		if err != nil {
			return err
		}
		ob.counter.start(fmt.Sprintf("diagnosis pair %d, diagnosis %s", i, arm(on)), k.WarmUp+k.Measure)
		r, resumed, err := runOrResume(env, name, func() (*harness.RunResult, error) {
			spec := harness.RunSpec{Topology: topo, WarmUp: k.WarmUp, Measure: k.Measure, End: harness.StormCounted{}, NoNodeSamples: !on}
			if on {
				spec.NodeSamplesEvery = diagEvery
			}
			return s.Run(ctx, spec)
		})
		if err := keepRun(env, name, r, err, resumed); err != nil {
			return err
		}
		read := r.Diagnosis != nil && len(r.Diagnosis.Cgroups) > 0
		fmt.Fprintf(env.Log, "observer: diagnosis pair %d: diagnosis %s: %.1f tuples/s, %.1f ms (Storm's counters); node samples read: %t, sets %d\n",
			i, arm(on), r.Storm.Throughput, r.Storm.CompleteLatencyMs, read, r.NodeSampleSets)
		var failed int64
		for _, sp := range r.Storm.Spouts {
			failed += sp.Failed
		}
		series := diagOff
		if on {
			series = diagOn
		}
		ob.res.Add(lab.Row{Series: series, X: observerPending, Rep: i, Seed: uint64(i + 1), Offered: "unpaced (saturation)", Values: map[string]float64{
			"throughput": r.Storm.Throughput, "latency_mean_ms": r.Storm.CompleteLatencyMs, "failed": float64(failed),
			diagSetsValue: float64(r.NodeSampleSets),
		}})
	}
	return nil
}

// diagSetsValue is a diagnosis run's sets of node reads in its row's values (not a metric: the
// amplification the diagnosis claim scales by).
const diagSetsValue = "node_read_sets"

// layout is where each component's executors run ("bolt1@sup2 spout@sup1 ..."), sorted.
func layout(execs []harness.ExecutorPlace) string {
	var parts []string
	for _, e := range execs {
		parts = append(parts, e.Component+"@"+e.Host)
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// pairedValues are the instrumentation arms' values of metric ordered by pair (Rep), only pairs with
// both arms, and whether the instrumented arm was the run's own topology (observerMainOn) in each.
func pairedValues(r *lab.Results, metric string) (on, off []float64, onFirst []bool) {
	return pairedOf(r, metric, observerOn, observerOff)
}

// pairedOf is pairedValues for the arms onSeries and offSeries (the diagnosis arms: whether the run
// with the diagnosis ran first).
func pairedOf(r *lab.Results, metric, onSeries, offSeries string) (on, off []float64, onFirst []bool) {
	by := map[int][2]float64{}
	has := map[int]int{}
	for _, row := range r.Rows {
		v := by[row.Rep]
		switch row.Series {
		case onSeries:
			v[0] = row.Values[metric]
			has[row.Rep] |= 1
		case offSeries:
			v[1] = row.Values[metric]
			has[row.Rep] |= 2
		}
		by[row.Rep] = v
	}
	var reps []int
	for rep, h := range has {
		if h == 3 {
			reps = append(reps, rep)
		}
	}
	slices.Sort(reps)
	for _, rep := range reps {
		on, off = append(on, by[rep][0]), append(off, by[rep][1])
		onFirst = append(onFirst, observerMainOn(rep))
	}
	return on, off, onFirst
}

// overheads are the observer experiment's two effects with their 95% intervals (see Observer), and
// the position effect on throughput.
type overheads struct {
	thr, thrLo, thrHi float64 // 1 - on/off
	lat, latLo, latHi float64 // on/off - 1
	position          float64 // throughput of the run's own topology / the one beside it, arms taken out
	err               error
}

func observerOverheads(r *lab.Results) overheads {
	var o overheads
	thrOn, thrOff, first := pairedValues(r, "throughput")
	latOn, latOff, _ := pairedValues(r, "latency_mean_ms")
	ratio, lo, hi, pos, err := reports.CrossoverRatioCI(thrOn, thrOff, first)
	o.thr, o.thrLo, o.thrHi = 1-ratio, 1-hi, 1-lo
	// exp(2 beta) is the instrumented arm's gain from being first; its square root is the first
	// position's gain over the second for either arm.
	o.position = math.Sqrt(pos)
	lr, llo, lhi, _, lerr := reports.CrossoverRatioCI(latOn, latOff, first)
	o.lat, o.latLo, o.latHi = lr-1, llo-1, lhi-1
	o.err = joinErr(err, lerr)
	return o
}

// observerClaims: the harness's stated property, throughput overhead <= 5%, decided by the rule of a
// threshold check: the 95% CI of the arms' ratio on/off in the crossover (reports.CrossoverRatioCheck)
// wholly >= 0.95 (the overhead's CI wholly <= 5%) holds, wholly < 0.95 does not hold, else
// inconclusive.
func observerClaims(r *lab.Results, a *lab.Aggregate) []lab.Claim {
	thrOn, thrOff, first := pairedValues(r, "throughput")
	latOn, latOff, _ := pairedValues(r, "latency_mean_ms")
	o := observerOverheads(r)
	evidence := fmt.Sprintf("throughput on %.0f/s vs off %.0f/s (means): overhead (1 - on/off, crossover) %s (95%% CI %s to %s); mean complete latency on %.1f ms vs off %.1f ms: overhead (on/off - 1, crossover) %s (95%% CI %s to %s); n = %d pairs; position effect: the run's own topology's throughput %s against the one beside it, either arm",
		mean(thrOn), mean(thrOff), signedPct(o.thr), signedPct(o.thrLo), signedPct(o.thrHi),
		mean(latOn), mean(latOff), signedPct(o.lat), signedPct(o.latLo), signedPct(o.latHi), len(thrOn), signedPct(o.position-1))
	if o.err != nil {
		evidence += " (" + o.err.Error() + ")"
	}
	out := []lab.Claim{{
		Statement: fmt.Sprintf("the harness's instrumentation costs at most %.0f%% of the saturated throughput (throughput overhead <= %.0f%%)", 100*observerBound, 100*observerBound),
		Source:    "stormlab observer experiment (a stated property of the harness)",
		Kind:      lab.ProjectClaim,
		Evidence:  evidence,
		Checks: []reports.Check{
			reports.CrossoverRatioCheck("throughput on / off, crossover", thrOn, thrOff, first, reports.Above(1-observerBound)),
		},
	}}
	if c, ok := diagnosisClaim(r); ok {
		out = append(out, c)
	}
	return out
}

// diagnosisClaim: the run diagnosis's reads during a run cost at most 2% of the saturated throughput,
// judged on the amplified arm scaled to a run's own sets of reads (see Observer): the crossover's 95%
// CI of the ratio amplified/off, scaled, wholly at or under the bound holds, wholly over does not
// hold, else inconclusive; none for results without the amplified series (kept before it existed).
func diagnosisClaim(r *lab.Results) (lab.Claim, bool) {
	on, off, first := pairedOf(r, "throughput", diagOn, diagOff)
	if len(on) == 0 {
		return lab.Claim{}, false
	}
	sets := diagReadSets(r)
	scale := diagSets / sets // a run's own sets over the amplified arm's
	ratio, lo, hi, pos, err := reports.CrossoverRatioCI(on, off, first)
	evidence := fmt.Sprintf("throughput with the reads amplified %.0f/s vs without reads %.0f/s (means of separate runs): cost (1 - amplified/off, crossover) %s (95%% CI %s to %s) with %.1f sets of reads per run on average; scaled to a run's %d sets: %s (95%% CI %s to %s); n = %d pairs; order effect: the first run's throughput %s against the second's",
		mean(on), mean(off), signedPct(1-ratio), signedPct(1-hi), signedPct(1-lo), sets, diagSets,
		signedPct((1-ratio)*scale), signedPct((1-hi)*scale), signedPct((1-lo)*scale), len(on), signedPct(math.Sqrt(pos)-1))
	if err != nil {
		evidence += " (" + err.Error() + ")"
	}
	check := reports.CrossoverRatioCheck(fmt.Sprintf("throughput amplified / off, crossover, >= 1 - %.0f%% x %.1f sets / %d", 100*diagBound, sets, diagSets),
		on, off, first, reports.Above(1-diagBound/scale))
	if !(sets > diagSets) { // no amplification measured: nothing to scale
		check = reports.CrossoverRatioCheck("throughput amplified / off, crossover (no extra reads recorded: unscaled)", on, off, first, reports.Above(1-diagBound))
	}
	return lab.Claim{
		Statement: fmt.Sprintf("the run diagnosis costs at most %.0f%% of the saturated throughput (its reads while a run runs)", 100*diagBound),
		Source:    "stormlab observer experiment (a stated property of the harness)",
		Kind:      lab.ProjectClaim,
		Evidence:  evidence,
		Checks:    []reports.Check{check},
	}, true
}

// diagReadSets is the mean sets of node reads of the amplified arm's runs (NaN without any).
func diagReadSets(r *lab.Results) float64 {
	var sets []float64
	for _, row := range r.Rows {
		if v, ok := row.Values[diagSetsValue]; ok && row.Series == diagOn {
			sets = append(sets, v)
		}
	}
	if len(sets) == 0 {
		return math.NaN()
	}
	return mean(sets)
}

// signedPct formats a fraction as a signed percentage ("n/a" for NaN).
func signedPct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", 100*f)
}
