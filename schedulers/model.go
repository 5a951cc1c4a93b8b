package schedulers

import (
	"context"
	"fmt"

	"github.com/stormlab/stormlab/topologies"
)

// Node is a supervisor: a machine with CPU capacity (percent; 100 = one
// core, as Storm's supervisor.cpu.capacity), memory and worker slots (ports).
type Node struct {
	ID       string  `json:"id"`
	Host     string  `json:"host,omitempty"`
	CPU      float64 `json:"cpu"`
	MemoryMB float64 `json:"memory_mb"`
	Ports    []int   `json:"ports"`
}

// Cluster is the set of nodes a scheduler can place on.
type Cluster struct {
	Nodes []Node `json:"nodes"`
}

// Slots lists every worker slot of the cluster, node by node.
func (c *Cluster) Slots() []Slot {
	var s []Slot
	for _, n := range c.Nodes {
		for _, p := range n.Ports {
			s = append(s, Slot{Node: n.ID, Port: p})
		}
	}
	return s
}

// Node returns the node with the given id.
func (c *Cluster) Node(id string) (Node, bool) {
	for _, n := range c.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return Node{}, false
}

// Slot is one worker slot: a port on a node.
type Slot struct {
	Node string `json:"node"`
	Port int    `json:"port"`
}

// String is node:port, as Storm writes a worker slot.
func (s Slot) String() string { return fmt.Sprintf("%s:%d", s.Node, s.Port) }

// Assignment is the two-level schedule of the K-PART paper: executors to
// workers (f: E -> W) and workers to node slots (g: W -> R).
// Executors[v] is the worker index of the executor at vertex index v.
type Assignment struct {
	Workers   []Slot `json:"workers"`
	Executors []int  `json:"executors"`
}

// NodeOf returns the node id of the executor at vertex index v.
func (a *Assignment) NodeOf(v int) string { return a.Workers[a.Executors[v]].Node }

// NodeParts maps each executor to a dense node number (order of first use),
// so partition metrics can be computed per node instead of per worker.
func (a *Assignment) NodeParts() (parts []int, nodes []string) {
	num := map[string]int{}
	parts = make([]int, len(a.Executors))
	for v := range a.Executors {
		n := a.NodeOf(v)
		i, ok := num[n]
		if !ok {
			i = len(nodes)
			num[n] = i
			nodes = append(nodes, n)
		}
		parts[v] = i
	}
	return parts, nodes
}

// Validate checks that a fits graph g and cluster c: one worker per
// executor, every worker on an existing slot, no slot used twice.
func (a *Assignment) Validate(g *topologies.Graph, c *Cluster) error {
	if len(a.Executors) != g.N() {
		return fmt.Errorf("assignment places %d executors, graph has %d", len(a.Executors), g.N())
	}
	valid := map[Slot]bool{}
	for _, s := range c.Slots() {
		valid[s] = true
	}
	used := map[Slot]bool{}
	for i, s := range a.Workers {
		if !valid[s] {
			return fmt.Errorf("worker %d is on slot %s, which the cluster does not have", i, s)
		}
		if used[s] {
			return fmt.Errorf("slot %s holds two workers", s)
		}
		used[s] = true
	}
	for v, w := range a.Executors {
		if w < 0 || w >= len(a.Workers) {
			return fmt.Errorf("executor %d is on worker %d of %d", g.Vertices[v].ID, w, len(a.Workers))
		}
	}
	return nil
}

// NodeLoad is one row of the load table kept in Nimbus by the
// deadline-aware scheduler (Choi, Jeon, Lim, Bok and Yoo, "Dynamic Task
// Scheduling Scheme for Processing Real-Time Stream Data in Storm
// Environments", 2021, Table 1), fed by the
// workers' metrics. CPU values are percent of the node's capacity.
type NodeLoad struct {
	Node          string  `json:"node"`
	CPUUsed       float64 `json:"cpu_used"`       // percent of capacity, 0..100
	CPUThroughput float64 `json:"cpu_throughput"` // average tuples/s processed
	MemoryTotalMB float64 `json:"memory_total_mb"`
	MemoryFreeMB  float64 `json:"memory_free_mb"`
	NetworkLoad   float64 `json:"network_load"` // tuples/s leaving the node
}

// TaskLoad is one row of the per-task monitor (Choi et al. 2021, Table 2). Executor is the vertex index in the problem's graph.
type TaskLoad struct {
	Executor   int     `json:"executor"`
	Node       string  `json:"node"`
	StartMs    int64   `json:"start_ms"`
	DeadlineMs float64 `json:"deadline_ms"` // per-tuple deadline
	CPU        float64 `json:"cpu"`         // percent of one core
	MemoryMB   float64 `json:"memory_mb"`
	Network    float64 `json:"network"` // tuples/s
	// TupleSize is the task's mean tuple size (ST_size in eqs. 5-6 of
	// Choi et al. 2021); 0 when not measured.
	TupleSize float64 `json:"tuple_size,omitempty"`
}

// Load is what was measured on a running cluster. Graph weights already hold
// measured executor CPU and traffic when a load exists.
type Load struct {
	Nodes []NodeLoad `json:"nodes"`
	Tasks []TaskLoad `json:"tasks"`
	// NowMs is when the load was taken, on the clock of TaskLoad.StartMs
	// ("Now" in eq. 1 of Choi et al. 2021); 0 when unknown.
	NowMs int64 `json:"now_ms,omitempty"`
	// NotMeasured names metrics the workers did not report although the
	// load table has a column for them (e.g. "task_cpu" when an executor
	// has no CPU reading and its vertex weight is a fill-in).
	NotMeasured []string `json:"not_measured,omitempty"`
}

// Problem is what a scheduler gets each round.
type Problem struct {
	Topology string            // topology id, for logs
	Graph    *topologies.Graph // executors (vertex weight = CPU) and traffic
	Cluster  Cluster
	Workers  int         // number of workers the topology asked for (k)
	Current  *Assignment // nil on first placement
	Load     *Load       // nil when nothing was measured yet
}

// checkGraph reports a Problem without executors (no graph, or an empty
// one): there is nothing to place, and it must be an error, not a nil
// dereference. name prefixes the message.
func (p *Problem) checkGraph(name string) error {
	if p.Graph == nil || p.Graph.N() == 0 {
		return fmt.Errorf("%s: the problem has no executors (empty topology graph): nothing to place", name)
	}
	return nil
}

// Scheduler places a topology's executors on worker slots.
type Scheduler interface {
	Schedule(ctx context.Context, p *Problem) (*Assignment, error)
}

// Partitioner splits a graph into k parts, some possibly empty: parts[v] in
// [0,k) for every vertex index v.
type Partitioner interface {
	Partition(ctx context.Context, g *topologies.Graph, k int) ([]int, error)
}

// Dynamic is implemented by schedulers that revise a running assignment.
// Reschedule returns the new assignment and whether it should be applied
// (false keeps p.Current).
type Dynamic interface {
	Reschedule(ctx context.Context, p *Problem) (a *Assignment, apply bool, err error)
}

// CheckK reports a clear error unless 1 <= k <= n.
func CheckK(k, n int) error {
	if k < 1 || k > n {
		return fmt.Errorf("k = %d is out of range: need 1 <= k <= %d (the number of vertices)", k, n)
	}
	return nil
}

// Decision is why a Dynamic scheduler kept or changed a running placement:
// what the scheduler service records, typed, for every reschedule round.
type Decision struct {
	Apply  bool   `json:"apply"`
	Reason string `json:"reason"` // one line: which trigger fired or why nothing moved
	// Trigger names the rule that decided (e.g. "improvement >= 10%",
	// "cpu load", "cpu+memory load", "none").
	Trigger string `json:"trigger,omitempty"`
	// Current and New are the scheduler's own estimates of the kept and
	// the proposed placement (nil when it makes none).
	Current *Estimate `json:"current,omitempty"`
	New     *Estimate `json:"new,omitempty"`
	// Migrations are executor moves (deadline, adaptive); Moved counts the
	// executors whose slot changes, for every scheduler.
	Migrations []Migration `json:"migrations,omitempty"`
	Moved      int         `json:"moved"`
	// Reference is the reference node of a first placement (R-Storm) and
	// First the vertex index of the executor placed first (on it).
	Reference string `json:"reference,omitempty"`
	First     *int   `json:"first,omitempty"`
	// NotMeasured names inputs the scheduler needs that the load table
	// lacks (e.g. "deadline", "tuple_size"): a decision made without them
	// is inconclusive for the claims that rest on them.
	NotMeasured []string `json:"not_measured,omitempty"`
}

// Explainer is implemented by schedulers that say why they decide. For a
// Dynamic scheduler with p.Current set, Explain is Reschedule with its
// Decision (the assignment is p.Current when Decision.Apply is false);
// with p.Current nil it is Schedule with its Decision. The service calls
// it instead of Schedule/Reschedule and records the Decision.
type Explainer interface {
	Explain(ctx context.Context, p *Problem) (*Assignment, *Decision, error)
}

// movedExecutors counts executors whose slot differs between a and b.
func movedExecutors(a, b *Assignment) int {
	if a == nil || b == nil || len(a.Executors) != len(b.Executors) {
		return 0
	}
	n := 0
	for v := range a.Executors {
		if a.Workers[a.Executors[v]] != b.Workers[b.Executors[v]] {
			n++
		}
	}
	return n
}
