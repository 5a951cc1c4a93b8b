package harness

import "github.com/stormlab/stormlab/harness/measure"

// The run's records that package measure defines, named here too so that callers of the run loop
// read them as harness.RunResult's parts.
type (
	Measurement   = measure.Measurement
	OpenLoop      = measure.OpenLoop
	StormCheck    = measure.StormCheck
	Recovery      = measure.Recovery
	WarmUp        = measure.WarmUp
	ExecutorPlace = measure.ExecutorPlace
	Validity      = measure.Validity
	Level         = measure.Level
	Reason        = measure.Reason
	ReasonKind    = measure.ReasonKind
)

// Levels, reason kinds and metric names (see package measure).
const (
	Valid              = measure.Valid
	Suspect            = measure.Suspect
	Invalid            = measure.Invalid
	ReasonScheduler    = measure.ReasonScheduler
	ReasonUnassigned   = measure.ReasonUnassigned
	ReasonNoThroughput = measure.ReasonNoThroughput
	ReasonStormUnread  = measure.ReasonStormUnread
	ReasonStormCounts  = measure.ReasonStormCounts
	ReasonStormLatency = measure.ReasonStormLatency
	ReasonUnsteady     = measure.ReasonUnsteady
	ReasonUnknown      = measure.ReasonUnknown
	MetricThroughput   = measure.MetricThroughput
	MetricLatency      = measure.MetricLatency
	MetricCutRate      = measure.MetricCutRate
	MetricNodeCPU      = measure.MetricNodeCPU
	BasisSinkExecuted  = measure.BasisSinkExecuted
)
