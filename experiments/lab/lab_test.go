package lab

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/reports"
)

func TestWriteAtomicKeepsOldFileOnFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.txt")
	if err := WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "old"); return err }); err != nil {
		t.Fatal(err)
	}
	err := WriteAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("interrupted")
	})
	if err == nil {
		t.Fatal("failed write reported success")
	}
	b, _ := os.ReadFile(path)
	ents, _ := os.ReadDir(filepath.Dir(path))
	if string(b) != "old" || len(ents) != 1 {
		t.Errorf("after failed write: content %q, %d files; want old content and no temp file", b, len(ents))
	}
}

func TestJudgeClaimsAndClaimsJSON(t *testing.T) {
	hi := []float64{10, 11, 12, 10.5, 11.5}
	lo := []float64{5, 6, 5.5, 6.5, 5}
	cs := []Claim{
		{Statement: "a > b", Checks: []reports.Check{reports.DifferenceCheck("a > b", hi, lo, reports.Greater, "(ms)")}},
		{Statement: "b > a", Forced: "built in", Checks: []reports.Check{reports.DifferenceCheck("b > a", lo, hi, reports.Greater, "(ms)")}},
		{Statement: "nothing", Kind: SanityCheck},
	}
	JudgeClaims(cs, "")
	for i, want := range []reports.Verdict{reports.Holds, reports.DoesNotHold, reports.Inconclusive} {
		if cs[i].Verdict != want {
			t.Errorf("claim %d: %q (%s), want %q", i, cs[i].Verdict, cs[i].Reason, want)
		}
	}
	if !strings.Contains(cs[1].Line(), "FORCED: built in") || !strings.Contains(cs[0].Line(), "p = ") || !strings.Contains(cs[0].Line(), "95% CI") {
		t.Errorf("verdict lines lack the forced label, p or CI:\n%s\n%s", cs[0].Line(), cs[1].Line())
	}
	var b strings.Builder
	if err := claimsFile("x", "quick", cs).Write(&b); err != nil {
		t.Fatal(err)
	}
	// The exact shape the HTML report reads.
	var raw map[string]any
	if err := json.Unmarshal([]byte(b.String()), &raw); err != nil {
		t.Fatal(err)
	}
	claims := raw["claims"].([]any)
	keys := []string{"statement", "source", "kind", "rule", "verdict", "reason", "effect", "effect_label", "ci_low", "ci_high", "n", "p", "forced", "evidence"}
	for i, c := range claims {
		m := c.(map[string]any)
		if len(m) != len(keys) {
			t.Errorf("claim %d has %d keys, want %d: %v", i, len(m), len(keys), m)
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("claim %d lacks %q", i, k)
			}
		}
	}
	third := claims[2].(map[string]any)
	if third["effect"] != nil || third["p"] != nil || third["kind"] != "sanity" || third["verdict"] != "inconclusive" {
		t.Errorf("claim without checks: %v", third)
	}
	if raw["experiment"] != "x" || raw["profile"] != "quick" || claims[1].(map[string]any)["forced"] != "built in" {
		t.Errorf("claims.json: %s", b.String())
	}
	// A scale without verdicts makes every claim inconclusive.
	JudgeClaims(cs, "profile ci runs 1 repetition(s)")
	for _, c := range cs {
		if c.Verdict != reports.Inconclusive || !strings.Contains(c.Reason, "profile ci") {
			t.Errorf("no-verdict scale: %q (%s)", c.Verdict, c.Reason)
		}
	}
}

func TestCiteAndBib(t *testing.T) {
	got := Cite("choi2021deadline", "Fig. 9")
	want := `Choi, Jeon, Lim, Bok and Yoo, "Dynamic Task Scheduling Scheme for Processing Real-Time Stream Data in Storm Environments", 2021, Fig. 9`
	if got != want {
		t.Errorf("Cite = %s\nwant %s", got, want)
	}
	var b strings.Builder
	if err := WriteBib(&b); err != nil {
		t.Fatal(err)
	}
	for _, p := range Papers {
		if !strings.Contains(b.String(), "@"+p.Type+"{"+p.Key+",") {
			t.Errorf("refs.bib lacks %s as @%s", p.Key, p.Type)
		}
		if strings.Contains(p.Title, ".txt") || strings.Contains(p.Authors, ".txt") {
			t.Errorf("paper %s cites a file name", p.Key)
		}
	}
	for _, want := range []string{"@inproceedings{eidenbenz2016spd,", "author = {Eidenbenz, Raphael and Locher, Thomas}",
		"booktitle = {Proceedings of the 35th IEEE International Conference on Computer Communications (INFOCOM)}",
		"author = {Jian, Chengfeng and Lu, Tao and Zhang, Meiyu}"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("refs.bib lacks %q:\n%s", want, b.String())
		}
	}
	for i, r := range b.String() {
		if r > 127 {
			t.Fatalf("refs.bib has non-ASCII %q at byte %d", r, i)
		}
	}
	if got := CiteShort("jian2018kpart", "Fig. 5"); got != "Jian et al. 2018, Fig. 5" {
		t.Errorf("CiteShort = %q", got)
	}
	if got := CiteShort("eidenbenz2016spd", ""); got != "Eidenbenz and Locher 2016" {
		t.Errorf("CiteShort = %q", got)
	}
	compileBib(t, b.String())
}

// compileBib runs pdflatex, bibtex, pdflatex on a document citing every
// paper of refs.bib; bibtex must report no error or warning.
func compileBib(t *testing.T, bib string) {
	t.Helper()
	for _, tool := range []string{"pdflatex", "bibtex"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (.ci/setup.sh installs texlive-latex-base): refs.bib not compiled", tool)
		}
	}
	dir := t.TempDir()
	var keys []string
	for _, p := range Papers {
		keys = append(keys, p.Key)
	}
	doc := "\\documentclass{article}\n\\begin{document}\n\\cite{" + strings.Join(keys, ",") + "}\n\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n"
	os.WriteFile(filepath.Join(dir, "refs.bib"), []byte(bib), 0o644)
	os.WriteFile(filepath.Join(dir, "doc.tex"), []byte(doc), 0o644)
	run := func(name string, args ...string) string {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex")
	if out := run("bibtex", "doc"); strings.Contains(out, "Warning") || strings.Contains(out, "error") {
		t.Errorf("bibtex:\n%s", out)
	}
	run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex")
}

// TestResolveScale: the one place a scale is resolved reads no environment: "" is DefaultScale
// (quick, the CLI's), a name is itself, anything else is an error naming the scales.
func TestResolveScale(t *testing.T) {
	t.Setenv("STORMLAB_PROFILE", "full") // the old variable must not be read here any more
	t.Setenv("STORMLAB_SCALE", "full")
	cases := []struct {
		in, want, wantErr string
	}{
		{"", "quick", ""},
		{"  ", "quick", ""},
		{"ci", "ci", ""},
		{"quick", "quick", ""},
		{" full ", "full", ""},
		{"huge", "", "ci, quick or full"},
		{"heterogeneous-2", "", "unknown scale"},
	}
	for _, c := range cases {
		got, err := ResolveScale(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ResolveScale(%q) = %q, %v; want an error containing %q", c.in, got, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ResolveScale(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestWritePaperSummary(t *testing.T) {
	out := t.TempDir()
	cs := []Claim{{Statement: "latency grows", Source: Cite("jian2018kpart", "Fig. 1"), Forced: "delay added",
		Checks: []reports.Check{reports.ExactCheck("x", "rule", true, 3, 3, "")}}}
	JudgeClaims(cs, "")
	if err := os.MkdirAll(filepath.Join(out, "comm-cost"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(filepath.Join(out, "comm-cost", "claims.json"), claimsFile("comm-cost", "quick", cs).Write); err != nil {
		t.Fatal(err)
	}
	md, err := WritePaperSummary(out, "jian2018kpart", []string{"comm-cost", "kpart-cluster"})
	if err != nil {
		t.Fatal(err)
	}
	onDisk, _ := os.ReadFile(filepath.Join(out, "summary-jian2018kpart.md"))
	for _, want := range []string{"Jian, Lu and Zhang", "latency grows (FORCED: delay added)", "| Fig. 1 |", "holds", "comm-cost: scale quick", "kpart-cluster: not run yet"} {
		if !strings.Contains(md, want) || !strings.Contains(string(onDisk), want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}
