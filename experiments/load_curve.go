package experiments

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/experiments/capacity"
	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/usertopo"
	"github.com/stormlab/stormlab/reports"
)

// loadCurveMetrics are one open-loop run's values.
var loadCurveMetrics = []lab.Metric{
	{Name: "offered_tps", Label: "offered (tuples/s)"},
	{Name: "throughput", Label: "throughput (acked tuples/s)"},
	{Name: "latency_intended_p50_ms", Label: "latency p50 from the intended send time (ms)"},
	{Name: "latency_intended_p99_ms", Label: "latency p99 from the intended send time (ms)"},
	{Name: "latency_mean_ms", Label: "complete latency mean, from emit (ms)"},
	{Name: "send_lag_p99_ms", Label: "send lag p99 (ms)"},
	{Name: "sustainable", Label: "sustainable (1 = the run met the capacity criteria)"},
}

// loadCurveSchedulers: the reference (Storm's EvenScheduler, whose capacity sets the offered loads)
// first, then K-PART through the bridge.
var loadCurveSchedulers = []string{"storm-even", "kpart"}

// loadCurveProfile is its cluster: heterogeneous-2, the supervisors of 0.5 and 1.0 cores.
const loadCurveProfile = "heterogeneous-2"

// loadCurveKnobs are load-curve's settings at one scale.
type loadCurveKnobs struct {
	Scale           string
	Reps            int
	Fractions       []float64 // offered loads, fractions of the reference's capacity
	WarmUp, Measure time.Duration
	// Windows: each run's window is split in this many for the sustainability criteria.
	Windows int
	// Search is the reference's capacity search (its window length and count are Measure/Windows and Windows).
	Start, Precision float64
}

func (k *loadCurveKnobs) reps() *int { return &k.Reps }

// Manifest lists the knobs for manifest.json.
func (k loadCurveKnobs) Manifest() map[string]any {
	return map[string]any{"profile": k.Scale, "reps": k.Reps, "load_fractions": k.Fractions,
		"load_warmup": k.WarmUp.String(), "load_measure": k.Measure.String(), "load_windows": k.Windows,
		"capacity_start": k.Start, "capacity_precision": k.Precision, "worker_opts": "",
		"load_shuffle": "uniform (" + uniformShuffle + ")"}
}

// loadCurveProfiles: ci has two loads (below saturation and 110%) so that both claims can be decided
// in about 20 minutes; quick has the seven loads of the design (20-110%); full longer windows, 5 runs.
var loadCurveProfiles = map[string]loadCurveKnobs{
	"ci": {Scale: "ci", Reps: 3, Fractions: []float64{0.5, 1.1}, WarmUp: 40 * time.Second, Measure: 20 * time.Second,
		Windows: 2, Start: 50, Precision: 0.2},
	"quick": {Scale: "quick", Reps: 3, Fractions: []float64{0.2, 0.4, 0.6, 0.8, 0.9, 1.0, 1.1}, WarmUp: 40 * time.Second,
		Measure: 20 * time.Second, Windows: 2, Start: 50, Precision: 0.1},
	"full": {Scale: "full", Reps: 5, Fractions: []float64{0.2, 0.4, 0.6, 0.8, 0.9, 1.0, 1.1}, WarmUp: 30 * time.Second,
		Measure: 60 * time.Second, Windows: 3, Start: 50, Precision: 0.05},
}

// LoadCurve measures latency against offered load, as the field's benchmarks do (OpenMessaging
// Benchmark, Theodolite): first the maximum sustainable throughput of Storm's EvenScheduler
// (experiments/capacity: double from Start, bisect to Precision), then per scheduler open-loop runs at
// fractions of it (constant arrivals), latency measured from each tuple's intended send time.
//
// Choices: the loads are fractions of the reference's capacity so that every scheduler is compared at
// the same offered rate (matched loads); each scheduler's own capacity is marked as the highest load at
// which every run met the capacity criteria (no second search: the curve already probes it). The
// latency claim is judged at the highest load below 90% of the reference's capacity (below saturation);
// the throughput claim at the highest load (110%: above the reference's capacity, where a scheduler with
// more capacity acks more). The search's steps are not kept for --resume: a resumed run searches again.
func LoadCurve() *lab.Spec { return loadCurveOn(loadTopology{}) }

// loadCurveOn is load-curve offering its loads to lt. On a captured topology it reproduces no paper
// (Paper is empty, so no paper summary counts it); its claims stay the K-PART paper's, judged on the
// user's topology, and say so.
func loadCurveOn(lt loadTopology) *lab.Spec {
	paper, source := paperKPart, lab.Cite(paperKPart, "sec. 4, Figs. 10-11")+", judged at matched offered loads"
	if lt.File != "" {
		paper, source = "", "the claims of "+source+", on "+lt.label()
	}
	return &lab.Spec{
		Name:        "load-curve",
		Description: "latency against open-loop offered load (fractions of EvenScheduler's measured capacity), EvenScheduler vs K-PART on " + lt.label(),
		Paper:       paper,
		Source:      source,
		Setup: "shape " + loadCurveProfile + " (supervisors of 0.5 and 1.0 cores); " + lt.setup() + "; capacity of " +
			"storm-even by search (98% of the offered acked over the step, p99 from the intended send time < 2 s in " +
			"every window, send lag growth <= 100 ms), then open-loop runs at fractions of it (uniform shuffle under " +
			"both schedulers; ci: 50% and 110%, quick and full: 20, 40, 60, 80, 90, 100, 110%), constant arrivals; " +
			"ci and quick: 3 runs per point, at most 40 s warm-up (the window opens once the acked rate is steady " +
			"and within 10% of the offered), 20 s window in 2 halves; full: 5 runs, 60 s in 3. One cluster for both " +
			"schedulers, which first runs the search; runs interleaved: repetitions outermost, then loads, the " +
			"schedulers' order rotated at each; the unit is one run.",
		SeriesLabel:  "scheduler",
		XName:        "offered_fraction",
		XLabel:       "offered load (fraction of EvenScheduler's capacity)",
		Metrics:      loadCurveMetrics,
		Cost:         lab.Cost{CI: "~25 min", Quick: "~65 min", Full: "~2 h"},
		PaperCluster: "kpart-paper",
		Needs: lab.Needs{Need: lab.NeedsCluster,
			Why: "it searches EvenScheduler's capacity and runs open-loop loads on one Storm cluster: its own containers, or a target"},
		Scales:           scales(loadCurveProfiles),
		Extra:            []string{"capacity.json (the reference's search)", "latency-vs-throughput.png/svg/pdf"},
		TakesCalibration: true,
		OnReplay: func(file string, warnings []string) *lab.Spec {
			return loadCurveOn(loadTopology{File: file, Warnings: warnings})
		},
		Run:    func(ctx context.Context, env lab.Env) (*lab.Results, error) { return runLoadCurve(ctx, env, lt) },
		Claims: loadCurveClaims,
	}
}

// loadTopology is what load-curve offers its loads to: WordCount (File empty, the K-PART paper's
// topology) or a topology captured with `stormlab capture` and replayed live from File (its spouts scaled
// together to each offered rate: the replay's --rate).
type loadTopology struct {
	File string
	// Warnings are what the replay of File cannot reproduce (e.g. a direct grouping replayed as shuffle),
	// said once in the log and kept in the manifest.
	Warnings []string
}

// label names the topology for descriptions and captions.
func (lt loadTopology) label() string {
	if lt.File == "" {
		return "WordCount"
	}
	return "the captured topology " + filepath.Base(lt.File)
}

func (lt loadTopology) setup() string {
	if lt.File == "" {
		return "WordCount (defaults: 4 workers, parallelism 1, reports every second)"
	}
	s := lt.label() + " replayed (" + lt.File + ": its components, parallelism, groupings, workers, CPU per tuple and tuple sizes as captured, its spouts scaled together to each offered rate; reports every second)"
	if len(lt.Warnings) > 0 {
		s += "; what the replay changes: " + strings.Join(lt.Warnings, "; ")
	}
	return s
}

// build is run name of the topology offered rate tuples/s (constant arrivals), generators seeded by seed.
func (lt loadTopology) build(name string, rate float64, seed int) (harness.TopologyRun, error) {
	args := append([]string{"--report-interval-secs", "1", "--seed", strconv.Itoa(seed), "--conf", uniformShuffle + "=true"},
		openLoopArgs(rate)...)
	if lt.File == "" {
		return harness.StormTopology("wordcount", name, args...)
	}
	topo, _, err := usertopo.Replay(lt.File, append([]string{"--name", name}, args...)...)
	topo.Name = name
	return topo, err
}

func runLoadCurve(ctx context.Context, env lab.Env, lt loadTopology) (*lab.Results, error) {
	_, k, ok, err := knobsOf(env, loadCurveProfiles)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("load-curve has no scale %q: use ci, quick or full", env.Scale)
	}
	res := &lab.Results{Experiment: "load-curve", Metrics: loadCurveMetrics, Scale: k.Scale, NoVerdict: noVerdict(k.Scale, k.Reps), Knobs: knobsManifest(k)}
	res.Knobs["topology"] = cmp.Or(lt.File, "wordcount")
	if len(lt.Warnings) > 0 {
		res.Knobs["replay_warnings"] = lt.Warnings
	}
	for _, w := range lt.Warnings {
		fmt.Fprintf(env.Log, "load-curve: replay of %s: %s\n", lt.File, w)
	}
	counter := newRunCounter(env, len(loadCurveSchedulers)*len(k.Fractions)*k.Reps)
	lr := &loadCurveRunner{runBase: runBase{env: env, res: res, counter: counter}, k: k, lt: lt}
	var ref *capacity.Result
	// One cluster serves both schedulers; the reference (the first) is searched on it first.
	cs := harness.ClusterSpec{Shape: loadCurveProfile, Seed: 1}
	err = withCluster(ctx, env, cs, loadCurveSchedulers[0], func(all *clusterView) error {
		if stated := env.Calibration; stated > 0 {
			// Stated (--calibration): no search, so no capacity.json; the manifest says so.
			ref = &capacity.Result{Capacity: stated}
			res.Knobs["reference_capacity_stated"] = true
			fmt.Fprintf(env.Log, "load-curve: capacity of %s stated, %.0f tuples/s: no search\n", loadCurveSchedulers[0], stated)
		} else {
			if ref, err = lr.searchReference(ctx, all); err != nil {
				return err
			}
			res.Files = append(res.Files, lab.File{Name: "capacity.json", Write: func(w io.Writer) error { enc := json.NewEncoder(w); enc.SetIndent("", "  "); return enc.Encode(ref) }})
		}
		res.Knobs["reference_capacity_tps"] = ref.Capacity
		lr.ref = ref.Capacity
		for rep := range k.Reps {
			for i, f := range k.Fractions {
				for _, sched := range rotated(loadCurveSchedulers, rep+i) {
					if err := lr.run(ctx, all.as(sched), sched, f, rep); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Figures = append(res.Figures, lab.Figure{Name: "latency-vs-throughput", Plot: latencyThroughputPlot(res, ref.Capacity)})
	return res, nil
}

// loadCurveRunner runs load-curve's capacity search and runs, offering its loads to lt.
type loadCurveRunner struct {
	runBase
	k   loadCurveKnobs
	lt  loadTopology
	ref float64 // the reference's capacity, tuples/s (searched or stated), that the loads are fractions of
}

// searchReference finds the reference scheduler's capacity on its cluster.
func (lr *loadCurveRunner) searchReference(ctx context.Context, s *clusterView) (*capacity.Result, error) {
	progressOf(lr.env).Phase("capacity search of "+loadCurveSchedulers[0], 0)
	p := &capacity.StormProber{
		Run: s.Run, Spec: harness.RunSpec{WarmUp: lr.k.WarmUp}, Window: lr.k.Measure / time.Duration(lr.k.Windows), Windows: lr.k.Windows,
		Topology: func(rate float64) (harness.TopologyRun, error) { return lr.lt.build("lc-search", rate, 1) },
	}
	r, err := capacity.Search(ctx, p, capacity.Options{Start: lr.k.Start, Precision: lr.k.Precision, Logf: func(f string, a ...any) {
		fmt.Fprintf(lr.env.Log, "load-curve: capacity search: "+f+"\n", a...)
	}})
	if err != nil {
		return nil, fmt.Errorf("capacity search: %w", err)
	}
	if r.BelowFirstStep {
		return nil, fmt.Errorf("capacity search: %.0f tuples/s, the first step, was not sustainable (%s): lower the scale's start rate", r.Failed, r.Steps[0].Why)
	}
	fmt.Fprintf(lr.env.Log, "load-curve: capacity of %s: %.0f tuples/s (first unsustainable %.0f), %d steps in %.0f s\n",
		loadCurveSchedulers[0], r.Capacity, r.Failed, len(r.Steps), r.WallS)
	return r, nil
}

// run runs one load of one scheduler, f of the reference's capacity. The runs are
// interleaved (rotated): repetitions outermost, then loads, and the schedulers' order turns at each.
func (lr *loadCurveRunner) run(ctx context.Context, s *clusterView, sched string, f float64, rep int) error {
	name := loadCurveRunName(sched, f, rep)
	rate := f * lr.ref
	topo, err := lr.lt.build(name, rate, rep+1)
	if err != nil {
		return err
	}
	offered := fmt.Sprintf("open loop: %.0f tuples/s (%.0f%% of %s's capacity%s)", rate, 100*f, loadCurveSchedulers[0], statedText(lr.env))
	lr.counter.start(fmt.Sprintf("%s %s rep %d", sched, offered, rep), lr.k.WarmUp+lr.k.Measure)
	r, resumed, err := runOrResume(lr.env, name, func() (*harness.RunResult, error) {
		return s.Run(ctx, harness.RunSpec{Topology: topo, WarmUp: lr.k.WarmUp, Measure: lr.k.Measure, Step: lr.k.Measure / time.Duration(lr.k.Windows)})
	})
	if err := keepRun(lr.env, name, r, err, resumed); err != nil {
		return err
	}
	if err := checkKeptRate(name, r, resumed, rate); err != nil {
		return err
	}
	row, err := loadCurveRow(r, sched, f, rep, offered, lr.k.Windows)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(lr.env.Log, "load-curve: %s at %.0f%%: offered %.0f, acked %.0f tuples/s, p99 from intended %.0f ms, sustainable %v\n",
		sched, 100*f, row.Values["offered_tps"], row.Values["throughput"], row.Values["latency_intended_p99_ms"], row.Values["sustainable"] == 1)
	lr.res.Add(row)
	return nil
}

// loadCurveRunName names one run's topology: the load in percent, since Storm refuses "." in names.
func loadCurveRunName(sched string, f float64, rep int) string {
	return fmt.Sprintf("lc-%s-p%03.0f-r%d", sched, 100*f, rep)
}

// loadCurveRow is one run's row; the sustainability verdict uses the capacity search's criteria.
func loadCurveRow(r *harness.RunResult, sched string, f float64, rep int, offered string, windows int) (lab.Row, error) {
	m := r.Measurement
	if m.OpenLoop == nil {
		return lab.Row{}, fmt.Errorf("no open-loop measurement: %s", m.OpenLoopMissing())
	}
	ws, err := capacity.WindowsOf(r, windows)
	if err != nil {
		return lab.Row{}, err
	}
	sustainable, _ := capacity.DefaultCriteria.Judge(ws)
	return screened(lab.Row{Series: sched, X: f, Rep: rep, Seed: uint64(rep + 1), Offered: offered, Values: map[string]float64{
		"offered_tps": m.OpenLoop.OfferedRate, "throughput": m.Throughput,
		"latency_intended_p50_ms": m.OpenLoop.IntendedP50, "latency_intended_p99_ms": m.OpenLoop.IntendedP99,
		"latency_mean_ms": m.LatencyMean, "send_lag_p99_ms": m.OpenLoop.SendLagP99, "sustainable": b2f(sustainable),
	}}, r), nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// latencyThroughputPlot draws latency p50 and p99 from the intended send time against the achieved
// (acked) throughput, one curve per scheduler and quantile, 95% CIs over runs on the latency; the
// caption marks each scheduler's capacity (capacityNote) and the reference's.
func latencyThroughputPlot(res *lab.Results, ref float64) *reports.LinePlot {
	lp := &reports.LinePlot{XLabel: "achieved throughput (acked tuples/s, mean over runs)", YLabel: "latency from the intended send time (ms)",
		Title: "load-curve: latency against throughput", NonNegative: true}
	how := "searched"
	if res.Knobs["reference_capacity_stated"] == true {
		how = "stated"
	}
	notes := []string{fmt.Sprintf("EvenScheduler's %s capacity: %.0f tuples/s.", how, ref)}
	for _, s := range loadCurveSchedulers {
		for _, q := range []string{"p50", "p99"} {
			ser := reports.Series{Name: s + " " + q}
			for _, f := range xsOf(res, s) {
				lat, thr := unitsAt(res, s, f, "latency_intended_"+q+"_ms"), unitsAt(res, s, f, "throughput")
				ls, err1 := reports.Summarize(lat)
				ts, err2 := reports.Summarize(thr)
				if err1 != nil || err2 != nil {
					continue
				}
				ser.X, ser.Y = append(ser.X, ts.Mean), append(ser.Y, ls)
			}
			if len(ser.X) > 0 { // a scheduler with no summarisable load has no line (the plot refuses empty series)
				lp.Series = append(lp.Series, ser)
			}
		}
		notes = append(notes, capacityNote(res, s, ref))
	}
	lp.Caption = "Latency p50 and p99 from each tuple's intended send time against the achieved throughput, one point per offered load; 95% CIs over runs. " + strings.Join(notes, " ")
	return lp
}

// capacityNote names the highest load up to which s sustained every load in every counted run, and the
// loads above it that were sustained again: on a noisy host the rule can fail at a low load and pass at a
// higher one, and "sustained up to" the highest passing load would hide the failure below it.
func capacityNote(res *lab.Results, s string, ref float64) string {
	upTo, broken, lowest := -1.0, false, -1.0
	var again []string
	for _, f := range xsOf(res, s) {
		if lowest < 0 {
			lowest = f
		}
		u := unitsAt(res, s, f, "sustainable")
		switch ok := len(u) > 0 && !slices.Contains(u, 0); {
		case ok && !broken:
			upTo = f
		case ok:
			again = append(again, fmt.Sprintf("%.0f%%", 100*f))
		default:
			broken = true
		}
	}
	var note string
	switch {
	case lowest < 0:
		return s + " has no run."
	case upTo < 0:
		note = fmt.Sprintf("%s did not sustain its lowest load (%.0f%%) in every run", s, 100*lowest)
	default:
		note = fmt.Sprintf("%s sustained every load up to %.0f%% (%.0f tuples/s)", s, 100*upTo, upTo*ref)
	}
	if len(again) > 0 {
		note += "; every run sustained " + strings.Join(again, ", ") + " again above that"
	}
	return note + "."
}

// xsOf are the loads with rows of s, ascending.
func xsOf(res *lab.Results, s string) []float64 {
	var xs []float64
	for _, r := range res.Rows {
		if r.Series == s && !slices.Contains(xs, r.X) {
			xs = append(xs, r.X)
		}
	}
	slices.Sort(xs)
	return xs
}

func unitsAt(res *lab.Results, s string, f float64, metric string) []float64 {
	return lab.RunUnits(res, s, metric, lab.AtX(f))
}

// loadCurveClaims judges K-PART's latency claim at the highest load below 90% of the reference's
// capacity and its throughput claim at the highest load, with one-sided Welch tests over runs.
func loadCurveClaims(r *lab.Results, a *lab.Aggregate) []lab.Claim {
	kp, ev := "kpart", "storm-even"
	xs := xsOf(r, ev)
	below, top := -1.0, -1.0
	for _, f := range xs {
		if f < 0.9 {
			below = f
		}
		top = f
	}
	lat := lab.Claim{Statement: "K-PART has a lower tuple latency than EvenScheduler below saturation (the paper: 1-2 ms lower)",
		Source: lab.Cite(paperKPart, "Fig. 10")}
	if below < 0 {
		lat.Checks = []reports.Check{reports.Missing("load below saturation", "no offered load below 90% of EvenScheduler's capacity")}
	} else {
		lk, le := unitsAt(r, kp, below, "latency_intended_p99_ms"), unitsAt(r, ev, below, "latency_intended_p99_ms")
		mk, me := unitsAt(r, kp, below, "latency_mean_ms"), unitsAt(r, ev, below, "latency_mean_ms")
		lat.Evidence = fmt.Sprintf("at %.0f%% of EvenScheduler's capacity: p99 from the intended send time K-PART %.1f ms, Even %.1f ms; mean from emit K-PART %.1f ms, Even %.1f ms",
			100*below, mean(lk), mean(le), mean(mk), mean(me))
		lat.Checks = []reports.Check{reports.DifferenceCheck("mean latency K-PART < Even", mk, me, reports.Less, "(ms)")}
		lat.Screen = lab.ScreenRuns(r, "latency_mean_ms", lab.AtX(below), kp, ev)
	}
	thr := lab.Claim{Statement: "K-PART sustains a higher throughput than EvenScheduler (the paper: about +20%; tested: more acked tuples/s when offered more than EvenScheduler's capacity)",
		Source: lab.Cite(paperKPart, "Fig. 11")}
	if top < 1 {
		thr.Checks = []reports.Check{reports.Missing("load above capacity", "no offered load above EvenScheduler's capacity")}
	} else {
		tk, te := unitsAt(r, kp, top, "throughput"), unitsAt(r, ev, top, "throughput")
		thr.Evidence = fmt.Sprintf("offered %.0f%% of EvenScheduler's capacity: K-PART %.0f, Even %.0f acked tuples/s (%s)", 100*top, mean(tk), mean(te), pct(mean(te), mean(tk)))
		thr.Checks = []reports.Check{reports.DifferenceCheck("throughput K-PART > Even", tk, te, reports.Greater, "(tuples/s)")}
		thr.Screen = lab.ScreenRuns(r, "throughput", lab.AtX(top), kp, ev)
	}
	return []lab.Claim{lat, thr}
}
