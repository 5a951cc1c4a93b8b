package native

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// Executor is Storm's ExecutorDetails: a component's tasks Start..End.
type Executor struct {
	Component string `json:"component"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
}

// String is Storm's way of writing an executor, [start end].
func (e Executor) String() string { return fmt.Sprintf("%s[%d %d]", e.Component, e.Start, e.End) }

// Resources is what RAS reads of a component from the topology conf
// (TopologyDetails.initResourceList): CPU in percent of a core and memory in
// MB, per executor.
type Resources struct {
	CPU       float64 `json:"cpu"`
	OnHeapMB  float64 `json:"onheap_mb"`
	OffHeapMB float64 `json:"offheap_mb"`
}

// Storm 2.8's defaults (conf/defaults.yaml), used where a Topology leaves a
// value at zero.
const (
	DefaultCPU             = 10.0  // topology.component.cpu.pcore.percent
	DefaultOnHeapMB        = 128.0 // topology.component.resources.onheap.memory.mb
	DefaultWorkerMaxHeapMB = 768.0 // topology.worker.max.heap.size.mb
	DefaultAckersPerWorker = 1     // topology.ras.acker.executors.per.worker
	DefaultMaxStateSearch  = 10000 // topology.ras.constraint.max.state.search
	DefaultSupervisorCPU   = 400.0 // supervisor.cpu.capacity
	DefaultSupervisorMemMB = 4096.0
	// AckerComponent is Storm's acker bolt (Acker.ACKER_COMPONENT_ID).
	AckerComponent = topologies.AckerComponent
)

// Topology is what a scheduler sees of a topology (TopologyDetails).
type Topology struct {
	ID string `json:"id"`
	// Workers is topology.workers; EvenScheduler and DefaultScheduler need
	// at least 1, RAS ignores it.
	Workers   int        `json:"workers"`
	Executors []Executor `json:"executors"`
	// Inputs lists, per user component, the components it subscribes to
	// (its ComponentCommon inputs). A component without inputs is a spout.
	// Storm's system components ("__acker", ...) are not listed.
	Inputs map[string][]string `json:"inputs"`
	// Resources per component (RAS); a missing component or a zero CPU or
	// on-heap value takes Storm's default.
	Resources map[string]Resources `json:"resources,omitempty"`
	// WorkerMaxHeapMB is topology.worker.max.heap.size.mb (0: 768).
	WorkerMaxHeapMB float64 `json:"worker_max_heap_mb,omitempty"`
	// AckersPerWorker is topology.ras.acker.executors.per.worker (0: 1;
	// negative: none bound).
	AckersPerWorker int `json:"ackers_per_worker,omitempty"`
	// MaxStateSearch bounds RAS's search (0: 10,000).
	MaxStateSearch int `json:"max_state_search,omitempty"`
}

// Assignment maps executors to worker slots. Executors of the topology
// missing from Slots are unassigned (Storm runs without them); Unassigned
// lists them, in start-task order, and Status says why, as the scheduler's
// Cluster.setStatus would.
type Assignment struct {
	Slots      map[Executor]schedulers.Slot
	Unassigned []Executor
	Status     string
}

// Workers lists the slots the assignment uses, by node and port.
func (a Assignment) Workers() []schedulers.Slot {
	seen := map[schedulers.Slot]bool{}
	var out []schedulers.Slot
	for _, s := range a.Slots {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	slices.SortFunc(out, compareSlot)
	return out
}

// Scheduler is one of Storm's schedulers. Schedule returns the assignment
// Storm would make from current (the surviving executors and their slots;
// empty on submission); current is not changed.
type Scheduler interface {
	Name() string
	Schedule(ctx context.Context, c schedulers.Cluster, t Topology, current Assignment) (Assignment, error)
}

var known = map[string]Scheduler{
	"storm-even":    Even{},
	"storm-default": Default{},
	"storm-ras":     RAS{},
}

// Names lists the known schedulers, sorted.
func Names() []string {
	out := make([]string, 0, len(known))
	for n := range known {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Lookup returns the model of the Storm scheduler the project calls name
// (the names a topology gives in stormlab.scheduler).
func Lookup(name string) (Scheduler, error) {
	s, ok := known[name]
	if !ok {
		return nil, fmt.Errorf("unknown Storm scheduler %q: use one of %s", name, strings.Join(Names(), ", "))
	}
	return s, nil
}

// FromGraph is the topology of an executor graph: vertex v is the executor
// of one task (Vertex.ID, as the project's topologies run one task per
// executor) of Vertex.Component; the component links come from the edges.
// Acker vertices, if any, are executors of "__acker" and carry no link.
func FromGraph(id string, g *topologies.Graph, workers int) (Topology, error) {
	if g == nil || g.N() == 0 {
		return Topology{}, fmt.Errorf("topology %s: the graph has no executors: nothing to place", id)
	}
	t := Topology{ID: id, Workers: workers, Inputs: map[string][]string{}}
	comp := map[int]string{}
	for _, v := range g.Vertices {
		if v.Component == "" {
			return Topology{}, fmt.Errorf("topology %s: vertex %d names no component: Storm's schedulers group executors by component, give every vertex one", id, v.ID)
		}
		comp[v.ID] = v.Component
		t.Executors = append(t.Executors, Executor{Component: v.Component, Start: v.ID, End: v.ID})
		if !isSystem(v.Component) {
			if _, ok := t.Inputs[v.Component]; !ok {
				t.Inputs[v.Component] = nil
			}
		}
	}
	for _, e := range g.Edges {
		from, to := comp[e.From], comp[e.To]
		if from == to || isSystem(from) || isSystem(to) || slices.Contains(t.Inputs[to], from) {
			continue
		}
		t.Inputs[to] = append(t.Inputs[to], from)
	}
	return t, t.validate()
}

// Indexed is a as the schedulers package writes an assignment of the graph
// FromGraph read (vertex v is t.Executors[v]): workers by node and port,
// and -1 for an executor Storm left unassigned.
func (a Assignment) Indexed(t Topology) *schedulers.Assignment {
	out := &schedulers.Assignment{Workers: a.Workers(), Executors: make([]int, len(t.Executors))}
	for v, e := range t.Executors {
		s, ok := a.Slots[e]
		if !ok {
			out.Executors[v] = -1
			continue
		}
		out.Executors[v] = slices.Index(out.Workers, s)
	}
	return out
}

// HideDeadPorts is the cluster as Nimbus shows it to a scheduler in the
// round after workers died: their ports left out
// (Nimbus.readAllSupervisorDetails hides them for one round).
func HideDeadPorts(c schedulers.Cluster, dead []schedulers.Slot) schedulers.Cluster {
	out := schedulers.Cluster{Nodes: make([]schedulers.Node, len(c.Nodes))}
	for i, n := range c.Nodes {
		n.Ports = slices.DeleteFunc(slices.Clone(n.Ports), func(p int) bool {
			return slices.Contains(dead, schedulers.Slot{Node: n.ID, Port: p})
		})
		out.Nodes[i] = n
	}
	return out
}

func isSystem(component string) bool { return strings.HasPrefix(component, "__") }

func compareSlot(a, b schedulers.Slot) int {
	if c := strings.Compare(a.Node, b.Node); c != 0 {
		return c
	}
	return a.Port - b.Port
}

// validate reports a topology no Storm cluster would run.
func (t Topology) validate() error {
	if t.Workers < 0 {
		return fmt.Errorf("topology %s asks for %d workers: topology.workers must be at least 1", t.ID, t.Workers)
	}
	seen := map[int]bool{}
	for _, e := range t.Executors {
		if e.Component == "" || e.End < e.Start {
			return fmt.Errorf("topology %s: executor %v is malformed: give a component and start <= end", t.ID, e)
		}
		for task := e.Start; task <= e.End; task++ {
			if seen[task] {
				return fmt.Errorf("topology %s: task %d is in two executors: every task belongs to one", t.ID, task)
			}
			seen[task] = true
		}
	}
	for c, res := range t.Resources {
		for _, x := range []float64{res.CPU, res.OnHeapMB, res.OffHeapMB} {
			if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("topology %s: component %s requests %+v: resources must be finite and >= 0", t.ID, c, res)
			}
		}
	}
	return nil
}

// check validates the inputs every model shares: the topology, the cluster
// (unique node ids, no port twice) and current (only the topology's
// executors, on slots the cluster has; a slot Nimbus no longer shows is
// refused, since Nimbus drops the executors of dead workers first).
func check(c schedulers.Cluster, t Topology, current Assignment) error {
	if err := t.validate(); err != nil {
		return err
	}
	slots := map[schedulers.Slot]bool{}
	for _, n := range c.Nodes {
		for _, p := range n.Ports {
			s := schedulers.Slot{Node: n.ID, Port: p}
			if slots[s] {
				return fmt.Errorf("cluster: slot %s is listed twice: give each node id once and each port once", s)
			}
			slots[s] = true
		}
	}
	execs := map[Executor]bool{}
	for _, e := range t.Executors {
		execs[e] = true
	}
	for e, s := range current.Slots {
		if !execs[e] {
			return fmt.Errorf("current assignment: executor %v is not one of topology %s's", e, t.ID)
		}
		if !slots[s] {
			return fmt.Errorf("current assignment: executor %v is on slot %s, which the cluster does not show: leave the executors of dead workers out", e, s)
		}
	}
	return nil
}

// finish fills Unassigned (start-task order) and copies nothing else.
func finish(t Topology, a Assignment) Assignment {
	a.Unassigned = nil
	for _, e := range t.Executors {
		if _, ok := a.Slots[e]; !ok {
			a.Unassigned = append(a.Unassigned, e)
		}
	}
	slices.SortFunc(a.Unassigned, func(x, y Executor) int { return x.Start - y.Start })
	return a
}

func cloneSlots(m map[Executor]schedulers.Slot) map[Executor]schedulers.Slot {
	out := make(map[Executor]schedulers.Slot, len(m))
	for e, s := range m {
		out[e] = s
	}
	return out
}
