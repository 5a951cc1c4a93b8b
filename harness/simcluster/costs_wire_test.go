package simcluster

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
)

// wireRun is a recorded run of a spout (task 1, sup1) sending to a bolt (task 2, sup2), an acker on
// each node (tasks 3 on sup1, 4 on sup2), over a 10 s window of one report per worker: the spout emits
// n tuples of 100 bytes (sampled), each tree's init and the bolt's ack go half to each acker. Each
// node's interface counter reads sent1 and sent2 bytes over the window. With acking streams off, the
// reports leave the traffic to the ackers out.
func wireRun(n int64, sent1, sent2 float64, ackStreams bool) *harness.RunResult {
	r := &harness.RunResult{TopologyID: "tp", MeasureFrom: 0, MeasureTo: 10000, Executors: []harness.ExecutorPlace{
		{Component: "spout", Start: 1, End: 1, Host: "sup1", Port: 6700},
		{Component: "bolt", Start: 2, End: 2, Host: "sup2", Port: 6700},
		{Component: "__acker", Start: 3, End: 3, Host: "sup1", Port: 6700},
		{Component: "__acker", Start: 4, End: 4, Host: "sup2", Port: 6700},
	}}
	w1 := protocol.WorkerReport{Topology: "tp", Host: "sup1", Port: 6700, IntervalS: 10, TimeMs: 10000,
		Traffic:    []protocol.TaskTraffic{{Src: 1, Dst: 2, Count: n}},
		Emits:      []protocol.TaskEmits{{Task: 1, Stream: "default", Count: n}},
		TupleSizes: []protocol.TaskTupleSize{{Task: 1, OutSamples: 10, OutBytes: 1000}}}
	w2 := protocol.WorkerReport{Topology: "tp", Host: "sup2", Port: 6700, IntervalS: 10, TimeMs: 10000}
	if ackStreams {
		w1.Traffic = append(w1.Traffic, protocol.TaskTraffic{Src: 1, Dst: 3, Count: n / 2}, protocol.TaskTraffic{Src: 1, Dst: 4, Count: n / 2})
		w2.Traffic = append(w2.Traffic, protocol.TaskTraffic{Src: 2, Dst: 3, Count: n / 2}, protocol.TaskTraffic{Src: 2, Dst: 4, Count: n / 2})
	}
	r.Reports = []protocol.WorkerReport{w1, w2}
	sample := func(ms int64, tx float64) diagnose.Sample {
		b := int64(math.Round(tx))
		return diagnose.Sample{TimeMs: ms, TxBytes: &b, RxBytes: new(int64)}
	}
	r.NodeStats = &diagnose.NodeStats{
		From: map[string]diagnose.Sample{"sup1": sample(0, 0), "sup2": sample(0, 0)},
		To:   map[string]diagnose.Sample{"sup1": sample(10000, sent1), "sup2": sample(10000, sent2)},
	}
	return r
}

// TestWireOf checks one run's nodes by hand. 1,000 trees in 10 s: sup1 sends 100 tuples/s of 100
// bytes to sup2 and the inits of half the trees to sup2's acker (50/s); sup2 sends the bolt's acks to
// sup1's acker (50/s) and its acker's completions to the spout (half the trees, 50/s). Counters of
// 200,000 and 60,000 bytes over 10 s are 20,000 and 6,000 B/s as frames, x 1448/1514 as TCP payload.
func TestWireOf(t *testing.T) {
	for _, streams := range []bool{true, false} {
		obs := wireOf(wireRun(1000, 200000, 60000, streams))
		want := []wireObs{
			{y: 20000*1448.0/1514 - 100*100, tuples: 100, acks: 50},
			{y: 6000 * 1448.0 / 1514, tuples: 0, acks: 100},
		}
		if len(obs) != 2 {
			t.Fatalf("acking streams %v: %d nodes, want 2", streams, len(obs))
		}
		for i, o := range obs {
			w := want[i]
			if math.Abs(o.y-w.y) > 1e-6 || math.Abs(o.tuples-w.tuples) > 1e-9 || math.Abs(o.acks-w.acks) > 1e-9 {
				t.Errorf("acking streams %v: node %d %+v, want %+v", streams, i+1, o, w)
			}
		}
	}
	r := wireRun(1000, 200000, 60000, true)
	r.NodeStats.To["sup2"] = diagnose.Sample{TimeMs: 10000}
	if obs := wireOf(r); len(obs) != 1 {
		t.Errorf("a node without counters: %d nodes observed, want the other one", len(obs))
	}
	r = wireRun(1000, 200000, -1, true) // sup2's counter went back: restarted
	if obs := wireOf(r); len(obs) != 1 {
		t.Errorf("a counter that went back: %d nodes observed, want the other one", len(obs))
	}
}

// TestFitWire: nodes built from known sizes (msg_bytes 12, ack_bytes 30 and 800 B/s of other traffic a
// node) give them back: exactly without noise, within 2 bytes and inside the stated interval with 1%
// noise on each node's bytes. Without observations both stay unmeasured and say so.
func TestFitWire(t *testing.T) {
	const msg, ack, other = 12.0, 30.0, 800.0
	for _, noise := range []float64{0, 0.01} {
		rng := rand.New(rand.NewPCG(1, 2))
		var obs []wireObs
		for i := range 12 {
			tuples, acks := float64(1000*(i%4)), float64(500+700*(i%3))
			y := other + msg*(tuples+acks) + ack*acks
			obs = append(obs, wireObs{y: y * (1 + noise*rng.NormFloat64()), tuples: tuples, acks: acks})
		}
		var tr sim.TransferCosts
		if said := fitWire(obs, &tr); len(said) > 0 {
			t.Fatalf("noise %g: %v", noise, said)
		}
		tol := 2.0
		if noise == 0 {
			tol = 0.5 // the figures are whole bytes
		}
		if math.Abs(float64(tr.MsgBytes)-msg) > tol || math.Abs(float64(tr.AckBytes)-ack) > tol {
			t.Errorf("noise %g: msg_bytes %d, ack_bytes %d; want %g and %g within %g", noise, tr.MsgBytes, tr.AckBytes, msg, ack, tol)
		}
		if noise > 0 && (!tr.MsgBytesPI.Contains(msg) || !tr.AckBytesPI.Contains(ack)) {
			t.Errorf("noise %g: intervals %+v and %+v miss %g and %g", noise, tr.MsgBytesPI, tr.AckBytesPI, msg, ack)
		}
	}
	var tr sim.TransferCosts
	if said := fitWire(nil, &tr); len(said) != 1 || tr.AckBytes != 0 || tr.MsgBytes != 0 {
		t.Errorf("no observations: %v, msg %d, ack %d; want one missing line and zeros", said, tr.MsgBytes, tr.AckBytes)
	}
}
