package experiments

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/sim"
)

// MessagingRounds bounds Messaging's rounds; messagingSettled is the largest change of a cost under
// which the costs count as settled.
const (
	MessagingRounds  = 8
	messagingSettled = 0.02
)

// MessagingRound is one round of Messaging: the model's throughput error on its own runs at the costs
// the round started from (Closure's mean absolute error), the largest change of a cost, and the costs
// it ended with.
type MessagingRound struct {
	ClosureError, Moved           float64
	SendFrame, SendMsg, RecvFrame float64
	DeserMsg                      float64
	SendWake, RecvWake            float64
	TransferIdle                  float64
	Unresolved                    []string
}

// transferTwins are the transfer design's runs that model was measured from and that have a simulated
// twin, in order, and those of them it cannot charge (the chain at a payload the topologies' costs were
// not read at) with the first one's reason.
func transferTwins(runs []*harness.RunResult, model *sim.CostModel) (twins []int, left []string, why error) {
	for i, r := range runs {
		if !simcluster.IsTransferRun(r) || !measuredInto(r, model.Provenance.Runs) || !(r.Measurement.Throughput > 0) {
			continue
		}
		if _, err := simcluster.Lookup(r.Cluster); err != nil {
			continue
		}
		if err := simcluster.Charges(model, r.Spec.Topology); err != nil {
			left, why = append(left, r.Spec.Topology.Name), cmp.Or(why, err)
			continue
		}
		twins = append(twins, i)
	}
	return twins, left, why
}

// Messaging turns model's messaging threads on (simcluster.StartMessaging) and fits their costs
// through its twins: each round simulates again the runs the model was measured from, the topologies'
// (as Closure does) and the transfer design's (tens of messages a second, each frame a wake-up: they
// tell a wake-up's cost from a frame's), and fits each node's real messaging CPU on the frames its
// simulated threads handled (simcluster.FitMessaging), until no cost moves by more than 2% or after
// MessagingRounds rounds. The closure error is the topology runs'. It says what StartMessaging changed.
func Messaging(ctx context.Context, runs []*harness.RunResult, model *sim.CostModel) ([]MessagingRound, string, error) {
	fit, said, err := startMessaging(runs, model)
	if err != nil {
		return nil, "", err
	}
	var rounds []MessagingRound
	for range MessagingRounds {
		r, err := fit.round(ctx, runs, model)
		if err != nil {
			return rounds, said, err
		}
		rounds = append(rounds, r)
		if r.Moved < messagingSettled {
			break
		}
	}
	return rounds, said, nil
}

// messagingFit is what the messaging rounds simulate again: the indexes of the runs, the topologies'
// (own, first) and then the transfer design's.
type messagingFit struct {
	runs []int
	own  int
}

// startMessaging turns model's messaging threads on (simcluster.StartMessaging) and picks the runs
// the rounds fit through; it says what it changed and which runs it left out.
func startMessaging(runs []*harness.RunResult, model *sim.CostModel) (messagingFit, string, error) {
	own := ownRuns(runs, model)
	if len(own) == 0 {
		return messagingFit{}, "", fmt.Errorf("messaging threads: none of the runs has a simulated twin")
	}
	var topo []*harness.RunResult
	for _, i := range own {
		topo = append(topo, runs[i])
	}
	said, err := simcluster.StartMessaging(model, topo)
	if err != nil {
		return messagingFit{}, "", err
	}
	xfer, left, why := transferTwins(runs, model)
	if len(left) > 0 {
		said += fmt.Sprintf("; left out of the fit, their twins not run (%s, the first: %v)", strings.Join(left, ", "), why)
	}
	return messagingFit{runs: append(slices.Clone(own), xfer...), own: len(own)}, said, nil
}

// round simulates f's runs again under model and fits model's messaging costs on them once.
func (f messagingFit) round(ctx context.Context, runs []*harness.RunResult, model *sim.CostModel) (MessagingRound, error) {
	sims, errs := simulateEach(ctx, runs, f.runs, model)
	pairs := make([][2]*harness.RunResult, 0, len(f.runs))
	errSum := 0.0
	for k, i := range f.runs {
		if err := ctx.Err(); err != nil {
			return MessagingRound{}, err
		}
		if errs[k] != nil {
			return MessagingRound{}, fmt.Errorf("messaging threads: run %s: %w", runs[i].Spec.Topology.Name, errs[k])
		}
		pairs = append(pairs, [2]*harness.RunResult{runs[i], sims[k]})
		if k < f.own {
			errSum += math.Abs(sims[k].Measurement.Throughput-runs[i].Measurement.Throughput) / runs[i].Measurement.Throughput
		}
	}
	moved, unresolved, err := simcluster.FitMessaging(model, pairs)
	if err != nil {
		return MessagingRound{}, err
	}
	tr := model.Transfer
	return MessagingRound{ClosureError: errSum / float64(f.own), Moved: moved, SendFrame: tr.SendFrameS,
		SendMsg: tr.SendMsgS, RecvFrame: tr.RecvFrameS, DeserMsg: tr.DeserMsgS, SendWake: tr.SendWakeS, RecvWake: tr.RecvWakeS,
		TransferIdle: tr.TransferIdleCores, Unresolved: unresolved}, nil
}
