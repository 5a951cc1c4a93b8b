package harness

import "github.com/stormlab/stormlab/harness/diagnose"

// Diagnosis is what limited a run (package diagnose).
type Diagnosis = diagnose.Diagnosis

// diagnosis says what limited r, from its records: the collect step and Load (stored runs are diagnosed
// again by today's rules) call it.
func diagnosis(r *RunResult) *Diagnosis {
	in := diagnose.Input{FromMs: r.MeasureFrom, ToMs: r.MeasureTo, NodeCPU: r.Measurement.NodeCPU,
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
	d := diagnose.Run(in)
	return &d
}
