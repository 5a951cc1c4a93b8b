package experiments

import (
	"context"
	"math"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/sim"
)

// ClosureRun is one of a cost model's own runs simulated again, charged by that model: its name and its
// throughput, real and simulated (tuples/s).
type ClosureRun struct {
	Name            string
	Real, Simulated float64
}

// Error is the simulated throughput's error relative to the real one (0.1 = 10% high).
func (c ClosureRun) Error() float64 { return (c.Simulated - c.Real) / c.Real }

// Closure simulates again, each on its cluster's twin charged by model, the runs of the project's
// topologies that model was measured from (its provenance names them; the transfer design's runs are
// left out: paced at a rate every node carries, they test nothing of the costs' sum; so are runs on a
// cluster without a simulated twin, a target's). A model whose twins
// do not carry the throughput of its own saturated runs does not spend a node's CPU as the real one did,
// whatever its per-tuple figures: its costs do not add up. It is a check of the model, not a validation
// (the runs are its own; sim-validation uses others).
func Closure(ctx context.Context, runs []*harness.RunResult, model *sim.CostModel) ([]ClosureRun, error) {
	var out []ClosureRun
	for i, r := range runs {
		if simcluster.IsTransferRun(r) || skipRecorded(r, model.Provenance.Runs) != "measured into the cost model" {
			continue
		}
		if _, err := simcluster.Lookup(r.Cluster); err != nil {
			continue // a target's run: its cluster has no twin
		}
		s, err := simulateRecorded(ctx, r, i, model)
		if err != nil {
			return nil, err
		}
		out = append(out, ClosureRun{Name: r.Spec.Topology.Name, Real: r.Measurement.Throughput, Simulated: s.Measurement.Throughput})
	}
	return out, nil
}

// ClosureError is the mean absolute relative error of runs' simulated throughput (NaN without runs).
func ClosureError(runs []ClosureRun) float64 {
	if len(runs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, c := range runs {
		sum += math.Abs(c.Error())
	}
	return sum / float64(len(runs))
}
