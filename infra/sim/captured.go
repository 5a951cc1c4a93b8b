package sim

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// ServiceCV is the coefficient of variation of a captured component's per-tuple CPU: a capture gives
// only the mean, and storm-loadgen's NormalDistStats takes a standard deviation of a quarter of the
// mean when none is given (apache/storm examples/storm-loadgen, NormalDistStats.java).
const ServiceCV = 0.25

// Placement is where a captured topology's tasks run: each task's worker, and each worker's node (an
// index of the cluster's nodes).
type Placement struct {
	TaskWorker map[int]int
	WorkerNode []int
}

// OneWorkerPerNode is the placement of tasks on nodes (task id -> node index) with one worker per
// node that holds tasks.
func OneWorkerPerNode(taskNode map[int]int) Placement {
	p := Placement{TaskWorker: map[int]int{}}
	worker := map[int]int{}
	for _, task := range slices.Sorted(maps.Keys(taskNode)) {
		n := taskNode[task]
		if _, ok := worker[n]; !ok {
			worker[n] = len(p.WorkerNode)
			p.WorkerNode = append(p.WorkerNode, n)
		}
		p.TaskWorker[task] = worker[n]
	}
	return p
}

// PlacementOf is a scheduler's assignment of the captured graph (c.Graph(): vertex v is task
// c.Vertices[v].ID) as a Placement on the nodes named nodes (schedulers.Node.ID, in the model's order).
func PlacementOf(c *topologies.Captured, a *schedulers.Assignment, nodes []string) (Placement, error) {
	p := Placement{TaskWorker: map[int]int{}}
	for _, w := range a.Workers {
		n := slices.Index(nodes, w.Node)
		if n < 0 {
			return Placement{}, fmt.Errorf("assignment: worker %s:%d is on a node the cluster does not have (%v)", w.Node, w.Port, nodes)
		}
		p.WorkerNode = append(p.WorkerNode, n)
	}
	if len(a.Executors) != len(c.Vertices) {
		return Placement{}, fmt.Errorf("assignment places %d executors, the capture has %d tasks", len(a.Executors), len(c.Vertices))
	}
	for v, w := range a.Executors {
		p.TaskWorker[c.Vertices[v].ID] = w
	}
	return p, nil
}

// FromCaptured is the topology a capture (stormlab capture) describes, placed by p on a cluster of
// nodes nodes. Each task is an executor (the project's topologies run one task per executor). Spouts
// offer the rate they were captured at (open loop, per task); a stream's tuples per executed tuple are
// its captured rate over its sender's; the per-tuple CPU is the captured mean (log-normal, ServiceCV).
func FromCaptured(c *topologies.Captured, nodes int, p Placement) (Topology, error) {
	t := Topology{Workers: p.WorkerNode}
	for w, n := range p.WorkerNode {
		if n < 0 || n >= nodes {
			return Topology{}, fmt.Errorf("placement: worker %d is on node %d; the cluster has nodes 0 to %d", w, n, nodes-1)
		}
	}
	for _, comp := range c.Components {
		sc, err := capturedComponent(c, comp)
		if err != nil {
			return Topology{}, err
		}
		t.Components = append(t.Components, sc)
		for _, task := range comp.Tasks {
			w, ok := p.TaskWorker[task]
			if !ok || w < 0 || w >= len(p.WorkerNode) {
				return Topology{}, fmt.Errorf("captured topology: task %d (%s) is placed on no worker: place every task", task, comp.Name)
			}
			t.Executors = append(t.Executors, Executor{Component: comp.Name, Worker: w})
		}
	}
	return t, nil
}

// CapturedComponent is one component of a capture as the model's (see FromCaptured).
func CapturedComponent(c *topologies.Captured, comp topologies.CapturedComponent) (Component, error) {
	return capturedComponent(c, comp)
}

// capturedComponent is one captured component as the model's: its CPU, its streams, its tuples' size
// and, for a spout, its rate per task.
func capturedComponent(c *topologies.Captured, comp topologies.CapturedComponent) (Component, error) {
	spout := comp.Kind == topologies.KindSpout
	tasks := float64(len(comp.Tasks))
	execs := comp.ExecutePerS // executions per second of the whole component
	if spout {
		execs = comp.EmitPerS / float64(max(1, len(streamIDs(c, comp.Name))))
	}
	if len(comp.Tasks) == 0 || !(comp.CPUMicrosPerTuple > 0) || !(execs > 0) {
		return Component{}, fmt.Errorf("captured topology: component %s has %d tasks, %.4g tuples/s and %.4g µs per tuple: "+
			"capture it again while it runs under load (stormlab capture)", comp.Name, len(comp.Tasks), execs, comp.CPUMicrosPerTuple)
	}
	perExec := comp.CPUMicrosPerTuple * 1e-6
	if spout { // its CPU is per emitted tuple; one execution emits one on each of its streams
		perExec *= comp.EmitPerS / execs
	}
	out := Component{Name: comp.Name, Spout: spout, Service: Dist{Mean: perExec, CV: ServiceCV, Kind: LogNormal}, Bytes: int(math.Round(comp.TupleBytes))}
	if spout {
		out.Rate = execs / tasks
	}
	for _, s := range c.Streams {
		if s.From != comp.Name {
			continue
		}
		g, per := capturedGrouping(s.Grouping), s.TuplesPerS/execs
		if g == All {
			per /= float64(max(1, len(componentTasks(c, s.To))))
		}
		out.Streams = append(out.Streams, Stream{To: s.To, PerTuple: per, Grouping: g})
		if out.Bytes == 0 {
			out.Bytes = int(math.Round(s.BytesPerTuple))
		}
	}
	return out, nil
}

func capturedGrouping(g topologies.Grouping) Grouping {
	switch g {
	case topologies.GroupAll:
		return All
	case topologies.GroupGlobal:
		return Global
	case topologies.GroupLocalOrShuffle:
		return LocalOrShuffle
	case topologies.GroupFields:
		return Fields // uniform over the receivers: no key distribution is captured
	}
	return Shuffle
}

// streamIDs are the distinct stream ids component name emits on.
func streamIDs(c *topologies.Captured, name string) []string {
	var ids []string
	for _, s := range c.Streams {
		if s.From == name && !slices.Contains(ids, s.Stream) {
			ids = append(ids, s.Stream)
		}
	}
	return ids
}

func componentTasks(c *topologies.Captured, name string) []int {
	for _, comp := range c.Components {
		if comp.Name == name {
			return comp.Tasks
		}
	}
	return nil
}

// GroupingOf is the model's grouping for a grouping's name in a capture or cost model (fields and
// unknown ones spread uniformly, as capturedGrouping does).
func GroupingOf(name string) Grouping { return capturedGrouping(topologies.Grouping(name)) }
