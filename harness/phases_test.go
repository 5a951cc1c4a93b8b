package harness

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// enter adds each phase's time to its own field, counts both Storm readings into StormReadS, and keeps
// the run's stage (named in errors) through a Storm reading. Phase lengths are set by moving phaseAt
// back; the tolerance (+0.5 s) only allows for the test's own time between the calls.
func TestPhasesEnter(t *testing.T) {
	r := &running{res: &RunResult{}}
	ago := func(d time.Duration) { r.phaseAt = time.Now().Add(-d) }
	r.enter(stageSubmit)
	ago(2 * time.Second)
	r.enter(stageStart)
	ago(3 * time.Second)
	r.enter(stageStormRead)
	if r.stage != stageStart {
		t.Errorf("stage during a Storm reading = %q, want %q (the stage it interrupts)", r.stage, stageStart)
	}
	ago(time.Second)
	r.enter(stageWindow)
	ago(30 * time.Second)
	r.enter(stageStormRead)
	ago(time.Second)
	r.enter(stageCollect)
	p := r.res.Phases
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"submit_s", p.SubmitS, 2}, {"start_s", p.StartS, 3}, {"storm_read_s", p.StormReadS, 2},
		{"window_s", p.WindowS, 30}, {"collect_s", p.CollectS, 0}, {"kill_s", p.KillS, 0},
	} {
		if c.got < c.want || c.got > c.want+0.5 {
			t.Errorf("%s = %.3f, want %.0f (+0.5)", c.name, c.got, c.want)
		}
	}
	if r.stage != stageCollect {
		t.Errorf("stage = %q, want %q", r.stage, stageCollect)
	}
}

// run.json names every phase, also a zero one (a reader tells "not measured" from "took no time" by
// the field's presence).
func TestPhasesJSON(t *testing.T) {
	b, err := json.Marshal(RunResult{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"idle_s", "submit_s", "start_s", "workers_s", "warm_up_s", "storm_read_s", "window_s", "collect_s", "kill_s", "total_s"} {
		if !strings.Contains(string(b), `"`+k+`":`) {
			t.Errorf("run.json lacks phases.%s: %s", k, b)
		}
	}
}
