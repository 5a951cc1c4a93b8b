package experiments

import (
	"slices"
	"sort"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/hostspeed"
)

// screened copies into row what makes its run unfit for a claim: the
// harness's judgement of the run (its validity: invalid, or suspect for
// some metrics by the cross-check with Storm's own statistics) and the
// inputs its scheduler decided without (inputsNotMeasured). The claims
// screen rows with lab.ScreenRuns.
func screened(row lab.Row, r *harness.RunResult) lab.Row {
	row.Validity = r.Validity
	row.NotMeasured = inputsNotMeasured(r)
	return diagnosed(row, r)
}

// diagnosed is row with what limited its run (r.Diagnosis), for notes.md.
func diagnosed(row lab.Row, r *harness.RunResult) lab.Row {
	if d := r.Diagnosis; d != nil {
		row.Bottleneck, row.Limit = d.Bottleneck, d.Rule
		row.Diag = lab.RunDiagnosis{Migrations: d.Migrations, Restarts: d.Restarts, StarvationRead: len(d.Cgroups) > 0}
		if d.HostSpeed != nil && d.HostSpeed.Probe == hostspeed.Probe { // another probe's figures do not compare
			row.Diag.HostNs = d.HostSpeed.NsPerStep
		}
		if st := diagnose.StarvedText(d.Cgroups); len(st) > 0 {
			row.Diag.HostStarved = st[0]
		}
	}
	return row
}

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
func inputsNotMeasured(r *harness.RunResult) []string { return inputsNotMeasuredUntil(r, r.MeasureTo) }

// inputsNotMeasuredUntil is inputsNotMeasured over the decisions up to toMs (0: all).
func inputsNotMeasuredUntil(r *harness.RunResult, toMs int64) []string {
	inWindow := func(t int64) bool { return toMs == 0 || t <= toMs }
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
