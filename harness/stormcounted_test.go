package harness

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/stormui"
)

// TestCrossCheckUninstrumented: with no worker reports (an uninstrumented run) Storm's figures are still
// computed, the same as in TestCrossCheckTimed's hand computation (300 tuples/s, 5.6 ms, 2,500 acked),
// and the run is not compared.
func TestCrossCheckUninstrumented(t *testing.T) {
	from := &stormSnapshot{TimeMs: 100_000, Executors: []stormui.Executor{spout("s", 1, 60, 1000, 4), spout("s", 2, 62, 500, 6)}}
	to := &stormSnapshot{TimeMs: 110_000, Executors: []stormui.Executor{spout("s", 1, 70, 3000, 5), spout("s", 2, 67, 1000, 6)}}
	m := measureWindow(nil, nil, nil, 100_000, 110_000)
	c := crossCheck(from, to, m, nil)
	if c.Compared || !strings.Contains(c.Note, "did not measure throughput") || c.suspectText() != "" {
		t.Errorf("compared %v, note %q, suspect %q; want not compared, not suspect", c.Compared, c.Note, c.suspectText())
	}
	if math.Abs(c.Throughput-300) > 1e-9 || math.Abs(c.CompleteLatencyMs-5.6) > 1e-9 || c.Acked != 2500 || len(c.Spouts) != 1 {
		t.Errorf("Storm's figures %.3f/s, %.4f ms, %d acked, %d spouts; want 300, 5.6, 2500, 1", c.Throughput, c.CompleteLatencyMs, c.Acked, len(c.Spouts))
	}
}

func TestCheckStormCounted(t *testing.T) {
	counted := func(thr float64, spouts int, note string) *RunResult {
		r := &RunResult{EndKind: kindStormCounted, Storm: StormCheck{Throughput: thr, Note: note}}
		for i := 0; i < spouts; i++ {
			r.Storm.Spouts = append(r.Storm.Spouts, spoutStats{Component: "spout"})
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
