package experiments

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/reports"
)

// kpartClusterMetrics are the steady-state values of kpart-cluster.
var kpartClusterMetrics = []lab.Metric{
	{Name: "throughput", Label: "throughput (acked tuples/s)"},
	{Name: "latency_mean_ms", Label: "complete latency mean (ms)"},
	{Name: "latency_p99_ms", Label: "complete latency p99 (ms)"},
	{Name: "cut_rate", Label: "inter-node tuple rate (inter-node / all tuples)"},
	{Name: "inter_node_tps", Label: "inter-node tuples/s"},
	{Name: "balance", Label: "node CPU std dev (% of capacity)"},
	// The open-loop cell's (x = F) own: unpaced runs have no intended send time.
	{Name: "offered_tps", Label: "offered (tuples/s)", Optional: true},
	{Name: "latency_intended_p99_ms", Label: "latency p99 from the intended send time (ms)", Optional: true},
	{Name: "send_lag_p99_ms", Label: "send lag p99 (ms: actual emit minus intended send time)", Optional: true},
}

// kpartClusterSchedulers are the three schedulers of Figs. 8-11.
var kpartClusterSchedulers = []string{"kpart-dynamic", "online", "storm-even"}

// kpartShape is the cluster of kpart-cluster: four identical nodes (the
// paper's VMs were identical: 4 cores, 4 GB each).
const kpartShape = "homogeneous-4"

// kpartKnobs are kpart-cluster's settings at one scale.
type kpartKnobs struct {
	Scale                 string
	Reps                  int
	WarmUp, Measure, Step time.Duration
	Workers, Parallelism  int
	Reschedule            time.Duration // the service's rescheduling period
	// The steady-state table uses the second half of the window. With a
	// fixed warm-up (ci) that half must start after the dynamic schedulers'
	// first reschedule and worker restart (40 s windows with a 15 s
	// reschedule period; 30 s windows left no acked tuple in the second
	// half, measured in a ci run).
	//
	// SettleUnpaced makes the unpaced runs' window open, as the open-loop
	// cell's, once throughput is steady and a dynamic scheduler's placement
	// has settled (RunSpec.Settle), at most WarmUp. Without it K-PART's
	// first migration (about 30 s after the submit) and its workers' restart
	// fell in the judged half, which then was not steady: its throughput
	// claim could not be judged.
	SettleUnpaced bool
	//
	// OpenFraction, when > 0, adds an open-loop cell (x = OpenFraction): the
	// spouts offer this fraction of the calibration, EvenScheduler's
	// saturated throughput measured by this experiment's unpaced runs
	// (kpartCalibration), at constant arrivals. Its window opens once
	// throughput is steady, the start-up backlog has drained and a dynamic
	// scheduler's placement has settled (RunSpec.Settle), at most OpenWarmUp.
	// Latency, balance and inter-node claims use this cell when the scale
	// has it; throughput claims keep the unpaced cell (capacity).
	OpenFraction            float64
	OpenWarmUp, OpenMeasure time.Duration
	WorkerOpts              string // extra worker JVM options
}

func (k *kpartKnobs) reps() *int { return &k.Reps }

// Manifest lists the knobs for manifest.json.
func (k kpartKnobs) Manifest() map[string]any {
	return map[string]any{"profile": k.Scale, "reps": k.Reps,
		"kpart_warmup": k.WarmUp.String(), "kpart_measure": k.Measure.String(), "kpart_step": k.Step.String(),
		"kpart_workers": k.Workers, "kpart_parallelism": k.Parallelism, "kpart_reschedule": k.Reschedule.String(), "kpart_settle_unpaced": k.SettleUnpaced,
		"kpart_open_fraction": k.OpenFraction, "kpart_open_warmup": k.OpenWarmUp.String(), "kpart_open_measure": k.OpenMeasure.String(),
		"kpart_shuffle": "uniform (" + uniformShuffle + ")", "worker_opts": k.WorkerOpts}
}

// kpartClusterScales: ci has no open-loop cell (it keeps make test's
// cluster time; the open-loop runs are load-curve's code, and the
// calibration is unit-tested); quick and full offer 50% of EvenScheduler's
// saturated throughput. Their warm-ups (open loop, and unpaced with
// SettleUnpaced) allow a dynamic scheduler's first offer (one or two
// reschedule periods after the submit), a migration's worker restarts and
// the next offer that keeps the placement: 60 s with a 15 s period, 150 s
// with 30 s.
var kpartClusterScales = map[string]kpartKnobs{
	"ci": {Scale: "ci", Reps: 1, WarmUp: 5 * time.Second, Measure: 40 * time.Second, Step: 10 * time.Second,
		Workers: 4, Parallelism: 2, Reschedule: 15 * time.Second, WorkerOpts: c1Only},
	"quick": {Scale: "quick", Reps: 3, WarmUp: 60 * time.Second, SettleUnpaced: true, Measure: 40 * time.Second, Step: 10 * time.Second,
		Workers: 4, Parallelism: 2, Reschedule: 15 * time.Second, WorkerOpts: c1Only,
		OpenFraction: 0.5, OpenWarmUp: 60 * time.Second, OpenMeasure: 30 * time.Second},
	"full": {Scale: "full", Reps: 3, WarmUp: 150 * time.Second, SettleUnpaced: true, Measure: 300 * time.Second, Step: 10 * time.Second,
		Workers: 8, Parallelism: 4, Reschedule: 30 * time.Second,
		OpenFraction: 0.5, OpenWarmUp: 150 * time.Second, OpenMeasure: 120 * time.Second},
}

// KPartCluster reproduces Jian, Lu and Zhang 2018, sec. 4, Figs. 8-11:
// the dynamic K-PART scheduler vs the traffic-based online scheduler
// (T-PART) vs Storm's EvenScheduler on the 4-component WordCount topology.
//
// Choices: throughput claims use unpaced runs (x = 0: the spout emits as
// fast as max.spout.pending allows), so throughput is the cluster's
// capacity. Latency, balance and inter-node claims use the open-loop cell
// (x = the offered fraction of EvenScheduler's saturated throughput) when
// the scale has one: at saturation latency is queueing noise and the
// rates swing, and the paper compares a settled system. An open-loop run counts when its
// judged half acked its offered rate within 10% and its latency p50 from
// the intended send time stayed flat between the half's halves (harness
// SteadySpan).
// Without that cell they use the unpaced runs.
// The calibration is measured unless the user states it (--calibration):
// the median of EvenScheduler's unpaced runs of the same experiment, which
// therefore run before any open-loop run. The
// steady-state table is measured over the second half of the measurement
// window (the paper compares "when the system is finally stable", after
// the dynamic schedulers' rescheduling); the time series cover the whole
// window in 10 s steps. The inter-node tuple rate is the paper's ratio of
// tuples sent over the network to all tuples (our cut rate, Fig. 9); the
// absolute inter-node tuples/s is reported too. CPU std dev is the
// population std dev of node CPU in percent of node capacity (Fig. 8).
func KPartCluster() *lab.Spec {
	return &lab.Spec{
		Name:        "kpart-cluster",
		Description: "dynamic K-PART vs online (T-PART) vs EvenScheduler on WordCount: balance, inter-node rate, latency, throughput over time",
		Paper:       paperKPart,
		Source:      lab.Cite(paperKPart, "sec. 4, Figs. 8-11"),
		Setup: "shape " + kpartShape + " (4 supervisors of 0.5 cores; on a target, its supervisors); WordCount " +
			"(sentence -> split -> count -> report, max.spout.pending 1000; shuffle groupings uniform, " +
			"topology.disable.loadaware.messaging: Storm 2's default shuffle prefers tasks in the same worker, which " +
			"makes the traffic the schedulers plan on follow their own placement, and the paper's Storm shuffled " +
			"uniformly) with W workers and parallelism P (ci/quick: 4 and 2; full: the paper's 8 and 4); offered " +
			"load: x = 0 unpaced (saturation), x = F open loop at F times EvenScheduler's saturated throughput (the " +
			"median of its unpaced runs here, run first), constant arrivals; throughput claims use x = 0, latency, " +
			"balance and inter-node claims x = F (without it, x = 0 for balance and inter-node, and latency is " +
			"inconclusive); kpart-dynamic and online through the bridge (service reschedule period from the scale), " +
			"storm-even in Nimbus (the bridge's per-topology choice); time series of the unpaced runs every 10 s " +
			"(series-*.png/svg, series.csv); table = second half of the measurement window (a run counts in the " +
			"claims when that half was steady, whatever the window's opening: unpaced, no worker started in it, no " +
			"part of two report intervals below 80% of the parts' mean, and its acked rate without a trend, i.e. a " +
			"line fitted over those parts changes by at most 10% of the mean over the half or is not significant at " +
			"5%; open loop, its acked rate within 10% of its offered rate and its latency p50 from the intended send " +
			"time flat, the half's halves within 100 ms or 25%); ci: 1 repetition, 5 s warm-up, 40 s measurement, no " +
			"open-loop cell; quick: 3 repetitions, unpaced at most 60 s of warm-up (until throughput is steady and " +
			"the placement settled) + 40 s, F = 0.5 with at most 60 s of warm-up (until throughput is steady, " +
			"drained and the placement settled) + 30 s; ci and quick use C1-only worker JVMs; full: 3 repetitions, " +
			"unpaced at most 150 s + 300 s, F = 0.5 with at most 150 s + 120 s. One cluster for the three " +
			"schedulers, one run after another (topology killed and workers gone before the next), interleaved: " +
			"repetitions outermost, the schedulers' order rotated at each; the unit is one run.",
		SeriesLabel: "scheduler",
		XName:       "offered_fraction",
		XLabel:      "offered load (fraction of EvenScheduler's saturated throughput; 0 = unpaced)",
		XConditions: true,
		Metrics:     kpartClusterMetrics,
		// Cost: the scale's runs times ~75 s per unpaced run and ~100 s
		// per open-loop run, plus ~25 s for the cluster.
		Cost:         lab.Cost{CI: "~6 min", Quick: "~27 min", Full: "~120 min"},
		PaperCluster: "kpart-paper",
		Needs: lab.Needs{Need: lab.NeedsCluster,
			Why: "it submits WordCount under three schedulers, one after another, to a Storm cluster with the bridge: its own containers, or a target (the service's rescheduling period is set with each run's scheduler)"},
		Scales:           scales(kpartClusterScales),
		Extra:            []string{"series.csv", "series-*.png/svg (time series of the unpaced runs)"},
		TakesCalibration: true,
		Run:              runKPartCluster,
		Claims:           kpartClusterClaims,
	}
}

func runKPartCluster(ctx context.Context, env lab.Env) (*lab.Results, error) {
	_, k, _, err := knobsOf(env, kpartClusterScales)
	if err != nil {
		return nil, err
	}
	res := &lab.Results{Experiment: "kpart-cluster", Metrics: kpartClusterMetrics, Scale: k.Scale, NoVerdict: noVerdict(k.Scale, k.Reps), Knobs: knobsManifest(k)}
	runs := map[string][]*harness.RunResult{}
	cells := 1
	if k.OpenFraction > 0 {
		cells = 2
	}
	counter := newRunCounter(env, len(kpartClusterSchedulers)*k.Reps*cells)
	kr := &kpartRunner{runBase: runBase{env: env, res: res, counter: counter}, k: k}
	// Mul 5: K-PART with its balance adjustment, as the paper's balanced variant (Fig. 6); with Mul 0
	// the growth step can leave a worker empty and a node idle (seen in a quick run: 3 of 4 workers
	// used). One cluster serves the three schedulers, one after another: every unpaced run first (they
	// calibrate the open-loop cell), then every open-loop run, each cell interleaved (rotated).
	cs := harness.ClusterSpec{Shape: kpartShape, Seed: 1, Mul: 5, RescheduleEvery: k.Reschedule}
	err = withCluster(ctx, env, cs, kpartClusterSchedulers[0], func(all *clusterView) error {
		runCell := func(c kpartCell) error {
			for rep := range k.Reps {
				for _, sched := range rotated(kpartClusterSchedulers, rep) {
					r, err := kr.run(ctx, all.as(sched), c, sched, rep)
					if err != nil {
						return err
					}
					if c.Rate == 0 {
						runs[sched] = append(runs[sched], r)
					}
				}
			}
			return nil
		}
		if k.OpenFraction <= 0 {
			ignoredCalibration(env, k.Scale)
		}
		if err := runCell(kpartCell{}); err != nil || k.OpenFraction <= 0 {
			return err
		}
		calib := env.Calibration
		if calib > 0 {
			res.Knobs["kpart_calibration_stated"] = true
		} else if calib, err = kpartCalibration(res); err != nil {
			return err
		}
		res.Knobs["kpart_calibration_tps"] = calib
		open := kpartCell{Fraction: k.OpenFraction, Rate: k.OpenFraction * calib}
		fmt.Fprintf(env.Log, "kpart-cluster: EvenScheduler's saturated throughput%s %.0f tuples/s: open loop at %.0f\n", statedText(env), calib, open.Rate)
		return runCell(open)
	})
	if err != nil {
		return nil, err
	}
	res.Files = timeSeriesFiles("kpart-cluster", kpartClusterSchedulers, runs, k.Step, kpartSeriesFigures)
	return res, nil
}

// uniformShuffle is the topology conf that makes Storm's shuffle grouping uniform over the target
// tasks. Storm 2's default (load-aware, locality-aware shuffle) sends a task's tuples to the targets
// in its own worker while their load stays under 80%, so the traffic between tasks follows the
// placement (Storm's documentation, "Locality Awareness In LoadAwareShuffleGrouping"): a
// traffic-based scheduler (online, K-PART) then measures the traffic of its own last placement, and
// co-locating a pair changes the traffic it planned on. The paper's Storm shuffled uniformly. Every
// scheduler of the experiment gets it (EvenScheduler included), so the comparison stays fair.
// recovery and load-curve set it too (recovery's dynamic schedulers did not settle without it).
const uniformShuffle = "topology.disable.loadaware.messaging"

// kpartCell is one offered load of kpart-cluster: unpaced (Rate 0), or open loop at Rate sentences/s,
// Fraction of the calibration.
type kpartCell struct{ Fraction, Rate float64 }

// kpartCalibration is EvenScheduler's saturated throughput: the median second-half throughput of its
// unpaced runs in res. Every kept run counts, steady or not: at saturation the rates swing by design,
// a median of three bears one outlier, and an open-loop cell at half of it stays below saturation
// even if it is a third too high.
func kpartCalibration(res *lab.Results) (float64, error) {
	var xs []float64
	for _, row := range res.Rows {
		if row.Series == "storm-even" && row.X == 0 && row.Values["throughput"] > 0 {
			xs = append(xs, row.Values["throughput"])
		}
	}
	if len(xs) == 0 {
		return 0, errors.New("kpart-cluster: no unpaced EvenScheduler run acked a tuple, so there is no saturated throughput to offer a fraction of")
	}
	return stats.Median(xs)
}

// kpartSeriesFigures are the time-series figures of the unpaced runs.
var kpartSeriesFigures = []seriesFigure{
	{lab.Metric{Name: "balance", Label: "node CPU std dev (% of capacity)"}, func(m harness.Measurement) float64 { return m.Balance }},
	{lab.Metric{Name: "cut_rate", Label: "inter-node tuples / all tuples"}, func(m harness.Measurement) float64 { return m.CutRate }},
	{lab.Metric{Name: "inter_node_tps", Label: "inter-node tuples/s"}, func(m harness.Measurement) float64 { return m.InterNodeRate }},
	{lab.Metric{Name: "latency_mean_ms", Label: "complete latency mean (ms)"}, func(m harness.Measurement) float64 { return m.LatencyMean }},
	{lab.Metric{Name: "throughput", Label: "throughput (acked tuples/s)"}, func(m harness.Measurement) float64 { return m.Throughput }},
}

// kpartRunner runs kpart-cluster's runs.
type kpartRunner struct {
	runBase
	k kpartKnobs
}

// run runs (or reads back) one kpart-cluster run of cell c and adds
// its steady-state row to the results.
func (kr *kpartRunner) run(ctx context.Context, s *clusterView, c kpartCell, sched string, rep int) (*harness.RunResult, error) {
	name := fmt.Sprintf("kpc-%s-i0-r%d", sched, rep) // "i0": spout interval 0, the name runs had when a paced cell existed
	args := []string{"--workers", strconv.Itoa(kr.k.Workers), "--parallelism", strconv.Itoa(kr.k.Parallelism),
		"--seed", strconv.Itoa(rep + 1), "--report-interval-secs", "2", "--conf", uniformShuffle + "=true"}
	spec := harness.RunSpec{WarmUp: kr.k.WarmUp, Measure: kr.k.Measure, Step: kr.k.Step}
	offered := "unpaced (saturation)"
	if c.Rate > 0 {
		name = fmt.Sprintf("kpc-%s-o%.0f-r%d", sched, 100*c.Fraction, rep)
		args = append(args, openLoopArgs(c.Rate)...)
		spec.WarmUp, spec.Measure, spec.Settle = kr.k.OpenWarmUp, kr.k.OpenMeasure, true
		offered = fmt.Sprintf("open loop: %.0f sentences/s (%.0f%% of EvenScheduler's saturated throughput%s)", c.Rate, 100*c.Fraction, statedText(kr.env))
	} else {
		args = append(args, "--interval-ms", "0")
		spec.Settle = kr.k.SettleUnpaced
	}
	topo, err := harness.StormTopology("wordcount", name, args...)
	if err != nil {
		return nil, err
	}
	topo.Args = append(topo.Args, workerArgs(kr.k.WorkerOpts)...)
	spec.Topology = topo
	fmt.Fprintf(kr.env.Log, "kpart-cluster: %s, %s, rep %d\n", sched, offered, rep)
	kr.counter.start(fmt.Sprintf("%s %s rep %d", sched, offered, rep), spec.WarmUp+spec.Measure)
	r, resumed, err := runOrResume(kr.env, name, func() (*harness.RunResult, error) { return s.Run(ctx, spec) })
	if err := keepRun(kr.env, name, r, err, resumed); err != nil {
		return nil, err
	}
	if err := checkKeptRate(name, r, resumed, c.Rate); err != nil {
		return nil, err
	}
	kr.res.Knobs["images"] = r.Images
	capacity, err := s.Capacity()
	if err != nil {
		return nil, err
	}
	base := lab.Row{Series: sched, X: c.Fraction, Rep: rep, Seed: uint64(rep + 1), Offered: offered}
	row, err := kpartRow(kr.env.Log, name, r, base, c.Rate > 0, capacity)
	if err != nil {
		return nil, err
	}
	kr.res.Add(row)
	return r, nil
}

// kpartRow is base (series, x, repetition, offered load) with run r's figures (named name; open: an
// open-loop cell) over the second half of its window with the supervisors' capacity, judged on that half.
func kpartRow(log io.Writer, name string, r *harness.RunResult, base lab.Row, open bool, capacity map[string]float64) (lab.Row, error) {
	sched := base.Series
	// Steady state: the second half of the window.
	mid := r.MeasureFrom + (r.MeasureTo-r.MeasureFrom)/2
	m := r.MeasureWindow(capacity, mid, r.MeasureTo)
	if m.Throughput <= 0 {
		return lab.Row{}, fmt.Errorf("%s: no tuple acked in the second half of the window", name)
	}
	fmt.Fprintf(log, "kpart-cluster: %s: %.1f tuples/s, latency %.1f ms, cut rate %.3f, %.1f inter-node tuples/s, CPU std dev %.1f, bridge rounds %d\n",
		sched, m.Throughput, m.LatencyMean, m.CutRate, m.InterNodeRate, m.Balance, len(r.RoundsMs))
	base.Values = map[string]float64{
		"throughput": m.Throughput, "latency_mean_ms": m.LatencyMean, "latency_p99_ms": m.LatencyP99,
		"cut_rate": m.CutRate, "inter_node_tps": m.InterNodeRate, "balance": m.Balance,
	}
	row := screened(base, r)
	if ol := m.OpenLoop; ol != nil {
		row.Values["offered_tps"], row.Values["latency_intended_p99_ms"], row.Values["send_lag_p99_ms"] = ol.OfferedRate, ol.IntendedP99, ol.SendLagP99
	} else if open { // the row reads n/a there; the run's other figures stand
		fmt.Fprintf(log, "kpart-cluster: %s: no open-loop measurement in the judged half (%s)\n", name, m.OpenLoopMissing())
	}
	// The figures are the second half's, so that half must be steady, whatever the window's opening
	// (with a fixed warm-up, a dynamic scheduler's first reschedule falls in the first half).
	row.Validity = r.SteadySpan(capacity, mid, r.MeasureTo)
	return row, nil
}

// kpartClusterClaims checks Figs. 8-11 with one-sided Welch tests over
// runs: throughput on the unpaced cell (x = 0); latency, balance and the
// inter-node rate on the open-loop cell when the scale has one, else
// balance and the inter-node rate on the unpaced cell and latency
// inconclusive. An open-loop run whose judged half was not steady (acked
// rate off its offered rate by more than 10%, or latency drifting:
// SteadySpan) is suspect and left out.
func kpartClusterClaims(r *lab.Results, a *lab.Aggregate) []lab.Claim {
	kp, on, ev := "kpart-dynamic", "online", "storm-even"
	sat := lab.AtX(0)
	open, why := kpartOpenCell(r)
	placed, where := sat, "unpaced"
	if why == "" {
		placed, where = lab.AtX(open), fmt.Sprintf("open loop at %.0f%% of Even's saturated throughput", 100*open)
	}
	v := func(s, m string) []float64 { return lab.RunUnits(r, s, m, sat) }
	p := func(s, m string) []float64 { return lab.RunUnits(r, s, m, placed) }
	cutK, cutO, cutE := p(kp, "cut_rate"), p(on, "cut_rate"), p(ev, "cut_rate")
	thrK, thrO, thrE := v(kp, "throughput"), v(on, "throughput"), v(ev, "throughput")
	balK, balO, balE := p(kp, "balance"), p(on, "balance"), p(ev, "balance")
	out := []lab.Claim{
		{
			Statement: "EvenScheduler has the highest inter-node tuple rate (the paper: worse than K-PART by 5 and than online by 3 points)",
			Source:    lab.Cite(paperKPart, "Fig. 9"),
			Evidence:  fmt.Sprintf("%s: Even %.1f%%, K-PART %.1f%% (%+.1f pt), online %.1f%% (%+.1f pt)", where, 100*mean(cutE), 100*mean(cutK), 100*(mean(cutE)-mean(cutK)), 100*mean(cutO), 100*(mean(cutE)-mean(cutO))),
			Checks: []reports.Check{
				reports.DifferenceCheck("Even > K-PART", cutE, cutK, reports.Greater, ""),
				reports.DifferenceCheck("Even > online", cutE, cutO, reports.Greater, ""),
			},
			Screen: lab.ScreenRuns(r, "cut_rate", placed, kp, on, ev),
		},
		{
			Statement: "K-PART has the highest throughput, about +20% over Even (tested: >= +10%, half the paper's effect, and above online)",
			Source:    lab.Cite(paperKPart, "Fig. 11"),
			Evidence:  fmt.Sprintf("unpaced: K-PART %.0f, online %.0f, Even %.0f tuples/s (K-PART vs Even %s)", mean(thrK), mean(thrO), mean(thrE), pct(mean(thrE), mean(thrK))),
			Checks: []reports.Check{
				reports.RatioCheck("throughput K-PART / Even >= 1.10", thrK, thrE, reports.Above(1.10)),
				reports.DifferenceCheck("K-PART > online", thrK, thrO, reports.Greater, "(tuples/s)"),
			},
			Screen: lab.ScreenRuns(r, "throughput", sat, kp, on, ev),
		},
		{
			Statement: "K-PART balances node CPU better than Even",
			Source:    lab.Cite(paperKPart, "Fig. 8"),
			Evidence:  fmt.Sprintf("%s: CPU std dev K-PART %.1f, online %.1f, Even %.1f (pt of capacity)", where, mean(balK), mean(balO), mean(balE)),
			Checks:    []reports.Check{reports.DifferenceCheck("K-PART < Even", balK, balE, reports.Less, "(pt)")},
			Screen:    lab.ScreenRuns(r, "balance", placed, kp, ev),
		},
	}
	lat := lab.Claim{Statement: "K-PART has the lowest tuple latency at steady state (the paper: 1-2 ms lower)", Source: lab.Cite(paperKPart, "Fig. 10")}
	if why != "" {
		lat.Checks = []reports.Check{reports.Missing("open-loop cell", why)}
		lat.Evidence = why
		return append(out, lat)
	}
	latK, latO, latE := p(kp, "latency_mean_ms"), p(on, "latency_mean_ms"), p(ev, "latency_mean_ms")
	lat.Screen = lab.ScreenRuns(r, "latency_mean_ms", placed, kp, on, ev)
	lat.Evidence = fmt.Sprintf("%s: K-PART %.1f ms, online %.1f ms, Even %.1f ms", where, mean(latK), mean(latO), mean(latE))
	lat.Checks = []reports.Check{
		reports.DifferenceCheck("K-PART < Even", latK, latE, reports.Less, "(ms)"),
		reports.DifferenceCheck("K-PART < online", latK, latO, reports.Less, "(ms)"),
	}
	return append(out, lat)
}

// kpartOpenCell returns the open-loop cell's x, or why there is none.
func kpartOpenCell(r *lab.Results) (x float64, why string) {
	for _, row := range r.Rows {
		if row.X > 0 {
			return row.X, ""
		}
	}
	return 0, "no open-loop runs at this scale: latency at saturation is queueing noise"
}
