package harness

import "github.com/stormlab/stormlab/harness/measure"

// TimelineEvent is one line of a run's timeline.jsonl (see measure.Timeline).
type TimelineEvent = measure.TimelineEvent

// Timeline lists a run's events in time order (measure.Timeline): its window, faults, the service's
// decisions, the bridge's fallbacks, worker starts and the throughput/latency series.
func (r *RunResult) Timeline() []TimelineEvent {
	from := r.StartedAt.UnixMilli()
	if r.StartedAt.IsZero() || from > r.MeasureFrom {
		from = r.MeasureFrom
	}
	faults := make([]measure.FaultEvent, len(r.Faults))
	for i, f := range r.Faults {
		faults[i] = measure.FaultEvent{Name: f.Fault.String(), StartMs: f.StartMs, EndMs: f.EndMs, AtMs: f.At.Milliseconds(), Error: f.Error, Recovery: f.Recovery}
	}
	return measure.Timeline(measure.Events{FromMs: from, MeasureFrom: r.MeasureFrom, MeasureTo: r.MeasureTo, StepMs: r.Spec.Step.Milliseconds(),
		Faults: faults, Rounds: r.Rounds, Decisions: r.Decisions, Fallbacks: r.Fallbacks, FaultFallbacks: r.FaultFallbacks, Reports: r.Reports})
}
