package page

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/reports"
)

// suiteExperiments are the three experiments of suiteFolder, each drawing
// the same two figure files (as kpart-mul, partition-k and
// partition-density draw cut_rate.svg).
var suiteExperiments = []string{"kpart-mul", "partition-k", "partition-density"}

// suiteFolder builds a results base like the default suite's: per
// experiment two paper claims (one holds, one inconclusive, with n per
// side), a sanity check that holds and one of this project's claims that
// does not hold, two figures, and the paper's summary-*.md written by
// lab.WritePaperSummary. Counted apart: paper 3 hold / 0 do not / 3
// inconclusive, sanity 3 of 3, project 0 / 3 / 0; mixed (as the page
// once did): 6 / 3 / 3.
func suiteFolder(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	eff, lo, hi, p := -0.05, -0.08, -0.02, 0.001
	for _, name := range suiteExperiments {
		dir := filepath.Join(out, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cf := reports.ClaimsFile{Experiment: name, Scale: "ci", Claims: []reports.ClaimRecord{
			{Statement: "K-PART cuts fewer edges", Source: "Jian, Lu and Zhang 2018, Fig. 5", Kind: "paper", Rule: "paired t", Verdict: "holds",
				Effect: &eff, EffectLabel: "cut rate difference", CILow: &lo, CIHigh: &hi, N: []int{16, 24}, P: &p},
			{Statement: "balance improves with Mul", Source: "Jian, Lu and Zhang 2018, Fig. 5", Kind: "paper", Rule: "paired t", Verdict: "inconclusive", N: []int{10}},
			{Statement: "every vertex placed", Kind: "sanity", Rule: "all rows", Verdict: "holds", N: []int{10}},
			{Statement: "the cut is within 10% of the optimum", Kind: "project", Rule: "paired t", Verdict: "does not hold", N: []int{10}},
		}}
		var b bytes.Buffer
		if err := cf.Write(&b); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{
			"claims.json":   b.String(),
			"manifest.json": `{"experiment": "` + name + `", "profile": "ci"}`,
			"cut_rate.svg":  `<svg viewBox="0 0 120 80" xmlns="http://www.w3.org/2000/svg"><rect x="10" y="10" width="100" height="60"/></svg>`,
			"balance.svg":   `<svg viewBox="0 0 120 80" xmlns="http://www.w3.org/2000/svg"><rect x="10" y="10" width="60" height="60"/></svg>`,
		}
		for f, s := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := lab.WritePaperSummary(out, "jian2018kpart", suiteExperiments); err != nil {
		t.Fatal(err)
	}
	return out
}

var idAttr = regexp.MustCompile(`\sid="([^"]*)"`)

// TestPageIDsAndPaperCounts: on the suite's page every element id is
// unique (each figure's names its experiment), the headline counts the
// papers' claims apart from sanity checks and the project's own, and the
// paper's summary is an HTML table, not Markdown shown raw.
func TestPageIDsAndPaperCounts(t *testing.T) {
	page := string(render(t, suiteFolder(t)))
	seen := map[string]int{}
	for _, m := range idAttr.FindAllStringSubmatch(page, -1) {
		seen[m[1]]++
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("id %q appears %d times", id, n)
		}
	}
	if seen["fig-partition-k-cut_rate.svg"] != 1 || len(seen) < 6 {
		t.Errorf("figure ids %v: want one per experiment and file", seen)
	}
	header := page[strings.Index(page, "<header>"):strings.Index(page, "</header>")]
	for _, want := range []string{
		`the papers' claims: <span class="badge ok">3 hold</span> <span class="badge bad">0 do not hold</span> <span class="badge unk">3 inconclusive</span>`,
		"sanity checks: 3 of 3 hold",
		`this project's claims: <span class="badge ok">0 hold</span> <span class="badge bad">3 do not hold</span>`,
		"kpart-mul</a> — 1 of 2 paper claims hold; 1 of 1 sanity checks; 0 of 1 own claims hold",
	} {
		if !strings.Contains(header, want) {
			t.Errorf("headline lacks %q:\n%s", want, header)
		}
	}
	sums := page[strings.Index(page, `<section id="summaries">`):strings.Index(page, `<section class="experiment"`)]
	if strings.Count(sums, "<tr>") != 1+3*4 || !strings.Contains(sums, "<th>experiment</th>") {
		t.Errorf("summary: want a table with a header and 12 claim rows:\n%s", sums)
	}
	for _, raw := range []string{"| ", "**", "<pre", "n = [", "# Summary"} {
		if strings.Contains(sums, raw) {
			t.Errorf("summary shows %q (Markdown or Go formatting raw):\n%s", raw, sums)
		}
	}
	if !strings.Contains(sums, "n = 16 and 24") {
		t.Errorf("summary lacks the units per side as %q:\n%s", "n = 16 and 24", sums)
	}
}
