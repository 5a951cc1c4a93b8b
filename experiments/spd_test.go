package experiments

import "testing"

// TestExperimentSPD runs the SPD allocation experiment (Eidenbenz and Locher 2016) and writes its
// table, plots and notes.md under results/spd (see outBase).
func TestExperimentSPD(t *testing.T) {
	rep := runForTest(t, "spd")
	// The lower bound must hold on every row: a violation is a bug, not a finding.
	if !rep.Claims[0].Holds() {
		t.Errorf("lower bound violated: %s", rep.Claims[0].Evidence)
	}
}
