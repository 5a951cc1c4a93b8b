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
	} {
		env := Env{Log: io.Discard, RawDir: raw, Resume: c.resume}
		r, resumed, err := runOrResume(env, c.name, run)
		if err != nil || r.TopologyID != c.wantID || resumed != c.wantResumed || calls != c.wantCallsUpTo {
			t.Errorf("%s resume=%v: id %q resumed %v calls %d err %v; want %q %v %d",
				c.name, c.resume, r.TopologyID, resumed, calls, err, c.wantID, c.wantResumed, c.wantCallsUpTo)
		}
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
