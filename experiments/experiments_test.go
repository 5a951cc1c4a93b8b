package experiments

import (
	"bytes"
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// outBase is where experiment tests write: $STORMLAB_OUT if set, else the
// module's results/ folder (gitignored) so the files stay for a researcher,
// else a temp folder.
func outBase(t *testing.T) string {
	if d := os.Getenv("STORMLAB_OUT"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err == nil {
		for d := dir; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				return filepath.Join(d, "results")
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return t.TempDir()
}

// interruptible is the test's context, cancelled on SIGINT/SIGTERM: without
// it an interrupted `go test` dies at once and skips the cluster teardown;
// with it the run is cancelled and RunOnNewCluster removes its containers.
func interruptible(t *testing.T) context.Context {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	t.Cleanup(stop)
	return ctx
}

// runForTest runs a registered experiment, logs its table and claims, and
// fails on any error or missing output file (not on a claim that does not
// hold: that is a finding reported in notes.md).
func runForTest(t *testing.T, name string) *Report {
	t.Helper()
	spec, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	start := time.Now()
	rep, err := Run(interruptible(t), spec, Options{Out: outBase(t), Log: &log})
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, log.String())
	}
	var sum bytes.Buffer
	if err := rep.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s in %v\n%s", name, time.Since(start).Round(time.Millisecond), sum.String())
	for _, f := range rep.Files {
		if st, err := os.Stat(filepath.Join(rep.Dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("output %s: %v", f, err)
		}
	}
	checkFileSet(t, rep.Files, spec.Metrics)
	return rep
}

func TestExperimentKPartMul(t *testing.T) { runForTest(t, "kpart-mul") }

func TestExperimentPartitionK(t *testing.T) { runForTest(t, "partition-k") }

func TestExperimentPartitionDensity(t *testing.T) { runForTest(t, "partition-density") }

// TestExperimentSmoke needs a Docker engine (make test starts one).
func TestExperimentSmoke(t *testing.T) { runForTest(t, "smoke") }

// checkFileSet asserts the output folder's shape: the eight fixed files, and
// per metric either the whole figure set (SVG, PDF and PNG, one- and
// two-column) or none (a metric constant over the experiment gets no figure),
// and nothing else.
func checkFileSet(t *testing.T, files []string, metrics []Metric) {
	t.Helper()
	have := map[string]bool{}
	for _, f := range files {
		have[f] = true
	}
	for _, f := range []string{"raw.csv", "table.md", "table.csv", "table.tex", "refs.bib", "notes.md", "claims.json", "manifest.json"} {
		if !have[f] {
			t.Errorf("output %s missing", f)
		}
		delete(have, f)
	}
	figures := 0
	for _, m := range metrics {
		set := []string{m.Name + ".svg", m.Name + ".pdf", m.Name + ".png", m.Name + "-2col.pdf", m.Name + "-2col.png"}
		n := 0
		for _, f := range set {
			if have[f] {
				n++
				delete(have, f)
			}
		}
		if n != 0 && n != len(set) {
			t.Errorf("metric %s: %d of the %d figure files written", m.Name, n, len(set))
		}
		figures += n
	}
	if figures == 0 {
		t.Errorf("no figure written")
	}
	for f := range have {
		if !strings.HasPrefix(f, "series") && !strings.HasPrefix(f, "runs") {
			t.Errorf("unexpected output file %s", f)
		}
	}
}
