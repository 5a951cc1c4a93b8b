package sim

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stormlab/stormlab/infra/protocol"
)

// Sim is a simulated run stepped from outside: a cluster kind (harness/simcluster) advances it one
// report interval at a time and reads each interval's counters, as a real cluster's workers report
// theirs. Run is the same model measured over one window.
type Sim struct{ s *sim }

// New is a simulation of cfg at time 0, its spouts started; cfg.WarmUp and cfg.Measure are not used.
func New(cfg Config) (*Sim, error) {
	if err := cfg.check(false); err != nil {
		return nil, fmt.Errorf("simulated cluster: %w", err)
	}
	s := newSim(&cfg)
	s.start()
	return &Sim{s: s}, nil
}

// Advance runs the simulation until t seconds (no earlier than now).
func (x *Sim) Advance(t float64) { x.s.eng.run(max(t, x.s.eng.now)) }

// Now is the simulated time, seconds.
func (x *Sim) Now() float64 { return x.s.eng.now }

// Events is the number of events run so far.
func (x *Sim) Events() uint64 { return x.s.eng.count }

// Counts are one executor's counters over an interval. Executors are numbered as in
// Config.Topology.Executors, then the ackers (with Topology.Ackers): acker k (of AckerWorkers, or
// worker k's) is number len(Executors) + k.
type Counts struct {
	Executed int64   // tuples executed (spouts: tuple trees emitted)
	CPU      float64 // core-seconds its thread used
	// Spin is the part of CPU its thread spent in the wait strategy while idle (Config.IdleSpin): the
	// model tells it apart from the work; a real worker's report does not.
	Spin float64
	// Spells is how often its thread went idle and began to spin (a bolt's: Config.IdleSpin), as an
	// instrumented real bolt counts its wait strategy's spells; not scaled by Config.Batch.
	Spells int64
	Sent   map[int]int64 // data tuples sent, by receiving executor (acks are not counted)
	Acked  int64         // spouts: tuple trees completed
	// Latency is a spout's complete latency of the trees acked as Storm measures it (its acker's, from
	// the first message of a tree it executes: sim.stormLatency), and LatencyIntended that plus each
	// tree's send lag (open loop; else equal), in ms as the workers' reports give them (nil when none
	// was acked).
	Latency, LatencyIntended *hdrhistogram.Histogram
	// Open-loop spouts: Offered is the tuples their schedule made due, SendLag the lag of each one
	// emitted behind its intended send time, ms (nil when none was emitted).
	Offered int64
	SendLag *hdrhistogram.Histogram
	// Failed is a spout's trees failed at the message timeout (a tuple lost in a restart).
	Failed int64
	// Deadlines are a bolt's deadline records; Processing a sink's processing times, µs (nil when
	// it executed none).
	Deadlines  Deadlines
	Processing *hdrhistogram.Histogram
	// Dataset spouts: Emitted is the tuples emitted since the start (never reset), Done whether the
	// spout has emitted its whole share (Component.Dataset).
	Emitted int64
	Done    bool
	// Sizes are the tuples executed and emitted, with their bytes.
	Sizes Sizes
}

// Take returns every executor's counters since the previous Take (or the start) and starts new ones.
func (x *Sim) Take() []Counts {
	for _, c := range x.s.cpus { // the tuples in execution have used CPU up to now
		c.flush()
	}
	all := append(slices.Clone(x.s.execs), x.s.ackers...)
	out := make([]Counts, len(all))
	for i, e := range all {
		out[i] = e.tally.counts(x.s.batch)
		out[i].Emitted, out[i].Done = e.emittedAll*x.s.batch, e.datasetDone()
		e.tally = tally{}
	}
	return out
}

// NodeUsage is the core-seconds each node has used since the start.
func (x *Sim) NodeUsage() []float64 {
	var out []float64
	for _, c := range x.s.cpus {
		out = append(out, c.usage())
	}
	return out
}

// NodeBytes is the bytes each node has sent to other nodes and received from them since the start:
// the tuples' and acks' serialized sizes, as its NIC is charged for them (no frame or protocol headers).
func (x *Sim) NodeBytes() (sent, received []float64) {
	return slices.Clone(x.s.sent), slices.Clone(x.s.recv)
}

// tally is an executor's counters since the last Take.
type tally struct {
	executed int64
	cpu      float64
	spin     float64 // of cpu, spinning while idle
	spells   int64
	sentTo   map[int]int64
	nAcked   int64
	lat      *hdrhistogram.Histogram
	latInt   *hdrhistogram.Histogram
	offered  int64
	lag      *hdrhistogram.Histogram
	failed   int64
	dl       deadlineTally
	sizes    Sizes
}

// lagged records an open-loop tuple emitted lag seconds after its intended send time.
func (t *tally) lagged(lag float64, batch int64) {
	if t.lag == nil {
		t.lag = msHistogram()
	}
	_ = t.lag.RecordValues(int64(math.Round(lag*1e3)), batch)
}

func (t *tally) sent(to int) {
	if t.sentTo == nil {
		t.sentTo = map[int]int64{}
	}
	t.sentTo[to]++
}

// acked counts a completed tree, latency seconds after its emission and intended seconds after its
// intended send time.
func (t *tally) acked(latency, intended float64, batch int64) {
	if t.lat == nil {
		t.lat, t.latInt = msHistogram(), msHistogram()
	}
	t.nAcked++
	_ = t.lat.RecordValues(int64(math.Round(latency*1e3)), batch)
	_ = t.latInt.RecordValues(int64(math.Round(intended*1e3)), batch)
}

// msHistogram has the layout of the workers' latency histograms, so the harness merges simulated and
// real ones alike.
func msHistogram() *hdrhistogram.Histogram { return protocol.NewHistogram(protocol.LatencyHistHighest) }

// counts are t's counters in tuples: batch tuples per simulated one.
func (t *tally) counts(batch int64) Counts {
	sent := maps.Clone(t.sentTo)
	for k := range sent {
		sent[k] *= batch
	}
	return Counts{Executed: t.executed * batch, CPU: t.cpu, Spin: t.spin, Spells: t.spells, Sent: sent, Acked: t.nAcked * batch, Latency: t.lat, LatencyIntended: t.latInt,
		Offered: t.offered * batch, SendLag: t.lag, Failed: t.failed * batch, Deadlines: t.dl.d, Processing: t.dl.proc,
		Sizes: Sizes{In: t.sizes.In * batch, InBytes: t.sizes.InBytes, Out: t.sizes.Out * batch, OutBytes: t.sizes.OutBytes}}
}

// Move places the executors anew at once: worker of executor i is execWorker[i], on node
// workers[w]. It is a migration at no cost: queued tuples move with their executor, a tuple in
// execution finishes where it started, and the ackers stay on the workers they started on. What a
// migration costs on Storm (workers restarted, tuples lost and replayed) is not modelled yet.
func (x *Sim) Move(workers, execWorker []int) error {
	s := x.s
	if len(execWorker) != len(s.execs) {
		return fmt.Errorf("move: %d executors placed, the topology has %d", len(execWorker), len(s.execs))
	}
	for i, w := range execWorker {
		if w < 0 || w >= len(workers) || workers[w] < 0 || workers[w] >= len(s.cpus) {
			return fmt.Errorf("move: executor %d to worker %d of %d workers on %d nodes", i, w, len(workers), len(s.cpus))
		}
	}
	for _, c := range s.cpus {
		c.advance()
		c.bg = 0
	}
	for _, n := range workers {
		s.cpus[n].bg++
		s.cpus[n].bgCap = s.cfg.WorkerOverhead
	}
	for w, n := range workers { // an acker's worker beyond them keeps its node (the ackers stay)
		if w < len(s.workerNode) {
			s.workerNode[w] = n
		} else {
			s.workerNode = append(s.workerNode, n)
		}
	}
	for w, pair := range s.threads { // a thread at work finishes where it started (executor.on)
		for _, t := range pair {
			if t != nil {
				t.node = s.workerNode[w]
			}
		}
	}
	for _, c := range s.cpus {
		c.rehold()
		c.schedule()
	}
	for i, e := range s.execs {
		if e.spin != nil && workers[execWorker[i]] != e.node { // it spins on its new node (on its own, its spell goes on)
			e.spin.unspin(e)
		}
		e.worker, e.node = execWorker[i], workers[execWorker[i]]
		s.settle(e)
	}
	for _, e := range s.execs {
		e.scopes = nil // the receivers near each executor changed
	}
	return nil
}

// Overhead is the core-seconds each node's worker overhead (Config.WorkerOverhead) has used since the
// start, and the workers on it now.
func (x *Sim) Overhead() (coreSeconds []float64, workers []int) {
	for _, c := range x.s.cpus {
		c.advance()
		coreSeconds, workers = append(coreSeconds, c.bgBusy), append(workers, c.bg)
	}
	return coreSeconds, workers
}

// Workers is each executor's worker now (numbered as Take's executors; an acker's is the worker it
// started on).
func (x *Sim) Workers() []int {
	var out []int
	for _, e := range x.s.execs {
		out = append(out, e.worker)
	}
	for _, e := range x.s.ackers {
		out = append(out, e.worker)
	}
	return out
}

// Restart takes executors (by Take's numbering, ackers excepted) down for d seconds, as a worker
// restarted by a new assignment: their queued tuples and the one in execution are lost, so are the
// tuples that reach them meanwhile (their trees fail at the message timeout); a restarted spout starts
// afresh, forgetting its trees in flight, and its open-loop schedule keeps running.
func (x *Sim) Restart(execs []int, d float64) error {
	s := x.s
	for _, i := range execs {
		if i < 0 || i >= len(s.execs) {
			return fmt.Errorf("restart: executor %d of %d", i, len(s.execs))
		}
	}
	for _, i := range execs {
		s.restart(s.execs[i], d)
	}
	return nil
}

func (s *sim) restart(e *executor, d float64) {
	for _, t := range e.queue[e.head:] {
		s.lose(t.root)
	}
	e.queue, e.head = e.queue[:0], 0
	if e.over {
		e.over = false
		s.over--
	}
	if e.busy {
		e.on.cancel(e) // where it runs: a moved executor's tuple runs on its former node
		e.on = nil
		s.lose(e.cur.root)
		e.busy, e.cur = false, tuple{}
	}
	if e.comp.Spout {
		e.inc++
		e.pending = 0
	}
	e.down = s.eng.now + d
	e.asleep, e.waking = false, false // a new thread
	s.settle(e)
	s.eng.post(e.down, event{kind: evNext, x: e})
	if s.over == 0 {
		s.resume() // the restart may have ended backpressure
	}
}

// lose marks root's tree as lost: it fails at its message timeout, freeing its spout's pending slot.
func (s *sim) lose(root *tree) {
	if root == nil || root.lost {
		return
	}
	root.lost = true
	timeout := s.cfg.MessageTimeout
	if timeout == 0 {
		timeout = DefaultMessageTimeout
	}
	s.eng.at(root.sent+timeout, func() {
		if root.inc != root.spout.inc {
			return
		}
		root.spout.pending--
		root.spout.tally.failed++
		s.trySpout(root.spout)
	})
}

// SetLoad puts background load of cores on node (burners, a straggler) from now on; 0 removes it. It
// shares the node's cores with the executors and the workers' overhead, and is not counted in the
// node's usage (NodeUsage) but in LoadUsage.
func (x *Sim) SetLoad(node int, cores float64) error {
	if node < 0 || node >= len(x.s.cpus) || cores < 0 {
		return fmt.Errorf("load: node %d of %d, %v cores: give a node of the cluster and cores >= 0", node, len(x.s.cpus), cores)
	}
	c := x.s.cpus[node]
	c.advance()
	c.load = cores
	c.rehold()
	c.schedule()
	return nil
}

// LoadUsage is the core-seconds each node's background load has used since the start.
func (x *Sim) LoadUsage() []float64 {
	var out []float64
	for _, c := range x.s.cpus {
		c.advance()
		out = append(out, c.loadBusy)
	}
	return out
}
