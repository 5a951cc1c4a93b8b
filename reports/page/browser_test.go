package page

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/stormlab/stormlab/experiments"
	"github.com/stormlab/stormlab/experiments/lab"
)

// artifactDir is where the browser test keeps its screenshot:
// $STORMLAB_ARTIFACTS, else results/test-artifacts at the repository root.
func artifactDir(t *testing.T) string {
	if d := os.Getenv("STORMLAB_ARTIFACTS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "results", "test-artifacts")
}

// chromium finds Debian's chromium. Without it the test skips, except in CI
// (CI set), where .ci/setup.sh installs it and its absence is a failure.
func chromium(t *testing.T) string {
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found in CI: .ci/setup.sh installs Debian's chromium package")
	}
	t.Skip("chromium not installed (apt-get install chromium, or run .ci/setup.sh); the page is not checked in a browser")
	return ""
}

// TestPageInChromium loads the rendered page in headless Chromium: no
// console error, no failed load (a CSP violation or a fetch would be one),
// every table and figure there and drawn with a size; the screenshot is kept.
func TestPageInChromium(t *testing.T) {
	exe := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "index.html")
	if err := os.WriteFile(page, render(t, filepath.Join("testdata", "results")), 0o644); err != nil {
		t.Fatal(err)
	}
	// 6 tables: compare changes and unchanged, alpha claims, table and
	// manifest, beta table; 2 figures: alpha SVG, beta PNG.
	shot := checkInBrowser(t, exe, page, 6, 2)
	out := artifactDir(t)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, "report-page.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// jsCheck is a further check of a page: a JavaScript expression giving an
// int, and the value wanted.
type jsCheck struct {
	what, js string
	want     int
}

// checkInBrowser opens file page and checks it; wantTables counts every
// <table> (compare tables and manifests included), wantFigures the figures.
// Every page's element ids must be unique; extra checks run last.
func checkInBrowser(t *testing.T, exe, page string, wantTables, wantFigures int, extra ...jsCheck) []byte {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // root in CI containers
		chromedp.WindowSize(1280, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	// Subscribe before navigating so no message is lost; read after.
	cctx, stopConsole := context.WithCancel(ctx)
	messages := chromedp.Console(cctx)
	var problems []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
				problems = append(problems, m.String()+" "+m.URL)
			}
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("chromium: open %s: %v", page, err)
	}
	eval := func(js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatalf("chromium: %s: %v", js, err)
		}
		return n
	}
	// <details> are opened so every table is laid out for the screenshot.
	eval(`document.querySelectorAll('details').forEach(d => d.open = true), 0`)
	tables := eval(`document.querySelectorAll('table').length`)
	figures := eval(`document.querySelectorAll('figure > svg, figure > img').length`)
	drawn := eval(`[...document.querySelectorAll('figure > svg, figure > img')].filter(e => {
		const r = e.getBoundingClientRect(); return r.width > 20 && r.height > 10 &&
		(e.tagName !== 'IMG' || (e.complete && e.naturalWidth > 0)) }).length`)
	extra = append(extra, jsCheck{"elements whose id another element has too",
		`(() => { const ids = [...document.querySelectorAll('[id]')].map(e => e.id);
		return ids.filter(id => ids.indexOf(id) !== ids.lastIndexOf(id)).length })()`, 0})
	for _, c := range extra {
		if got := eval(c.js); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("chromium: screenshot: %v", err)
	}
	stopConsole()
	<-done
	for _, p := range problems {
		t.Errorf("page problem: %s", p)
	}
	if tables != wantTables {
		t.Errorf("%d tables in the page, want %d", tables, wantTables)
	}
	if figures != wantFigures || drawn != wantFigures {
		t.Errorf("%d figures, %d drawn with a size; want %d", figures, drawn, wantFigures)
	}
	if len(shot) < 1000 {
		t.Errorf("screenshot is %d bytes", len(shot))
	}
	return shot
}

// TestExperimentPageInChromium runs a real in-process experiment (kpart-mul,
// about 3 s), renders its folder and checks the page in Chromium: one
// figure per SVG the experiment wrote, and its results table, claims table
// and manifest.
func TestExperimentPageInChromium(t *testing.T) {
	exe := chromium(t)
	spec, err := experiments.Lookup("kpart-mul")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := experiments.Run(t.Context(), spec, lab.Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	svgs, _ := filepath.Glob(filepath.Join(out, "kpart-mul", "*.svg"))
	csvs, _ := filepath.Glob(filepath.Join(out, "kpart-mul", "*.csv"))
	f, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Experiments) != 1 || !f.Experiments[0].HasClaims || len(f.Experiments[0].Claims) == 0 {
		t.Fatalf("loaded %+v: want kpart-mul with its claims", f.Experiments)
	}
	page := filepath.Join(out, "index.html")
	w, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(w, f, Options{Title: "kpart-mul"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Tables: every CSV but raw.csv, the claims, the manifest, and one per paper summary.
	sums, _ := filepath.Glob(filepath.Join(out, "summary-*.md"))
	shot := checkInBrowser(t, exe, page, len(csvs)-1+2+len(sums), len(svgs))
	dir := artifactDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report-kpart-mul.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSuitePageInChromium loads the page of a suite-like results base
// (suiteFolder: three experiments drawing the same two figure files, and
// the paper's summary) in headless Chromium: ids unique, the summary drawn
// as a table with its 12 claim rows and laid out with a size, no Markdown
// left in it.
func TestSuitePageInChromium(t *testing.T) {
	exe := chromium(t)
	page := filepath.Join(t.TempDir(), "index.html")
	if err := os.WriteFile(page, render(t, suiteFolder(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	// Tables: the summary, and per experiment its claims and manifest; figures: 2 per experiment.
	checkInBrowser(t, exe, page, 1+3*2, 3*2,
		jsCheck{"claim rows of the summary table", `document.querySelectorAll('#summaries table tbody tr').length`, 12},
		jsCheck{"summary tables drawn with a size", `[...document.querySelectorAll('#summaries table')].filter(e => e.getBoundingClientRect().width > 200).length`, 1},
		jsCheck{"Markdown pipes or ** in the summaries' text", `['|', '**'].filter(s => document.querySelector('#summaries').innerText.includes(s)).length`, 0},
		jsCheck{"figures with an id", `document.querySelectorAll('figure[id]').length`, 6})
}
