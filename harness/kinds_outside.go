package harness

import "github.com/stormlab/stormlab/infra/protocol"

// What a kind of cluster outside this package (a simulated cluster: harness/simcluster) needs to
// produce the same RunResult as the clusters in it.

// StageSpec is the RunError stage of a run refused before anything started.
const StageSpec = stageSpec

// StageWindow is the RunError stage of a run that failed in its measurement window.
const StageWindow = stageWindow

// ReasonSimulated marks what a simulated run leaves out, where that matters to its figures.
const ReasonSimulated ReasonKind = "simulated"

// Finish judges res from its records, as every run is judged: its diagnosis, then its validity (which
// reads the diagnosis: host starvation, loads applied short).
func Finish(res *RunResult) {
	res.Diagnosis = diagnosis(res)
	res.Validity = judge(res)
}

// Simulated says a run was simulated, and what stands behind it.
type Simulated struct {
	Cluster    string `json:"cluster"`     // the simulated cluster's name
	About      string `json:"about"`       // where its layout comes from
	CostModel  string `json:"cost_model"`  // the cost model's name
	CostSource string `json:"cost_source"` // where its figures come from (cluster, date, commit)
	// Validation is the validation that stands behind the model, or why there is none.
	Validation string `json:"validation"`
	Seed       uint64 `json:"seed"` // the model's seed (from the cluster's seed and the topology's name)
	// Batch is the tuples each simulated tuple stood for (1: none); batches keep throughput and
	// saturated latency, and overstate latency at moderate load (docs/simulator.md).
	Batch  int    `json:"batch,omitempty"`
	Events uint64 `json:"events"` // simulated events
	// Migrations counts the dynamic scheduler's new placements the model applied, each restarting the
	// workers whose executors changed for the cost model's worker start.
	Migrations int `json:"migrations,omitempty"`
	// Analytic is what a plain analytic model (a Jackson network of the same costs, sim.Jackson)
	// predicts for the same run: the baseline the simulator must beat; nil when it has no steady state.
	Analytic *protocol.AnalyticPrediction `json:"analytic,omitempty"`
	// Frames are each worker's messaging threads in the window (nil without them): sim costs --messaging.
	Frames []protocol.WorkerFrames `json:"frames,omitempty"`
	// Checks are the model's self-checks on this run (tuples conserved, ...), each "name: ok" or
	// "name: failed: why".
	Checks []string `json:"checks"`
}
