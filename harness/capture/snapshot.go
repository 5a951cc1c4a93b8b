package capture

import (
	"context"
	"fmt"
	"time"

	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/topologies"
)

// Snapshot is one reading of a topology through the UI: its components with their subscriptions
// and each component's page (executors with placement and all-time counters, per-stream counters).
type Snapshot struct {
	TimeMs     int64
	Components []stormui.VisComponent // sorted by id, Storm's "__" components left out
	Pages      map[string]*stormui.ComponentPage
}

// readSnapshot reads the visualization data and every component's page of topology id; TimeMs is
// the time the reading finished.
func readSnapshot(ctx context.Context, ui *stormui.Client, id string) (*Snapshot, error) {
	vis, err := ui.Visualization(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read the topology's components: %w", err)
	}
	s := &Snapshot{Components: vis, Pages: map[string]*stormui.ComponentPage{}}
	for _, c := range vis {
		p, err := ui.Component(ctx, id, c.ID)
		if err != nil {
			return nil, fmt.Errorf("read component %s: %w", c.ID, err)
		}
		s.Pages[c.ID] = p
	}
	s.TimeMs = time.Now().UnixMilli()
	return s, nil
}

// component is one component as the capture sees it: its kind, executors and tasks (ascending).
type component struct {
	name, kind string
	execs      []stormui.ExecutorStat
	tasks      []int
	inputs     []stormui.Input
}

// structure lists s's components in id order with their tasks. A component without executors (a
// page that lists none) is an error: the topology is not fully running.
func (s *Snapshot) structure() ([]component, error) {
	var out []component
	for _, v := range s.Components {
		p := s.Pages[v.ID]
		if p == nil || len(p.Executors) == 0 {
			return nil, fmt.Errorf("component %s has no executors yet: capture once the topology runs", v.ID)
		}
		c := component{name: v.ID, kind: p.Type, execs: p.Executors, inputs: v.Inputs}
		if c.kind == "" {
			c.kind = v.Type
		}
		if c.kind != topologies.KindSpout && c.kind != topologies.KindBolt {
			return nil, fmt.Errorf("component %s has type %q: the UI should say spout or bolt", v.ID, c.kind)
		}
		for _, e := range p.Executors {
			for t := e.TaskStart; t <= e.TaskEnd; t++ {
				c.tasks = append(c.tasks, t)
			}
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the UI lists no component of the topology")
	}
	return out, nil
}

// placement maps each task of comps to its executor's worker "host:port" (tasks of unplaced
// executors are left out).
func placement(comps []component) topologies.Placement {
	p := topologies.Placement{}
	for _, c := range comps {
		for _, e := range c.execs {
			if e.Host == "" || e.Port <= 0 {
				continue
			}
			for t := e.TaskStart; t <= e.TaskEnd; t++ {
				p[t] = fmt.Sprintf("%s:%d", e.Host, e.Port)
			}
		}
	}
	return p
}

// grouping maps the UI's grouping name to the captured file's. Storm stores a global grouping as a
// fields grouping on no fields: with the fields known (the stormlab UI) it is told apart, with
// Storm's UI it reads as fields.
func grouping(in stormui.Input) (topologies.Grouping, []string) {
	switch in.Grouping {
	case "fields":
		if in.FieldsKnown && len(in.Fields) == 0 {
			return topologies.GroupGlobal, nil
		}
		return topologies.GroupFields, in.Fields
	case "shuffle":
		return topologies.GroupShuffle, nil
	case "all":
		return topologies.GroupAll, nil
	case "none":
		return topologies.GroupNone, nil
	case "direct":
		return topologies.GroupDirect, nil
	case "local_or_shuffle":
		return topologies.GroupLocalOrShuffle, nil
	}
	return topologies.GroupCustom, nil // custom_object, custom_serialized (e.g. partial key grouping)
}

// streams lists the subscriptions of comps (rates and sizes left 0 for the caller).
func streams(comps []component) []topologies.CapturedStream {
	var out []topologies.CapturedStream
	for _, c := range comps {
		for _, in := range c.inputs {
			g, f := grouping(in)
			out = append(out, topologies.CapturedStream{From: in.From, To: in.To, Stream: in.Stream, Grouping: g, Fields: f})
		}
	}
	return out
}
