package protocol

import "github.com/stormlab/stormlab/schedulers"

// State is what GET PathState returns: everything the scheduler service
// knows, for the harness. Totals count since the service started (or the
// last POST PathReset); time series can be cut with ?since_ms=T.
type State struct {
	Scheduler string `json:"scheduler"`
	// Options are the scheduler's configuration (seed, K-PART's Mul, ...); absent when the service
	// was given a scheduler already built.
	Options *schedulers.Options `json:"options,omitempty"`
	// Dynamic says the scheduler reschedules placed topologies (schedulers.Dynamic).
	Dynamic bool  `json:"dynamic,omitempty"`
	TimeMs  int64 `json:"time_ms"`
	Rounds  int64 `json:"rounds"`  // snapshots answered
	Reports int64 `json:"reports"` // worker reports accepted
	// Unauthorized counts the requests refused for a missing or wrong token (service started with a token).
	Unauthorized int64 `json:"unauthorized,omitempty"`

	RoundTimes []RoundTime      `json:"round_times"`
	Decisions  []DecisionRecord `json:"decisions"`
	Fallbacks  []Fallback       `json:"fallbacks"`
	// Load is the latest load table: one row per supervisor (by id), from
	// the newest report of every worker.
	Load       []schedulers.NodeLoad `json:"load"`
	Topologies []TopologyState       `json:"topologies"`
}

// RoundTime is one scheduling round: the service's own time to answer and
// the bridge's wall time of its previous round as it reported it.
type RoundTime struct {
	TimeMs    int64   `json:"time_ms"`
	ServiceMs float64 `json:"service_ms"`
	BridgeMs  float64 `json:"bridge_ms,omitempty"` // previous round, 0 if unknown
	Executors int     `json:"executors"`
}

// DecisionRecord is one scheduler decision, as logged.
type DecisionRecord struct {
	TimeMs    int64  `json:"time_ms"`
	Topology  string `json:"topology"`
	Scheduler string `json:"scheduler"`
	Kind      string `json:"kind"`    // "schedule" (first placement) or "reschedule"
	Applied   bool   `json:"applied"` // sent to the bridge as a new placement
	Executors int    `json:"executors"`
	Nodes     int    `json:"nodes"` // supervisors in the problem
	// Predicted is schedulers.Measure on the node partition (k = Nodes,
	// unused nodes count as weight 0) with the graph weights of the round.
	Predicted  schedulers.PartitionMetrics `json:"predicted"`
	Workers    []WorkerAssignment          `json:"workers,omitempty"`
	DurationMs float64                     `json:"duration_ms"` // scheduler call
	Error      string                      `json:"error,omitempty"`
	// Decision is the scheduler's own account (why, trigger, estimates,
	// migrations) when it explains itself (schedulers.Explainer).
	Decision *schedulers.Decision `json:"decision,omitempty"`
	// FirstExecutor is the executor of Decision.First (R-Storm's first
	// placed executor), so a reader can find its slot in Workers.
	FirstExecutor *Executor `json:"first_executor,omitempty"`
	// NotMeasured names inputs the workers did not report for this round
	// (e.g. "task_cpu", "worker_memory"): claims resting on them are
	// inconclusive.
	NotMeasured []string `json:"not_measured,omitempty"`
}

// TopologyState is what the workers of one topology reported.
type TopologyState struct {
	ID     string `json:"id"`
	Acked  int64  `json:"acked"`
	Failed int64  `json:"failed"`
	// Accumulated totals, sorted by task ids.
	Traffic   []TaskTraffic  `json:"traffic"`
	CPU       []TaskCPU      `json:"cpu"`
	Deadlines []TaskDeadline `json:"deadlines,omitempty"`
	// Time series, one entry per worker report.
	Counts          []CountSample   `json:"counts"`
	CompleteLatency []LatencySample `json:"complete_latency,omitempty"`
	WorkerCPU       []WorkerSample  `json:"worker_cpu"`
	// Executors is the latest per-executor load (the task monitor).
	Executors []ExecutorLoad `json:"executors,omitempty"`
}

// CountSample is acked/failed of one worker report.
type CountSample struct {
	TimeMs    int64   `json:"time_ms"`
	IntervalS float64 `json:"interval_s"`
	Acked     int64   `json:"acked"`
	Failed    int64   `json:"failed"`
}

// LatencySample holds the complete-latency samples of one worker report.
type LatencySample struct {
	TimeMs int64     `json:"time_ms"`
	Ms     []float64 `json:"ms"`
}

// WorkerSample is one worker's process CPU (and memory) over an interval.
type WorkerSample struct {
	TimeMs     int64   `json:"time_ms"`
	Host       string  `json:"host"`
	Port       int     `json:"port"`
	CPUPercent float64 `json:"cpu_percent"` // 100 = one core
	MemoryMB   float64 `json:"memory_mb,omitempty"`
}

// ExecutorLoad is one row of the per-task monitor for an executor.
type ExecutorLoad struct {
	Executor   Executor `json:"executor"`
	Supervisor string   `json:"supervisor,omitempty"`
	CPU        float64  `json:"cpu"`     // percent of one core
	Network    float64  `json:"network"` // tuples/s emitted to other executors
	DeadlineMs float64  `json:"deadline_ms,omitempty"`
	StartMs    int64    `json:"start_ms,omitempty"`   // T_start on the monitor clock (schedulers.TaskLoad.StartMs)
	TupleSize  float64  `json:"tuple_size,omitempty"` // mean serialized bytes (schedulers.TaskLoad.TupleSize)
}
