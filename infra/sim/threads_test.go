package sim

import (
	"math"
	"testing"
)

// messagingChain is the chain of sim_test.go with its spout on n0 and its bolt on n1, its messages
// going through the workers' messaging threads.
func messagingChain(rate float64, c Costs) Config {
	cfg := chain(tiny, Dist{Mean: 1e-5}, rate, 0)
	cfg.Messaging, cfg.Costs = true, c
	return cfg
}

// TestMessagingFrames: how many frames the transfer thread sends, by Storm 2's loop
// (WorkerTransfer.makeTransferThread: drain the queue, one batch per destination, Thread.sleep(1 ms)
// when nothing was found), at no CPU cost. At 50 tuples/s in constant gaps of 20 ms the thread wakes
// every TransferSleep and finds at most one: a frame a tuple. At 5,000 tuples/s it finds some at every
// wake-up and, its drain taking no time, nothing right after, so it sends one frame per sleep:
// 1/1.08 ms = 925.9 a second, 5.4 tuples each. Busy (a drain of SendFrame = 400 µs at the node's cores,
// during which the next tuples arrive, so it drains again at once without sleeping), it sends cores /
// SendFrame frames a second: 2,500 on a core, 625 on a quarter of one. Reference: those figures by
// hand. Tolerance: 0.5% (the window's counts differ from rate x 200 s by a frame or a tuple).
func TestMessagingFrames(t *testing.T) {
	for _, c := range []struct {
		name            string
		rate, cores     float64
		sendFrame       float64
		frames, perMsgs float64 // frames per second, tuples per frame
	}{
		{"one tuple a wake-up", 50, 1, 0, 50, 1},
		{"a sleep between frames", 5000, 1, 0, 1 / DefaultIdleSleep, 5000 * DefaultIdleSleep},
		{"busy on a core", 5000, 1, 400e-6, 2500, 2},
		{"busy on half a core", 5000, 0.5, 400e-6, 1250, 4},
		{"busy on a quarter of a core", 5000, 0.25, 400e-6, 625, 8},
	} {
		cfg := messagingChain(c.rate, Costs{SendFrame: c.sendFrame})
		cfg.Nodes[0].Cores = c.cores
		r, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		frames, per := float64(r.Frames)/cfg.Measure, float64(r.FramedMsgs)/float64(r.Frames)
		if math.Abs(frames/c.frames-1) > 0.005 || math.Abs(per/c.perMsgs-1) > 0.005 {
			t.Errorf("%s: %.1f frames/s of %.2f tuples, want %.1f of %.2f", c.name, frames, per, c.frames, c.perMsgs)
		}
		if math.Abs(r.Throughput/c.rate-1) > 0.005 {
			t.Errorf("%s: %.1f tuples/s acked, want the %v offered", c.name, r.Throughput, c.rate)
		}
	}
}

// TestMessagingCPU: each thread is charged what its frames and messages cost, and the receiving
// executor no longer pays the deserialization. Over 100 s of the chain at 5,000 tuples/s on a quarter
// of a core: the transfer thread's CPU is SendFrame x frames + SendMsg x messages, the Netty thread's
// RecvFrame x frames + (DeserMsg + DeserByte x 100) x messages, the bolt's its service time x tuples.
// Reference: those sums of the counts. Tolerance: one frame's cost (a drain in execution when the
// counters are read has used CPU for frames not yet counted), 0.1% of the bolt's. The nodes' frame
// counters count the transfer thread's frames, exactly.
func TestMessagingCPU(t *testing.T) {
	c := Costs{SendFrame: 100e-6, SendMsg: 5e-6, RecvFrame: 80e-6, DeserMsg: 10e-6, DeserByte: 1e-8}
	cfg := messagingChain(5000, c)
	cfg.Nodes[0].Cores, cfg.Nodes[1].Cores = 0.25, 0.25
	x, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	x.Advance(100)
	th := x.TakeThreads()
	counts := x.Take()
	send, recv := th[0], th[1]
	if send.SentMsgs == 0 || recv.RecvMsgs == 0 {
		t.Fatalf("threads: %+v: want worker 0 sending, worker 1 receiving", th)
	}
	msg := c.DeserMsg + 100*c.DeserByte
	for _, k := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"transfer thread", send.TransferCPU, c.SendFrame*float64(send.SentFrames) + c.SendMsg*float64(send.SentMsgs), c.SendFrame + 10*c.SendMsg},
		{"netty thread", recv.NettyCPU, c.RecvFrame*float64(recv.RecvFrames) + msg*float64(recv.RecvMsgs), c.RecvFrame + 10*msg},
		{"bolt", counts[1].CPU, 1e-5 * float64(counts[1].Executed), 1e-3 * counts[1].CPU},
	} {
		if math.Abs(k.got-k.want) > k.tol {
			t.Errorf("%s: %.6g core-seconds, want %.6g", k.name, k.got, k.want)
		}
	}
	if sent, got := x.NodeFrames(); sent[0] != send.SentFrames || got[1] != sent[0] || sent[1] != 0 {
		t.Errorf("node frames sent %v, received %v: want n0's %d to n1, none back", sent, got, send.SentFrames)
	}
	if recv.TransferCPU != 0 || send.NettyCPU != 0 {
		t.Errorf("threads %+v: want worker 0 only sending and worker 1 only receiving", th)
	}
}

// TestMessagingConserved: every tuple tree of a finite dataset completes through the messaging
// threads, its acks too: WordCount's shape (a spout, a splitter emitting 3 tuples a sentence by
// shuffle, a counter by fields) on three workers of two nodes with ackers, and again after a Move that
// adds a worker. Reference: the dataset, 2,000 trees.
func TestMessagingConserved(t *testing.T) {
	cfg := Config{
		Nodes: []Node{{Name: "n0", Cores: 1}, {Name: "n1", Cores: 0.5}},
		Topology: Topology{
			Components: []Component{
				{Name: "s", Spout: true, Service: Dist{Mean: 1e-5}, Streams: []Stream{{To: "split", PerTuple: 1}}, Bytes: 80, Dataset: 1000},
				{Name: "split", Service: Dist{Mean: 3e-5, CV: 0.5, Kind: LogNormal}, Streams: []Stream{{To: "count", PerTuple: 3, Grouping: Fields}}, Bytes: 20},
				{Name: "count", Service: Dist{Mean: 1e-5}},
			},
			Executors: []Executor{{Component: "s", Worker: 0}, {Component: "s", Worker: 1}, {Component: "split", Worker: 1},
				{Component: "split", Worker: 2}, {Component: "count", Worker: 0}, {Component: "count", Worker: 2}},
			Workers: []int{0, 1, 1}, MaxSpoutPending: 50, Ackers: true, AckBytes: 30,
		},
		Costs:     Costs{SerMsg: 5e-6, DeserMsg: 5e-6, SendFrame: 50e-6, SendMsg: 1e-6, RecvFrame: 40e-6, LocalLatency: 1e-4, LinkLatency: 5e-4},
		Messaging: true, Seed: 3,
	}
	x, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	x.Advance(1)
	if err := x.Move([]int{0, 1, 1, 0}, []int{0, 1, 3, 2, 0, 3}); err != nil {
		t.Fatal(err)
	}
	x.Advance(60)
	acked := int64(0)
	for _, c := range x.Take() {
		acked += c.Acked
	}
	if acked != 2000 {
		t.Errorf("%d trees acked, want the dataset's 2,000", acked)
	}
}

// TestMessagingReads: a receiving thread reads a sending worker's connection once per wake-up,
// whatever frames arrived on it. The chain at 5,000 tuples/s sends a frame per transfer sleep
// (925.9 a second, TestMessagingFrames); its receiver, on a quarter of a core at 400 µs a read, is busy
// for 1.6 ms a read, in which 1.5 frames arrive, so it is never idle: 0.25 / 400 µs = 625 reads a
// second, each of 1.48 frames. At 50 tuples/s it reads each frame alone: 50 a second. Reference: those
// figures by hand. Tolerance: 1% (100 s from the start, its first frames included).
func TestMessagingReads(t *testing.T) {
	for _, c := range []struct {
		rate, reads float64
	}{{5000, 625}, {50, 50}} {
		cfg := messagingChain(c.rate, Costs{RecvFrame: 400e-6})
		cfg.Nodes[1].Cores, cfg.Topology.Components[1].Service = 0.25, tiny // the node's CPU is the reads'
		x, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		x.Advance(100)
		th := x.TakeThreads()
		if got := float64(th[1].RecvFrames) / 100; math.Abs(got/c.reads-1) > 0.01 || th[1].RecvMsgs < th[1].RecvFrames {
			t.Errorf("at %v tuples/s: %.1f reads a second of %d messages, want %v", c.rate, got, th[1].RecvMsgs, c.reads)
		}
	}
}

// TestMessagingWakes: a messaging thread pays a wake-up when it starts work after waiting, and only
// then. Over 100 s of the chain: at 50 tuples/s (20 ms apart) the transfer thread sleeps before every
// frame and the receiving thread waits for every one, so each frame and each read wakes its thread
// (50 a second); at 5,000 tuples/s on a core with frames of no cost, one frame per sleep, each after a
// wake-up, the drain taking the wake-up's 30 µs: 1/(1.08 ms + 30 µs) = 900.9 a second; busy (a frame of 400 µs on a quarter of a core) the transfer thread
// drains again at once and wakes only at its first drain. Each thread's CPU is its frames' and
// wake-ups' costs. Reference: those counts by hand (TestMessagingFrames's frames). Tolerance: 0.5% of
// the counts, one frame's and one wake-up's cost of the CPU.
func TestMessagingWakes(t *testing.T) {
	for _, c := range []struct {
		name         string
		rate, cores  float64
		sendFrame    float64
		sends, reads float64 // wake-ups a second
	}{
		{"a wake-up a tuple", 50, 1, 0, 50, 50},
		{"a wake-up a sleep", 5000, 1, 0, 1 / (DefaultIdleSleep + 30e-6), 1 / (DefaultIdleSleep + 30e-6)},
		{"busy", 5000, 0.25, 400e-6, 0, -1},
	} {
		k := Costs{SendFrame: c.sendFrame, RecvFrame: 20e-6, SendWake: 30e-6, RecvWake: 50e-6}
		cfg := messagingChain(c.rate, k)
		cfg.Nodes[0].Cores = c.cores
		x, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		x.Advance(100)
		th := x.TakeThreads()
		send, recv := th[0], th[1]
		sends, reads := float64(send.SendWakes)/100, float64(recv.RecvWakes)/100
		if c.sends == 0 && send.SendWakes > 1 || c.sends > 0 && math.Abs(sends/c.sends-1) > 0.005 {
			t.Errorf("%s: %d sending wake-ups in 100 s, want %.1f a second", c.name, send.SendWakes, c.sends)
		}
		if c.reads > 0 && math.Abs(reads/c.reads-1) > 0.005 {
			t.Errorf("%s: %.1f receiving wake-ups a second, want %.1f", c.name, reads, c.reads)
		}
		for _, m := range []struct {
			name      string
			got, want float64
			tol       float64
		}{
			{"transfer thread", send.TransferCPU, k.SendFrame*float64(send.SentFrames) + k.SendWake*float64(send.SendWakes), k.SendFrame + k.SendWake},
			{"netty thread", recv.NettyCPU, k.RecvFrame*float64(recv.RecvFrames) + k.RecvWake*float64(recv.RecvWakes), k.RecvFrame + k.RecvWake},
		} {
			if math.Abs(m.got-m.want) > m.tol {
				t.Errorf("%s: %s %.6g core-seconds, want %.6g", c.name, m.name, m.got, m.want)
			}
		}
	}
}
