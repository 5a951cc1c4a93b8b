package simcluster

import (
	"math"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/sim"
)

// TestMessagingThreadsReported: a cost model with messaging threads runs them, and a simulated run
// reads as a real one with the workers' thread groups does: every report in the window carries the
// transfer and Netty threads, the diagnosis splits each node's CPU with messaging in it, the node
// samples count frames, the threads' wake-ups are counted, and the self-checks pass. The frame costs are ones of the size measured on
// this project's containers (43-54 µs a frame on Netty's threads: docs/results-log.md, "What a
// worker's other threads do", 2026-12-06), not fitted: the test is of the plumbing, not the figures.
func TestMessagingThreadsReported(t *testing.T) {
	model, err := ContainersCosts()
	if err != nil {
		t.Fatal(err)
	}
	tr := &model.Transfer
	tr.MessagingThreads, tr.SendFrameS, tr.RecvFrameS, tr.SendWakeS, tr.RecvWakeS = true, 30e-6, 30e-6, 10e-6, 10e-6
	n, err := Lookup("heterogeneous-2")
	if err != nil {
		t.Fatal(err)
	}
	c, err := openWith(n, model, harness.ClusterSpec{Where: clusterref.Ref{Kind: KindName, Arg: n.Name}, Seed: 1}, "even")
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, c, spec(t, "wordcount", "even", "wc-threads", "--workers", "4", "--parallelism", "2"))
	for _, ch := range res.Simulated.Checks {
		if !isOK(ch) {
			t.Errorf("self-check %s", ch)
		}
	}
	for _, rep := range res.Reports {
		if len(rep.ThreadGroups) != 2 || rep.ThreadGroups[0].Name != sim.TransferThread || rep.ThreadGroups[1].Name != sim.NettyThread {
			t.Fatalf("report of %s:%d at %d: thread groups %+v, want the transfer and Netty threads", rep.Host, rep.Port, rep.TimeMs, rep.ThreadGroups)
		}
	}
	d := res.Diagnosis
	if d == nil || len(d.Threads) == 0 {
		t.Fatalf("diagnosis %+v: want each node's CPU by thread", d)
	}
	messaging := 0.0
	for _, th := range d.Threads {
		messaging += th.Messaging
	}
	if !(messaging > 0) {
		t.Errorf("threads %+v: no messaging CPU", d.Threads)
	}
	var frames, reads, sent, received int64
	for _, f := range res.Simulated.Frames {
		if f.Sent <= 0 || f.SentMsgs < f.Sent || f.Received <= 0 || f.ReceivedMsgs < f.Received {
			t.Errorf("worker %+v: want frames sent and reads received, each of a message or more", f)
		}
		if f.SentWakes <= 0 || f.SentWakes > f.Sent || f.ReceivedWakes <= 0 || f.ReceivedWakes > f.Received {
			t.Errorf("worker %+v: want wake-ups on both sides, no more than the frames and reads they start", f)
		}
		frames, reads, sent, received = frames+f.Sent, reads+f.Received, sent+f.SentMsgs, received+f.ReceivedMsgs
	}
	// Every message sent in the window is received but those in flight at its ends, where a node at
	// its quota holds back at most a period's (100 ms) at each end: 2 x 0.1 s of the window's messages.
	// A read takes one frame or more.
	bound := float64(sent) * 2 * dockerCPUPeriod / res.Measurement.WindowS
	if n := len(res.Simulated.Frames); n != 4 || math.Abs(float64(sent-received)) > bound || float64(reads) > float64(frames)*(1+2*dockerCPUPeriod/res.Measurement.WindowS) {
		t.Errorf("%d workers: %d messages sent and %d received, %d frames and %d reads: want 4 workers, as many messages received as sent within %.0f, no more reads than frames",
			n, sent, received, frames, reads, bound)
	}
	for host, s := range res.NodeStats.To {
		if s.TxPackets == nil || s.RxPackets == nil {
			t.Errorf("%s: sample %+v without frames", host, s)
		}
	}
}
