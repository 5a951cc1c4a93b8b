package harness

import (
	"context"

	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/topologies"
)

// Diagnosis is what limited a run (package diagnose).
type Diagnosis = diagnose.Diagnosis

// diagnosis says what limited r, from its records: the collect step and Load (stored runs are diagnosed
// again by today's rules) call it.
func diagnosis(r *RunResult) *Diagnosis {
	rec := diagnose.Records{FromMs: r.MeasureFrom, ToMs: r.MeasureTo, NodeCPU: r.Measurement.NodeCPU, NodeUtil: r.Measurement.NodeUtil,
		Reports: r.Reports, Decisions: r.Decisions, Executors: r.Executors, NodeStats: r.NodeStats,
		Throughput: r.Measurement.Throughput, LatencyMeanMs: r.Measurement.LatencyMean,
		LinkMbit: r.LinkMbit, LinksKnown: r.ClusterRun > 0 || r.Simulated != nil, // a target's links are unknown
		SharedHost: r.ClusterRun > 0 && r.Simulated == nil} // containers of this machine; a twin models no wake-ups' cost
	rec.MaxPending, rec.PendingKnown = topologies.MaxSpoutPending(r.Spec.Topology.MainClass, r.Spec.Topology.Args)
	for _, f := range r.Faults {
		rec.Applied = append(rec.Applied, f.Applied) // nil for faults other than stragglers
	}
	d := diagnose.Of(rec)
	return &d
}

// sampleNodes reads the supervisors' cgroups at a window's end (nemesis.Nemesis.SampleInto).
func sampleNodes(ctx context.Context, r *running, st *diagnose.NodeStats) *diagnose.NodeStats {
	return nemesisOf(r.cl).SampleInto(ctx, st, r.cl.Capacity(), r.cl.Hosts(), r.spec.NoNodeSamples)
}
