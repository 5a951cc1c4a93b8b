package simcluster

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
)

// The messaging threads' costs (sim.Config.Messaging) are fitted through the model: a real worker
// reports what its transfer and Netty threads used (thread_groups) but not how many frames they
// handled, which the nodes' interface packets tell only in part (TCP's acknowledgements are among them,
// loopback between workers of a node is not). How many frames there are depends on the threads' own
// CPU (a thread short of it goes round less often, and its frames grow), so the costs and the frames
// are read together: the runs' twins are simulated at the costs of the moment, and each node's real
// messaging CPU is fitted by least squares on the frames and messages its simulated threads handled,
// until the costs settle (experiments.Messaging runs the rounds).

// messagingObs is one node of a recorded run beside its simulated twin: what the real workers' sending
// threads (the transfer thread and Netty's client threads) and receiving threads (Netty's server
// threads) used, in cores, and the frames and messages a second the twin's threads sent, the reads
// and messages they received, and their wake-ups.
type messagingObs struct {
	sendCores, recvCores                       float64
	sentFrames, sentMsgs, recvFrames, recvMsgs float64
	sendWakes, recvWakes                       float64
	workers                                    float64 // that sent or received any
}

// sendingGroup says whether a real worker's thread group sends (its transfer thread, Netty's client
// threads), as opposed to Netty's server threads, which receive.
func sendingGroup(name string) bool {
	return name == sim.TransferThread || strings.HasPrefix(name, "client-")
}

// messagingGroup says whether a real worker's thread group is one of its messaging threads.
func messagingGroup(name string) bool { return sendingGroup(name) || strings.Contains(name, "Netty") }

// messagingOf reads each node of real beside its twin. A real run recorded without the workers' thread
// groups, or a twin without messaging threads, is an error naming what to do.
func messagingOf(real, twin *harness.RunResult) ([]messagingObs, error) {
	rw, tw := windowS(real), windowS(twin)
	if rw <= 0 || tw <= 0 || twin.Simulated == nil || len(twin.Simulated.Frames) == 0 {
		return nil, fmt.Errorf("run %s: no window, or a twin without messaging threads", real.Spec.Topology.Name)
	}
	obs := map[string]*messagingObs{}
	node := func(host string) *messagingObs {
		if obs[host] == nil {
			obs[host] = &messagingObs{}
		}
		return obs[host]
	}
	for _, rep := range windowReports(real) {
		if len(rep.ThreadGroups) == 0 {
			return nil, fmt.Errorf("run %s: worker %s:%d reported without its thread groups: record the runs again with this stormlab's topologies jar", real.Spec.Topology.Name, rep.Host, rep.Port)
		}
		o := node(rep.Host)
		for _, g := range rep.ThreadGroups {
			cores := float64(g.CPUNs) / 1e9 / rw
			switch {
			case sendingGroup(g.Name):
				o.sendCores += cores
			case messagingGroup(g.Name):
				o.recvCores += cores
			}
		}
	}
	for _, f := range twin.Simulated.Frames {
		o := node(f.Worker[:strings.LastIndex(f.Worker, ":")])
		o.sentFrames += float64(f.Sent) / tw
		o.sentMsgs += float64(f.SentMsgs) / tw
		o.recvFrames += float64(f.Received) / tw
		o.recvMsgs += float64(f.ReceivedMsgs) / tw
		o.sendWakes += float64(f.SentWakes) / tw
		o.recvWakes += float64(f.ReceivedWakes) / tw
		if f.Sent+f.Received > 0 {
			o.workers++
		}
	}
	var out []messagingObs
	for _, h := range slices.Sorted(maps.Keys(obs)) {
		out = append(out, *obs[h])
	}
	return out, nil
}

func windowS(r *harness.RunResult) float64 { return float64(r.MeasureTo-r.MeasureFrom) / 1000 }

// Starting frame costs of the first round, of the size measured on this project's containers (43-54 µs a
// frame on Netty's threads); the rounds move them to what the runs say.
const (
	startSendFrameS = 40e-6
	startRecvFrameS = 40e-6
)

// StartMessaging turns m's messaging threads on for the first round: the workers' overhead becomes
// their process CPU less their executors' and messaging threads' (Storm's other threads and the JVM's
// own) over runs, whose reports must carry the thread groups; the latencies between workers lose the
// transfer thread's mean wait for its next wake-up (half its sleep), which the threads now add; and the
// frame costs start at startSendFrameS and startRecvFrameS. It says what it changed.
func StartMessaging(m *sim.CostModel, runs []*harness.RunResult) (string, error) {
	var other []float64
	for _, r := range runs {
		if IsTransferRun(r) {
			continue
		}
		w, err := otherThreads(r)
		if err != nil {
			return "", err
		}
		other = append(other, w...)
	}
	if len(other) == 0 {
		return "", fmt.Errorf("messaging threads: no topology run to read the workers' other threads from")
	}
	tr := &m.Transfer
	was := tr.WorkerOverheadCores
	mean, _ := stats.Mean(other)
	tr.WorkerOverheadCores, tr.WorkerOverheadSD = round(mean), round(sampleSD(other))
	tr.WorkerOverheadPI = shifted(tr.WorkerOverheadPI, tr.WorkerOverheadCores-was)
	wait := sim.DefaultIdleSleep / 2
	for _, l := range []struct {
		x  *float64
		pi **sim.Interval
	}{{&tr.LocalLatency, &tr.LocalLatencyPI}, {&tr.LinkLatency, &tr.LinkLatencyPI}} {
		d := min(wait, *l.x)
		*l.x = round(*l.x - d)
		*l.pi = shifted(*l.pi, -d)
	}
	tr.MessagingThreads, tr.SendFrameS, tr.RecvFrameS, tr.SendMsgS = true, startSendFrameS, startRecvFrameS, 0
	return fmt.Sprintf("worker overhead %.4g cores (Storm's other threads and the JVM's, over %d workers; was %.4g with the messaging threads in it); latencies less %.3g ms (the transfer thread's mean wait for its wake-up)",
		tr.WorkerOverheadCores, len(other), was, 1000*wait), nil
}

// shifted is pi moved by d, at least 0; nil stays nil.
func shifted(pi *sim.Interval, d float64) *sim.Interval {
	if pi == nil {
		return nil
	}
	return &sim.Interval{Lo: roundDown(max(0, pi.Lo+d)), Hi: roundUp(max(0, pi.Hi+d))}
}

// otherThreads is, per worker of r, the cores its process used besides its executor threads and its
// messaging threads over the window.
func otherThreads(r *harness.RunResult) ([]float64, error) {
	cpu, span := map[string]float64{}, map[string]float64{}
	for _, rep := range windowReports(r) {
		if len(rep.ThreadGroups) == 0 {
			return nil, fmt.Errorf("run %s: worker %s:%d reported without its thread groups: record the runs again with this stormlab's topologies jar", r.Spec.Topology.Name, rep.Host, rep.Port)
		}
		k := fmt.Sprintf("%s:%d", rep.Host, rep.Port)
		used := rep.WorkerCPUPercent / 100 * rep.IntervalS
		for _, c := range rep.CPU {
			used -= float64(c.CPUNs) / 1e9
		}
		for _, g := range rep.ThreadGroups {
			if messagingGroup(g.Name) {
				used -= float64(g.CPUNs) / 1e9
			}
		}
		cpu[k] += used
		span[k] += rep.IntervalS
	}
	var out []float64
	for _, k := range slices.Sorted(maps.Keys(cpu)) {
		out = append(out, max(0, cpu[k]/span[k]))
	}
	return out, nil
}

// FitMessaging sets m's messaging-thread costs from pairs of a recorded run and its twin simulated at
// m's costs of the moment: the sending threads' cores on the frames, messages and wake-ups a second
// (send_frame_s, send_msg_s, send_wake_s) and the workers that send (transfer_idle_cores: the transfer
// thread ticks idle at any rate), the receiving threads' on the reads, messages and wake-ups
// (recv_frame_s, deser_msg_s: the receiving thread deserializes, recv_wake_s), least squares over the
// runs' nodes. Wake-ups are told from frames where the runs differ in how busy their threads are:
// at tens of messages a second every frame wakes its thread, at saturation few do. A coefficient the runs do not
// resolve above zero is charged as zero and said. It returns the largest change of a cost relative to
// its value before (a cost from zero counts as 1) and what it could not resolve.
func FitMessaging(m *sim.CostModel, pairs [][2]*harness.RunResult) (moved float64, unresolved []string, err error) {
	var obs []messagingObs
	for _, p := range pairs {
		o, err := messagingOf(p[0], p[1])
		if err != nil {
			return 0, nil, err
		}
		obs = append(obs, o...)
	}
	var sx, rx [][]float64
	var sy, ry []float64
	for _, o := range obs {
		sx, sy = append(sx, []float64{o.sentFrames, o.sentMsgs, o.sendWakes, o.workers}), append(sy, o.sendCores)
		rx, ry = append(rx, []float64{o.recvFrames, o.recvMsgs, o.recvWakes}), append(ry, o.recvCores)
	}
	tr := &m.Transfer
	for _, f := range []struct {
		x     [][]float64
		y     []float64
		names []string
		dst   []*float64
		pi    []**sim.Interval
	}{
		{sx, sy, []string{"send_frame_s", "send_msg_s", "send_wake_s", "transfer_idle_cores"}, []*float64{&tr.SendFrameS, &tr.SendMsgS, &tr.SendWakeS, &tr.TransferIdleCores},
			[]**sim.Interval{&tr.SendFramePI, &tr.SendMsgPI, &tr.SendWakePI, &tr.TransferIdlePI}},
		{rx, ry, []string{"recv_frame_s", "deser_msg_s", "recv_wake_s"}, []*float64{&tr.RecvFrameS, &tr.DeserMsgS, &tr.RecvWakeS},
			[]**sim.Interval{&tr.RecvFramePI, &tr.DeserMsgPI, &tr.RecvWakePI}},
	} {
		coef, pis, miss, err := nonNegative(f.x, f.y, f.names)
		if err != nil {
			return 0, nil, fmt.Errorf("messaging threads: %w", err)
		}
		unresolved = append(unresolved, miss...)
		for j, dst := range f.dst {
			moved = max(moved, change(*dst, coef[j]))
			*dst, *f.pi[j] = coef[j], pis[j]
		}
	}
	tr.DeserByteS, tr.DeserBytePI = 0, nil // the receiving thread's per message, whatever its bytes
	return moved, unresolved, nil
}

// nonNegative fits y on the columns of x by least squares, each coefficient a cost: where one comes
// out at zero or below, it is charged as zero (and said) and the others are fitted again without it.
// Each coefficient comes with its stated interval (olsFit.stated; nil for one charged as zero).
func nonNegative(x [][]float64, y []float64, names []string) ([]float64, []*sim.Interval, []string, error) {
	keep := make([]int, len(names))
	for j := range keep {
		keep[j] = j
	}
	var missing []string
	for len(keep) > 0 {
		cols, kept := make([][]float64, len(x)), make([]string, len(keep))
		for i, row := range x {
			for _, j := range keep {
				cols[i] = append(cols[i], row[j])
			}
		}
		for k, j := range keep {
			kept[k] = names[j]
		}
		fit, err := ols(cols, y, kept)
		if err != nil {
			return nil, nil, nil, err
		}
		k := slices.IndexFunc(fit.coef, func(c float64) bool { return c <= 0 })
		if k < 0 {
			out, pis := make([]float64, len(names)), make([]*sim.Interval, len(names))
			for k, j := range keep {
				out[j], pis[j], _ = fit.stated(k, names[j])
			}
			return out, pis, missing, nil
		}
		_, _, miss := fit.stated(k, names[keep[k]])
		missing = append(missing, miss)
		keep = slices.Delete(keep, k, k+1)
	}
	return make([]float64, len(names)), make([]*sim.Interval, len(names)), missing, nil
}

// change is how far x moved from was, relative to was (1 from or to zero, 0 for none).
func change(was, x float64) float64 {
	switch {
	case was == x:
		return 0
	case was == 0 || x == 0:
		return 1
	}
	return math.Abs(x-was) / was
}
