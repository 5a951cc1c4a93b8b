package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// CostFormat is the version of the cost-model file.
const CostFormat = 1

// CostModel is what a simulated cluster charges, measured on a real one: the transfer costs, and per
// topology (by its main class) each component's CPU per tuple, the tuples it emits per tuple and their
// size, with the provenance of every figure. `stormlab sim costs` writes it from recorded runs.
type CostModel struct {
	Format     int                      `json:"format"`
	Name       string                   `json:"name"`
	Provenance CostProvenance           `json:"provenance"`
	Transfer   TransferCosts            `json:"transfer"`
	Topologies map[string]TopologyCosts `json:"topologies"` // by main class
}

// CostProvenance says where a cost model's figures come from.
type CostProvenance struct {
	Cluster  string `json:"cluster"`   // the real cluster measured (containers:SHAPE or a target's name)
	Host     string `json:"host"`      // the machine it ran on (cores, CPU model)
	JVMFlags string `json:"jvm_flags"` // the workers' JVM flags of the measured runs
	// WaitConf are the measured runs' settings of Storm's wait strategies (topology.bolt.wait.* and
	// topology.spout.wait.*; runs that differ apart, " | " between them), "" where every run had
	// Storm's defaults: whether idle bolts parked beside the work the costs were read from.
	WaitConf string   `json:"wait_conf,omitempty"`
	Date     string   `json:"date"`
	Commit   string   `json:"commit"`
	Runs     []string `json:"runs"`   // the recorded runs the figures were taken from
	Method   string   `json:"method"` // how the figures were derived
	// Uncertainty says how each cost's stated interval (the *_pi95 fields) was computed from the runs.
	Uncertainty string `json:"uncertainty,omitempty"`
	// Missing names what the model does not yet measure (charged as zero).
	Missing []string `json:"missing,omitempty"`
	// HostCores are the cores of the machine the runs' containers shared, when every run was on this
	// project's containers: under its CPU quota a container's threads use up to them at once (a
	// simulated container node's Peak). 0 when unknown (a target's cluster, or an older file).
	HostCores int `json:"host_cores,omitempty"`
}

// TransferCosts are Costs as the cost-model file writes them (seconds, bytes).
type TransferCosts struct {
	SerMsgS      float64 `json:"ser_msg_s"`
	SerByteS     float64 `json:"ser_byte_s"`
	DeserMsgS    float64 `json:"deser_msg_s"`
	DeserByteS   float64 `json:"deser_byte_s"`
	LocalLatency float64 `json:"local_latency_s"`
	LinkLatency  float64 `json:"link_latency_s"`
	// The transfer costs' stated intervals (nil: not measured, or measured by a file that predates them).
	SerMsgPI       *Interval `json:"ser_msg_s_pi95,omitempty"`
	SerBytePI      *Interval `json:"ser_byte_s_pi95,omitempty"`
	DeserMsgPI     *Interval `json:"deser_msg_s_pi95,omitempty"`
	DeserBytePI    *Interval `json:"deser_byte_s_pi95,omitempty"`
	LocalLatencyPI *Interval `json:"local_latency_s_pi95,omitempty"`
	LinkLatencyPI  *Interval `json:"link_latency_s_pi95,omitempty"`
	AckCPUS        float64   `json:"ack_cpu_s"`
	// AckBytes is an ack message's size on a link and MsgBytes what every message between nodes takes
	// there besides its tuple's serialized size (Storm's framing, frames' headers beyond a full
	// frame's); each with its stated interval (nil: not measured).
	AckBytes   int       `json:"ack_bytes"`
	AckBytesPI *Interval `json:"ack_bytes_pi95,omitempty"`
	MsgBytes   int       `json:"msg_bytes,omitempty"`
	MsgBytesPI *Interval `json:"msg_bytes_pi95,omitempty"`
	// WorkerOverheadCores is what each worker's own threads use besides its executors' (the worker's
	// process CPU less its executor threads'), and WorkerOverheadSD its spread over the measured workers.
	WorkerOverheadCores float64   `json:"worker_overhead_cores"`
	WorkerOverheadSD    float64   `json:"worker_overhead_sd"`
	WorkerOverheadPI    *Interval `json:"worker_overhead_cores_pi95,omitempty"`
	// WorkerStartS is how long a worker takes from its assignment to running its executors (a run's
	// submit to every executor's heartbeat: Nimbus's scheduling round and the worker JVMs' start), and
	// WorkerStartSD its spread over the measured runs. A migration restarts workers for this long.
	WorkerStartS  float64   `json:"worker_start_s"`
	WorkerStartSD float64   `json:"worker_start_sd"`
	WorkerStartPI *Interval `json:"worker_start_s_pi95,omitempty"`
	// AckCPUPI is AckCPUS's stated interval.
	AckCPUPI *Interval `json:"ack_cpu_s_pi95,omitempty"`
	// IdleSpinCores is what an idle bolt's (or acker's) thread uses in Storm's wait strategy (the
	// simulator's Config.IdleSpin), IdleSpinSD its spread between runs; 0 where not measured.
	IdleSpinCores float64   `json:"idle_spin_cores,omitempty"`
	IdleSpinSD    float64   `json:"idle_spin_sd,omitempty"`
	IdleSpinPI    *Interval `json:"idle_spin_cores_pi95,omitempty"`
	// IdleSpinShare is Config.IdleSpinShare for a model whose per-tuple costs were read without the
	// spinning (sim costs --method counted): on a node short of CPU its spinners get about this share of
	// what its threads get together. 0 = spinners share the cores as busy threads do.
	IdleSpinShare float64 `json:"idle_spin_share,omitempty"`
	// MessagingThreads makes the model run each worker's transfer and Netty threads (Config.Messaging)
	// at SendFrameS, SendMsgS and RecvFrameS (and the deserialization, which they pay then), and
	// WorkerOverheadCores is then the worker's other threads alone. A file without it runs the threads'
	// work inside WorkerOverheadCores.
	MessagingThreads bool      `json:"messaging_threads,omitempty"`
	SendFrameS       float64   `json:"send_frame_s,omitempty"`
	SendMsgS         float64   `json:"send_msg_s,omitempty"`
	RecvFrameS       float64   `json:"recv_frame_s,omitempty"`
	SendFramePI      *Interval `json:"send_frame_s_pi95,omitempty"`
	SendMsgPI        *Interval `json:"send_msg_s_pi95,omitempty"`
	RecvFramePI      *Interval `json:"recv_frame_s_pi95,omitempty"`
	// TransferIdleCores is what a worker's transfer thread uses ticking idle (its Thread.sleep(1 ms)
	// returning to an empty queue), cores a worker: charged with the worker's overhead, steady, as the
	// thread ticks idle most of the time at any rate here (its drains are short).
	TransferIdleCores float64   `json:"transfer_idle_cores,omitempty"`
	TransferIdlePI    *Interval `json:"transfer_idle_cores_pi95,omitempty"`
	// SendWakeS and RecvWakeS are Costs.SendWake and RecvWake (with MessagingThreads; 0: none charged).
	SendWakeS  float64   `json:"send_wake_s,omitempty"`
	RecvWakeS  float64   `json:"recv_wake_s,omitempty"`
	SendWakePI *Interval `json:"send_wake_s_pi95,omitempty"`
	RecvWakePI *Interval `json:"recv_wake_s_pi95,omitempty"`
	// ExecWakeS is Costs.ExecWake, a bolt's wake-up from its wait strategy (0: none charged).
	ExecWakeS  float64   `json:"exec_wake_s,omitempty"`
	ExecWakePI *Interval `json:"exec_wake_s_pi95,omitempty"`
}

// Interval is a cost's stated uncertainty: the range in which a measurement of the same configuration
// from as many runs falls with 95% probability (CostProvenance.Uncertainty says how it was computed).
// A cost without one (nil) was measured from too little to say: one run, and no spread within it.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Contains says whether x lies in i; a missing interval contains nothing.
func (i *Interval) Contains(x float64) bool { return i != nil && x >= i.Lo && x <= i.Hi }

// Costs is t as the model's Costs.
func (t TransferCosts) Costs() Costs {
	return Costs{SerMsg: t.SerMsgS, SerByte: t.SerByteS, DeserMsg: t.DeserMsgS, DeserByte: t.DeserByteS,
		LocalLatency: t.LocalLatency, LinkLatency: t.LinkLatency, AckCPU: t.AckCPUS, MsgBytes: t.MsgBytes,
		SendFrame: t.SendFrameS, SendMsg: t.SendMsgS, RecvFrame: t.RecvFrameS, SendWake: t.SendWakeS, RecvWake: t.RecvWakeS,
		ExecWake: t.ExecWakeS}
}

// TopologyCosts are one topology's measured component costs, at the flags that change a tuple's work
// (WorkArgs: e.g. k and dims of k-means); a run at other values of them has no costs.
type TopologyCosts struct {
	WorkArgs   map[string]string        `json:"work_args,omitempty"`
	Components map[string]ComponentCost `json:"components"`
	Runs       int                      `json:"runs"` // runs pooled
	// AckCPUS is the acker's CPU per message in this topology's runs, and AckCPUPI its stated interval:
	// charged in place of the transfer figure pooled over every topology (0: not measured, that one).
	AckCPUS  float64   `json:"ack_cpu_s,omitempty"`
	AckCPUPI *Interval `json:"ack_cpu_s_pi95,omitempty"`
	// AckExecute is Storm's execute latency of the topology's ackers, as ComponentCost.Execute.
	AckExecute *StormExecute `json:"ack_storm_execute,omitempty"`
}

// StormExecute is Storm's own execute latency of a bolt (its executors' mean time in execute() over the
// runs' windows, from Storm's statistics) on the node where it was lowest, and that node's CPU used as
// a share of its quota; the means over the runs that read it. It stands beside the CPU per tuple and is
// not charged: execute() holds a tuple's work with its emits and acks but not the executor's wait for
// the next tuple, so on a node with CPU to spare it is the tuple's service time without the wait
// strategy's spinning that the thread CPU holds, and on a node at its quota it is wall time that
// includes waiting for the CPU.
type StormExecute struct {
	Micros   float64 `json:"us"`
	NodeUsed float64 `json:"node_used"`
}

// check refuses a latency that is not positive or a node share below zero.
func (e *StormExecute) check() error {
	if e != nil && !(e.Micros > 0 && e.NodeUsed >= 0) {
		return fmt.Errorf("%v µs on a node at %v of its quota: give a latency > 0 and a share >= 0 (measure again with stormlab sim costs)", e.Micros, e.NodeUsed)
	}
	return nil
}

// ComponentCost is one component's measured figures: CPU per tuple (executed; a spout's per tuple
// emitted) as the mean over runs, its standard deviation between runs (what a simulated run draws
// from) and its stated interval (what measuring again would give), its tuples' serialized size and
// its streams.
type ComponentCost struct {
	Spout       bool      `json:"spout"`
	CPUMicros   float64   `json:"cpu_us"`
	CPUMicrosSD float64   `json:"cpu_us_sd"`
	CPUMicrosPI *Interval `json:"cpu_us_pi95,omitempty"`
	// IdleCores is what each executor of the component uses at any rate besides its tuples (its wait
	// strategy), where the costs were fitted that way (stormlab sim costs --method fit); 0 otherwise.
	IdleCores float64      `json:"idle_cores,omitempty"`
	Bytes     float64      `json:"bytes"`
	Streams   []StreamCost `json:"streams"`
	// Execute is Storm's execute latency of a bolt (StormExecute); nil for a spout or where the runs
	// kept no Storm statistics.
	Execute *StormExecute `json:"storm_execute,omitempty"`
}

// StreamCost is a stream's tuples per tuple its sender executes (per receiver, for an all grouping).
type StreamCost struct {
	To       string  `json:"to"`
	PerTuple float64 `json:"per_tuple"`
	Grouping string  `json:"grouping"` // shuffle, fields, all, global, local_or_shuffle
}

// ReadCostModel reads and checks a cost-model file.
func ReadCostModel(r io.Reader) (*CostModel, error) {
	var m CostModel
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("cost model: %w (write one with stormlab sim costs)", err)
	}
	if m.Format != CostFormat {
		return nil, fmt.Errorf("cost model %q: format %d, this stormlab reads format %d: measure it again with stormlab sim costs", m.Name, m.Format, CostFormat)
	}
	if len(m.Topologies) == 0 {
		return nil, fmt.Errorf("cost model %q has no topology: measure one with stormlab sim costs", m.Name)
	}
	for class, t := range m.Topologies {
		for name, c := range t.Components {
			if !(c.CPUMicros > 0) || c.CPUMicrosSD < 0 || c.Bytes < 0 {
				return nil, fmt.Errorf("cost model %q: %s component %s: cpu %v µs (sd %v), %v bytes: give cpu > 0, sd >= 0, bytes >= 0", m.Name, class, name, c.CPUMicros, c.CPUMicrosSD, c.Bytes)
			}
			if err := checkInterval(c.CPUMicrosPI, c.CPUMicros); err != nil {
				return nil, fmt.Errorf("cost model %q: %s component %s: cpu_us_pi95: %w", m.Name, class, name, err)
			}
			if err := c.Execute.check(); err != nil {
				return nil, fmt.Errorf("cost model %q: %s component %s: storm_execute: %w", m.Name, class, name, err)
			}
		}
		if t.AckCPUS < 0 {
			return nil, fmt.Errorf("cost model %q: %s ack_cpu_s %v: give 0 (the transfer figure) or more", m.Name, class, t.AckCPUS)
		}
		if err := checkInterval(t.AckCPUPI, t.AckCPUS); err != nil {
			return nil, fmt.Errorf("cost model %q: %s ack_cpu_s_pi95: %w", m.Name, class, err)
		}
		if err := t.AckExecute.check(); err != nil {
			return nil, fmt.Errorf("cost model %q: %s ack_storm_execute: %w", m.Name, class, err)
		}
	}
	tr := m.Transfer
	for _, f := range []struct {
		name string
		ci   *Interval
		x    float64
	}{{"ack_cpu_s_pi95", tr.AckCPUPI, tr.AckCPUS}, {"worker_overhead_cores_pi95", tr.WorkerOverheadPI, tr.WorkerOverheadCores}, {"worker_start_s_pi95", tr.WorkerStartPI, tr.WorkerStartS},
		{"ser_msg_s_pi95", tr.SerMsgPI, tr.SerMsgS}, {"ser_byte_s_pi95", tr.SerBytePI, tr.SerByteS},
		{"deser_msg_s_pi95", tr.DeserMsgPI, tr.DeserMsgS}, {"deser_byte_s_pi95", tr.DeserBytePI, tr.DeserByteS},
		{"local_latency_s_pi95", tr.LocalLatencyPI, tr.LocalLatency}, {"link_latency_s_pi95", tr.LinkLatencyPI, tr.LinkLatency},
		{"idle_spin_cores_pi95", tr.IdleSpinPI, tr.IdleSpinCores}, {"send_frame_s_pi95", tr.SendFramePI, tr.SendFrameS},
		{"send_msg_s_pi95", tr.SendMsgPI, tr.SendMsgS}, {"recv_frame_s_pi95", tr.RecvFramePI, tr.RecvFrameS},
		{"send_wake_s_pi95", tr.SendWakePI, tr.SendWakeS}, {"recv_wake_s_pi95", tr.RecvWakePI, tr.RecvWakeS},
		{"transfer_idle_cores_pi95", tr.TransferIdlePI, tr.TransferIdleCores}, {"exec_wake_s_pi95", tr.ExecWakePI, tr.ExecWakeS}} {
		if err := checkInterval(f.ci, f.x); err != nil {
			return nil, fmt.Errorf("cost model %q: transfer %s: %w", m.Name, f.name, err)
		}
	}
	if !(tr.IdleSpinShare >= 0 && tr.IdleSpinShare < 1) {
		return nil, fmt.Errorf("cost model %q: transfer idle_spin_share %v: give a share in [0, 1) (0: no limit)", m.Name, tr.IdleSpinShare)
	}
	if !(tr.IdleSpinCores >= 0 && tr.IdleSpinCores < 1) || tr.IdleSpinSD < 0 {
		return nil, fmt.Errorf("cost model %q: transfer idle_spin_cores %v (sd %v): give 0 <= cores < 1 and sd >= 0 (measure again with stormlab sim costs)", m.Name, tr.IdleSpinCores, tr.IdleSpinSD)
	}
	if th := []float64{tr.SendFrameS, tr.SendMsgS, tr.RecvFrameS, tr.SendWakeS, tr.RecvWakeS, tr.TransferIdleCores}; !(slices.Min(th) >= 0) || !tr.MessagingThreads && slices.Max(th) > 0 {
		return nil, fmt.Errorf("cost model %q: transfer send_frame_s %v, send_msg_s %v, recv_frame_s %v, send_wake_s %v, recv_wake_s %v, transfer_idle_cores %v (messaging_threads %v): give 0 or more, with messaging_threads true where any is set",
			m.Name, tr.SendFrameS, tr.SendMsgS, tr.RecvFrameS, tr.SendWakeS, tr.RecvWakeS, tr.TransferIdleCores, tr.MessagingThreads)
	}
	if !(tr.ExecWakeS >= 0) {
		return nil, fmt.Errorf("cost model %q: transfer exec_wake_s %v: give 0 or more", m.Name, tr.ExecWakeS)
	}
	return &m, nil
}

// checkInterval refuses an interval that is inverted, negative or leaves out the figure it is about.
func checkInterval(i *Interval, x float64) error {
	if i == nil {
		return nil
	}
	if i.Lo < 0 || i.Lo > x || x > i.Hi {
		return fmt.Errorf("[%v, %v] around %v: give 0 <= lo <= the figure <= hi (or measure again with stormlab sim costs)", i.Lo, i.Hi, x)
	}
	return nil
}

// WriteCostModel writes m as indented JSON.
func WriteCostModel(w io.Writer, m *CostModel) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// Topology is the costs of main class class, or an error naming the topologies the model has and
// the command that measures this one.
func (m *CostModel) Topology(class string) (TopologyCosts, error) {
	if t, ok := m.Topologies[class]; ok {
		return t, nil
	}
	known := slices.Sorted(maps.Keys(m.Topologies))
	return TopologyCosts{}, fmt.Errorf("cost model %q has no costs for %s (it has %s): record runs of it on a real cluster "+
		"(stormlab run --cluster ... --out DIR), then stormlab sim costs --from DIR; a user's own topology: stormlab capture, then run its replay",
		m.Name, class, strings.Join(known, ", "))
}
