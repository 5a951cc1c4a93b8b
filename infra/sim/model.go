package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Config is one simulated run: a cluster, a topology placed on it, the costs of moving tuples, and the
// run's timing. Times are in seconds, CPU work in core-seconds of the reference machine.
type Config struct {
	Nodes    []Node
	Costs    Costs
	Topology Topology
	Seed     uint64
	WarmUp   float64 // seconds simulated before the window opens
	Measure  float64 // the window's length, seconds
	// WorkerOverhead is the cores each worker's own threads want besides its executors (the JVM's
	// garbage collector and compiler, Storm's transfer and receive threads, the instrumentation's
	// reporter), shared with the executors; 0 = none.
	WorkerOverhead float64
	// MessageTimeout is topology.message.timeout.secs: a tree with a lost tuple fails this long after its
	// emission, freeing its pending slot; 0 means DefaultMessageTimeout.
	MessageTimeout float64
	// Batch, when > 1, makes each simulated tuple stand for Batch tuples of the same executor, so a
	// large cluster runs in fewer events: service times are summed (mean x Batch, CV / sqrt(Batch)),
	// rates, pending limits and queue capacities divided by it, per-message costs and sizes multiplied;
	// every count comes out in tuples. Its price is latency's resolution (a batch finishes together):
	// BenchmarkBatchError measures it.
	Batch int
	// QueueCap is the receive queue's capacity in tuples at which backpressure starts (Storm 2's
	// topology.executor.receive.buffer.size); 0 means DefaultQueueCap.
	QueueCap int
	// IdleSpin is the cores a bolt executor's thread (an acker's too) uses while it has no tuple: Storm
	// 2's bolt wait strategy parks it for a nanosecond up to a thousand times before it sleeps, and
	// an executor that gets a tuple every few milliseconds never gets to sleep. The spinning shares
	// the node's cores as a thread that wants at most IdleSpin of a core, and is counted in the
	// executor's CPU. Spouts sleep in theirs (no spinning). 0 = none.
	IdleSpin float64
	// IdleSpinFor is how long an idle bolt's thread spins at its cap before it sleeps (the thousand
	// parks of topology.bolt.wait.progressive.level2.count, DefaultIdleSpinFor): a spell ends when the
	// thread has received IdleSpin x IdleSpinFor core-seconds, later where it shares its cores. It then
	// sleeps IdleSleep at a time (level3.sleep.millis, DefaultIdleSleep) and uses no CPU, and a tuple
	// that finds it asleep waits for its next wake-up. IdleSleep 0: it never sleeps, spinning for as
	// long as it is idle. IdleSpinFor 0 with IdleSleep above 0: it sleeps at once, spinning not at all
	// (level2.count=0), whatever IdleSpin.
	IdleSpinFor float64
	IdleSleep   float64
	// IdleSpinShare is, on a node short of cores (under a quota, or its executors at work and spinners
	// wanting more than its cores), about the share of what its threads get that its spinners get
	// together, each still at most IdleSpin: a thread that parks for microseconds at a time runs where a
	// busy thread lets it, so three spinners take about what six do (DefaultIdleSpinShare, measured).
	// 0 = no such limit: spinners share the cores as busy threads do.
	IdleSpinShare float64
	// Messaging runs each worker's messaging threads (threads.go): a message to another worker goes
	// through its worker's transfer thread, in a frame with the others of its drain for that worker,
	// and the receiving worker's Netty thread, each on its node's cores, priced by Costs.SendFrame,
	// SendMsg, RecvFrame and the deserialization, which that thread pays then, not the receiving
	// executor. Off: a message goes by itself, its deserialization charged to the executor, and the
	// threads' work is in WorkerOverhead.
	Messaging bool
	// TransferSleep is how long a transfer thread sleeps when it found nothing (Storm's 1 ms);
	// 0 means DefaultIdleSleep, a 1 ms sleep as long as it takes on this project's host.
	TransferSleep float64
}

// Storm 2's bolt wait strategy (WaitStrategyProgressive at its defaults: one busy poll, a thousand
// LockSupport.parkNanos(1), then Thread.sleep(1 ms) at a time), timed with a JDK 17 on this project's
// host (Linux's default 50 µs timer slack makes each park several times longer than asked; the
// results log has the measurement): a thousand parks take DefaultIdleSpinFor, a sleep DefaultIdleSleep.
const (
	DefaultIdleSpinFor = 0.072
	DefaultIdleSleep   = 0.00108
)

// DefaultIdleSpinShare is what threads in a parkNanos(1) loop got together beside one to three busy
// threads in a container of 0.5 or 1 core on this project's host (JDK 17, C1): 0.22-0.32 of its quota
// for 3 and 6 spinners, the median of those runs (the results log has the measurement). The twins do
// not set it: it is for costs read without the spinning, which the shipped ones hold.
const DefaultIdleSpinShare = 0.27

// DefaultMessageTimeout is Storm's default topology.message.timeout.secs (defaults.yaml), which the
// project's topologies keep (--message-timeout-secs 30).
const DefaultMessageTimeout = 30.0

// DefaultQueueCap is Storm 2's default topology.executor.receive.buffer.size (defaults.yaml).
const DefaultQueueCap = 32768

// Node is a supervisor host: its cores (as supervisor.cpu.capacity / 100) and its speed relative to
// the machine the costs were measured on.
type Node struct {
	Name  string
	Cores float64
	Speed float64 // 1 = the reference machine; 0 means 1
	// NICBytesPerS is the node's egress bandwidth shared by its flows to other nodes; 0 = unlimited.
	NICBytesPerS float64
	// QuotaPeriod, with Peak above Cores, makes Cores a quota, as a container's CPU limit is: Cores x
	// QuotaPeriod core-seconds per period (seconds), used at up to Peak cores at once, then nothing
	// until the next period (bandwidth). 0 = none: Cores is a steady capacity.
	QuotaPeriod float64
	Peak        float64
	// QuotaPhase is when the node's first whole period starts (0 <= phase < QuotaPeriod): containers'
	// periods run on timers of their own, out of step with each other.
	QuotaPhase float64
	// Host, on nodes under a quota, names the machine they share: their bursts compete for its Peak
	// cores (every node naming it has the same Peak), as containers on one host do. "" = a machine of
	// its own.
	Host string
}

// Costs are the prices of the three kinds of transfer. Within a worker a tuple is handed over without
// serialization; between workers (of a node or of two nodes) the sender pays SerMsg + SerByte x bytes
// and the receiver DeserMsg + DeserByte x bytes of CPU, and the tuple takes LocalLatency (same node) or
// LinkLatency plus its bytes over the sending node's NIC (two nodes).
type Costs struct {
	SerMsg, SerByte     float64 // CPU seconds per message and per byte, sender
	DeserMsg, DeserByte float64 // CPU seconds per message and per byte, receiver
	LocalLatency        float64 // seconds between two workers of a node
	LinkLatency         float64 // seconds between two nodes (one way)
	// AckCPU is the CPU seconds one ack costs: charged to the bolt that acks, or, with Topology.Ackers,
	// the acker executor's service time per ack message.
	AckCPU float64
	// MsgBytes is what every message between nodes takes on the sending node's link besides its own
	// bytes (Storm's framing; a batch of them under Config.Batch).
	MsgBytes int
	// With Config.Messaging: the CPU seconds of a frame on the sending worker (its transfer thread's
	// drain and Netty's write) and of each message in it there, and of a read on the receiving
	// worker's Netty thread (a sending worker's frames that arrived since its last read; besides each
	// message's deserialization).
	SendFrame, SendMsg, RecvFrame float64
	// SendWake and RecvWake are the CPU seconds of a messaging thread's wake-up, charged with its first
	// piece of work after it: the transfer thread's return from its sleep to a drain (and Netty's client
	// loop woken by the batches it is handed), the receiving thread woken by a frame after it waited
	// (epoll, the context switch, caches gone cold). Where messages are rare every frame pays one; a busy
	// thread pays few.
	SendWake, RecvWake float64
	// ExecWake is the CPU seconds a bolt's (or an acker's) thread spends waking from its wait strategy,
	// charged with the first tuple of each of its spells of idling (Config.IdleSpin; none without it):
	// where tuples are rare every tuple pays one, a busy executor few. At tens of tuples a second the
	// containers' bolts cost several times a tuple what they cost at thousands (results log).
	ExecWake float64
}

// Topology is the running topology: its components, its executors (tasks) placed on workers, and its
// workers placed on nodes.
type Topology struct {
	Components []Component
	Executors  []Executor
	Workers    []int // Workers[w] is the index in Config.Nodes of worker w's node
	// MaxSpoutPending bounds the tuple trees in flight per spout executor (topology.max.spout.pending);
	// 0 means unbounded (open loop only).
	MaxSpoutPending int
	// Rate is the open-loop rate of each spout executor, tuples/s; 0 = closed loop (as fast as
	// MaxSpoutPending lets it).
	Rate float64
	// Poisson arrivals (exponential gaps) instead of constant ones, under open loop.
	Poisson bool
	// Ackers runs Storm's acker as executors (on AckerWorkers, or one per worker): every
	// executed tuple sends an ack message to its tree's acker, which completes the tree and tells the
	// spout, each message a transfer of AckBytes. Without, a tree completes when its last tuple is
	// executed and the bolts pay Costs.AckCPU.
	Ackers   bool
	AckBytes int
	// AckerWorkers, with Ackers, is the worker of each acker executor, where the scheduler put them
	// (a tree's acker is drawn uniformly among them, as Storm hashes a tree's id over its acker
	// tasks); nil means one acker on each worker. Where they run matters: a scheduler that puts every
	// acker on one node puts the ack work of the whole topology there.
	AckerWorkers []int
	// LoadAware is Storm 2's load-aware shuffle (on unless topology.disable.loadaware.messaging): a
	// shuffle stream picks among the receivers in the sender's worker, else on its node, while their
	// load is at most LoadAwareBound, and among all otherwise.
	LoadAware bool
}

// LoadAwareBound is Storm's topology.localityaware.higher.bound (defaults.yaml): above this mean load
// (receive-queue fill) of a scope, a load-aware shuffle widens to the next scope.
const LoadAwareBound = 0.8

// Component is a spout or a bolt: the CPU one tuple costs it (a spout: to emit one), the tuples it
// emits per tuple it executes, and the size of its tuples.
type Component struct {
	Name    string
	Spout   bool
	Service Dist
	Streams []Stream
	Bytes   int // serialized size of its output tuples
	// Rate is a spout executor's open-loop rate, tuples/s, for this spout alone; 0 = Topology.Rate.
	Rate float64
	// Dataset is the tuples each executor of this spout emits in all (its share of a finite dataset),
	// after which it is done; 0 = endless. A restarted spout goes on from where it was, as the
	// project's dataset spouts resume from their saved position.
	Dataset int64
	// Deadline is a bolt's deadline T_dline, seconds after a tuple's T_start (its tree's emission),
	// against which its executed tuples are recorded as the instrumentation records them; 0 = none.
	Deadline float64
}

// Stream is an output stream: to component To, PerTuple tuples per executed tuple on average (a
// fraction is drawn: 2.4 emits 2, or 3 with probability 0.4), spread by Grouping.
type Stream struct {
	To       string
	PerTuple float64
	Grouping Grouping
}

// Grouping picks a stream's receiving executor.
type Grouping int

const (
	// Shuffle picks a receiving executor uniformly (Storm's shuffle with load-aware messaging off).
	Shuffle Grouping = iota
	// LocalOrShuffle picks among the receiving executors of the sender's worker when there are any.
	LocalOrShuffle
	// All sends a copy to every receiving executor.
	All
	// Global sends every tuple to the receiving component's first executor.
	Global
	// Fields picks a receiving executor by the tuple's key: uniformly here, and never load-aware,
	// unlike Shuffle. (Storm's hash of real keys loads some tasks more; docs/simulator.md, "Left out".)
	Fields
)

// Executor is one task of a component, on worker Worker.
type Executor struct {
	Component string
	Worker    int
}

// Dist is a distribution of CPU seconds per tuple: Mean with coefficient of variation CV, of Kind.
type Dist struct {
	Mean float64
	CV   float64
	Kind DistKind
}

// DistKind is a family of service-time distributions.
type DistKind int

const (
	Deterministic DistKind = iota // always Mean
	Exponential                   // CV 1
	LogNormal                     // Mean and CV as given
)

// draw is one value of d.
func (d Dist) draw(r *rand.Rand) float64 {
	switch d.Kind {
	case Exponential:
		return d.Mean * r.ExpFloat64()
	case LogNormal:
		mu, sigma := d.logNormal()
		return math.Exp(mu + sigma*r.NormFloat64())
	}
	return d.Mean
}

// logNormal is a LogNormal d's parameters: the mean and the standard deviation of its logarithm.
func (d Dist) logNormal() (mu, sigma float64) {
	s2 := math.Log1p(d.CV * d.CV)
	return math.Log(d.Mean) - s2/2, math.Sqrt(s2)
}

// sampler draws a Dist with its logarithm's parameters worked out once (an executor draws one value
// per tuple); it draws what Dist.draw draws.
type sampler struct {
	d         Dist
	mu, sigma float64
}

func newSampler(d Dist) sampler {
	s := sampler{d: d}
	if d.Kind == LogNormal {
		s.mu, s.sigma = d.logNormal()
	}
	return s
}

func (s *sampler) draw(r *rand.Rand) float64 {
	if s.d.Kind == LogNormal {
		return math.Exp(s.mu + s.sigma*r.NormFloat64())
	}
	return s.d.draw(r)
}

// check names what is wrong with c, and how to fix it; window: a run of Run (WarmUp and Measure set).
func (c *Config) check(window bool) error {
	var errs []error
	add := func(f string, a ...any) { errs = append(errs, fmt.Errorf(f, a...)) }
	if len(c.Nodes) == 0 {
		add("no nodes: give at least one Node with Cores > 0")
	}
	for i, n := range c.Nodes {
		if !(n.Cores > 0) || n.Speed < 0 || n.NICBytesPerS < 0 {
			add("node %d (%s): cores %v, speed %v, NIC %v: give cores > 0, speed >= 0 and NIC >= 0", i, n.Name, n.Cores, n.Speed, n.NICBytesPerS)
		}
		if n.QuotaPhase < 0 || n.QuotaPhase > 0 && !(n.QuotaPhase < n.QuotaPeriod) {
			add("node %d (%s): quota phase %v s: give 0 <= phase < its period %v s", i, n.Name, n.QuotaPhase, n.QuotaPeriod)
		}
		if n.QuotaPeriod < 0 || n.QuotaPeriod > 0 && !(n.Peak >= n.Cores) {
			add("node %d (%s): quota period %v s, peak %v cores: give no period (a steady capacity), or a period > 0 and a peak >= its cores %v", i, n.Name, n.QuotaPeriod, n.Peak, n.Cores)
		}
	}
	peaks := map[string]float64{}
	for i, n := range c.Nodes {
		if n.Host == "" {
			continue
		}
		if p, ok := peaks[n.Host]; n.QuotaPeriod <= 0 || ok && p != n.Peak {
			add("node %d (%s): host %q with quota period %v s, peak %v cores: a shared host is for nodes under a quota, all with its cores as their peak", i, n.Name, n.Host, n.QuotaPeriod, n.Peak)
		}
		peaks[n.Host] = n.Peak
	}
	if window && (!(c.Measure > 0) || c.WarmUp < 0) {
		add("window: warm-up %v s, measure %v s: give warm-up >= 0 and measure > 0", c.WarmUp, c.Measure)
	}
	if c.WorkerOverhead < 0 {
		add("worker overhead %v cores: give 0 or more", c.WorkerOverhead)
	}
	if c.MessageTimeout < 0 {
		add("message timeout %v s: give 0 (Storm's default) or more", c.MessageTimeout)
	}
	if c.Batch < 0 {
		add("batch %d: give 0 or 1 (none) or more", c.Batch)
	}
	if k := c.Costs; !(k.SendFrame >= 0 && k.SendMsg >= 0 && k.RecvFrame >= 0 && c.TransferSleep >= 0 && k.SendWake >= 0 && k.RecvWake >= 0) {
		add("messaging: send %v s a frame and %v s a message, receive %v s a frame, wake-ups %v s sending and %v s receiving, sleep %v s: give 0 or more",
			k.SendFrame, k.SendMsg, k.RecvFrame, k.SendWake, k.RecvWake, c.TransferSleep)
	}
	if c.Costs.ExecWake < 0 {
		add("executor wake-up %v s: give 0 or more", c.Costs.ExecWake)
	}
	if c.QueueCap < 0 {
		add("queue capacity %d: give 0 (Storm's default) or more", c.QueueCap)
	}
	if !(c.IdleSpin >= 0 && c.IdleSpin <= 1) {
		add("idle spin %v cores: give 0 (none) to 1 (a thread's core)", c.IdleSpin)
	}
	if !(c.IdleSpinShare >= 0 && c.IdleSpinShare <= 1) {
		add("idle spin share %v: give a share of a node's cores in [0, 1] (0: no limit)", c.IdleSpinShare)
	}
	if !(c.IdleSpinFor >= 0 && c.IdleSleep >= 0) || c.IdleSpinFor > 0 && c.IdleSleep == 0 {
		add("idle spin for %v s, then sleeps of %v s: give both > 0 (Storm's wait strategy), a sleep alone (sleep at once) or both 0 (spin while idle)", c.IdleSpinFor, c.IdleSleep)
	}
	errs = append(errs, c.Topology.check(len(c.Nodes))...)
	return errors.Join(errs...)
}

func (t *Topology) check(nodes int) []error {
	var errs []error
	add := func(f string, a ...any) { errs = append(errs, fmt.Errorf(f, a...)) }
	comps := map[string]Component{}
	spouts := 0
	for _, c := range t.Components {
		if _, dup := comps[c.Name]; dup || c.Name == "" {
			add("component %q: give each component a unique, non-empty name", c.Name)
		}
		comps[c.Name] = c
		if c.Spout {
			spouts++
		}
		if c.Dataset < 0 || c.Deadline < 0 || (c.Dataset > 0 && !c.Spout) {
			add("component %s: dataset %d tuples, deadline %v s: give 0 or more, and a dataset to spouts only", c.Name, c.Dataset, c.Deadline)
		}
		if !(c.Service.Mean > 0) || c.Service.CV < 0 {
			add("component %s: service mean %v s, CV %v: give mean > 0 and CV >= 0", c.Name, c.Service.Mean, c.Service.CV)
		}
	}
	for _, c := range t.Components {
		for _, s := range c.Streams {
			if _, ok := comps[s.To]; !ok || s.PerTuple < 0 {
				add("component %s: stream to %q (%v per tuple): name a component of the topology and a rate >= 0", c.Name, s.To, s.PerTuple)
			}
		}
	}
	if spouts == 0 {
		add("no spout: mark the components that emit tuples with Spout")
	}
	for w, n := range t.Workers {
		if n < 0 || n >= nodes {
			add("worker %d is on node %d: the cluster has nodes 0 to %d", w, n, nodes-1)
		}
	}
	for i, w := range t.AckerWorkers {
		if !t.Ackers || w < 0 || w >= len(t.Workers) {
			add("acker %d on worker %d: place ackers on workers of the topology, with Ackers", i, w)
		}
	}
	for i, e := range t.Executors {
		if _, ok := comps[e.Component]; !ok || e.Worker < 0 || e.Worker >= len(t.Workers) {
			add("executor %d (%s on worker %d): name a component and a worker of the topology", i, e.Component, e.Worker)
		}
	}
	for _, c := range t.Components {
		if c.Spout && (c.Rate < 0 || t.Rate < 0 || t.MaxSpoutPending < 0 || (c.Rate == 0 && t.Rate == 0 && t.MaxSpoutPending == 0)) {
			add("spout %s: rate %v (topology %v), max pending %d: give a rate > 0 (open loop) or a max pending > 0 (closed loop)", c.Name, c.Rate, t.Rate, t.MaxSpoutPending)
		}
	}
	return errs
}
