package experiments

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stormlab/stormlab/harness"
)

// runOrResume reads back a kept run only under Resume, and runs the rest.
func TestRunOrResume(t *testing.T) {
	raw := t.TempDir()
	kept := &harness.RunResult{TopologyID: "kept", Measurement: harness.Measurement{Throughput: 42}}
	if err := harness.Save(filepath.Join(raw, "r0"), kept); err != nil {
		t.Fatal(err)
	}
	// A kept run that does not count (its collect step failed: nothing acked).
	if err := harness.Save(filepath.Join(raw, "r2"), &harness.RunResult{TopologyID: "failed"}); err != nil {
		t.Fatal(err)
	}
	calls := 0
	run := func() (*harness.RunResult, error) {
		calls++
		return &harness.RunResult{TopologyID: "fresh"}, nil
	}
	for _, c := range []struct {
		name          string
		resume        bool
		wantID        string
		wantResumed   bool
		wantCallsUpTo int
	}{
		{"r0", false, "fresh", false, 1}, // no --resume: run again
		{"r0", true, "kept", true, 1},    // kept and resumed: not run
		{"r1", true, "fresh", false, 2},  // nothing kept: run
		{"r2", true, "fresh", false, 3},  // kept but does not count: run again
	} {
		env := Env{Log: io.Discard, RawDir: raw, Resume: c.resume}
		r, resumed, err := runOrResume(env, c.name, run)
		if err != nil || r.TopologyID != c.wantID || resumed != c.wantResumed || calls != c.wantCallsUpTo {
			t.Errorf("%s resume=%v: id %q resumed %v calls %d err %v; want %q %v %d",
				c.name, c.resume, r.TopologyID, resumed, calls, err, c.wantID, c.wantResumed, c.wantCallsUpTo)
		}
	}
	// keptRuns (recovery) resumes a scheduler only when every rep counts, and
	// removes a kept rep that does not, so it runs again.
	rec := t.TempDir()
	for name, r := range map[string]*harness.RunResult{"s-r0": kept, "s-r1": {TopologyID: "failed"}} {
		if err := harness.Save(filepath.Join(rec, name), r); err != nil {
			t.Fatal(err)
		}
	}
	renv := Env{Log: io.Discard, RawDir: rec, Resume: true}
	if got := keptRuns(renv, "s", 1); len(got) != 1 || got[0].TopologyID != "kept" {
		t.Errorf("keptRuns(s, 1) = %v, want the kept s-r0", got)
	}
	if got := keptRuns(renv, "s", 2); got != nil {
		t.Errorf("keptRuns(s, 2) = %v, want nil (s-r1 does not count)", got)
	}
	if _, err := os.Stat(filepath.Join(rec, "s-r1")); !os.IsNotExist(err) {
		t.Errorf("the kept run that does not count is still there (stat: %v)", err)
	}
	// A resumed run is not saved again (its storm-stats.json keeps the raw readings).
	other := t.TempDir()
	if err := keepRun(Env{Log: io.Discard, RawDir: other}, "x", kept, nil, true); err != nil {
		t.Errorf("keepRun of a resumed valid run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "x")); err == nil {
		t.Error("keepRun saved a resumed run again")
	}
}
