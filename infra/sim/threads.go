package sim

import "slices"

// Storm 2 moves a message between workers on threads of its own (Config.Messaging): the sending
// executor serializes it onto its worker's transfer queue (WorkerTransfer.tryTransferRemote, in the
// executor's thread, as execute charges it); the worker's transfer thread drains that queue, hands
// Netty one batch per destination worker, and sleeps 1 ms when it found nothing (the asyncLoop of
// WorkerTransfer.makeTransferThread; Netty's client thread writes each batch: Client.send); the
// receiving worker's Netty thread, woken by what arrived, reads each sending worker's connection once,
// whatever number of batches arrived on it since its last read, deserializes the messages and puts
// them in the executors' receive queues (DeserializingConnectionCallback). Each is one thread on its
// node's cores, as an executor is: a thread that gets less CPU goes round less often, and its batches
// and reads grow, as the real ones do under a quota. The costs are per frame (a batch written; a
// connection read), per message, and per wake-up (a thread that waited: the transfer thread's return
// from its sleep to a drain, the receiving thread woken by a frame), which is most of a frame's cost
// where messages are rare and little of it where the threads are busy.
//
// Simplifications, each a choice where Storm's threads are more:
//   - the sending worker's Netty client thread is folded into its transfer thread (Costs.SendFrame
//     prices both), and a worker's Netty server threads are one thread;
//   - a frame is one batch whatever its size (Netty splits a large one into several writes);
//   - a restarted worker's queued messages still go out (the executors they reach are down, which
//     loses those of the restarted worker's own tuples);
//   - the transfer queue is unbounded (Storm's has topology.transfer.buffer.size and backpressure of
//     its own);
//   - under Config.Batch a message stands for Batch tuples, so a drain finds fewer of them and the
//     frames are fewer and fuller than unbatched: the frame costs are then charged less often.

// msgThread is the state of one worker's messaging thread, carried by an executor (executor.th) so
// that it runs on its node's cores as the executors do.
type msgThread struct {
	send   bool     // the transfer thread; else the Netty thread that receives
	worker int      // the worker it belongs to
	out    []outMsg // the transfer queue (send)
	cur    []outMsg // the drain in execution (send)
	// in are the frames arrived and not yet read, curIn those being read (receive)
	in, curIn []inFrame
	// waited says the thread is waiting (asleep, or with nothing to read): its next piece of work
	// starts with a wake-up.
	waited bool
	// Counters since the last TakeThreads: frames and messages sent (send), or reads and messages
	// received (receive), and wake-ups.
	frames, msgs, wakes int64
}

// inFrame is a frame that reached a receiving thread, from worker from.
type inFrame struct {
	from int
	msgs []outMsg
}

// outMsg is one message for another worker: what runs when it reaches that worker (an evEnqueue or
// an evAck), and its bytes.
type outMsg struct {
	to    int // receiving worker
	bytes int
	ev    event
}

// Names of the messaging threads' components, and of the thread groups simulated reports carry (as a
// real worker's reporter names the threads, digits taken out).
const (
	TransferThread = "Worker-Transfer"
	NettyThread    = "Netty-server-localhost-#-worker-#"
)

var (
	transferComp = &Component{Name: TransferThread}
	nettyComp    = &Component{Name: NettyThread}
)

// transferSleep is how long the transfer thread sleeps when it found nothing: Thread.sleep(1 ms), as
// long as a bolt's sleep in its wait strategy takes here (DefaultIdleSleep).
func (s *sim) transferSleep() float64 {
	if s.cfg.TransferSleep > 0 {
		return s.cfg.TransferSleep
	}
	return DefaultIdleSleep
}

// thread is worker w's transfer thread (send) or receiving thread, made on first use.
func (s *sim) thread(w int, send bool) *executor {
	for len(s.threads) <= w {
		s.threads = append(s.threads, [2]*executor{})
	}
	k := 0
	if !send {
		k = 1
	}
	if x := s.threads[w][k]; x != nil {
		return x
	}
	x := &executor{id: -1, worker: w, node: s.workerNode[w], th: &msgThread{send: send, worker: w, waited: true}, comp: nettyComp}
	if send { // asleep from a phase of its own: the workers' threads do not go round in step
		x.comp = transferComp
		x.asleep, x.sleptAt = true, -s.rng.Float64()*s.transferSleep()
	}
	s.threads[w][k] = x
	return x
}

// post puts a message for worker m.to on worker w's transfer queue.
func (s *sim) post(w int, m outMsg) {
	x := s.thread(w, true)
	x.th.out = append(x.th.out, m)
	s.threadNext(x)
}

// threadNext starts x's next piece of work: a transfer thread drains its whole queue (after its sleep,
// if it sleeps), a receiving thread reads every frame that arrived, once per sending worker.
func (s *sim) threadNext(x *executor) {
	th := x.th
	if x.busy {
		return
	}
	c := s.cfg.Costs
	if !th.send {
		if len(th.in) == 0 {
			th.waited = true
			return
		}
		th.curIn, th.in = th.in, th.curIn[:0]
		s.workers = senders(s.workers[:0], th.curIn)
		work := c.RecvFrame*float64(len(s.workers)) + th.wake(c.RecvWake)
		for _, f := range th.curIn {
			for _, m := range f.msgs {
				work += c.DeserMsg + c.DeserByte*float64(m.bytes)
			}
		}
		x.busy = true
		s.cpus[x.node].run(x, work)
		return
	}
	if len(th.out) == 0 || s.asleep(x) {
		return
	}
	th.cur, th.out = th.out, th.cur[:0]
	s.workers = destinations(s.workers[:0], th.cur)
	work := c.SendFrame*float64(len(s.workers)) + c.SendMsg*float64(len(th.cur)) + th.wake(c.SendWake)
	x.busy = true
	s.cpus[x.node].run(x, work)
}

// wake is what th's next piece of work adds for a wake-up: cost, counted, if th waited before it; else 0.
func (th *msgThread) wake(cost float64) float64 {
	if !th.waited {
		return 0
	}
	th.waited = false
	th.wakes++
	return cost
}

// senders appends to dst the workers frames came from, each once, in order of first arrival: a read
// of each one's connection. (A scan: a handful of workers.)
func senders(dst []int, frames []inFrame) []int {
	for _, f := range frames {
		if !slices.Contains(dst, f.from) {
			dst = append(dst, f.from)
		}
	}
	return dst
}

// destinations appends to dst the workers msgs go to, each once, in order of first appearance: the
// frames of one drain.
func destinations(dst []int, msgs []outMsg) []int {
	for _, m := range msgs {
		if !slices.Contains(dst, m.to) {
			dst = append(dst, m.to)
		}
	}
	return dst
}

// threadDone ends x's piece of work: a drain's frames go out and the thread drains again or sleeps; a
// frame's messages reach their executors and the thread reads its next.
func (s *sim) threadDone(x *executor) {
	x.busy = false
	th := x.th
	if !th.send {
		s.workers = senders(s.workers[:0], th.curIn)
		th.frames += int64(len(s.workers))
		for i, f := range th.curIn {
			th.msgs += int64(len(f.msgs))
			for _, m := range f.msgs {
				s.dispatch(m.ev)
			}
			th.curIn[i] = inFrame{}
		}
		th.curIn = th.curIn[:0]
		s.threadNext(x)
		return
	}
	s.workers = destinations(s.workers[:0], th.cur) // frame does not use it
	for _, to := range s.workers {
		var msgs []outMsg // a frame of its own: it is read after the next drain reuses cur
		for _, n := range th.cur {
			if n.to == to {
				msgs = append(msgs, n)
			}
		}
		s.frame(th, msgs)
	}
	clear(th.cur)
	th.cur = th.cur[:0]
	if len(th.out) == 0 { // it found nothing: Thread.sleep
		x.asleep, x.waking, x.sleptAt = true, false, s.eng.now
		th.waited = true
		return
	}
	s.threadNext(x)
}

// frame sends msgs of th's worker to their worker as one frame: over loopback to a worker of the same
// node, through the node's NIC and the link to another.
func (s *sim) frame(th *msgThread, msgs []outMsg) {
	th.frames++
	th.msgs += int64(len(msgs))
	to := msgs[0].to
	from, at := s.workerNode[th.worker], s.workerNode[to]
	rx := s.thread(to, false)
	arrive := func() {
		rx.th.in = append(rx.th.in, inFrame{from: th.worker, msgs: msgs})
		s.threadNext(rx)
	}
	if s.window {
		s.m.frames++
		s.m.framed += int64(len(msgs)) * s.batch
	}
	c := s.cfg.Costs
	if from == at {
		s.eng.at(s.eng.now+c.LocalLatency, arrive)
		return
	}
	s.txFrames[from]++
	s.rxFrames[at]++
	bytes := 0
	for _, m := range msgs {
		bytes += m.bytes + c.MsgBytes
	}
	s.eng.at(s.link(from, at, bytes)+c.LinkLatency, arrive)
}

// link counts bytes sent from node from to node to and returns when they have left from's NIC.
func (s *sim) link(from, to int, bytes int) float64 {
	s.sent[from] += float64(bytes)
	s.recv[to] += float64(bytes)
	leave := s.eng.now
	if bw := s.cfg.Nodes[from].NICBytesPerS; bw > 0 {
		leave = max(leave, s.nics[from]) + float64(bytes)/bw
		s.nics[from] = leave
	}
	return leave
}

// NodeFrames is the frames each node has sent to other nodes and received from them since the start
// (Config.Messaging; zeros without): Netty's batches, where a real node's interface counts packets,
// TCP's acknowledgements among them.
func (x *Sim) NodeFrames() (sent, received []int64) {
	return slices.Clone(x.s.txFrames), slices.Clone(x.s.rxFrames)
}

// ThreadCounts are one worker's messaging threads over an interval (Config.Messaging): each thread's
// CPU, the frames and messages its transfer thread sent (to workers of its node too), and the reads
// (one per sending worker at a wake-up, whatever frames it had sent) and messages its receiving thread
// received, and each thread's wake-ups.
type ThreadCounts struct {
	TransferCPU, NettyCPU float64
	SentFrames, SentMsgs  int64
	RecvFrames, RecvMsgs  int64
	SendWakes, RecvWakes  int64
}

// TakeThreads returns each worker's messaging-thread counters since the previous TakeThreads (or the
// start), by worker as numbered now (Move); nil without Config.Messaging. Under Config.Batch a frame
// of batched tuples is one frame, its messages counted in tuples.
func (x *Sim) TakeThreads() []ThreadCounts {
	s := x.s
	if !s.cfg.Messaging {
		return nil
	}
	for _, c := range s.cpus {
		c.flush()
	}
	out := make([]ThreadCounts, len(s.workerNode))
	for w, pair := range s.threads {
		if w >= len(out) {
			break
		}
		if t := pair[0]; t != nil {
			out[w].TransferCPU, out[w].SentFrames, out[w].SentMsgs, out[w].SendWakes = t.tally.cpu, t.th.frames, t.th.msgs*s.batch, t.th.wakes
			t.tally, t.th.frames, t.th.msgs, t.th.wakes = tally{}, 0, 0, 0
		}
		if r := pair[1]; r != nil {
			out[w].NettyCPU, out[w].RecvFrames, out[w].RecvMsgs, out[w].RecvWakes = r.tally.cpu, r.th.frames, r.th.msgs*s.batch, r.th.wakes
			r.tally, r.th.frames, r.th.msgs, r.th.wakes = tally{}, 0, 0, 0
		}
	}
	return out
}
