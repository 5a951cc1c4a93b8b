package experiments

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/sim"
)

// CostMeasure says how MeasureCostModel reads runs into a cost model.
type CostMeasure struct {
	Name       string
	Method     string // how a component's CPU is read: one of simcluster.CostMethods
	Provenance sim.CostProvenance
	// LinkRuns are runs whose nodes' interface counters give the bytes on a link (msg_bytes,
	// ack_bytes); nil: the measured runs' own.
	LinkRuns []*harness.RunResult
	// Messaging runs the workers' transfer and Netty threads as threads of the model and fits their
	// costs through the runs' twins (Messaging).
	Messaging bool
}

// CostReport is what MeasureCostModel read and fitted, for its caller to say.
type CostReport struct {
	Measured      int                     // runs the model's costs were read from
	Transfer      simcluster.TransferRead // the transfer design's fit
	LinkNodes     int                     // nodes whose interface counters gave the bytes on a link
	Work          []WorkRound             // method work's rounds
	MessagingSaid string                  // what turning the messaging threads on changed
	Messaging     []MessagingRound
}

// MeasureCostModel measures runs into a cost model as `stormlab sim costs` does: each component's CPU
// by c.Method, the transfer design's costs, the bytes on a link and, with c.Messaging, the messaging
// threads' costs. A cancelled ctx ends it with ctx's error and the rounds done so far in the report.
func MeasureCostModel(ctx context.Context, runs []*harness.RunResult, c CostMeasure) (*sim.CostModel, CostReport, error) {
	var rep CostReport
	var opts []simcluster.MeasureOption
	if c.Method == "counted" {
		opts = append(opts, simcluster.WithoutSpin())
	}
	m, err := simcluster.MeasureCosts(c.Name, runs, c.Provenance, opts...)
	if err != nil {
		return nil, rep, err
	}
	if c.Method == "fit" {
		if err := simcluster.FitIdle(m, runs); err != nil {
			return nil, rep, err
		}
	}
	if c.Method == "counted" && m.Transfer.IdleSpinCores > 0 { // its figures hold no spinning: the spinners' share is the one measured beside busy threads
		m.Transfer.IdleSpinShare = sim.DefaultIdleSpinShare
		m.Provenance.Method += fmt.Sprintf("; the spinners of a node short of CPU get about %.2f of what its threads get (idle_spin_share: measured beside busy threads on this project's host, the results log)", sim.DefaultIdleSpinShare)
	}
	if rep.Transfer, err = simcluster.FitTransfer(m, runs); err != nil {
		return nil, rep, err
	}
	rep.Measured = len(m.Provenance.Runs)
	wireRuns := runs
	if c.LinkRuns != nil {
		wireRuns = c.LinkRuns
		m.Provenance.Runs = append(m.Provenance.Runs, simcluster.LinkProvenance(c.LinkRuns)...)
	}
	rep.LinkNodes = simcluster.FitWire(m, wireRuns)
	if c.Method == "work" {
		rep.Work, err = Work(ctx, runs, m)
		if err != nil {
			return m, rep, err
		}
		m.Provenance.Method += fmt.Sprintf("; work: each component's CPU per tuple and each topology's acker CPU per message is its ratio less what the model's twins of these runs spent spinning per tuple, read again after each change until none moved by 2%% of its ratio (%d rounds, at most %d), floored at 1 µs (a component's per tuple, an acker's per message); stated intervals moved with them, standard deviations in proportion", len(rep.Work), WorkRounds)
	}
	if c.Messaging {
		rep.Messaging, rep.MessagingSaid, err = Messaging(ctx, runs, m)
		if err != nil {
			return m, rep, err
		}
		messagingProvenance(m, rep.MessagingSaid, rep.Messaging)
	}
	return m, rep, nil
}

// messagingProvenance records the messaging fit in m's provenance: what it measured is no longer
// missing, what its last round could not resolve is.
func messagingProvenance(m *sim.CostModel, said string, rounds []MessagingRound) {
	last := rounds[len(rounds)-1]
	// The receiving threads' fit measures the deserialization per message (and charges none per byte): the
	// transfer design's word on it no longer stands.
	m.Provenance.Missing = slices.DeleteFunc(m.Provenance.Missing, func(s string) bool { return strings.HasPrefix(s, "deser_") })
	m.Provenance.Missing = append(m.Provenance.Missing, last.Unresolved...)
	m.Provenance.Method += fmt.Sprintf("; messaging: the workers' transfer and Netty threads run as threads of the model; %s; their CPU per frame, message and wake-up and the transfer thread's idle ticking (send_frame_s, send_msg_s, send_wake_s, transfer_idle_cores, recv_frame_s, deser_msg_s, recv_wake_s) is the least-squares fit of each node's real sending and receiving threads' CPU on the frames, messages and wake-ups the model's twins of these runs handled, fitted again after each change until none moved by 2%% (%d rounds, at most %d)",
		said, len(rounds), MessagingRounds)
}
