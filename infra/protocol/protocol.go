package protocol

// Paths served by the scheduler service.
const (
	PathSchedule = "/v1/schedule"
	PathMetrics  = "/v1/metrics"
	PathHealth   = "/v1/health"
	PathFallback = "/v1/fallback" // POST Fallback: the bridge fell back to EvenScheduler
	PathState    = "/v1/state"    // GET State (?since_ms=T filters time series)
	PathReports  = "/v1/reports"  // GET []WorkerReport as received (?since_ms=T)
	PathReset    = "/v1/reset"    // POST: forget measurements, decisions and fallbacks
)

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

// TaskCPU is CPU time spent in one task's executor thread (ThreadMXBean).
type TaskCPU struct {
	Task  int   `json:"task"`
	CPUNs int64 `json:"cpu_ns"`
}

// TaskDeadline is what a sink saw for tuples carrying an emit time and a
// deadline: processing time = now - emit time; QoS rate = processing / deadline.
type TaskDeadline struct {
	Task            int     `json:"task"`
	Count           int64   `json:"count"`
	Missed          int64   `json:"missed"`
	SumProcessingMs float64 `json:"sum_processing_ms"`
	SumQoS          float64 `json:"sum_qos"` // sum of processing/deadline
}

// WorkerReport is pushed by each worker's metrics consumer, once per
// metrics interval. Counts and CPU times are deltas over the interval.
type WorkerReport struct {
	Topology  string         `json:"topology"`
	Host      string         `json:"host"`
	Port      int            `json:"port"`
	TimeMs    int64          `json:"time_ms"`
	IntervalS float64        `json:"interval_s"`
	Traffic   []TaskTraffic  `json:"traffic"`
	CPU       []TaskCPU      `json:"cpu"`
	Deadlines []TaskDeadline `json:"deadlines,omitempty"`
	// Acked and complete latency of spout tasks in this interval.
	Acked             int64     `json:"acked"`
	Failed            int64     `json:"failed"`
	CompleteLatencyMs []float64 `json:"complete_latency_ms,omitempty"` // samples, capped by the sender
	WorkerCPUPercent  float64   `json:"worker_cpu_percent"`            // process CPU over the interval, 100 = one core
	WorkerMemoryMB    float64   `json:"worker_memory_mb,omitempty"`    // used heap + non-heap at report time; 0 = unknown
}
