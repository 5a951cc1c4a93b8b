package schedulers

import (
	"context"
	"sort"

	"github.com/stormlab/stormlab/topologies"
)

// Even is Storm's EvenScheduler (Apache Storm, storm-server
// org.apache.storm.scheduler.EvenScheduler.scheduleTopology): the executors,
// sorted by id (Storm sorts by start task), go round-robin over the k
// workers: executor number i (in id order) lands on worker i mod k. Workers
// are spread over the nodes with SpreadSlots, which mirrors Storm's
// sortSlots (nodes by free slot count, most first, then interleaved), but
// for equal nodes, which it orders by host where Storm goes by id.
//
// It looks at neither traffic nor CPU weights: it is the baseline Jian, Lu
// and Zhang ("Storm heuristic balanced graph-partition scheduling
// optimization method", 2018, sec. 2.1 and 4.3) compare against.
// Storm also keeps executors that are still alive on their slots; this model
// always places the whole topology afresh.
type Even struct{}

// NewEven builds the EvenScheduler; it has no options.
func NewEven(Options) (Scheduler, error) { return Even{}, nil }

var evenInfo = Info{
	Name:        "even",
	Description: "Storm's EvenScheduler: executors round-robin over workers, workers spread over nodes",
	Source:      "Apache Storm EvenScheduler (storm-server)",
	New:         NewEven,
}

// Partition implements Partitioner.
func (Even) Partition(ctx context.Context, g *topologies.Graph, k int) ([]int, error) {
	if err := CheckK(k, g.N()); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	order := make([]int, g.N())
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return g.Vertices[order[a]].ID < g.Vertices[order[b]].ID })
	parts := make([]int, g.N())
	for i, v := range order {
		parts[v] = i % k
	}
	return parts, nil
}

// Schedule implements Scheduler.
func (e Even) Schedule(ctx context.Context, p *Problem) (*Assignment, error) {
	return PartitionScheduler{e}.Schedule(ctx, p)
}
