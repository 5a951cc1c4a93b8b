package experiments

import (
	"context"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
)

// simulateEach simulates again the runs of runs at the indexes idx (simulateRecorded), up to one a
// core at once: a twin runs on one goroutine, and the cost fits and validations simulate tens of them.
// The k-th result and error are idx[k]'s. Each twin is seeded by its run's place among runs and shares
// nothing it writes, so the results do not depend on the order the twins finish in. A twin not yet
// started when ctx ends gets ctx's error.
func simulateEach(ctx context.Context, runs []*harness.RunResult, idx []int, model *sim.CostModel) ([]*harness.RunResult, []error) {
	out, errs := make([]*harness.RunResult, len(idx)), make([]error, len(idx))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for k, i := range idx {
		g.Go(func() error {
			if errs[k] = ctx.Err(); errs[k] == nil {
				out[k], errs[k] = simulateRecorded(ctx, runs[i], i, model)
			}
			return nil
		})
	}
	_ = g.Wait() // the goroutines return nil: each twin's error is its own
	return out, errs
}
