package experiments

import (
	"slices"
	"sort"

	"github.com/stormlab/stormlab/harness"
)

// screened copies into row what makes its run unfit for a claim: the
// harness's cross-check with Storm's own statistics (its validity's suspect reasons) and the
// inputs its scheduler decided without (inputsNotMeasured). The claims
// screen rows with lab.ScreenRuns.
func screened(row Row, r *harness.RunResult) Row {
	row.Suspect = r.Validity.Text(harness.Suspect)
	if row.Suspect != "" && !hasSuspect(r.Validity, func(k harness.ReasonKind) bool { return k != harness.ReasonStormLatency }) {
		// Counts agree, only the mean latency does not: the span each side
		// averages over differs by up to a report interval at each end, and
		// where latency still changes in the window (after start-up, at a
		// paced load whose throughput is steady from the start) that moves
		// the mean. The latency figures are in doubt, the counts are not.
		row.SuspectMetrics = latencyMetrics
	}
	row.NotMeasured = inputsNotMeasured(r)
	return row
}

// hasSuspect reports whether v has a suspect reason whose kind is.
func hasSuspect(v harness.Validity, is func(harness.ReasonKind) bool) bool {
	return slices.ContainsFunc(v.Reasons, func(x harness.Reason) bool { return x.Level == harness.Suspect && is(x.Kind) })
}

// latencyMetrics are the cluster metrics computed from complete latency.
var latencyMetrics = []string{"latency_mean_ms", "latency_p99_ms"}

// waitingInputs are what a scheduler lacks before the first worker report
// of a topology: a round that kept the placement for want of them only is
// the scheduler waiting for data, not a decision made on missing inputs.
var waitingInputs = []string{"task_load", "traffic"}

// inputsNotMeasured is the sorted union of the not_measured lists of the
// scheduler's own decisions (schedulers.Decision.NotMeasured: inputs the
// scheduler needs that the load table lacked) taken up to the end of the
// measurement window; later decisions cannot have shaped the figures.
// The decision record's own not_measured (every load-table field the
// workers did not report, needed by this scheduler or not) is not used:
// it names e.g. task_cpu for schedulers that never read it. A round that
// kept the placement because nothing was measured yet (waitingInputs) and
// was followed by another decision is skipped: the scheduler waited for
// its first data and decided later.
func inputsNotMeasured(r *harness.RunResult) []string {
	inWindow := func(t int64) bool { return r.MeasureTo == 0 || t <= r.MeasureTo }
	var out []string
	for i, d := range r.Decisions {
		if d.Decision == nil || len(d.Decision.NotMeasured) == 0 || !inWindow(d.TimeMs) {
			continue
		}
		waiting := !d.Decision.Apply
		for _, f := range d.Decision.NotMeasured {
			waiting = waiting && slices.Contains(waitingInputs, f)
		}
		if waiting && i+1 < len(r.Decisions) && inWindow(r.Decisions[i+1].TimeMs) {
			continue
		}
		for _, f := range d.Decision.NotMeasured {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}
