package experiments

import (
	"context"
	"fmt"
	"maps"
	"math"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/sim"
)

// WorkRounds bounds Work's rounds; workSettled is the largest change of a figure (relative to its ratio)
// under which the figures count as settled.
const (
	WorkRounds  = 5
	workSettled = 0.02
)

// WorkRound is one round of Work: the model's throughput error on its own runs before the round's
// change (Closure's mean absolute error) and the largest change of a figure.
type WorkRound struct {
	ClosureError, Moved float64
}

// Work takes out of model's per-tuple CPU figures the spinning its twins charge apart: each round
// simulates again the runs the model was measured from (as Closure does), reads what their threads
// spun per tuple (simcluster.SpinOf), and sets each figure to its ratio less that
// (simcluster.SetWork), until every figure changes by less than 2% of its ratio or after WorkRounds
// rounds.
func Work(ctx context.Context, runs []*harness.RunResult, model *sim.CostModel) ([]WorkRound, error) {
	own := ownRuns(runs, model)
	if len(own) == 0 {
		return nil, fmt.Errorf("work: none of the runs has a simulated twin")
	}
	base := cloneCosts(model)
	var rounds []WorkRound
	for range WorkRounds {
		sims, errs := simulateEach(ctx, runs, own, model)
		spins := make([]simcluster.SpinRead, len(own))
		errSum := 0.0
		for k, i := range own {
			r := runs[i]
			if err := ctx.Err(); err != nil {
				return rounds, err
			}
			if errs[k] != nil {
				return rounds, fmt.Errorf("work: run %s: %w", r.Spec.Topology.Name, errs[k])
			}
			var err error
			if spins[k], err = simcluster.SpinOf(sims[k]); err != nil {
				return rounds, fmt.Errorf("work: run %s simulated: %w", r.Spec.Topology.Name, err)
			}
			errSum += math.Abs(sims[k].Measurement.Throughput-r.Measurement.Throughput) / r.Measurement.Throughput
		}
		moved, err := simcluster.SetWork(model, base, spins)
		if err != nil {
			return rounds, err
		}
		rounds = append(rounds, WorkRound{ClosureError: errSum / float64(len(own)), Moved: moved})
		if moved < workSettled {
			break
		}
	}
	return rounds, nil
}

// cloneCosts copies m's topologies deep enough for SetWork to change m and read the copy.
func cloneCosts(m *sim.CostModel) *sim.CostModel {
	c := *m
	c.Topologies = map[string]sim.TopologyCosts{}
	for k, t := range m.Topologies {
		t.Components = maps.Clone(t.Components)
		c.Topologies[k] = t
	}
	return &c
}
