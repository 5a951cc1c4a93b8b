package experiments

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/internal/golden"
)

// kpartRecorded is a kpart-cluster run at ci scale on a target (sup1 0.5 core, sup2 1 core), its runs
// trimmed to what a resumed experiment reads (run.json, reports.jsonl without the deadline scheduler's
// misses, storm-stats.json).
const kpartRecorded = "testdata/kpart-cluster-ci"

// TestKPartNotesFromRecordedRuns renders notes.md from a recorded kpart-cluster folder as a resumed
// experiment reads it (harness.Load, kpartRow with homogeneous-4's capacities, the claims): every claim
// gets a why line naming the diagnoses that differ between the series with their figures.
func TestKPartNotesFromRecordedRuns(t *testing.T) {
	res := &lab.Results{Experiment: "kpart-cluster", Metrics: kpartClusterMetrics, Scale: "ci", NoVerdict: noVerdict("ci", 1), Knobs: map[string]any{}}
	capacity := map[string]float64{"sup1": 50, "sup2": 50, "sup3": 50, "sup4": 50} // kpartShape's, as a resume before the cluster's start reads it
	for _, sched := range kpartClusterSchedulers {
		name := "kpc-" + sched + "-i0-r0"
		r, err := harness.Load(filepath.Join(kpartRecorded, "runs", name))
		if err != nil {
			t.Fatal(err)
		}
		row, err := kpartRow(io.Discard, name, r, lab.Row{Series: sched, Seed: 1, Offered: "unpaced (saturation)"}, false, capacity)
		if err != nil {
			t.Fatal(err)
		}
		res.Add(row)
	}
	spec := KPartCluster()
	rep := &lab.Report{Spec: spec, Results: res, Scale: "ci"}
	var err error
	if rep.Aggregate, err = lab.SummarisePanels(res, spec.Panel); err != nil {
		t.Fatal(err)
	}
	rep.Claims = spec.Claims(res, rep.Aggregate)
	lab.JudgeClaims(rep.Claims, res.NoVerdict)
	var b strings.Builder
	if err := rep.WriteNotes(&b); err != nil {
		t.Fatal(err)
	}
	notes := b.String()
	if n, want := strings.Count(notes, "   - Why: "), len(rep.Claims)-1; n != want { // the latency claim has no open-loop cell at ci
		t.Errorf("%d why lines for %d claims with runs, want one each", n, want)
	}
	golden.Assert(t, "testdata/kpart-cluster-ci/notes.golden", []byte(notes))
	if _, err := os.Stat(filepath.Join(kpartRecorded, "runs", "kpc-online-i0-r0", "run.json")); err != nil {
		t.Errorf("the recorded folder lost a run: %v", err)
	}
}
