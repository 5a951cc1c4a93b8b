package experiments

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestExperimentSPD runs the SPD allocation experiment (003) and writes its
// table, plots and notes.md under results/spd (see outBase).
func TestExperimentSPD(t *testing.T) {
	spec := SPDAllocation()
	var log bytes.Buffer
	start := time.Now()
	rep, err := Run(interruptible(t), spec, Options{Out: outBase(t), Log: &log})
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, log.String())
	}
	var sum bytes.Buffer
	if err := rep.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	t.Logf("spd in %v\n%s\n%s", time.Since(start).Round(time.Millisecond), log.String(), sum.String())
	for _, f := range rep.Files {
		if st, err := os.Stat(filepath.Join(rep.Dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("output %s: %v", f, err)
		}
	}
	// The lower bound must hold on every row: a violation is a bug, not a finding.
	if !rep.Claims[0].Holds {
		t.Errorf("lower bound violated: %s", rep.Claims[0].Evidence)
	}
}
