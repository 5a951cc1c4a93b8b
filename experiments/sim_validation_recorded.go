package experiments

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/sim"
)

// SimValidationOf is sim-validation over runs recorded before (any experiment's runs, or `stormlab
// run --out` folders) instead of runs it makes: each run is simulated again on its cluster's twin
// with its own spec, and judged by the same goals. It needs no Docker engine, so real runs made for
// other reasons validate the model too. A configuration is the runs' cluster, main class and flags
// (their seeds aside). Runs the model cannot stand beside are skipped and listed in the manifest
// (invalid, with faults, a finite dataset, measured into the cost model, a cluster without a twin).
// model charges the twins (nil: the cost model shipped with the project).
func SimValidationOf(runs []*harness.RunResult, from string, model *sim.CostModel) *lab.Spec {
	s := SimValidation()
	s.Scales = nil
	s.Needs = lab.Needs{Need: lab.NeedsNothing}
	s.Cost = lab.Cost{CI: "~1 min", Quick: "~1 min", Full: "~1 min"}
	s.Setup = "runs recorded before (" + from + "), each simulated again in the simulator on its cluster's twin (the " +
		"simulated cluster of its shape, charged by the cost model the manifest names, seeded per run) with its own topology, flags, " +
		"scheduler, warm-up and window, and the analytic baseline (a Jackson network of the same costs) beside it. A " +
		"configuration is the runs' cluster, topology and flags (seeds aside); its repetitions are the recorded runs. " +
		"Recorded runs that measured the cost model are skipped (cost measurement and validation use disjoint runs). " +
		"The unit of a goal is a configuration under one scheduler (a cell)."
	s.Run = func(ctx context.Context, env lab.Env) (*lab.Results, error) {
		return recordedValidation(ctx, env, runs, model)
	}
	return s
}

func recordedValidation(ctx context.Context, env lab.Env, runs []*harness.RunResult, model *sim.CostModel) (*lab.Results, error) {
	if model == nil {
		var err error
		if model, err = simcluster.ContainersCosts(); err != nil {
			return nil, err
		}
	}
	res := &lab.Results{Experiment: "sim-validation", Metrics: simValMetrics, Knobs: map[string]any{"sv_recorded_runs": len(runs), "sv_cost_model": model.Name}}
	configs := map[string]int{}
	first := map[int]*harness.RunResult{} // configuration -> its first run
	scheds := map[int][]string{}
	var skipped []string
	var kept []int
	for i, r := range runs {
		if why := skipRecorded(r, model.Provenance.Runs); why != "" {
			skipped = append(skipped, r.Spec.Topology.Name+": "+why)
			continue
		}
		kept = append(kept, i)
	}
	fmt.Fprintf(env.Log, "sim-validation: simulating %d recorded runs again, %d at once\n", len(kept), runtime.GOMAXPROCS(0))
	sims, errs := simulateEach(ctx, runs, kept, model)
	for k, i := range kept {
		r := runs[i]
		if err := errs[k]; err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			skipped = append(skipped, r.Spec.Topology.Name+": "+err.Error())
			continue
		}
		key := recordedKey(r)
		if _, ok := configs[key]; !ok {
			configs[key] = len(configs) + 1
		}
		x := configs[key]
		recordedPair(env, res, r, sims[k], x)
		if first[x] == nil {
			first[x] = r
		}
		if !slices.Contains(scheds[x], r.Spec.Scheduler) {
			scheds[x] = append(scheds[x], r.Spec.Scheduler)
		}
	}
	res.Knobs["sv_skipped"] = skipped
	for _, s := range skipped {
		fmt.Fprintf(env.Log, "sim-validation: skipped %s\n", s)
	}
	if len(res.Rows) == 0 {
		return nil, fmt.Errorf("sim-validation: none of the %d recorded runs could be simulated again (%s)", len(runs), strings.Join(skipped, "; "))
	}
	cells := valCells(res)
	res.Files = append(res.Files, lab.File{Name: "validation.csv", Write: func(w io.Writer) error { return writeValidationCSV(w, cells) }})
	res.Figures = validationFigures(cells)
	addValidationFile(res, cells, valRecordMeta{model: model, realCluster: "runs recorded on " + strings.Join(recordedClusters(first), ", "),
		describe: func(x int) (simcluster.ValidatedConfiguration, bool) {
			r := first[x]
			if r == nil {
				return simcluster.ValidatedConfiguration{}, false
			}
			size, ok := sizeOf(r.Cluster)
			main := r.Spec.Topology.MainClass
			return simcluster.ValidatedConfiguration{Name: recordedOffered(r), Topology: main[strings.LastIndex(main, ".")+1:], Shape: r.Cluster,
				Load: recordedLoad(r), Schedulers: scheds[x], Size: size}, ok
		}})
	return res, nil
}

// recordedClusters are the clusters of the configurations' runs, sorted.
func recordedClusters(first map[int]*harness.RunResult) []string {
	var out []string
	for _, r := range first {
		if !slices.Contains(out, r.Cluster) {
			out = append(out, r.Cluster)
		}
	}
	slices.Sort(out)
	return out
}

// skipRecorded is why recorded run r cannot validate the model ("" if it can); costRuns are the cost
// model's own runs (simcluster.MeasureCosts names them "MAIN under SCHEDULER on CLUSTER at TIME").
func skipRecorded(r *harness.RunResult, costRuns []string) string {
	switch {
	case r.Simulated != nil:
		return "a simulated run"
	case r.Validity.Level == harness.Invalid:
		return "invalid: " + r.Validity.Text(harness.Invalid)
	case len(r.Spec.Faults) > 0:
		return "a run with faults"
	case r.EndKind == "dataset":
		return "a finite dataset"
	case measuredInto(r, costRuns):
		return "measured into the cost model"
	}
	return ""
}

// measuredInto says whether r is one of a cost model's runs (its provenance's costRuns).
func measuredInto(r *harness.RunResult, costRuns []string) bool {
	at := r.StartedAt.UTC().Format(time.RFC3339)
	return slices.ContainsFunc(costRuns, func(s string) bool { return strings.HasSuffix(s, " on "+r.Cluster+" at "+at) })
}

// recordedKey is r's configuration: its cluster, main class and flags without what names the run
// (--name, --seed) or its scheduler (the stormlab.scheduler conf): its schedulers share it.
func recordedKey(r *harness.RunResult) string {
	var args []string
	a := r.Spec.Topology.Args
	for i := 0; i < len(a); i++ {
		if i+1 < len(a) && (a[i] == "--name" || a[i] == "--seed" || a[i] == "--conf" && strings.HasPrefix(a[i+1], "stormlab.scheduler=")) {
			i++
			continue
		}
		args = append(args, a[i])
	}
	key := r.Cluster + " | " + r.Spec.Topology.MainClass + " " + strings.Join(args, " ")
	for _, host := range slices.Sorted(maps.Keys(r.LinkMbit)) { // a link limit is another cluster
		key += fmt.Sprintf(" | %s link %g Mbit/s", host, r.LinkMbit[host])
	}
	return key
}

// recordedClusterSpec is the twin's configuration for recorded run r: the scheduler options the run
// recorded (its service's), or, for a run that recorded none (Storm's own schedulers, runs recorded
// before runs kept them), the experiments' own: seed 1 and K-PART's balance multiplier 5.
func recordedClusterSpec(r *harness.RunResult) harness.ClusterSpec {
	if o := r.SchedulerOptions; o != nil {
		return harness.ClusterSpec{Shape: r.Cluster, Seed: cmp.Or(o.Seed, 1), SchedulerOptions: *o}
	}
	return harness.ClusterSpec{Shape: r.Cluster, Seed: 1, Mul: 5}
}

// recordedPair adds recorded run r (configuration x) and its simulation s to res.
func recordedPair(env lab.Env, res *lab.Results, r, s *harness.RunResult, x int) {
	notePlacement(env, res, r.Spec.Topology.Name, r, s)
	offered := recordedOffered(r)
	base := lab.Row{X: float64(x), Offered: offered}
	for _, p := range []struct {
		where string
		run   *harness.RunResult
	}{{svReal, r}, {svSim, s}} {
		row := base
		row.Series = r.Spec.Scheduler + " " + p.where
		row.Values = svValues(p.run)
		res.Add(screened(row, p.run))
	}
	if a := s.Simulated.Analytic; a != nil {
		row := base
		row.Series = r.Spec.Scheduler + " " + svAnalytic
		row.Values = map[string]float64{"throughput": a.Throughput, "latency_mean_ms": a.LatencyMeanMs}
		row.Validity = s.Validity
		res.Add(row)
	}
	fmt.Fprintf(env.Log, "sim-validation: %s (c%d, %s): real %.0f tuples/s, simulated %.0f\n", r.Spec.Topology.Name, x, r.Spec.Scheduler, r.Measurement.Throughput, s.Measurement.Throughput)
}

// simulateRecorded runs recorded run r again on its cluster's twin charged by model, as it ran (its
// supervisors' ids, links, scheduler and options, spec); i is its place among the runs read, which
// seeds the model (recorded repetitions often share a name).
func simulateRecorded(ctx context.Context, r *harness.RunResult, i int, model *sim.CostModel) (*harness.RunResult, error) {
	n, err := simcluster.Lookup(r.Cluster)
	if err != nil {
		return nil, fmt.Errorf("cluster %q has no simulated twin", r.Cluster)
	}
	c, err := simcluster.OpenTwin(n.WithSupervisorIDs(simcluster.RecordedSupervisorIDs(r)).WithLinks(r.LinkMbit), recordedClusterSpec(r), r.Spec.Scheduler, model)
	if err != nil {
		return nil, err
	}
	spec := r.Spec
	spec.Topology.Name += fmt.Sprintf("-sim%d", i)
	return c.Run(ctx, spec)
}

// recordedOffered is r's configuration in a table's offered-load column: its topology, cluster and load.
func recordedOffered(r *harness.RunResult) string {
	main := r.Spec.Topology.MainClass
	main = strings.TrimSuffix(main[strings.LastIndex(main, ".")+1:], "Topology")
	return fmt.Sprintf("%s on %s, %s", main, r.Cluster, recordedLoad(r))
}

// recordedLoad is r's offered load: closed loop, or open loop at its --rate.
func recordedLoad(r *harness.RunResult) string {
	args := r.Spec.Topology.Args
	if i := slices.Index(args, "--rate"); i >= 0 && i+1 < len(args) {
		return "open loop at " + args[i+1] + " tuples/s"
	}
	return "closed loop"
}
