package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Result is what a simulated run measured over its window.
type Result struct {
	Throughput  float64   // tuple trees acked per second
	LatencyMean float64   // complete latency, seconds (open loop: from the intended send time)
	LatencyP50  float64   // seconds
	LatencyP99  float64   // seconds
	Acked       int64     // tuple trees acked in the window
	NodeCores   []float64 // cores each node used on average
	Transfers   Transfers // tuples moved, by kind
	CutRate     float64   // share of transfers between nodes
	// Frames are the frames the workers' transfer threads sent to other workers (Config.Messaging; 0
	// without), and FramedMsgs the messages in them (tuples and acks, in tuples under Config.Batch).
	Frames, FramedMsgs int64
	// Executed is each component's tuples executed per second (spouts: tuple trees emitted).
	Executed map[string]float64
	Events   uint64 // events the engine ran (the benchmark's unit)
}

// Transfers counts the tuples handed to another executor, by kind of transfer.
type Transfers struct {
	InWorker, BetweenWorkers, BetweenNodes int64
}

// Run simulates cfg and measures its window. An invalid Config is an error naming what to fix.
func Run(cfg Config) (*Result, error) {
	if err := cfg.check(true); err != nil {
		return nil, fmt.Errorf("simulated cluster: %w", err)
	}
	s := newSim(&cfg)
	s.start()
	s.eng.run(cfg.WarmUp)
	s.openWindow()
	s.eng.run(cfg.WarmUp + cfg.Measure)
	return s.result(), nil
}

type sim struct {
	cfg    *Config
	eng    *engine
	rng    *rand.Rand
	cpus   []*cpu
	nics   []float64 // each node's NIC is busy until then
	sent   []float64 // bytes each node has sent to other nodes since the start (NodeBytes)
	recv   []float64 // and received from them
	execs  []*executor
	byComp map[string][]*executor
	cap    int
	over   int         // executors whose queue is at or above cap: the spouts pause while > 0
	ackers []*executor // with Topology.Ackers: on Topology.AckerWorkers, or one per worker
	acker  *Component
	window bool
	m      measured
	batch  int64 // tuples per simulated tuple (Config.Batch)
	// workerNode is each worker's node now; threads each worker's transfer and receiving threads
	// (Config.Messaging), made on first use.
	workerNode []int
	threads    [][2]*executor
	ids        uint64 // tuple ids handed out (edgeID)
	workers    []int  // scratch of the messaging threads: a drain's destinations, a read's senders
	// txFrames and rxFrames are the frames each node has sent to other nodes and received from them.
	txFrames, rxFrames []int64
}

type measured struct {
	executed  map[string]int64 // tuples executed per component (spouts: trees emitted)
	acked     int64
	latSum    float64
	lat       *hdrhistogram.Histogram // microseconds
	transfers Transfers
	busy0     []float64 // each node's core-seconds when the window opened
	frames    int64     // frames between workers (Config.Messaging)
	framed    int64     // messages in them
}

type executor struct {
	id      int
	comp    *Component
	worker  int
	node    int
	queue   []tuple
	head    int
	busy    bool
	over    bool
	pending int              // spouts: tuple trees in flight
	backlog []float64        // spouts under open loop: intended send times not yet sent
	vend    float64          // the virtual time (cpu.v) its tuple in execution ends
	vmark   float64          // the virtual time its CPU tally was last charged to
	jseq    uint64           // when its tuple in execution started, in its cpu's order
	jidx    int              // its position in its cpu's job heap
	svc     sampler          // its component's Service
	tally   tally            // counters since the last Sim.Take
	scopes  [][2][]*executor // per output stream: its receivers in this worker, on this node (load-aware shuffle; nil: not computed since the last move)
	on      *cpu             // the node's CPU running its tuple in execution (a moved executor finishes where it started)
	spin    *cpu             // the node's CPU it spins on while idle (Config.IdleSpin), nil when not spinning
	smark   float64          // its spin cpu's sv when its tally was last charged for spinning
	sidx    int              // its position among its spin cpu's spinners
	idleAt  float64          // when its latest spell of spinning started (Config.IdleSpinFor)
	asleep  bool             // its thread sleeps in the wait strategy: no spinning, a tuple waits for wakeAt
	waking  bool             // a wake-up is timed at wakeAt
	sleptAt float64          // when it fell asleep: it wakes every IdleSleep from then
	wakeAt  float64          // its next wake-up, once a tuple found it asleep
	idled   bool             // a spell of idling began since its last tuple: the next pays Costs.ExecWake
	down    float64          // restarting until then: nothing runs, what arrives is lost (Sim.Restart)
	inc     int              // spouts: incarnation; a restart forgets the trees of earlier ones
	cur     tuple            // the tuple in execution
	th      *msgThread       // a worker's messaging thread rather than an executor (Config.Messaging)
	outs    []*executor
	// emittedAll is a spout's trees emitted since the start, across restarts (its dataset position).
	emittedAll int64
}

type tuple struct {
	root   *tree
	remote bool   // came from another worker: the receiver deserializes it
	bytes  int    // its serialized size (its sender's Component.Bytes)
	id     uint64 // a data tuple's id (Storm's edge id; 0 for the spout's own), in its tree's ack values
	xor    uint64 // an ack message to an acker: the ids it XORs into its tree's value
}

type tree struct {
	born  float64 // (intended) send time
	sent  float64 // when the spout emitted it
	inc   int     // its spout's incarnation at emission
	lost  bool    // a tuple of it was lost: it fails at the message timeout
	left  int     // tuples of the tree not yet executed (without ackers)
	val   uint64  // with ackers: the acker's XOR of the ids acked so far; 0 again when all are
	spout *executor
	acker *executor // with Topology.Ackers: the acker that tracks it
	// tracked and done are when the acker executed the tree's first message and its last (0: not yet):
	// Storm's complete latency is done - tracked (stormLatency).
	tracked, done float64
}

func newSim(orig *Config) *sim {
	b := batched(*orig)
	cfg := &b
	s := &sim{cfg: cfg, batch: cfg.batch(), eng: &engine{}, rng: rand.New(rand.NewPCG(cfg.Seed, 0x5157_0c1a)), byComp: map[string][]*executor{}, cap: cfg.QueueCap}
	if s.cap == 0 {
		s.cap = DefaultQueueCap
	}
	s.eng.handle = s.dispatch
	for _, n := range cfg.Nodes {
		sp := n.Speed
		if sp == 0 {
			sp = 1
		}
		c := &cpu{eng: s.eng, cores: n.Cores, speed: sp, done: s.finish, spinCap: cfg.IdleSpin, spinShare: cfg.IdleSpinShare, bw: newBandwidth(n)}
		c.spinFor, c.sleepAt = cfg.IdleSpin*cfg.IdleSpinFor, math.Inf(1)
		if c.bw != nil {
			c.cores = c.bw.capacity()
		}
		s.eng.addTimer(c)
		s.cpus = append(s.cpus, c)
	}
	s.shareHosts(cfg.Nodes)
	s.workerNode = slices.Clone(cfg.Topology.Workers)
	s.nics = make([]float64, len(cfg.Nodes))
	s.sent, s.recv = make([]float64, len(cfg.Nodes)), make([]float64, len(cfg.Nodes))
	s.txFrames, s.rxFrames = make([]int64, len(cfg.Nodes)), make([]int64, len(cfg.Nodes))
	for _, n := range cfg.Topology.Workers {
		s.cpus[n].bg++
		s.cpus[n].bgCap = cfg.WorkerOverhead
	}
	comps := map[string]*Component{}
	for i := range cfg.Topology.Components {
		comps[cfg.Topology.Components[i].Name] = &cfg.Topology.Components[i]
	}
	for i, e := range cfg.Topology.Executors {
		ex := &executor{id: i, comp: comps[e.Component], worker: e.Worker, node: cfg.Topology.Workers[e.Worker]}
		ex.svc = newSampler(ex.comp.Service)
		s.execs = append(s.execs, ex)
		s.byComp[e.Component] = append(s.byComp[e.Component], ex)
	}
	if cfg.Topology.Ackers {
		s.acker = &Component{Name: AckerName, Service: Dist{Mean: cfg.Costs.AckCPU}, Bytes: cfg.Topology.AckBytes}
		for k, w := range cfg.Topology.ackerWorkers() {
			s.ackers = append(s.ackers, &executor{id: len(s.execs) + k, comp: s.acker, worker: w, node: cfg.Topology.Workers[w], svc: newSampler(s.acker.Service)})
		}
	}
	s.m.lat = hdrhistogram.New(1, 3_600_000_000, 3)
	s.m.executed = map[string]int64{}
	return s
}

// start sets the spouts going: under open loop each gets its arrivals (first at a random phase),
// under closed loop each emits at once.
// shareHosts joins the nodes under a quota that name a host (Node.Host) to it.
func (s *sim) shareHosts(nodes []Node) {
	hosts := map[string]*host{}
	for i, n := range nodes {
		if n.Host == "" || s.cpus[i].bw == nil {
			continue
		}
		h := hosts[n.Host]
		if h == nil {
			h = &host{cores: n.Peak}
			hosts[n.Host] = h
		}
		h.nodes = append(h.nodes, s.cpus[i])
		s.cpus[i].host = h
	}
}

func (s *sim) start() {
	for _, e := range s.ackers {
		s.settle(e)
	}
	for _, e := range s.execs {
		if !e.comp.Spout {
			s.settle(e)
			continue
		}
		if r := s.rate(e); r > 0 {
			s.eng.post(s.rng.Float64()/r, event{kind: evArrive, x: e})
			continue
		}
		s.trySpout(e)
	}
}

// rate is spout e's open-loop rate, tuples/s; 0 under closed loop.
func (s *sim) rate(e *executor) float64 {
	if e.comp.Rate > 0 {
		return e.comp.Rate
	}
	return s.cfg.Topology.Rate
}

// arrive is an open-loop arrival at spout e: the tuple is due now, and the next one is planned.
func (s *sim) arrive(e *executor) {
	e.backlog = append(e.backlog, s.eng.now)
	e.tally.offered++
	gap := 1 / s.rate(e)
	if s.cfg.Topology.Poisson {
		gap *= s.rng.ExpFloat64()
	}
	s.eng.post(s.eng.now+gap, event{kind: evArrive, x: e})
	s.trySpout(e)
}

// trySpout emits spout e's next tuple tree when it is idle, not paused, below its pending limit and
// (open loop) has a tuple due.
func (s *sim) trySpout(e *executor) {
	max := s.cfg.Topology.MaxSpoutPending
	if e.busy || s.over > 0 || (max > 0 && e.pending >= max) || s.eng.now < e.down || e.datasetDone() {
		return
	}
	born := s.eng.now
	if s.rate(e) > 0 {
		if len(e.backlog) == 0 {
			return
		}
		born, e.backlog = e.backlog[0], e.backlog[1:]
	}
	root := &tree{born: born, sent: s.eng.now, left: 1, spout: e, inc: e.inc} // sent again as it goes out (finish)
	if len(s.ackers) > 0 {
		root.acker = s.ackers[s.rng.IntN(len(s.ackers))]
	}
	e.pending++
	e.emittedAll++
	s.execute(e, tuple{root: root})
}

// execute runs one tuple on e: its CPU (service, deserialization, serialization of what it sends to
// other workers, acking); finish hands its output to the receivers.
func (s *sim) execute(e *executor, t tuple) {
	e.busy, e.cur = true, t
	e.outs = s.route(e, e.outs[:0])
	work := e.svc.draw(s.rng)
	c := s.cfg.Costs
	if t.remote && !s.cfg.Messaging { // else its worker's receiving thread deserialized it
		work += c.DeserMsg + c.DeserByte*float64(t.bytes)
	}
	for _, to := range e.outs {
		if to.worker != e.worker {
			work += c.SerMsg + c.SerByte*float64(e.comp.Bytes)
		}
	}
	switch {
	case e.comp == s.acker:
		work = e.comp.Service.Mean
		if !s.cfg.Messaging {
			work += extraDeser(t, c)
		}
	case t.root.acker != nil && t.root.acker.worker != e.worker: // its ack message is serialized
		work += c.SerMsg + c.SerByte*float64(s.cfg.Topology.AckBytes)
	case t.root.acker == nil && !e.comp.Spout:
		work += c.AckCPU
	}
	if e.idled {
		work += c.ExecWake
		e.idled = false
	}
	if e.spin != nil {
		e.spin.unspin(e)
	}
	s.cpus[e.node].run(e, work)
}

// settle starts or ends e's spinning to match its state (Config.IdleSpin): a bolt's thread (an
// acker's too) spins while it is up and has no tuple, or falls asleep at once where the wait strategy
// has no parks (Config.IdleSpinFor 0 with a sleep); a spout's sleeps in its wait strategy.
func (s *sim) settle(e *executor) {
	if e.th != nil { // a messaging thread waits in epoll or sleeps: no spinning
		return
	}
	idle := !e.comp.Spout && !e.busy && s.eng.now >= e.down && !e.asleep
	atOnce := s.cfg.IdleSleep > 0 && s.cfg.IdleSpinFor == 0
	want := idle && s.cfg.IdleSpin > 0 && !atOnce
	switch {
	case idle && atOnce:
		e.tally.spells++
		e.idled = true
		e.asleep, e.sleptAt = true, s.eng.now
	case want && e.spin == nil:
		s.cpus[e.node].spin(e)
		e.tally.spells++
		e.idled = true
	case !want && e.spin != nil:
		e.spin.unspin(e)
	}
}

// finish ends e's tuple in execution: its output goes out, its tree is acked when this was its last
// tuple, and e takes its next.
func (s *sim) finish(e *executor) {
	if e.th != nil {
		s.threadDone(e)
		return
	}
	e.busy = false
	e.tally.executed++
	if s.window {
		s.m.executed[e.comp.Name] += s.batch
	}
	t := e.cur
	e.cur = tuple{}
	if e.comp == s.acker {
		s.tally(e, t)
		s.next(e)
		s.settle(e)
		return
	}
	root := t.root
	if e.comp.Spout {
		s.emitted(e, root)
	}
	xor := t.id
	for _, to := range e.outs {
		id := s.edgeID()
		xor ^= id
		s.send(e, to, root, id)
	}
	if root.acker != nil {
		s.transfer(e, root.acker, tuple{root: root, xor: xor, bytes: s.cfg.Topology.AckBytes})
	} else if root.left += len(e.outs) - 1; root.left == 0 {
		s.ack(root)
	}
	if !e.comp.Spout {
		e.tally.dl.executed(e, root.sent, s.eng.now, s.batch)
	}
	e.tally.sized(e, t, len(e.outs))
	s.next(e)
	s.settle(e)
}

// emitted stamps tree root with the moment spout e's nextTuple emits it, as the real spout stamps its
// T_start: at the end of its CPU, not when the tuple fell due or the spout's thread took it up. Under a
// quota a spout that takes up a tuple as its node is throttled emits it only when the node runs again,
// so the wait is the spout's send lag, not the tree's processing time.
func (s *sim) emitted(e *executor, root *tree) {
	root.sent = s.eng.now
	if s.rate(e) > 0 {
		e.tally.lagged(s.eng.now-root.born, s.batch)
	}
}

// AckerName is the component name of the acker executors (Storm's).
const AckerName = "__acker"

// extraDeser is an acker message's deserialization when it came from another worker.
func extraDeser(t tuple, c Costs) float64 {
	if !t.remote {
		return 0
	}
	return c.DeserMsg + c.DeserByte*float64(t.bytes)
}

// tally is an acker's work on one ack message: it XORs its ids into its tree's value, and a tree back
// at zero is reported to its spout (a transfer to the spout's worker). As Storm's acker does, so ack
// messages that arrive out of order (a tuple's before its parent's, over another worker's threads)
// complete a tree only when all of them have.
func (s *sim) tally(acker *executor, t tuple) {
	root := t.root
	if root.tracked == 0 {
		root.tracked = s.eng.now
	}
	if root.val ^= t.xor; root.val != 0 {
		return
	}
	root.done = s.eng.now
	s.deliver(acker, root.spout, s.cfg.Topology.AckBytes, event{kind: evAck, t: tuple{root: root}})
}

// edgeID is a new tuple id: splitmix64 of a counter (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014), so ids are as good as random without drawing from the
// run's generator; odd, so never 0.
func (s *sim) edgeID() uint64 {
	s.ids++
	z := s.ids * 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return (z ^ z>>31) | 1
}

// next starts e's next piece of work.
func (s *sim) next(e *executor) {
	if e.th != nil {
		s.threadNext(e)
		return
	}
	if e.comp.Spout {
		s.trySpout(e)
		return
	}
	if e.busy || e.head == len(e.queue) || s.eng.now < e.down || s.asleep(e) { // an acker is a bolt here
		return
	}
	t := e.queue[e.head]
	e.queue[e.head] = tuple{}
	e.head++
	if e.head > 1024 && 2*e.head > len(e.queue) { // reclaim the consumed front
		e.queue = append(e.queue[:0], e.queue[e.head:]...)
		e.head = 0
	}
	s.relieve(e)
	s.execute(e, t)
}

// route appends to outs the receivers of one executed tuple of e, per output stream.
func (s *sim) route(e *executor, outs []*executor) []*executor {
	for k, st := range e.comp.Streams {
		to := s.byComp[st.To]
		if st.Grouping == Global {
			to = to[:1]
		}
		if st.Grouping == All {
			for range whole(s.rng, st.PerTuple) {
				outs = append(outs, to...)
			}
			continue
		}
		if st.Grouping == LocalOrShuffle {
			if local := inWorker(to, e.worker); len(local) > 0 {
				to = local
			}
		}
		if st.Grouping == Shuffle && s.cfg.Topology.LoadAware {
			to = s.scope(e, k, to)
		}
		for range whole(s.rng, st.PerTuple) {
			outs = append(outs, to[s.rng.IntN(len(to))])
		}
	}
	return outs
}

// whole draws an integer count with mean x: floor(x), plus one with probability x - floor(x).
func whole(r *rand.Rand, x float64) int {
	n := int(x)
	if r.Float64() < x-float64(n) {
		n++
	}
	return n
}

// scope is the receivers a load-aware shuffle of e picks among: those in e's worker, else on e's node,
// while their mean load is at most LoadAwareBound, else all. (Storm also weighs each receiver by its
// load within the scope; here the pick within a scope is uniform.)
func (s *sim) scope(e *executor, stream int, to []*executor) []*executor {
	if e.scopes == nil {
		e.scopes = make([][2][]*executor, len(e.comp.Streams))
		for k, st := range e.comp.Streams {
			for _, x := range s.byComp[st.To] {
				if x.worker == e.worker {
					e.scopes[k][0] = append(e.scopes[k][0], x)
				}
				if x.node == e.node {
					e.scopes[k][1] = append(e.scopes[k][1], x)
				}
			}
		}
	}
	for _, near := range e.scopes[stream] {
		if len(near) > 0 && s.load(near) <= LoadAwareBound {
			return near
		}
	}
	return to
}

// load is the mean receive-queue fill of execs (Storm's load: population over capacity).
func (s *sim) load(execs []*executor) float64 {
	sum := 0.0
	for _, x := range execs {
		sum += float64(len(x.queue)-x.head) / float64(s.cap)
	}
	return sum / float64(len(execs))
}

func inWorker(execs []*executor, w int) []*executor {
	var out []*executor
	for _, e := range execs {
		if e.worker == w {
			out = append(out, e)
		}
	}
	return out
}

// ackerWorkers is the worker of each acker executor: AckerWorkers, or one on each worker.
func (t *Topology) ackerWorkers() []int {
	if len(t.AckerWorkers) > 0 {
		return t.AckerWorkers
	}
	out := make([]int, len(t.Workers))
	for w := range out {
		out[w] = w
	}
	return out
}
