package whatif

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// Question is one "what if": a graph (vertex weight = CPU demand, edge weight = traffic), the cluster
// it would run on, and how many workers the topology asks for.
type Question struct {
	Graph   *topologies.Graph
	Cluster schedulers.Cluster
	// Workers is the topology's number of workers; 0 means one per node.
	Workers int
	// Current is the running placement, if known: rows then count the executors each scheduler
	// would move to another node.
	Current *schedulers.Assignment
	// CurrentNodes is the node of each vertex (by index) in the running placement, when the placement
	// is known by node only (its slots are not the cluster's; see FromPlacement): rows then count
	// the executors each scheduler would put on another node. Ignored when Current is set.
	CurrentNodes []string
	Options      schedulers.Options
	// Timeout bounds each scheduler; 0 means 10 s.
	Timeout time.Duration
}

// NodeUse is one node's share of a placement.
type NodeUse struct {
	Node     string  `json:"node"`
	CPU      float64 `json:"cpu"`      // sum of the node's vertex weights
	Capacity float64 `json:"capacity"` // the node's CPU capacity (percent of a core)
	// LoadRatio is the node's share of the graph's CPU over its share of the cluster's capacity:
	// 1 on every node is a placement proportional to capacity. Unit-free, so it reads the same for
	// generated graphs (unitless weights) and captured ones (percent of a core).
	LoadRatio float64 `json:"load_ratio"`
}

// Row is one scheduler's answer.
type Row struct {
	Scheduler string `json:"scheduler"`
	// Err says why the scheduler gave no placement (then the measures are zero).
	Err       string    `json:"error,omitempty"`
	CutRate   float64   `json:"cut_rate"`   // inter-node edge weight / total edge weight
	InterNode float64   `json:"inter_node"` // inter-node edge weight, in the graph's traffic unit
	Nodes     []NodeUse `json:"nodes"`
	// MaxLoadRatio is the largest LoadRatio: how far the busiest node is over its fair share.
	MaxLoadRatio float64 `json:"max_load_ratio"`
	// Imbalance is the population standard deviation of the nodes' LoadRatio (0 = proportional).
	Imbalance float64 `json:"imbalance"`
	// Moved counts executors on another node than in Question.Current (or Question.CurrentNodes);
	// -1 when there is none. A captured graph's vertices are tasks, so there it counts tasks.
	Moved     int     `json:"moved"`
	ElapsedMs float64 `json:"elapsed_ms"`
}

// Ask runs each named scheduler on q and measures its placement. A scheduler that fails gets a row
// with Err set; only bad input (an invalid graph, an unknown name, a cluster without slots) is an error.
func Ask(ctx context.Context, q Question, names []string) ([]Row, error) {
	if err := check(q); err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(names))
	for _, name := range names {
		s, err := schedulers.New(name, q.Options)
		if err != nil {
			return nil, err
		}
		rows = append(rows, ask(ctx, q, name, s))
	}
	return rows, nil
}

func check(q Question) error {
	if q.Graph == nil || q.Graph.N() == 0 {
		return errors.New("whatif: the graph has no executors: give a graph with at least one vertex")
	}
	if err := q.Graph.Validate(); err != nil {
		return fmt.Errorf("whatif: %w", err)
	}
	if len(q.Cluster.Slots()) == 0 {
		return errors.New("whatif: the cluster has no worker slots: give nodes with ports")
	}
	if q.Workers < 0 {
		return fmt.Errorf("whatif: workers = %d: give a positive number (0 means one per node)", q.Workers)
	}
	return nil
}

func ask(ctx context.Context, q Question, name string, s schedulers.Scheduler) Row {
	timeout := q.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	workers := q.Workers
	if workers == 0 {
		workers = len(q.Cluster.Nodes)
	}
	p := &schedulers.Problem{Topology: "whatif", Graph: q.Graph, Cluster: q.Cluster, Workers: workers, Current: q.Current}
	start := time.Now()
	a, err := s.Schedule(ctx, p)
	elapsed := float64(time.Since(start).Microseconds()) / 1000
	if err == nil {
		err = a.Validate(q.Graph, &q.Cluster)
	}
	if err != nil {
		return Row{Scheduler: name, Err: err.Error(), Moved: -1, ElapsedMs: elapsed}
	}
	r := Measure(q.Graph, &q.Cluster, a, q.Current)
	if q.Current == nil && len(q.CurrentNodes) == q.Graph.N() {
		r.Moved = movedNodes(a, q.CurrentNodes)
	}
	r.Scheduler, r.ElapsedMs = name, elapsed
	return r
}

// Measure computes a Row's measures for placement a (Scheduler and ElapsedMs left empty).
func Measure(g *topologies.Graph, c *schedulers.Cluster, a, current *schedulers.Assignment) Row {
	var r Row
	idx := g.Index()
	for _, e := range g.Edges {
		if a.NodeOf(idx[e.From]) != a.NodeOf(idx[e.To]) {
			r.InterNode += e.Weight
		}
	}
	if tw := g.TotalEdgeWeight(); tw > 0 {
		r.CutRate = r.InterNode / tw
	}
	r.Nodes = nodeUse(g, c, a)
	ratios := make([]float64, len(r.Nodes))
	for i, n := range r.Nodes {
		ratios[i] = n.LoadRatio
		r.MaxLoadRatio = math.Max(r.MaxLoadRatio, n.LoadRatio)
	}
	r.Imbalance, _ = stats.StandardDeviationPopulation(ratios)
	r.Moved = moved(a, current, g.N())
	return r
}

func nodeUse(g *topologies.Graph, c *schedulers.Cluster, a *schedulers.Assignment) []NodeUse {
	cpu := map[string]float64{}
	for v := range g.Vertices {
		cpu[a.NodeOf(v)] += g.Vertices[v].Weight
	}
	totalCPU, totalCap := g.TotalVertexWeight(), 0.0
	for _, n := range c.Nodes {
		totalCap += n.CPU
	}
	out := make([]NodeUse, 0, len(c.Nodes))
	for _, n := range c.Nodes {
		u := NodeUse{Node: n.ID, CPU: cpu[n.ID], Capacity: n.CPU}
		if totalCPU > 0 && n.CPU > 0 && totalCap > 0 {
			u.LoadRatio = (u.CPU / totalCPU) / (n.CPU / totalCap)
		}
		out = append(out, u)
	}
	return out
}

func moved(a, current *schedulers.Assignment, n int) int {
	if current == nil || len(current.Executors) != n {
		return -1
	}
	m := 0
	for v := 0; v < n; v++ {
		if a.NodeOf(v) != current.NodeOf(v) {
			m++
		}
	}
	return m
}

// Reference is the proven minimum of the node-level cut rate over partitions into one part per node
// whose weights lie within ±Epsilon of equal (the exact scheduler's balance bound). Equal parts are
// the K-PART paper's balance; on heterogeneous nodes the placements above may trade cut for
// capacity, so the reference is a floor for the cut at that balance, not a scheduler's target.
type Reference struct {
	CutRate float64 `json:"cut_rate"`
	Epsilon float64 `json:"epsilon"`
	Proven  bool    `json:"proven"` // false: the time limit ran out, CutRate is the best found
}

// Optimum computes the Reference when the graph and the cluster are small enough for the exact
// scheduler (schedulers.MaxExactVertices, schedulers.MaxExactK); otherwise it returns nil and no error.
// limit bounds the solver (0 means the exact scheduler's default).
func Optimum(ctx context.Context, g *topologies.Graph, nodes int, eps float64, limit time.Duration) (*Reference, error) {
	if g.N() > schedulers.MaxExactVertices || nodes > schedulers.MaxExactK || nodes < 1 || nodes > g.N() {
		return nil, nil
	}
	ex, err := schedulers.NewExact(schedulers.Options{Epsilon: eps})
	if err != nil {
		return nil, err
	}
	e := ex.(*schedulers.Exact)
	if limit > 0 {
		e.TimeLimit = limit
	}
	res, err := e.Solve(ctx, g, nodes)
	if err != nil {
		return nil, fmt.Errorf("optimum: %w", err)
	}
	ref := &Reference{Epsilon: e.Epsilon, Proven: res.Optimal}
	if tw := g.TotalEdgeWeight(); tw > 0 {
		ref.CutRate = schedulers.CutWeight(g, res.Parts) / tw
	}
	return ref, nil
}
