package protocol

import (
	"encoding/json"
	"time"
)

// The class of the bridge and its configuration keys, as a Nimbus, its supervisors and a topology read
// them.
const (
	// BridgeClass is the Nimbus-side IScheduler that calls the Go service.
	BridgeClass = "org.stormlab.bridge.BridgeScheduler"
	// TopologySchedulerConf is the topology conf key naming the topology's scheduler for the bridge on
	// Nimbus (BridgeScheduler's Delegates.TOPOLOGY_CONF): storm-even, storm-default and storm-ras run in
	// Nimbus's process, any other name is a Go scheduler the service runs.
	TopologySchedulerConf = "stormlab.scheduler"
	// TokenConf is the storm.yaml key of the service's token: the bridge reads it from Nimbus's conf, the
	// workers' reporter from the supervisors' (it reaches the workers' conf, not the topology's).
	TokenConf = "stormlab.scheduler.token"
	// DefaultSchedulerConf is the Nimbus conf key naming the scheduler of topologies that name none
	// (BridgeScheduler's Delegates.CONF_DEFAULT; without it, storm-default: Nimbus's own behaviour).
	DefaultSchedulerConf = "stormlab.scheduler.default"
	// NodesConf is the topology conf key listing (comma-separated) the supervisor hosts that Storm's
	// EvenScheduler and DefaultScheduler may place the topology on under the bridge (Delegates.NODES_CONF):
	// "4 workers on n nodes" on a cluster of more. RAS and the Go schedulers ignore it.
	NodesConf = "stormlab.nodes"
)

// Paths served by the scheduler service.
const (
	PathSchedule = "/v1/schedule"
	PathMetrics  = "/v1/metrics"
	PathHealth   = "/v1/health"
	PathFallback = "/v1/fallback" // POST Fallback: the bridge fell back to EvenScheduler
	PathState    = "/v1/state"    // GET State (?since_ms=T filters time series)
	PathReports  = "/v1/reports"  // GET []WorkerReport as received (?since_ms=T)
	PathReset    = "/v1/reset"    // POST: forget measurements, decisions and fallbacks
	// PathNodes takes a NodeReport: a supervisor's whole CPU use (workers
	// and anything else running there, e.g. background load).
	PathNodes = "/v1/nodes"
	// PathScheduler (POST SchedulerChoice) replaces the service's scheduler
	// between runs, so one cluster can serve several schedulers in turn.
	PathScheduler = "/v1/scheduler"
	// PathBurn switches a burner topology's load: POST Burn sets it, GET ?topology=NAME reads it (a Burn;
	// busy 0 for a name never set). A burner submitted with --busy-from-service polls it, so a straggler
	// fault turns a running burner on and off at once instead of waiting for a worker JVM to start.
	PathBurn = "/v1/burn"
)

// Burn is the share of every period each task of the burner topology named Topology spins (0 = idle).
type Burn struct {
	Topology string  `json:"topology"`
	Busy     float64 `json:"busy"`
}

// NodeReport is one supervisor's CPU use over an interval, all processes
// of the node counted (100 = one core), as sampled from its container's
// cgroup. It is the load table's CPU_use when fresh.
type NodeReport struct {
	Host       string  `json:"host"`
	TimeMs     int64   `json:"time_ms"`
	IntervalS  float64 `json:"interval_s"`
	CPUPercent float64 `json:"cpu_percent"`
}

// DefaultRescheduleEvery is the scheduler service's period between a dynamic
// scheduler's Reschedule calls when nothing sets another.
const DefaultRescheduleEvery = 30 * time.Second

// SchedulerChoice names a scheduler and its options (schedulers.Options
// as JSON), for PathScheduler. RescheduleEveryMs, when > 0, also sets the
// period between a dynamic scheduler's Reschedule calls for a running
// topology (the service's --reschedule-every); 0 leaves it as it is. It is
// here, not only a flag, so that an experiment can set it on a cluster it
// did not start (a target).
type SchedulerChoice struct {
	Scheduler         string          `json:"scheduler"`
	Options           json.RawMessage `json:"options,omitempty"`
	RescheduleEveryMs int64           `json:"reschedule_every_ms,omitempty"`
}

// Executor is Storm's ExecutorDetails: a range of task ids [Start, End].
type Executor struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// ExecutorSlot places one executor on a worker slot.
type ExecutorSlot struct {
	Executor   Executor `json:"executor"`
	Supervisor string   `json:"supervisor"` // supervisor id
	Port       int      `json:"port"`
}

// Component is one executor of a topology with its component id.
type ComponentExecutor struct {
	Executor  Executor `json:"executor"`
	Component string   `json:"component"`
	// MemoryMB is the memory its component declares, on- and off-heap (Storm's defaults when the
	// topology declares none); 0 when the sender does not say. Resource-aware schedulers (R-Storm,
	// the deadline scheduler) read it as the executor's demand.
	MemoryMB float64 `json:"memory_mb,omitempty"`
}

// Stream is a component-level edge (from the topology's StormTopology),
// used before any traffic is measured.
type Stream struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Grouping string `json:"grouping"` // shuffle, fields, all, global, ...
}

// Topology is one topology in the snapshot.
type Topology struct {
	ID              string              `json:"id"`
	Name            string              `json:"name"`
	NumWorkers      int                 `json:"num_workers"`
	Executors       []ComponentExecutor `json:"executors"`  // includes system executors (__acker, ...)
	Streams         []Stream            `json:"streams"`    // may be empty
	Assignment      []ExecutorSlot      `json:"assignment"` // current placement, empty if none
	NeedsScheduling bool                `json:"needs_scheduling"`
}

// Supervisor is one node of the cluster as Nimbus sees it.
type Supervisor struct {
	ID        string            `json:"id"`
	Host      string            `json:"host"`
	CPU       float64           `json:"cpu"`       // supervisor.cpu.capacity (100 = one core)
	MemoryMB  float64           `json:"memory_mb"` // supervisor.memory.capacity.mb
	Ports     []int             `json:"ports"`     // all slots
	FreePorts []int             `json:"free_ports"`
	Meta      map[string]string `json:"meta,omitempty"` // supervisor.scheduler.meta
}

// Snapshot is what the bridge sends each round.
type Snapshot struct {
	TimeMs      int64        `json:"time_ms"`
	Topologies  []Topology   `json:"topologies"`
	Supervisors []Supervisor `json:"supervisors"`
	// PrevRoundMs is the bridge's wall time of its previous round
	// (snapshot -> decision -> applied); 0 on the first round.
	PrevRoundMs float64 `json:"prev_round_ms,omitempty"`
}

// WorkerAssignment is one worker slot and the executors it runs.
type WorkerAssignment struct {
	Supervisor string     `json:"supervisor"`
	Port       int        `json:"port"`
	Executors  []Executor `json:"executors"`
}

// TopologyDecision is the full new placement of one topology. The bridge
// frees the topology's current slots and assigns these. A topology absent
// from Decision.Topologies is left as it is.
type TopologyDecision struct {
	ID      string             `json:"id"`
	Workers []WorkerAssignment `json:"workers"`
}

// Decision is the service's answer to a Snapshot.
type Decision struct {
	Scheduler  string             `json:"scheduler"`
	Topologies []TopologyDecision `json:"topologies"`
	// Errors names topologies the service could not place (scheduler
	// error, impossible cluster); the bridge falls back for those that need
	// scheduling and records the reason.
	Errors []TopologyError `json:"errors,omitempty"`
}

// TopologyError is why the service gave no placement for a topology.
type TopologyError struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// Fallback is what the bridge POSTs to PathFallback when it used Storm's
// EvenScheduler instead of the service's answer. A run with any fallback
// is invalid.
type Fallback struct {
	TimeMs   int64  `json:"time_ms"`
	Topology string `json:"topology,omitempty"` // empty: the whole round
	Reason   string `json:"reason"`
}

// TaskTraffic counts tuples executed by task Dst that came from task Src.
type TaskTraffic struct {
	Src   int   `json:"src"`
	Dst   int   `json:"dst"`
	Count int64 `json:"count"`
}

// TaskEmits counts tuples task Task emitted on stream Stream (the topology's own streams; Storm's
// "__" system streams are not counted). Every emit counts once, whatever number of tasks receive it.
type TaskEmits struct {
	Task   int    `json:"task"`
	Stream string `json:"stream"`
	Count  int64  `json:"count"`
}

// TaskCPU is CPU time spent in one task's executor thread (ThreadMXBean).
type TaskCPU struct {
	Task  int   `json:"task"`
	CPUNs int64 `json:"cpu_ns"`
	// SpinNs is the part of CPUNs the thread spent in the wait strategy while idle: a simulated run's
	// model tells it apart, and an instrumented real worker counts it in its bolts' wait strategy
	// (CountedWait; absent for spouts and for workers that predate it).
	SpinNs int64 `json:"spin_ns,omitempty"`
	// SpinLastNs is the idle CPU CountedWait cannot count, estimated: each spell of idling's last park
	// (the one a tuple arrives in: its CPU is only read after the tuple's work), as the thread's mean CPU
	// per counted park. It is part of CPUNs and not of SpinNs. A simulated run's SpinNs holds all its
	// spinning and this is 0; so is it in reports of workers that predate it.
	SpinLastNs int64 `json:"spin_last_ns,omitempty"`
	// Spells is how often the thread went idle in the wait strategy over the interval (its tuples
	// came apart): counted by CountedWait and by the model alike.
	Spells int64 `json:"spells,omitempty"`
	// Parks is how often the thread parked in the wait strategy over the interval (Storm's level 2, a
	// parkNanos(1) each: a timer's wake-up on the host, whoever it interrupts); counted by CountedWait,
	// not by the model (0).
	Parks int64 `json:"parks,omitempty"`
}

// Idle is the CPU the task's thread spent idle in the wait strategy: counted, and the estimate of the
// last parks.
func (c TaskCPU) Idle() int64 { return c.SpinNs + c.SpinLastNs }

// ThreadGroupCPU is the CPU of a group of a worker JVM's threads: those whose names are Name with each
// run of digits replaced by '#'.
type ThreadGroupCPU struct {
	Name    string `json:"name"`
	Threads int    `json:"threads"`
	CPUNs   int64  `json:"cpu_ns"`
}

// AnalyticPrediction is the analytic baseline's prediction of a simulated run (a Jackson network of
// the same costs), as the run records it beside its measurement.
type AnalyticPrediction struct {
	Throughput    float64 `json:"throughput"`
	LatencyMeanMs float64 `json:"latency_mean_ms"`
}

// WorkerFrames are one simulated worker's messaging threads over a window, as a simulated run records
// them (a real worker's reports do not tell them): the frames its transfer thread sent (to other
// workers, of its node too) and the reads its Netty thread made, with the messages in them, and each
// thread's wake-ups (work after a wait).
type WorkerFrames struct {
	Worker        string `json:"worker"` // host:port
	Sent          int64  `json:"sent"`
	SentMsgs      int64  `json:"sent_msgs"`
	Received      int64  `json:"received"`
	ReceivedMsgs  int64  `json:"received_msgs"`
	SentWakes     int64  `json:"sent_wakes,omitempty"`
	ReceivedWakes int64  `json:"received_wakes,omitempty"`
}

// TaskDeadline is what one bolt task saw, over the interval, of the tuples
// it executed that carry a T_start (the tuple field Instrument.FIELD_T_START,
// "t_start_us": the epoch time in µs at which the spout emitted the tuple at
// the root of its tree). Every bolt task reports, not only sinks.
//
// Definitions (Table 2 and eq. 1 of "Dynamic Task Scheduling Scheme for
// Processing Real-Time Stream Data in Storm Environments", the deadline-
// aware scheduler):
//   - processing time of a tuple at a task = (time the task finished
//     executing it) - T_start, in ms (the hook runs after execute);
//   - QoS rate = processing time / DeadlineMs (sec. 4 of the paper);
//   - a miss is processing time > DeadlineMs;
//   - DeadlineMs is the task's deadline T_dline, set by the topology per
//     component (task class): every tuple at this task must be done within
//     DeadlineMs of its T_start; 0 = the topology set none (then QoS and
//     misses are not measured, Missed and SumQoS stay 0);
//   - StartMinMs / StartMaxMs are the T_start (epoch ms) of the oldest and
//     newest tuple the task executed in the interval: T_start of eq. 1 is
//     StartMinMs (the most urgent tuple of the task).
//
// Sink marks tasks of components with no downstream (non-system)
// subscriber: their processing time is the tuple's end-to-end processing
// time, the one the paper's QoS figures report.
type TaskDeadline struct {
	Task            int     `json:"task"`
	Count           int64   `json:"count"`
	Missed          int64   `json:"missed"`
	SumProcessingMs float64 `json:"sum_processing_ms"`
	SumQoS          float64 `json:"sum_qos"` // sum of processing/deadline
	DeadlineMs      float64 `json:"deadline_ms"`
	StartMinMs      int64   `json:"start_min_ms"`
	StartMaxMs      int64   `json:"start_max_ms"`
	Sink            bool    `json:"sink"`
}

// TaskTupleSize is the serialized size of a sample of one task's tuples in
// the interval: every WorkerReport.SizeSampleEvery-th tuple the task
// executed (In) and emitted (Out) is serialized with the topology's own
// Kryo tuple serializer (Storm's KryoTupleSerializer: task id, stream,
// message id and values, i.e. what crosses a worker boundary, without the
// transport's framing). Mean size = Bytes / Samples. This is ST_size of
// eqs. 5-6 of the deadline-aware scheduler paper.
type TaskTupleSize struct {
	Task       int   `json:"task"`
	InSamples  int64 `json:"in_samples"`
	InBytes    int64 `json:"in_bytes"`
	OutSamples int64 `json:"out_samples"`
	OutBytes   int64 `json:"out_bytes"`
}

// SpoutLoad is one open-loop spout task's load since the task started
// (never reset): the tuples its send schedule made due (offered) and the
// tuples it emitted. Offered minus emitted is its backlog.
type SpoutLoad struct {
	Task         int   `json:"task"`
	OfferedTotal int64 `json:"offered_total"`
	EmittedTotal int64 `json:"emitted_total"`
}

// SpoutDone says that a dataset spout task has emitted its whole share of a finite dataset: Tuples in
// all. A worker reports it in every report from then on (not a delta).
type SpoutDone struct {
	Task   int   `json:"task"`
	Tuples int64 `json:"tuples"`
}

// WorkerReport is pushed by each worker's metrics consumer, once per
// metrics interval. Counts and CPU times are deltas over the interval
// (TimeMs-IntervalS, TimeMs], except the *_total counters.
type WorkerReport struct {
	Topology  string        `json:"topology"`
	Host      string        `json:"host"`
	Port      int           `json:"port"`
	TimeMs    int64         `json:"time_ms"`
	IntervalS float64       `json:"interval_s"`
	Traffic   []TaskTraffic `json:"traffic"`
	// Emits are the tuples each task emitted per stream (absent from workers whose instrumentation
	// predates it).
	Emits     []TaskEmits    `json:"emits,omitempty"`
	CPU       []TaskCPU      `json:"cpu"`
	Deadlines []TaskDeadline `json:"deadlines,omitempty"`
	// Acked and complete latency of spout tasks in this interval.
	Acked             int64     `json:"acked"`
	Failed            int64     `json:"failed"`
	CompleteLatencyMs []float64 `json:"complete_latency_ms,omitempty"` // reservoir sample, capped by the sender; percentiles come from LatencyHist
	WorkerCPUPercent  float64   `json:"worker_cpu_percent"`            // process CPU over the interval, 100 = one core
	// ThreadGroups is the CPU over the interval of the JVM's Java threads other than its executors', by
	// name without its numbers (the transfer thread, Netty's, timers). What is left of WorkerCPUPercent
	// after CPU and these is the JVM's own threads (GC, JIT). Sent with one worker's report per JVM;
	// absent from workers whose instrumentation predates it.
	ThreadGroups   []ThreadGroupCPU `json:"thread_groups,omitempty"`
	WorkerMemoryMB float64          `json:"worker_memory_mb,omitempty"` // used heap + non-heap at report time; 0 = unknown

	// WorkerStartMs identifies the worker's incarnation: when its counters
	// started (epoch ms). A restarted worker on the same host and port has
	// a new WorkerStartMs and totals that start again from 0.
	WorkerStartMs int64 `json:"worker_start_ms,omitempty"`
	// AckedTotal and FailedTotal count since WorkerStartMs (never reset):
	// a lost report loses no acks, and a counter reset is seen as such.
	AckedTotal  int64 `json:"acked_total,omitempty"`
	FailedTotal int64 `json:"failed_total,omitempty"`
	// LatencyHist is the complete latency (ms, Storm's spout ack latency)
	// of every tuple acked in the interval; ProcessingHist is the
	// processing time (µs, now - T_start, see TaskDeadline) of every tuple
	// executed by a sink task in the interval. Both are HdrHistograms in
	// the V2 compressed encoding, base64 (Java's
	// encodeIntoCompressedByteBuffer); see DecodeHistogram. "" = not sent.
	LatencyHist    string `json:"latency_hist,omitempty"`
	ProcessingHist string `json:"processing_hist,omitempty"`
	// Open-loop spouts only (topology flag --rate; absent otherwise):
	// LatencyIntendedHist is the complete latency from each acked
	// tuple's intended send time (ms: Storm's complete latency plus the
	// tuple's send lag), SendLagHist the send lag (actual emit time minus
	// intended send time, ms) of every tuple emitted in the interval; same
	// encoding and layout as LatencyHist. SpoutLoad gives each open-loop
	// spout task's offered and emitted tuples since the task started.
	LatencyIntendedHist string      `json:"latency_intended_hist,omitempty"`
	SendLagHist         string      `json:"send_lag_hist,omitempty"`
	SpoutLoad           []SpoutLoad `json:"spout_load,omitempty"`
	// SpoutDone lists the dataset spout tasks of this worker that are done (see SpoutDone).
	SpoutDone []SpoutDone `json:"spout_done,omitempty"`
	// TupleSizes are the sampled serialized tuple sizes per task;
	// SizeSampleEvery is the sampling period (1 in N tuples per task).
	TupleSizes      []TaskTupleSize `json:"tuple_sizes,omitempty"`
	SizeSampleEvery int             `json:"size_sample_every,omitempty"`
	// NotMeasured names the fields of this report the worker could not
	// measure in this interval (e.g. "worker_cpu_percent" when the JVM has
	// no process CPU time, "cpu" without thread CPU time, "tuple_sizes"
	// when the serializer failed). Such a field's value is meaningless, not
	// a measured zero.
	NotMeasured []string `json:"not_measured,omitempty"`
}

// Report field names used in WorkerReport.NotMeasured.
const (
	FieldWorkerCPU    = "worker_cpu_percent"
	FieldWorkerMemory = "worker_memory_mb"
	FieldTaskCPU      = "cpu"
	FieldTupleSizes   = "tuple_sizes"
	FieldLatencyHist  = "latency_hist"
	FieldProcHist     = "processing_hist"
	// Open-loop spouts only.
	FieldLatencyIntendedHist = "latency_intended_hist"
	FieldSendLagHist         = "send_lag_hist"
)

// Lacks reports whether the worker said it could not measure field.
func (r *WorkerReport) Lacks(field string) bool {
	for _, f := range r.NotMeasured {
		if f == field {
			return true
		}
	}
	return false
}
