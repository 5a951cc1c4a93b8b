package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/reports"
)

// TestSimulatedStandingMarked: a cluster experiment run on a simulated cluster says in its table's
// title, claims.json and notes whether the model is validated, and marks a cluster larger than the
// largest validated one as extrapolated (the validation is given here: none ships yet).
func TestSimulatedStandingMarked(t *testing.T) {
	t.Cleanup(func() { describeSim = simcluster.Describe })
	for _, c := range []struct {
		src                     simcluster.Source
		title, claims, standing string
	}{
		{simcluster.Source{Cluster: "nodes-16", Nodes: 16, Standing: simcluster.Extrapolated, ValidatedNodes: 4,
			Validation: "extrapolated beyond the validated 4 nodes (this cluster has 16): sim-validation ..."},
			"kpart-cluster, simulated on sim:nodes-16, extrapolated beyond the validated 4 nodes",
			"validation: extrapolated beyond the validated 4 nodes", simcluster.Extrapolated},
		{simcluster.Source{Cluster: "heterogeneous-4", Nodes: 4, Standing: simcluster.Validated, ValidatedNodes: 4,
			Validation: "validated: sim-validation ..."},
			"kpart-cluster, simulated on sim:heterogeneous-4", "validation: validated", simcluster.Validated},
		{simcluster.Source{Cluster: "heterogeneous-4", Nodes: 4, Standing: simcluster.NotValidated,
			Validation: "not validated: no sim-validation results stand behind cost model containers"},
			"kpart-cluster, simulated on sim:heterogeneous-4, not validated", "validation: not validated", simcluster.NotValidated},
	} {
		describeSim = func(clusterref.Ref) (simcluster.Source, error) { return c.src, nil }
		rep := &Report{Spec: &Spec{Name: "kpart-cluster", Setup: "shape homogeneous-4", Needs: Needs{Need: NeedsCluster}}, Aggregate: &Aggregate{}, Results: &Results{},
			Asked: Env{Cluster: clusterref.Ref{Kind: simcluster.KindName, Arg: c.src.Cluster}}}
		if got := rep.Table().Title; got != c.title {
			t.Errorf("%s: table title %q, want %q", c.standing, got, c.title)
		}
		f := rep.claimsFile()
		if !strings.Contains(f.Simulated, c.claims) || f.SimulatedStanding != c.standing {
			t.Errorf("%s: claims.json simulated %q (%s), want it to say %q", c.standing, f.Simulated, f.SimulatedStanding, c.claims)
		}
		var notes strings.Builder
		if err := rep.WriteNotes(&notes); err != nil || !strings.Contains(notes.String(), "validation: "+c.src.Validation) {
			t.Errorf("%s: notes %q, %v", c.standing, notes.String(), err)
		}
		// The Setup names the containers' shape: the notes say first which simulated cluster replaced it.
		sim, setup := strings.Index(notes.String(), "Simulated: "), strings.Index(notes.String(), "Setup (its cluster shape is the one above): shape")
		if sim < 0 || setup < sim {
			t.Errorf("%s: notes must name the simulated cluster before the Setup and say it replaces the shape: %q", c.standing, notes.String())
		}
	}
}

// TestPaperSummaryMarksSimulated: the papers' summary marks each verdict judged on a simulated cluster
// and says so beside the experiment, so a reader never takes it for Storm's.
func TestPaperSummaryMarksSimulated(t *testing.T) {
	out := t.TempDir()
	for exp, cf := range map[string]ClaimsFile{
		"kpart-cluster": {Experiment: "kpart-cluster", Scale: "full", Simulated: "sim:kpart-paper, cost model containers; validation: not validated: none",
			SimulatedStanding: simcluster.NotValidated, Claims: []ClaimJSON{{Statement: "K-PART beats even", Verdict: "holds", N: []int{3, 3}}}},
		"comm-cost": {Experiment: "comm-cost", Scale: "quick", Claims: []ClaimJSON{{Statement: "less traffic", Verdict: "holds", N: []int{3, 3}}}},
	} {
		if err := os.MkdirAll(filepath.Join(out, exp), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(out, exp, "claims.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := reports.ClaimsFile(cf).Write(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	text, err := WritePaperSummary(out, "jian2018kpart", []string{"kpart-cluster", "comm-cost"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- kpart-cluster: scale full; simulated (not validated), the model's verdicts, not Storm's: sim:kpart-paper",
		"holds (simulated, not validated)", "- comm-cost: scale quick\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "(simulated, ") != 1 {
		t.Errorf("want one simulated verdict (comm-cost's is real):\n%s", text)
	}
}
