package experiments

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/internal/testsettings"
	"github.com/stormlab/stormlab/reports"
)

// interruptible is the test's context, cancelled on SIGINT/SIGTERM: without
// it an interrupted `go test` dies at once and skips the cluster teardown;
// with it the run is cancelled and the cluster is closed and its containers removed.
func interruptible(t *testing.T) context.Context {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	t.Cleanup(stop)
	return ctx
}

// runForTest runs a registered experiment, logs its table and claims, and
// fails on any error or missing output file (not on a claim that does not
// hold: that is a finding reported in notes.md).
func runForTest(t *testing.T, name string) *lab.Report {
	t.Helper()
	spec, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	start := time.Now()
	rep, err := Run(interruptible(t), spec, lab.Options{Out: testsettings.Out(t), Log: &log, Scale: testsettings.Scale(t), Cluster: testsettings.Cluster(t)})
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, log.String())
	}
	var sum bytes.Buffer
	if err := rep.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s in %v, results in %s\n%s", name, time.Since(start).Round(time.Millisecond), rep.Dir, sum.String())
	for _, f := range rep.Files {
		if st, err := os.Stat(filepath.Join(rep.Dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("output %s: %v", f, err)
		}
	}
	checkFileSet(t, rep.Files, spec.Metrics, extraFiles(rep))
	checkSummaryWidth(t, sum.String())
	if rep.Spec.Run != nil {
		compileLaTeX(t, rep.Dir) // every experiment's table and figures, cluster ones included
	}
	return rep
}

// checkSummaryWidth fails on a summary line wider than lab.SummaryWidth.
func checkSummaryWidth(t *testing.T, sum string) {
	t.Helper()
	for i, l := range strings.Split(sum, "\n") {
		if n := utf8.RuneCountInString(l); n > lab.SummaryWidth {
			t.Errorf("summary line %d is %d columns wide (> %d): %s", i+1, n, lab.SummaryWidth, l)
		}
	}
}

// TestExperiment runs every registered experiment as a subtest named as `stormlab experiment list`
// names it (go test ./experiments -run 'TestExperiment/kpart-mul$'), at the scale and on the cluster
// of the test settings (internal/testsettings). The graph experiments always run; the cluster
// experiments run on containers under quick and full. Under ci (make test) they are left to
// cmd/stormlab's target tests, which run them through a standing cluster's target file (the same code
// on one cluster start fewer), unless $STORMLAB_CONTAINERS names them. A subtest fails on an error, a
// missing output file or a broken check of afterRun, never on a claim's verdict (a finding, in notes.md).
func TestExperiment(t *testing.T) {
	for _, spec := range List() {
		t.Run(spec.Name, func(t *testing.T) {
			if spec.Needs.Need != lab.NeedsNothing && testsettings.Scale(t) == "ci" {
				if ok, why := testsettings.OnContainersUnderCI(spec.Name); !ok {
					t.Skipf("%s: left to cmd/stormlab's target tests under ci; %s", spec.Name, why)
				}
			}
			rep := runForTest(t, spec.Name)
			if check := afterRun[spec.Name]; check != nil {
				check(t, rep)
			}
		})
	}
}

// afterRun holds the checks an experiment's test makes beyond runForTest's.
var afterRun = map[string]func(*testing.T, *lab.Report){
	"spd":           checkSPD,
	"comm-cost":     logPaperSummary,
	"kpart-cluster": logPaperSummary,
	"deadline":      logPaperSummary,
}

// extraFiles names the files the experiment's Run returned besides its rows.
func extraFiles(rep *lab.Report) []string {
	var out []string
	if rep.Results != nil {
		for _, f := range rep.Results.Files {
			out = append(out, f.Name)
		}
	}
	return out
}

// checkFileSet asserts the output folder's shape: the eight fixed files,
// and figures named after a metric (or metric-panel, or an extra figure
// such as balance-trace), each either whole (SVG, PDF and PNG, one- and
// two-column, and its caption as .txt and .tex) or absent (a metric
// constant over the experiment gets no figure), and nothing else.
func checkFileSet(t *testing.T, files []string, metrics []lab.Metric, extras []string) {
	t.Helper()
	have := map[string]bool{}
	for _, f := range files {
		have[f] = true
	}
	// The experiment's own extra files (Results.Files: time series, per-node tables, their figures
	// with captions) are its to name; they only have to have been written.
	for _, f := range extras {
		if !have[f] {
			t.Errorf("extra output %s missing", f)
		}
		delete(have, f)
	}
	for _, f := range []string{"raw.csv", "table.md", "table.csv", "table.tex", "refs.bib", "notes.md", "claims.json", "manifest.json"} {
		if !have[f] {
			t.Errorf("output %s missing", f)
		}
		delete(have, f)
	}
	figures := map[string]int{}
	for f := range have {
		if strings.HasSuffix(f, ".svg") {
			figures[strings.TrimSuffix(f, ".svg")] = 0
		}
	}
	for name := range figures {
		known := name == "balance-trace"
		for _, m := range metrics {
			known = known || name == m.Name || strings.HasPrefix(name, m.Name+"-")
		}
		if !known {
			t.Errorf("figure %s is neither a metric's nor a known extra figure", name)
		}
		for _, suf := range []string{".svg", ".pdf", ".png", "-2col.pdf", "-2col.png", ".txt", ".tex"} {
			if !have[name+suf] {
				t.Errorf("figure %s lacks %s%s", name, name, suf)
			}
			delete(have, name+suf)
		}
	}
	if len(figures) == 0 {
		t.Errorf("no figure written")
	}
	for f := range have {
		if !strings.HasPrefix(f, "series") && !strings.HasPrefix(f, "runs") {
			t.Errorf("unexpected output file %s", f)
		}
	}
}

// compileLaTeX compiles the folder's table.tex and every figure's .tex in a document with
// reports.LaTeXPreamble (a two-column article, so table* and the column
// width are tried) with pdflatex, and fails on an error, an overfull box
// or a float too tall for the page.
// Without pdflatex it skips, saying why (.ci/setup.sh installs it, so CI
// compiles).
func compileLaTeX(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("pdflatex"); err != nil {
		t.Skipf("pdflatex not installed (.ci/setup.sh installs texlive-latex-base and texlive-latex-recommended): %s/table.tex not compiled", dir)
	}
	tbl, err := os.ReadFile(filepath.Join(dir, "table.tex"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	// Every figure's .tex too: it includes the figure's PDF from dir.
	figs, _ := filepath.Glob(filepath.Join(dir, "*.tex"))
	var body strings.Builder
	body.Write(tbl)
	for i, f := range figs {
		if filepath.Base(f) == "table.tex" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		body.Write(b)
		if i%8 == 7 {
			body.WriteString("\\clearpage\n") // LaTeX holds at most 18 floats in waiting
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	doc := "\\documentclass[twocolumn]{article}\n" + reports.LaTeXPreamble + "\\graphicspath{{" + abs + "/}}\n\\begin{document}\n" + body.String() + "\\end{document}\n"
	if err := os.WriteFile(filepath.Join(tmp, "doc.tex"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex")
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pdflatex on %s/table.tex: %v\n%s", dir, err, out)
	}
	log, _ := os.ReadFile(filepath.Join(tmp, "doc.log"))
	for _, bad := range []string{"Overfull \\hbox", "Float too large"} {
		if strings.Contains(string(log), bad) {
			t.Errorf("%s/table.tex does not fit (%s):\n%s", dir, bad, log)
		}
	}
}

// TestNameListsFromSpecs checks that the lists the CLI shows and checks (--calibration,
// --topology) are derived from the specs' fields and name the experiments that read a stated
// calibration (env.Calibration in cluster_kpart.go, cluster_recovery.go, load_curve.go) and the one
// that run on a replay (load-curve, through loadTopology; sim-validation, through simValidationOn).
func TestNameListsFromSpecs(t *testing.T) {
	for _, c := range []struct {
		name string
		got  []string
		want string
	}{
		{"CalibratedExperiments", CalibratedExperiments(), "kpart-cluster, load-curve, recovery"},
		{"TopologyExperiments", TopologyExperiments(), "load-curve, sim-validation"},
	} {
		if got := strings.Join(c.got, ", "); got != c.want {
			t.Errorf("%s() = %q, want %q", c.name, got, c.want)
		}
	}
}
