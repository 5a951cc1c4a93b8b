package experiments

import (
	"strings"
	"testing"
)

func TestClusterProfileNamed(t *testing.T) {
	for _, name := range []string{"ci", "quick", "full"} {
		p, err := ClusterProfileNamed(name)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if p.Reps < 1 || p.CommMeasure <= 0 || p.KPartStep <= 0 || len(p.WordCountMB)+len(p.KMeansMB) == 0 || len(p.LoadPercents) < 2 || len(p.LoadTopos) == 0 {
			t.Errorf("%q: incomplete profile %+v", name, p)
		}
	}
	if p, _ := ClusterProfileNamed("full"); p.Reps < 3 || len(p.WordCountMB) != 2 || len(p.LoadPercents) != 3 {
		t.Errorf("full profile must have >= 3 repetitions, two data sizes and the paper's three loads: %+v", p)
	}
	if p, _ := ClusterProfileNamed("quick"); p.Reps < MinVerdictReps || p.NoVerdict() != "" {
		t.Errorf("quick profile must issue verdicts (>= %d repetitions): %+v", MinVerdictReps, p)
	}
	if p, _ := ClusterProfileNamed("ci"); p.NoVerdict() == "" {
		t.Errorf("ci profile (1 repetition) must not issue verdicts: %+v", p)
	}
	if _, err := ClusterProfileNamed("huge"); err == nil || !strings.Contains(err.Error(), "ci, quick or full") {
		t.Errorf("unknown profile: err = %v, want one naming ci, quick or full", err)
	}
}

func TestCommCostSupervisors(t *testing.T) {
	// 4 workers over n nodes: n1 holds 4 (384 + 4*420 = 2,064 MB), n2 2
	// (1,224 -> the 1,280 floor), n4 1.
	for _, tc := range []struct{ n, mem int }{{1, 2064}, {2, 1280}, {4, 1280}} {
		s := commCostSupervisors(tc.n)
		if len(s) != tc.n || s[0].MemoryMB != tc.mem || s[0].CPUs != 1 {
			t.Errorf("n%d: %+v, want %d nodes of 1 core and %d MB", tc.n, s, tc.n, tc.mem)
		}
	}
}
