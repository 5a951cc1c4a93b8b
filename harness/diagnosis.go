package harness

import (
	"context"
	"strings"

	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/nemesis"
)

// Diagnosis is what limited a run (package diagnose).
type Diagnosis = diagnose.Diagnosis

// diagnosis says what limited r, from its records: the collect step and Load (stored runs are diagnosed
// again by today's rules) call it.
func diagnosis(r *RunResult) *Diagnosis {
	in := diagnose.Input{FromMs: r.MeasureFrom, ToMs: r.MeasureTo, NodeCPU: r.Measurement.NodeCPU, NodeStats: r.NodeStats,
		Capacity: map[string]float64{}, Reports: r.Reports, Decisions: r.Decisions, Tasks: map[int]diagnose.Task{}}
	for host, cpu := range r.Measurement.NodeCPU {
		if u := r.Measurement.NodeUtil[host]; u > 0 { // NodeUtil is 100 x CPU / capacity
			in.Capacity[host] = 100 * cpu / u
		}
	}
	for _, e := range r.Executors {
		for t := e.Start; t <= e.End; t++ {
			in.Tasks[t] = diagnose.Task{Component: e.Component, Host: e.Host, Port: e.Port}
		}
	}
	for _, f := range r.Faults {
		if f.Applied != nil {
			in.Applied = append(in.Applied, *f.Applied)
		}
	}
	d := diagnose.Run(in)
	return &d
}

// sampleNodes reads every supervisor's cgroup through the cluster's control layer: into a new
// NodeStats (st nil, the window's opening) or st's To (its close). Without a control layer, or where
// a read failed, st says so in Unread and host starvation is unknown there, never 0.
func sampleNodes(ctx context.Context, cl runCluster, st *diagnose.NodeStats) *diagnose.NodeStats {
	if st == nil {
		st = &diagnose.NodeStats{Quota: cl.Capacity()}
	}
	n := nemesisOf(cl)
	if n == nil || n.Control() == nil {
		st.Unread = "no control layer"
		return st
	}
	got, err := nemesis.SampleNodes(ctx, n.Control(), cl.Hosts())
	if st.From == nil {
		st.From = got
	} else {
		st.To = got
	}
	if err != nil {
		st.Unread = strings.TrimSpace(st.Unread + " " + err.Error())
	}
	return st
}
