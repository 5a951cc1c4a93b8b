package sim

// send moves one tuple (id) of tree root from executor from to executor to (counted in the traffic).
func (s *sim) send(from, to *executor, root *tree, id uint64) {
	t := tuple{root: root, id: id, remote: from.worker != to.worker, bytes: from.comp.Bytes}
	from.tally.sent(to.id)
	switch {
	case from.worker == to.worker:
		s.count(&s.m.transfers.InWorker)
	case from.node == to.node:
		s.count(&s.m.transfers.BetweenWorkers)
	default:
		s.count(&s.m.transfers.BetweenNodes)
	}
	s.transfer(from, to, t)
}

// transfer puts t in to's queue: at once within a worker, after LocalLatency between workers of a
// node, through the sending node's NIC and LinkLatency between nodes.
func (s *sim) transfer(from, to *executor, t tuple) {
	t.remote = from.worker != to.worker
	s.deliver(from, to, t.bytes, event{kind: evEnqueue, x: to, t: t})
}

// deliver runs arrive (an event of a kind) when a message of from's, of bytes, reaches to's worker:
// at once within a worker; else through the sending worker's transfer thread (Config.Messaging), or
// after LocalLatency between workers of a node, through the sending node's NIC and LinkLatency between
// nodes.
func (s *sim) deliver(from, to *executor, bytes int, arrive event) {
	c := s.cfg.Costs
	switch {
	case from.worker == to.worker:
		s.dispatch(arrive)
	case s.cfg.Messaging:
		s.post(from.worker, outMsg{to: to.worker, bytes: bytes, ev: arrive})
	case from.node == to.node:
		s.eng.post(s.eng.now+c.LocalLatency, arrive)
	default:
		s.eng.post(s.link(from.node, to.node, bytes+c.MsgBytes)+c.LinkLatency, arrive)
	}
}

// dispatch runs an event of a kind (the engine's handle).
func (s *sim) dispatch(ev event) {
	switch ev.kind {
	case evEnqueue:
		s.enqueue(ev.x, ev.t)
	case evAck:
		s.ack(ev.t.root)
	case evArrive:
		s.arrive(ev.x)
	case evNext:
		s.next(ev.x)
		s.settle(ev.x)
	}
}

func (s *sim) count(n *int64) {
	if s.window {
		*n += s.batch
	}
}

// enqueue puts t in e's receive queue; a queue reaching its capacity pauses the spouts.
func (s *sim) enqueue(e *executor, t tuple) {
	if s.eng.now < e.down {
		s.lose(t.root)
		return
	}
	e.queue = append(e.queue, t)
	if !e.over && len(e.queue)-e.head >= s.cap {
		e.over = true
		s.over++
	}
	s.next(e)
}

// relieve ends e's part in backpressure once its queue is below half its capacity; the spouts resume
// when no executor is left in it.
func (s *sim) relieve(e *executor) {
	if !e.over || len(e.queue)-e.head >= s.cap/2 {
		return
	}
	e.over = false
	s.over--
	if s.over == 0 {
		s.resume()
	}
}

// resume lets every spout emit again (backpressure ended).
func (s *sim) resume() {
	for _, x := range s.execs {
		if x.comp.Spout {
			s.trySpout(x)
		}
	}
}

// stormLatency is tree root's complete latency as Storm measures it: its acker times a tree from the
// first message of it the acker executes to the one that completes it (Acker.java: the AckObject's
// startTime, sent to the spout as the ack's time delta), so neither the wait of that first message
// (the spout's ack init, or a bolt's ack that came first) nor the ack's way back to the spout is in it.
// In a saturated closed loop, where trees wait in front of a busy acker and in the spouts' queues, this
// is far below a tree's residence. Without ackers (the tree ends at its last bolt): the residence from
// the emit.
func (s *sim) stormLatency(root *tree) float64 {
	if root.acker == nil || root.done == 0 {
		return s.eng.now - root.sent
	}
	return root.done - root.tracked
}

// ack completes tree root: its spout may emit again, and the window counts it. A tree of an earlier
// incarnation of its spout is forgotten.
func (s *sim) ack(root *tree) {
	if root.inc != root.spout.inc {
		return
	}
	root.spout.pending--
	storm := s.stormLatency(root)
	root.spout.tally.acked(storm, storm+root.sent-root.born, s.batch)
	if s.window {
		lat := s.eng.now - root.born
		s.m.acked += s.batch
		s.m.latSum += lat * float64(s.batch)
		_ = s.m.lat.RecordValues(max(1, int64(lat*1e6)), s.batch)
	}
	s.trySpout(root.spout)
}

func (s *sim) openWindow() {
	s.window = true
	for _, c := range s.cpus {
		s.m.busy0 = append(s.m.busy0, c.usage())
	}
}

func (s *sim) result() *Result {
	r := &Result{Acked: s.m.acked, Transfers: s.m.transfers, Events: s.eng.count, Executed: map[string]float64{},
		Frames: s.m.frames, FramedMsgs: s.m.framed}
	w := s.cfg.Measure
	for name, n := range s.m.executed {
		r.Executed[name] = float64(n) / w
	}
	r.Throughput = float64(s.m.acked) / w
	if s.m.acked > 0 {
		r.LatencyMean = s.m.latSum / float64(s.m.acked)
		r.LatencyP50 = float64(s.m.lat.ValueAtQuantile(50)) / 1e6
		r.LatencyP99 = float64(s.m.lat.ValueAtQuantile(99)) / 1e6
	}
	for i, c := range s.cpus {
		r.NodeCores = append(r.NodeCores, (c.usage()-s.m.busy0[i])/w)
	}
	t := r.Transfers
	if all := t.InWorker + t.BetweenWorkers + t.BetweenNodes; all > 0 {
		r.CutRate = float64(t.BetweenNodes) / float64(all)
	}
	return r
}
