package page

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/internal/golden"
)

// writeFolder writes an experiment's results folder: manifest.json and claims.json as given.
func writeFolder(t *testing.T, dir, manifest, claims string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"manifest.json": manifest, "claims.json": claims} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// realAndSimulated is a folder holding a real cluster's results base and a simulated one's, as a
// user would gather them: kpart-cluster judged on both (the simulated one on a cluster larger than
// the validated ones, with a claim the real run did not judge), comm-cost on the real one only.
func realAndSimulated(t *testing.T) string {
	base := t.TempDir()
	writeFolder(t, filepath.Join(base, "real", "kpart-cluster"), `{"experiment": "kpart-cluster", "cluster": "containers:heterogeneous-4"}`,
		`{"experiment": "kpart-cluster", "profile": "quick", "claims": [
{"statement": "K-PART raises throughput over even", "kind": "paper", "verdict": "holds"},
{"statement": "K-PART lowers latency", "kind": "paper", "verdict": "inconclusive"},
{"statement": "every run placed all executors", "kind": "sanity", "verdict": "holds"}]}`)
	writeFolder(t, filepath.Join(base, "real", "comm-cost"), `{"experiment": "comm-cost", "cluster": "containers:heterogeneous-4"}`,
		`{"experiment": "comm-cost", "profile": "quick", "claims": [{"statement": "K-PART moves fewer bytes between nodes", "kind": "paper", "verdict": "holds"}]}`)
	writeFolder(t, filepath.Join(base, "sim", "kpart-cluster"), `{"experiment": "kpart-cluster", "cluster": "sim:nodes-16"}`,
		`{"experiment": "kpart-cluster", "profile": "full", "simulated": "sim:nodes-16, cost model containers; validation: extrapolated beyond the validated 4 nodes (this cluster has 16): ...",
"simulated_standing": "extrapolated", "claims": [
{"statement": "K-PART raises throughput over even", "kind": "paper", "verdict": "does not hold"},
{"statement": "K-PART lowers latency", "kind": "paper", "verdict": "holds"},
{"statement": "K-PART's gain grows with the cluster", "kind": "paper", "verdict": "holds"}]}`)
	return base
}

// TestRealAndSimulatedSideBySide: an experiment judged on a real and on a simulated cluster gets a
// table with a column per folder, real first, each counted alone; the page's headline counts the real
// clusters' verdicts and the simulated ones apart; an experiment judged on one kind only gets no such
// table. The golden file holds the headline and the table as rendered.
func TestRealAndSimulatedSideBySide(t *testing.T) {
	base := realAndSimulated(t)
	f, err := Load(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Experiments) != 3 || len(f.SideBySide) != 1 {
		t.Fatalf("%d experiments, %d side-by-side tables; want 3 and 1 (kpart-cluster)", len(f.Experiments), len(f.SideBySide))
	}
	s := f.SideBySide[0]
	if s.Name != "kpart-cluster" || len(s.Columns) != 2 || s.Columns[0].Simulated || !s.Columns[1].Simulated ||
		s.Columns[1].Standing != "extrapolated" || s.Columns[0].Folder != "real/kpart-cluster" || s.Columns[1].Where != "sim:nodes-16" {
		t.Errorf("columns %+v", s.Columns)
	}
	// Each column counts its own paper claims: real 1 of 2 hold, simulated 2 of 3.
	if s.Columns[0].Paper != (Tally{1, 0, 1}) || s.Columns[1].Paper != (Tally{2, 1, 0}) {
		t.Errorf("column tallies %+v, %+v", s.Columns[0].Paper, s.Columns[1].Paper)
	}
	if len(s.Rows) != 4 || strings.Join(s.Rows[3].Verdicts, "|") != "|holds" || strings.Join(s.Rows[0].Verdicts, "|") != "holds|does not hold" {
		t.Errorf("rows %+v", s.Rows)
	}
	page := string(render(t, base))
	head, _, _ := strings.Cut(page, "</header>")
	_, head, _ = strings.Cut(head, "<header>")
	_, table, _ := strings.Cut(page, `<section id="real-and-simulated">`)
	table, _, _ = strings.Cut(table, "</section>")
	golden.Assert(t, "testdata/side-by-side.html", []byte(head+"\n"+table+"\n"))
	// The real clusters' headline: kpart-cluster's 1 + comm-cost's 1 paper claims hold, 1 inconclusive;
	// the simulated 2 hold, 1 does not: never 4 of 6.
	if !strings.Contains(head, `the papers' claims: <span class="badge ok">2 hold</span> <span class="badge bad">0 do not hold</span> <span class="badge unk">1 inconclusive</span>`) ||
		!strings.Contains(head, `the papers' claims: <span class="badge ok">2 hold</span> <span class="badge bad">1 do not hold</span> <span class="badge unk">0 inconclusive</span>`) {
		t.Errorf("headline pools or drops verdicts:\n%s", head)
	}
}
