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
	Err             string // why it could not be simulated again ("" when it was)
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
func Closure(ctx context.Context, runs []*harness.RunResult, model *sim.CostModel) []ClosureRun {
	var out []ClosureRun
	for i, r := range runs {
		if simcluster.IsTransferRun(r) || skipRecorded(r, model.Provenance.Runs) != "measured into the cost model" {
			continue
		}
		if _, err := simcluster.Lookup(r.Cluster); err != nil {
			continue // a target's run: its cluster has no twin
		}
		c := ClosureRun{Name: r.Spec.Topology.Name, Real: r.Measurement.Throughput}
		if s, err := simulateRecorded(ctx, r, i, model); err != nil {
			c.Err = err.Error() // the model is written; one run that cannot be simulated says so and no more
		} else {
			c.Simulated = s.Measurement.Throughput
		}
		out = append(out, c)
	}
	return out
}

// ClosureError is the mean absolute relative error of the simulated throughput of the runs that were
// simulated again (NaN without any).
func ClosureError(runs []ClosureRun) float64 {
	sum, n := 0.0, 0
	for _, c := range runs {
		if c.Err == "" {
			sum, n = sum+math.Abs(c.Error()), n+1
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
