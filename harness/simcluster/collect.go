package simcluster

import (
	"maps"
	"slices"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
)

// executorPlaces is the placement now, as the harness records it.
func (r *simRun) executorPlaces() []harness.ExecutorPlace {
	var out []harness.ExecutorPlace
	for _, a := range r.assign {
		host := a.Supervisor // placed checked it names a node
		if n := r.supervisorNode(a.Supervisor); n >= 0 {
			host = r.c.named.Nodes[n].Name
		}
		out = append(out, harness.ExecutorPlace{Component: r.componentOf(a.Executor.Start),
			Start: a.Executor.Start, End: a.Executor.End, Host: host, Port: a.Port})
	}
	return out
}

// collect measures the run from its reports as a real run is measured, then judges it.
func (r *simRun) collect(res *harness.RunResult) {
	res.Reports = r.reports
	res.Executors = r.executorPlaces()
	res.Supervisors = map[string]string{}
	for _, n := range r.c.named.Nodes {
		res.Supervisors[n.Name] = r.c.named.supervisorID(n.Name)
	}
	r.recoveries(res)
	r.recordLoad(res)
	r.recordLinks(res)
	place := measure.PlacementOf(res.Executors)
	capacity := r.c.Capacity()
	res.Measurement = measure.Window(res.Reports, place, capacity, res.MeasureFrom, res.MeasureTo)
	if step := r.spec.Step.Milliseconds(); step > 0 {
		res.Series = measure.Series(res.Reports, place, capacity, res.MeasureFrom, res.MeasureTo, step)
	}
	if r.svc != nil {
		st := r.svc.State(0)
		res.ServiceScheduler, res.SchedulerOptions, res.Rounds = st.Scheduler, st.Options, st.RoundTimes
		for _, d := range st.Decisions {
			if d.Topology == r.id {
				res.Decisions = append(res.Decisions, d)
			}
		}
	}
	res.Storm = measure.StormCheck{Note: "simulated: there are no Storm statistics to cross-check; the model checks itself (simulated.checks)"}
	res.Simulated = &harness.Simulated{Cluster: r.c.named.Name, About: r.c.named.About, CostModel: r.c.model.Name,
		CostSource: describe(r.c.model), Validation: r.c.validation(),
		Seed: r.seed, Batch: max(1, r.c.named.Batch), Events: r.x.Events(), Checks: r.selfChecks(), Migrations: r.moves}
	for _, s := range slices.SortedFunc(maps.Keys(r.frames), compareSlots) {
		res.Simulated.Frames = append(res.Simulated.Frames, *r.frames[s])
	}
	if a, err := sim.Jackson(r.cfg); err == nil {
		res.Simulated.Analytic = &protocol.AnalyticPrediction{Throughput: a.Throughput, LatencyMeanMs: 1000 * a.LatencyMean}
	}
	harness.Finish(res)
	var reasons []harness.Reason
	for _, c := range res.Simulated.Checks {
		if !isOK(c) {
			reasons = append(reasons, harness.Reason{Kind: harness.ReasonSimulated, Level: harness.Invalid, Text: "model self-check " + c})
		}
	}
	res.Validity = res.Validity.With(reasons...)
}
