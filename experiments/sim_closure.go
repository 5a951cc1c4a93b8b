package experiments

import (
	"context"
	"math"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/sim"
)

// ClosureRun is one of a cost model's own runs simulated again, charged by that model: its name and
// start, and its throughput, real and simulated (tuples/s).
type ClosureRun struct {
	Name            string
	Started         time.Time
	Real, Simulated float64
	Err             string // why it could not be simulated again ("" when it was)
}

// Error is the simulated throughput's error relative to the real one (0.1 = 10% high).
func (c ClosureRun) Error() float64 { return (c.Simulated - c.Real) / c.Real }

// Closure simulates again, each on its cluster's twin charged by model, the runs of the project's
// topologies that model was measured from (its provenance names them). Left out: the transfer design's
// runs (paced at a rate every node carries, they test nothing of the costs' sum), runs on a cluster
// without a simulated twin (a target's) and runs without a throughput. A model whose twins do not carry
// the throughput of its own saturated runs does not spend a node's CPU as the real one did, whatever its
// per-tuple figures: its costs do not add up. It is a check of the model, not a validation (the runs
// are its own; sim-validation uses others). A run that cannot be simulated is named with why; a
// cancelled ctx ends it with ctx's error.
func Closure(ctx context.Context, runs []*harness.RunResult, model *sim.CostModel) ([]ClosureRun, error) {
	own := ownRuns(runs, model)
	// each seeded by its place among runs, as sim validate --from seeds a recorded run
	sims, errs := simulateEach(ctx, runs, own, model)
	var out []ClosureRun
	for k, i := range own {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r := runs[i]
		c := ClosureRun{Name: r.Spec.Topology.Name, Started: r.StartedAt, Real: r.Measurement.Throughput}
		if errs[k] != nil {
			c.Err = errs[k].Error()
		} else {
			c.Simulated = sims[k].Measurement.Throughput
		}
		out = append(out, c)
	}
	return out, nil
}

// ownRuns are the indexes of the runs of runs that model was measured from and its twins can simulate
// again: not the transfer design's, with a throughput, on a cluster with a twin (a target's has none).
func ownRuns(runs []*harness.RunResult, model *sim.CostModel) []int {
	var out []int
	for i, r := range runs {
		if simcluster.IsTransferRun(r) || !measuredInto(r, model.Provenance.Runs) || !(r.Measurement.Throughput > 0) {
			continue
		}
		if _, err := simcluster.Lookup(r.Cluster); err == nil {
			out = append(out, i)
		}
	}
	return out
}

// ClosureError is the mean absolute relative error of the simulated throughput of the runs that were
// simulated again, and how many were (NaN and 0 without any).
func ClosureError(runs []ClosureRun) (float64, int) {
	sum, n := 0.0, 0
	for _, c := range runs {
		if c.Err == "" {
			sum, n = sum+math.Abs(c.Error()), n+1
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return sum / float64(n), n
}
