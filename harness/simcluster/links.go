package simcluster

import (
	"math"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
)

// linkSample is the bytes every node had sent to and received from other nodes at a moment, as frames
// on the wire: the model's message bytes over frameShare (full frames, as a link-bound transfer sends).
type linkSample struct {
	timeMs     int64
	sent, recv []float64
	// frames each node sent and received (sim.Config.Messaging; nil without)
	txFrames, rxFrames []int64
}

// sampleLinks reads the nodes' byte counters now, as a real run's node samples read their interfaces.
func (r *simRun) sampleLinks() linkSample {
	sent, recv := r.x.NodeBytes()
	for i := range sent {
		sent[i], recv[i] = sent[i]/frameShare, recv[i]/frameShare
	}
	l := linkSample{timeMs: r.now().UnixMilli(), sent: sent, recv: recv}
	if r.c.model.Transfer.MessagingThreads {
		l.txFrames, l.rxFrames = r.x.NodeFrames()
	}
	return l
}

// frames is node i's frames sent and received in l, nil without messaging threads.
func (l linkSample) frames(i int) (tx, rx *int64) {
	if l.txFrames == nil {
		return nil, nil
	}
	return &l.txFrames[i], &l.rxFrames[i]
}

// recordLinks writes the nodes' interface counters at the window's ends into res's node samples (as the
// window opened, r.links, and now), and the limited nodes' rates into res.LinkMbit, so that the
// diagnosis reads the twin's links as a real run's.
func (r *simRun) recordLinks(res *harness.RunResult) {
	from := r.links
	if from.sent == nil {
		return
	}
	to := r.sampleLinks()
	st := res.NodeStats
	st.From, st.To = map[string]diagnose.Sample{}, map[string]diagnose.Sample{}
	for i, n := range r.c.named.Nodes {
		st.From[n.Name] = counters(from, i)
		st.To[n.Name] = counters(to, i)
		if n.NICBytesPerS > 0 {
			if res.LinkMbit == nil {
				res.LinkMbit = map[string]float64{}
			}
			res.LinkMbit[n.Name] = n.NICBytesPerS / frameShare * 8 / 1e6 // linkNIC's inverse
		}
	}
}

// counters is node i's sample in l, holding only the interface counters (the model has no cgroup to
// read): its bytes, and with messaging threads its frames as the packets.
func counters(l linkSample, i int) diagnose.Sample {
	tx, rx := int64(math.Round(l.sent[i])), int64(math.Round(l.recv[i]))
	s := diagnose.Sample{TimeMs: l.timeMs, TxBytes: &tx, RxBytes: &rx}
	s.TxPackets, s.RxPackets = l.frames(i)
	return s
}
