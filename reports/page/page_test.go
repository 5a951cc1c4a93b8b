package page

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/internal/golden"
)

// render loads testdata/results (two experiments, one with claims.json and
// one older one with notes.md only, and a nightly compare.json).
func render(t *testing.T, dir string) []byte {
	t.Helper()
	f, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, f, Options{Title: "stormlab results"}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPageGolden(t *testing.T) {
	golden.Assert(t, "testdata/index.html", render(t, filepath.Join("testdata", "results")))
}

func TestLoad(t *testing.T) {
	f, err := Load(filepath.Join("testdata", "results"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Experiments) != 2 || f.Compare == nil || len(f.Summaries) != 1 {
		t.Fatalf("loaded %d experiments, compare %v, %d summaries; want 2, a comparison and 1", len(f.Experiments), f.Compare != nil, len(f.Summaries))
	}
	a, b := f.Experiments[0], f.Experiments[1]
	// Two paper claims (one holds, one does not) and one sanity check (inconclusive), counted apart.
	if a.Paper != (Tally{1, 1, 0}) || a.Sanity != (Tally{0, 0, 1}) || a.Project != (Tally{}) || !a.HasClaims {
		t.Errorf("alpha claims: paper %+v, sanity %+v, project %+v", a.Paper, a.Sanity, a.Project)
	}
	// table.csv: "cut rate" and "cut rate ci95" merge into one column; the
	// title comes from table.md's bold first line.
	if len(a.Tables) != 1 || strings.Join(a.Tables[0].Header, "|") != "algorithm|k|cut rate|runs" ||
		a.Tables[0].Rows[0][2] != "0.401 ± 0.021" || !strings.HasPrefix(a.Tables[0].Title, "alpha: cut rate") {
		t.Errorf("alpha table: %+v", a.Tables)
	}
	if nums := a.Tables[0].Numeric; nums[0] || !nums[1] || !nums[2] || !nums[3] {
		t.Errorf("numeric columns %v, want text, then numbers", nums)
	}
	if len(a.Figures) != 1 || !strings.HasPrefix(string(a.Figures[0].SVG), "<svg") {
		t.Errorf("alpha figures: %+v", a.Figures)
	}
	if b.HasClaims || b.Notes == "" || len(b.Figures) != 1 || b.Figures[0].PNGData == "" {
		t.Errorf("beta: claims %v, notes %q, figures %+v", b.HasClaims, b.Notes, b.Figures)
	}
	// One experiment's folder on its own.
	one, err := Load(filepath.Join("testdata", "results", "alpha"))
	if err != nil || len(one.Experiments) != 1 || one.Compare != nil {
		t.Errorf("Load(alpha) = %+v, %v", one, err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(dir, "missing"), "results folder"},
		{file, "is a file"},
		{dir, "no experiment results"},
	} {
		if _, err := Load(c.dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s) = %v, want an error containing %q", c.dir, err, c.want)
		}
	}
	bad := filepath.Join(dir, "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "manifest.json"), []byte("{"), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "manifest.json") {
		t.Errorf("broken manifest: %v", err)
	}
}

// The page must not reach the network: no http(s) URL in a src or href,
// and a CSP that allows none.
func TestPageSelfContained(t *testing.T) {
	page := string(render(t, filepath.Join("testdata", "results")))
	for _, bad := range []string{`src="http`, `href="http`, `<script`, `<link`} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %s", bad)
		}
	}
	if !strings.Contains(page, "default-src 'none'") {
		t.Error("page has no Content-Security-Policy")
	}
}

// TestSimulatedClaimsMarked: an experiment whose claims.json says it was simulated is marked as such
// on the page, with what stood behind it; a real one is not.
func TestSimulatedClaimsMarked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kpart-cluster")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	claims := `{"experiment": "kpart-cluster", "profile": "ci", "simulated": "sim:kpart-paper, cost model containers", "claims": []}`
	for name, body := range map[string]string{"manifest.json": `{"experiment": "kpart-cluster"}`, "claims.json": claims} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page := string(render(t, dir))
	if !strings.Contains(page, `class="simulated"`) || !strings.Contains(page, "sim:kpart-paper, cost model containers") {
		t.Errorf("the page does not mark the simulated claims:\n%s", page)
	}
	if strings.Contains(string(render(t, filepath.Join("testdata", "results"))), `class="simulated"`) {
		t.Error("real results marked simulated")
	}
}
