package experiments

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
)

// TestProfileKnobs: every cluster experiment resolves, per scale, the
// knobs that testdata/profile-knobs.json holds. That file was dumped from
// the shared ClusterProfile (and the recovery and observer tables) before
// each experiment got its own knobs, so the move changed no window, rate
// or repetition count; a deliberate change of a knob updates it.
func TestProfileKnobs(t *testing.T) {
	b, err := os.ReadFile("testdata/profile-knobs.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]map[string]map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, s := range List() {
		w, cluster := want[s.Name]
		if !cluster {
			if s.Scales != nil {
				t.Errorf("%s has Scales but no entry in testdata/profile-knobs.json", s.Name)
			}
			continue
		}
		if len(s.Scales) != len(w) {
			t.Errorf("%s: scales %d, want %d (%v)", s.Name, len(s.Scales), len(w), w)
		}
		for p, wk := range w {
			k, ok := s.Scales[p]
			if !ok {
				t.Errorf("%s: no %s scale", s.Name, p)
				continue
			}
			if got := knobsJSON(t, k.Manifest()); !reflect.DeepEqual(got, wk) {
				t.Errorf("%s %s knobs:\n got %v\nwant %v", s.Name, p, got, wk)
			}
		}
	}
}

// knobsJSON is a manifest's knobs as the golden file spells them: with
// the worker flags and the no-verdict reason they imply, and without the
// constants the old profile did not hold.
func knobsJSON(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	m["worker_args"] = workerArgs(m["worker_opts"].(string))
	reps, ok := m["reps"].(int)
	if !ok {
		reps = m["observer_pairs"].(int)
	}
	m["no_verdict"] = noVerdict(m["profile"].(string), reps)
	delete(m, "observer_max_spout_pending")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The full scale keeps the papers' scale, quick issues verdicts and ci
// does not (its one repetition per cell).
func TestProfileVerdicts(t *testing.T) {
	if k := deadlineScales["full"]; k.Reps < 3 || len(k.WordCountMB) != 2 || len(k.LoadPercents) != 3 {
		t.Errorf("full deadline scale must have >= 3 repetitions, two data sizes and the paper's three loads: %+v", k)
	}
	for name, k := range commCostScales {
		if v := noVerdict(name, k.Reps); (v == "") != (name != "ci") {
			t.Errorf("scale %s (%d reps): no-verdict reason %q; only ci may have one", name, k.Reps, v)
		}
	}
	if _, err := Run(context.Background(), CommCost(), lab.Options{Scale: "huge"}); err == nil || !strings.Contains(err.Error(), "ci, quick or full") {
		t.Errorf("unknown scale: err = %v, want one naming ci, quick or full", err)
	}
}

// The deadline experiment's runs per scale follow from its knobs (the
// progress line's total): 3 schedulers x reps x sizes, plus the deadline
// scheduler's load runs; the schedulers interleaved (rotated).
func TestDeadlineRunCount(t *testing.T) {
	for _, c := range []struct {
		profile string
		want    int
	}{
		{"ci", 3*1*2 + 1*1*2},    // sizes: wordcount 0.5, kmeans 0.5; load: kmeans at 20, 80
		{"quick", 3*3*1 + 3*1*2}, // sizes: kmeans 0.5; load: kmeans at 20, 80
		{"full", 3*3*4 + 3*2*3},  // sizes: two per query; load: both queries at 20, 50, 80
	} {
		d := &deadlineRunner{k: deadlineScales[c.profile]}
		if n := len(d.runs()); n != c.want {
			t.Errorf("%s: %d runs, want %d", c.profile, n, c.want)
		}
	}
	// Run names are the kept runs' folders, which --resume reads back: unchanged.
	runs := (&deadlineRunner{k: deadlineScales["quick"]}).runs()
	var names []string
	for _, r := range runs {
		names = append(names, r.name())
	}
	// quick: one size, so each repetition's turn starts one scheduler further.
	if want := []string{"dl-deadline-kmeans-0p5mb-r0", "dl-storm-ras-kmeans-0p5mb-r0", "dl-adaptive-kmeans-0p5mb-r0",
		"dl-storm-ras-kmeans-0p5mb-r1", "dl-adaptive-kmeans-0p5mb-r1", "dl-deadline-kmeans-0p5mb-r1"}; !slices.Equal(names[:6], want) {
		t.Errorf("deadline's first runs %v, want interleaved %v", names[:6], want)
	}
	for _, want := range []string{"dl-deadline-kmeans-0p5mb-r0", "dl-deadline-kmeans-load80-r2"} {
		if !slices.Contains(names, want) {
			t.Errorf("deadline run names %v lack %s", names, want)
		}
	}
	if names[0] != "dl-deadline-kmeans-0p5mb-r0" || runs[len(runs)-1].series != loadSeries("kmeans") {
		t.Errorf("deadline runs: sizes first, then the load runs: %v", names)
	}
}
