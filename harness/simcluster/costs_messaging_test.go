package simcluster

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
)

// messagingPair is a recorded run of two nodes of one worker each, 10 s windows of five 2 s reports,
// whose workers' sending and receiving threads used the cores sendCPU and recvCPU say of the frames
// and messages its twin's threads handled a second (frames[node] = sent, sent msgs, received, received
// msgs, sending and receiving wake-ups), each worker also 0.3 cores in its executors and other of its own.
func messagingPair(name string, frames [2][6]float64, sendCPU, recvCPU func(f [6]float64) float64, other float64) [2]*harness.RunResult {
	real := &harness.RunResult{TopologyID: "t", MeasureFrom: 0, MeasureTo: 10_000}
	real.Spec.Topology.Name = name
	twin := &harness.RunResult{TopologyID: "t", MeasureFrom: 0, MeasureTo: 10_000, Simulated: &harness.Simulated{}}
	for n, f := range frames {
		host := fmt.Sprintf("sup%d", n+1)
		send, recv := sendCPU(f), recvCPU(f)
		for k := 1; k <= 5; k++ {
			real.Reports = append(real.Reports, protocol.WorkerReport{Topology: "t", Host: host, Port: 6700, TimeMs: int64(2000 * k), IntervalS: 2,
				WorkerCPUPercent: 100 * (0.3 + other + send + recv),
				CPU:              []protocol.TaskCPU{{Task: n + 1, CPUNs: int64(0.3 * 2e9)}},
				ThreadGroups: []protocol.ThreadGroupCPU{{Name: sim.TransferThread, Threads: 1, CPUNs: int64(send * 0.6 * 2e9)},
					{Name: "client-worker-#", Threads: 2, CPUNs: int64(send * 0.4 * 2e9)},
					{Name: "Netty-server-localhost-#-worker-#", Threads: 2, CPUNs: int64(recv * 2e9)},
					{Name: "timer", Threads: 1, CPUNs: int64(other / 2 * 2e9)}}})
		}
		twin.Simulated.Frames = append(twin.Simulated.Frames, protocol.WorkerFrames{Worker: host + ":6700",
			Sent: int64(10 * f[0]), SentMsgs: int64(10 * f[1]), Received: int64(10 * f[2]), ReceivedMsgs: int64(10 * f[3]),
			SentWakes: int64(10 * f[4]), ReceivedWakes: int64(10 * f[5])})
	}
	return [2]*harness.RunResult{real, twin}
}

// TestFitMessaging: the fit finds the costs that made the real threads' CPU out of the twin's frames:
// 60 µs a frame, 2 µs a message and 20 µs a wake-up sent and 0.012 cores a worker ticking idle, 45 µs a frame, 8 µs a message and 30 µs a
// wake-up received, over four runs whose frames, messages and wake-ups vary apart (batches of 1 to 8,
// a wake-up for every frame down to every twentieth). Reference: those costs, put in. Tolerance: 1% (the
// reports' nanoseconds and the costs' rounding).
func TestFitMessaging(t *testing.T) {
	send := func(f [6]float64) float64 { return 60e-6*f[0] + 2e-6*f[1] + 20e-6*f[4] + 0.012 }
	recv := func(f [6]float64) float64 { return 45e-6*f[2] + 8e-6*f[3] + 30e-6*f[5] }
	wakes := []float64{1, 0.5, 0.2, 0.05}
	var pairs [][2]*harness.RunResult
	for i, batch := range []float64{1, 2, 5, 8} {
		fr, w := 300+200*float64(i), wakes[i]
		pairs = append(pairs, messagingPair(fmt.Sprintf("r%d", i), [2][6]float64{{fr, fr * batch, fr * 1.1, fr * 1.1 * batch, fr * w, fr * 1.1 * w},
			{fr * 1.1, fr * 1.1 * batch, fr, fr * batch, fr * 1.1 * w, fr * w}}, send, recv, 0.04))
	}
	m := &sim.CostModel{}
	moved, unresolved, err := FitMessaging(m, pairs)
	if err != nil {
		t.Fatal(err)
	}
	tr := m.Transfer
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"send_frame_s", tr.SendFrameS, 60e-6}, {"send_msg_s", tr.SendMsgS, 2e-6}, {"send_wake_s", tr.SendWakeS, 20e-6}, {"transfer_idle_cores", tr.TransferIdleCores, 0.012},
		{"recv_frame_s", tr.RecvFrameS, 45e-6}, {"deser_msg_s", tr.DeserMsgS, 8e-6}, {"recv_wake_s", tr.RecvWakeS, 30e-6}} {
		if math.Abs(c.got/c.want-1) > 0.01 {
			t.Errorf("%s %.4g, want %.4g", c.name, c.got, c.want)
		}
	}
	if moved != 1 || len(unresolved) > 0 || !tr.SendFramePI.Contains(tr.SendFrameS) {
		t.Errorf("moved %v, unresolved %v, interval %+v: want every cost moved from zero, all resolved, with intervals", moved, unresolved, tr.SendFramePI)
	}
	// The sending threads' CPU without a cost per message: that term comes out at zero or below, is
	// charged as zero and said, and the cost per frame is fitted alone.
	pairs = pairs[:0]
	for i, batch := range []float64{1, 2, 5, 8} {
		fr, w := 300+200*float64(i), wakes[i]
		pairs = append(pairs, messagingPair(fmt.Sprintf("r%d", i), [2][6]float64{{fr, fr * batch, fr, fr * batch, fr * w, fr * w}, {fr, fr * batch * 1.2, fr, fr * batch, fr * w, fr * w}},
			func(f [6]float64) float64 { return 60e-6*f[0] - 1e-7*f[1] + 20e-6*f[4] + 0.012 }, recv, 0.04))
	}
	if _, unresolved, err = FitMessaging(m, pairs); err != nil {
		t.Fatal(err)
	}
	if m.Transfer.SendMsgS != 0 || len(unresolved) != 1 || !strings.Contains(unresolved[0], "send_msg_s") || math.Abs(m.Transfer.SendFrameS/60e-6-1) > 0.1 {
		t.Errorf("send_msg_s %v, send_frame_s %v, unresolved %v: want the message term charged as zero and said, the frame's fitted without it (within 10%% of 60 µs: the other terms take up the message's)", m.Transfer.SendMsgS, m.Transfer.SendFrameS, unresolved)
	}
}

// TestStartMessaging: the workers' overhead becomes what their processes used besides the executors
// and the messaging threads (0.04 cores each: their timer thread's 0.02 and the JVM's 0.02), the
// latencies lose half a transfer sleep, and a run recorded without thread groups is refused naming
// the fix. Reference: the runs as built.
func TestStartMessaging(t *testing.T) {
	p := messagingPair("r", [2][6]float64{{100, 100, 100, 100}, {100, 100, 100, 100}}, func([6]float64) float64 { return 0.01 }, func([6]float64) float64 { return 0.02 }, 0.04)
	m := &sim.CostModel{Transfer: sim.TransferCosts{WorkerOverheadCores: 0.1, WorkerOverheadPI: &sim.Interval{Lo: 0.08, Hi: 0.12}, LocalLatency: 0.7e-3, LinkLatency: 0.2e-3}}
	if _, err := StartMessaging(m, []*harness.RunResult{p[0]}); err != nil {
		t.Fatal(err)
	}
	tr := m.Transfer
	if math.Abs(tr.WorkerOverheadCores-0.04) > 1e-4 || !tr.WorkerOverheadPI.Contains(tr.WorkerOverheadCores) || !tr.MessagingThreads {
		t.Errorf("overhead %v (interval %+v), threads %v: want 0.04 within its moved interval, threads on", tr.WorkerOverheadCores, tr.WorkerOverheadPI, tr.MessagingThreads)
	}
	if want := 0.7e-3 - sim.DefaultIdleSleep/2; math.Abs(tr.LocalLatency-want) > 1e-9 || tr.LinkLatency != 0 {
		t.Errorf("latencies %v, %v: want %v and 0 (never below)", tr.LocalLatency, tr.LinkLatency, want)
	}
	for i := range p[0].Reports {
		p[0].Reports[i].ThreadGroups = nil
	}
	if _, err := StartMessaging(&sim.CostModel{}, []*harness.RunResult{p[0]}); err == nil || !strings.Contains(err.Error(), "record the runs again") {
		t.Errorf("a run without thread groups: %v, want a refusal naming the fix", err)
	}
}
