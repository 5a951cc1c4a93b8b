package capture

import (
	"cmp"
	"slices"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/topologies"
)

// FromRecords is the captured topology of a recorded run: the structure the topology's Go spec declares
// (components, streams and their ids and groupings; a component no stream enters is a spout), the tasks
// each component ran (tasks, from the run's placement) and the rates, CPU and sizes of the workers'
// reports (cut to the run's topology and window). It lets a run recorded on any cluster be read as a
// capture without its UI, e.g. to measure a simulated cluster's costs.
func FromRecords(spec topologies.Topology, tasks map[string][]int, reports []protocol.WorkerReport) *topologies.Captured {
	hasInput := map[string]bool{}
	for _, s := range spec.Streams {
		hasInput[s.To] = true
	}
	var comps []component
	for _, c := range spec.Components {
		k := component{name: c.Name, kind: topologies.KindBolt, tasks: slices.Sorted(slices.Values(tasks[c.Name]))}
		if !hasInput[c.Name] {
			k.kind = topologies.KindSpout
		}
		for _, t := range k.tasks {
			k.execs = append(k.execs, stormui.ExecutorStat{TaskStart: t, TaskEnd: t})
		}
		for _, s := range spec.Streams {
			if s.To == c.Name {
				k.inputs = append(k.inputs, specInput(s))
			}
		}
		comps = append(comps, k)
	}
	c := buildInstrumented(comps, foldReports(reports))
	c.Provenance.Topology = spec.Name
	return c
}

// specInput is a Go spec stream as the UI would list it.
func specInput(s topologies.Stream) stormui.Input {
	in := stormui.Input{From: s.From, To: s.To, Stream: cmp.Or(s.ID, "default"), Grouping: string(s.Grouping), FieldsKnown: true}
	switch s.Grouping {
	case topologies.GroupFields:
		in.Fields = []string{"key"}
	case topologies.GroupGlobal:
		in.Grouping = "fields" // Storm's global grouping is a fields grouping on no fields
	}
	return in
}
