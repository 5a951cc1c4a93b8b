package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/stormui"
)

func TestCheckStormCounted(t *testing.T) {
	counted := func(thr float64, spouts int, note string) *RunResult {
		r := &RunResult{EndKind: kindStormCounted, Storm: StormCheck{Throughput: thr, Note: note}}
		for i := 0; i < spouts; i++ {
			r.Storm.Spouts = append(r.Storm.Spouts, measure.SpoutStats{Component: "spout"})
		}
		return r
	}
	tests := []struct {
		name string
		r    *RunResult
		want string // substring of the error; "" = counts
	}{
		{"Storm counted", counted(1200, 1, "the harness did not measure throughput"), ""},
		{"Storm counted nothing", counted(0, 1, ""), "Storm counted no acked tuple"},
		{"restart in the window", counted(0, 0, "spout executor spout [1-1] restarted in the window"), "restarted"},
		{"timed run without reports", &RunResult{EndKind: "timed", Storm: StormCheck{Throughput: 1200}}, "no tuple was acked"},
	}
	for _, tc := range tests {
		err := judge(tc.r).Err()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Check = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestSpoutsNotAcking(t *testing.T) {
	bolt := stormui.Executor{Component: "b", Type: "bolt", Acked: 5}
	tests := []struct {
		name  string
		execs []stormui.Executor
		want  string // substring; "" = all acking
	}{
		{"all acking", []stormui.Executor{spout("s", 1, 5, 10, 1), spout("s", 2, 5, 1, 1), bolt}, ""},
		{"one idle", []stormui.Executor{spout("s", 1, 5, 10, 1), spout("s", 2, 5, 0, 0)}, "s [2-2] has acked nothing"},
		{"no statistics yet", []stormui.Executor{{Component: "s", TaskStart: 1, TaskEnd: 1}, bolt}, "no spout executor"},
	}
	for _, tc := range tests {
		got := spoutsNotAcking(tc.execs)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestStormCountedSpec(t *testing.T) {
	if err := (StormCounted{}).check(RunSpec{Measure: time.Minute, WarmUp: time.Second}); err != nil {
		t.Errorf("valid spec refused: %v", err)
	}
	if err := (StormCounted{}).check(RunSpec{WarmUp: time.Second}); err == nil || !strings.Contains(err.Error(), "Measure") {
		t.Errorf("no window: %v", err)
	}
	if err := (StormCounted{}).check(RunSpec{Measure: time.Minute, WarmUp: -time.Second}); err == nil {
		t.Error("negative warm-up accepted")
	}
	if w := reportWait(RunSpec{End: StormCounted{Uninstrumented: true}}); w != 0 {
		t.Errorf("uninstrumented run waits %s for reports that never come", w)
	}
	if w := reportWait(RunSpec{End: StormCounted{}}); w <= 0 {
		t.Errorf("instrumented run does not wait for its last reports (%s)", w)
	}
}
