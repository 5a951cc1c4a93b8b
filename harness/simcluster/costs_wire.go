package simcluster

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/infra/sim"
)

// wireMethod says how msg_bytes and ack_bytes are measured, as the cost-model file says it.
const wireMethod = "msg_bytes and ack_bytes are least-squares coefficients over the topologies' runs' nodes: each node's bytes " +
	"sent over the window (its interfaces' counters, as full frames' TCP payload: x 1448/1514) less its tuples' serialized bytes " +
	"to other nodes (the reports' traffic and sampled sizes) = a constant + msg_bytes x its messages to other nodes (tuples and acks) " +
	"+ ack_bytes x its ack messages to other nodes (to ackers, and an acker's completions to spouts); intervals as the transfer costs'"

// wireObs is one node of one run over its window: what it sent as the model counts bytes (y, the
// counter's bytes a second as TCP payload, less its tuples' serialized bytes), its tuple messages and
// its ack messages to other nodes, a second.
type wireObs struct{ y, tuples, acks float64 }

// FitWire measures what a message between nodes takes on a link besides its tuple's serialized size
// (msg_bytes: Storm's framing, and the frames' headers beyond a full frame's, which the link's
// capacity already leaves out) and what an ack message takes (ack_bytes), from the interface
// counters of the topologies' runs (the unpaced runs, where Storm's transfer threads send their
// messages in batches as a link-bound run does; the transfer design's runs at 50-100 tuples/s send
// each message in a frame of its own, so they are left out). It returns the nodes observed. Runs
// recorded without counters give none, and the two stay as they were, listed missing.
//
// It runs after FitTransfer, which so reads the transfer design's acks at the ack size the model had
// (none): where the serialization per byte is measured (not on containers, where it is refuted), the
// acks' share of it is left out of that fit while the model charges it.
func FitWire(m *sim.CostModel, runs []*harness.RunResult) int {
	var obs []wireObs
	for _, r := range runs {
		if linkRun(r) {
			obs = append(obs, wireOf(r)...)
		}
	}
	missing := fitWire(obs, &m.Transfer)
	if len(obs) > 0 {
		m.Provenance.Method += "; " + wireMethod
	}
	m.Provenance.Missing = append(m.Provenance.Missing, missing...)
	return len(obs)
}

// fitWire fits y = c + msg x (tuples + acks) + ack x acks over obs and sets tr's figures, or says why not.
func fitWire(obs []wireObs, tr *sim.TransferCosts) []string {
	if len(obs) == 0 {
		return []string{"msg_bytes, ack_bytes: no run recorded its nodes' interface counters (runs recorded before them, or a target without a control layer)"}
	}
	var x [][]float64
	var y []float64
	for _, o := range obs {
		x, y = append(x, []float64{1, o.tuples + o.acks, o.acks}), append(y, o.y)
	}
	f, err := ols(x, y, []string{"constant", "msg_bytes", "ack_bytes"})
	if err != nil {
		return []string{"msg_bytes, ack_bytes: " + err.Error()}
	}
	var said []string
	var v float64
	v, tr.MsgBytesPI, said = statedBytes(f, 1, "msg_bytes", said)
	tr.MsgBytes = int(v + 0.5)
	v, tr.AckBytesPI, said = statedBytes(f, 2, "ack_bytes", said)
	tr.AckBytes = int(v + 0.5)
	return said
}

// LinkProvenance names runs read for the bytes on a link only (sim costs --link-from), as the cost
// model's provenance lists its runs.
func LinkProvenance(runs []*harness.RunResult) []string {
	var out []string
	for _, r := range runs {
		if linkRun(r) && len(wireOf(r)) > 0 {
			out = append(out, fmt.Sprintf("link bytes: %s under %s on %s at %s", r.Spec.Topology.Name, r.Spec.Scheduler, r.Cluster, r.StartedAt.UTC().Format(time.RFC3339)))
		}
	}
	return out
}

// linkRun says whether FitWire reads r: a valid real run of a topology, not of the transfer design,
// without faults (a restarted node's counters start again).
func linkRun(r *harness.RunResult) bool {
	return r.Validity.Level != harness.Invalid && r.Simulated == nil && !IsTransferRun(r) && len(r.Spec.Faults) == 0
}

// statedBytes is olsFit.stated for a size in bytes, its missing line appended to said.
func statedBytes(f olsFit, j int, what string, said []string) (float64, *sim.Interval, []string) {
	v, pi, miss := f.stated(j, what)
	return v, pi, appendSaid(said, miss)
}

// wireOf is r's nodes as wireObs; none where r has no interface counters at both ends of its window.
func wireOf(r *harness.RunResult) []wireObs {
	span := float64(r.MeasureTo-r.MeasureFrom) / 1000
	sent := nodeSent(r.NodeStats)
	if len(sent) == 0 || span <= 0 {
		return nil
	}
	at, comp, ackers := placesOf(r)
	tasks := taskSums(r, at)
	payload := parseFlags(r.Spec.Topology.Args)["payload-bytes"]
	toAckers := false
	for _, rep := range windowReports(r) {
		for _, tr := range rep.Traffic {
			s, d := at[tr.Src], at[tr.Dst]
			toAckers = toAckers || isAcker(comp[tr.Dst])
			o := sent[s.host]
			if o == nil || s.host == d.host || d.host == "" {
				continue
			}
			n := float64(tr.Count) / span
			switch {
			case isAcker(comp[tr.Dst]):
				o.acks += n
			case !isAcker(comp[tr.Src]):
				o.tuples += n
				o.y -= n * tasks[tr.Src].size(payload)
			}
		}
	}
	addAcks(sent, at, comp, ackers, tasks, toAckers, span)
	var out []wireObs
	for _, host := range slices.Sorted(maps.Keys(sent)) { // in order: the fit's sums come out the same every time
		out = append(out, *sent[host])
	}
	return out
}

// nodeSent is each node's bytes sent a second over the window as TCP payload (its interface counters as
// full frames, x frameShare), for the nodes with both counters; a counter that went back (the node
// restarted) gives none.
func nodeSent(st *diagnose.NodeStats) map[string]*wireObs {
	if st == nil {
		return nil
	}
	sent := map[string]*wireObs{}
	for host, a := range st.From {
		b, ok := st.To[host]
		dt := float64(b.TimeMs-a.TimeMs) / 1000
		if !ok || a.TxBytes == nil || b.TxBytes == nil || dt <= 0 || *b.TxBytes < *a.TxBytes {
			continue
		}
		sent[host] = &wireObs{y: float64(*b.TxBytes-*a.TxBytes) * frameShare / dt}
	}
	return sent
}

// addAcks adds the ack messages the reports' traffic does not show: the ackers' completions of each
// spout's trees (an acker completes its share of them; Storm's hooks see no acker's emits), and, where the
// reports carry no acking streams (toAckers false), each executed tuple's ack and each tree's init, to the
// share of ackers on other nodes.
func addAcks(sent map[string]*wireObs, at map[int]place, comp map[int]string, ackers []place, tasks map[int]*taskFigures, toAckers bool, span float64) {
	spouts := spoutComponents(comp, tasks)
	otherHost := func(a, b place) bool { return a.host != b.host }
	for _, t := range slices.Sorted(maps.Keys(comp)) { // in order, as wireOf's nodes
		c, o, f := comp[t], sent[at[t].host], tasks[t]
		if o == nil || f == nil || isAcker(c) {
			continue
		}
		if !toAckers {
			n := f.in
			if spouts[c] {
				n = f.emitted
			}
			o.acks += n / span * ackerShare(at[t], ackers, otherHost)
		}
		if !spouts[c] {
			continue
		}
		for _, k := range ackers {
			if k.host != at[t].host && sent[k.host] != nil {
				sent[k.host].acks += f.emitted / span / float64(len(ackers))
			}
		}
	}
}
