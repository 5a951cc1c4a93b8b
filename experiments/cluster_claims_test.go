package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClusterProfileNamed(t *testing.T) {
	for _, name := range []string{"", "quick", "full"} {
		p, err := ClusterProfileNamed(name)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if p.Reps < 1 || p.CommMeasure <= 0 || p.KPartStep <= 0 || len(p.WordCountMB) == 0 || len(p.LoadPercents) < 2 {
			t.Errorf("%q: incomplete profile %+v", name, p)
		}
	}
	if p, _ := ClusterProfileNamed("full"); p.Reps < 3 || len(p.WordCountMB) != 2 || len(p.LoadPercents) != 3 {
		t.Errorf("full profile must have >= 3 repetitions, two data sizes and the paper's three loads: %+v", p)
	}
	if _, err := ClusterProfileNamed("huge"); err == nil || !strings.Contains(err.Error(), "quick or full") {
		t.Errorf("unknown profile: err = %v, want one naming quick or full", err)
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

// commResults builds comm-cost rows with the given mean latencies (no delay).
func commResults(l1, l2, l4 float64) (*Results, *Aggregate) {
	r := &Results{Experiment: "comm-cost", Metrics: commCostMetrics}
	for _, c := range []struct{ x, l float64 }{{1, l1}, {2, l2}, {4, l4}} {
		v := map[string]float64{}
		for _, m := range commCostMetrics {
			v[m.Name] = 1
		}
		v["latency_mean_ms"] = c.l
		r.Add(Row{Series: "no delay", X: c.x, Values: v})
	}
	a, _ := Summarise(r)
	return r, a
}

func TestCommCostClaims(t *testing.T) {
	tests := []struct {
		l1, l2, l4  float64
		grows, band bool
	}{
		{10, 15, 20, true, true},  // x2.0: in [1.75, 2.75]
		{10, 12, 15, true, false}, // x1.5: grows, below +75%
		{10, 30, 20, false, true}, // x2.0 but n2 > n4
		{10, 20, 40, true, false}, // x4.0: above ~2.5x
	}
	for _, tc := range tests {
		r, a := commResults(tc.l1, tc.l2, tc.l4)
		c := commCostClaims(r, a)
		if len(c) != 2 || c[0].Holds != tc.grows || c[1].Holds != tc.band {
			t.Errorf("latencies %v/%v/%v: claims %+v, want grows=%v band=%v", tc.l1, tc.l2, tc.l4, c, tc.grows, tc.band)
		}
	}
}

func TestWritePaperSummary(t *testing.T) {
	out := t.TempDir()
	env := Env{Log: &strings.Builder{}, RawDir: filepath.Join(out, "comm-cost", "runs")}
	pcs := []paperClaim{{Experiment: "comm-cost", Claim: "latency grows", Paper: "n1 < n2 < n4", Measured: "1 < 2 < 3", Holds: true}}
	if err := publishClaims(env, "000", "comm-cost", "quick", pcs); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "summary-000.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"latency grows", "n1 < n2 < n4", "1 < 2 < 3", "holds", "kpart-cluster: not run yet"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary-000.md lacks %q:\n%s", want, md)
		}
	}
}
