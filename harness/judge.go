package harness

import (
	"encoding/json"

	"github.com/stormlab/stormlab/harness/measure"
)

// judge is the one place a run's validity is computed (measure.Judge), from the run's records.
func judge(r *RunResult) Validity {
	return measure.Judge(func() measure.Records {
		_, bridged := StormSchedulerClass(r.Spec.Scheduler)
		return measure.Records{
			Scheduler:        r.Spec.Scheduler,
			Bridged:          bridged,
			ServiceScheduler: r.ServiceScheduler,
			Fallbacks:        r.Fallbacks,
			Decisions:        r.Decisions,
			Unassigned:       r.Unassigned,
			Timed:            r.EndKind == "timed",
			StormCounted:     r.EndKind == kindStormCounted,
			Measurement:      r.Measurement,
			Storm:            r.Storm,
			WarmUp:           r.WarmUp,
			Window:           measure.WarmUpWindow(r.EndKind == "timed", r.WarmUp, r.Reports, measure.PlacementOf(r.Executors), r.MeasureFrom, r.MeasureTo),
			Prior:            r.Validity,
			HostStarved:      r.Diagnosis.Starved(),
			LoadShort:        r.Diagnosis.LoadShort(),
		}
	})
}

// UnmarshalJSON reads run.json of this version ("validity") and of earlier ones, whose "invalid" and
// "suspect" strings become reasons (measure.LegacyValidity). Load judges a kept run again from its
// records in any case.
func (r *RunResult) UnmarshalJSON(b []byte) error {
	type plain RunResult
	aux := struct {
		*plain
		Invalid string `json:"invalid"`
		Suspect string `json:"suspect"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	if r.Validity.Level != "" || (aux.Invalid == "" && aux.Suspect == "") {
		if r.Validity.Level == "" {
			r.Validity.Level = Valid
		}
		return nil
	}
	r.Validity = measure.LegacyValidity(aux.Invalid, aux.Suspect, r.Storm)
	return nil
}

// SteadySpan re-judges the warm-up doubt of a timed run whose figures an experiment takes over
// [fromMs, toMs] only, not over the whole window (see measure.SteadySpan).
func (r *RunResult) SteadySpan(capacity map[string]float64, fromMs, toMs int64) Validity {
	return measure.SteadySpan(r.Validity, r.Reports, measure.PlacementOf(r.Executors), capacity, fromMs, toMs)
}

// MeasureWindow folds r's reports received in [fromMs, toMs] into a Measurement, with r's placement
// and the given supervisor capacities (a window other than the run's own, e.g. its second half).
func (r *RunResult) MeasureWindow(capacity map[string]float64, fromMs, toMs int64) Measurement {
	return measure.Window(r.Reports, measure.PlacementOf(r.Executors), capacity, fromMs, toMs)
}
