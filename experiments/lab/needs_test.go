package lab

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/clusterref"
)

// A run's extra files are written by Output with the framework's own,
// listed in manifest.json, and nothing is written when the run fails.
func TestRunWritesExtraFiles(t *testing.T) {
	out := t.TempDir()
	var log strings.Builder
	spec := &Spec{Name: "extra", Metrics: []Metric{{Name: "m", Label: "m"}}, XName: "x", XLabel: "x",
		Cost: Cost{CI: "~1 s", Quick: "~2 s", Full: "~3 s"},
		Run: func(_ context.Context, env Env) (*Results, error) {
			r := &Results{Files: []File{{Name: "extra.csv", Write: func(w io.Writer) error { _, err := io.WriteString(w, "a,b\n"); return err }}}}
			r.Add(Row{Series: "s", Values: map[string]float64{"m": 1}})
			return r, nil
		}}
	if _, err := Run(context.Background(), spec, Options{Out: out, Log: &log, Scale: "quick"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "extra", "extra.csv")); err != nil || string(b) != "a,b\n" {
		t.Errorf("extra.csv: %q, %v", b, err)
	}
	b, err := os.ReadFile(filepath.Join(out, "extra", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man Manifest
	if err := json.Unmarshal(b, &man); err != nil || !slices.Contains(man.Files, "extra.csv") {
		t.Errorf("manifest files %v (%v): want extra.csv listed", man.Files, err)
	}
	if !strings.Contains(log.String(), "expected wall time at scale quick: ~2 s") {
		t.Errorf("log %q does not announce the spec's cost for the profile", log.String())
	}
	spec.Name = "broken"
	inner := spec.Run
	spec.Run = func(ctx context.Context, env Env) (*Results, error) {
		r, _ := inner(ctx, env)
		r.Rows[0].Values["m"] = 0 * r.Rows[0].Values["m"] / 0 // NaN: Validate fails
		return r, nil
	}
	if _, err := Run(context.Background(), spec, Options{Out: out, Log: io.Discard}); err == nil {
		t.Fatal("a NaN metric must fail the run")
	}
	if _, err := os.Stat(filepath.Join(out, "broken", "extra.csv")); err == nil {
		t.Error("a failed run wrote its extra file")
	}
}

func TestNeeds(t *testing.T) {
	for _, c := range []struct {
		n              Needs
		docker, target bool
		str            string
	}{
		{Needs{Need: NeedsNothing}, false, true, "none"},
		{Needs{Need: NeedsCluster, Why: "w"}, true, true, "cluster"},
		{Needs{Need: NeedsControl, Why: "loads the nodes"}, true, false, "cluster + control"},
		{Needs{Need: NeedsContainers, Why: "sizes its own nodes"}, true, false, "containers"},
		{Needs{}, false, true, "?"},
	} {
		err := c.n.On(clusterref.Caps{}) // a target without a control section
		if own := c.n.On(clusterref.Caps{OwnShapes: true}); own != nil {
			t.Errorf("%+v on containers of its own shapes: %v, want every need met", c.n, own)
		}
		if c.n.Docker() != c.docker || (err == nil) != c.target || c.n.Need.String() != c.str {
			t.Errorf("%+v: docker %v, on target %v, %q; want %v, %v, %q", c.n, c.n.Docker(), err, c.n.Need, c.docker, c.target, c.str)
		}
		if err != nil && !strings.HasPrefix(err.Error(), c.n.Why) {
			t.Errorf("%+v: refusal %q, want the reason %q", c.n, err, c.n.Why)
		}
		// A target with a control section takes every experiment up to NeedsControl.
		if withCtl := c.n.On(clusterref.Caps{Control: true}); (withCtl == nil) != (c.target || c.n.Need == NeedsControl) {
			t.Errorf("%+v on a target with control: %v", c.n, withCtl)
		}
	}
	if err := CheckScale("huge"); err == nil || !strings.Contains(err.Error(), "ci, quick or full") {
		t.Errorf("CheckProfile(huge): %v", err)
	}
	if err := CheckScale(""); err == nil {
		t.Error("CheckScale(\"\") must fail: an empty --scale is not a scale")
	}
}

// TestCostBudget: the cost strings the specs use, as durations.
func TestCostBudget(t *testing.T) {
	c := Cost{CI: "~25 s", Quick: "~13 min", Full: "~2 h"}
	for _, tc := range []struct {
		cost string
		want time.Duration
		ok   bool
	}{
		{"~25 s", 25 * time.Second, true},
		{"< 1 s", time.Second, true},
		{"~13 min", 13 * time.Minute, true},
		{"~2 h", 2 * time.Hour, true},
		{"4 s", 4 * time.Second, true},
		{"not run (quick/full only)", 0, false},
		{"soon", 0, false},
		{"~5 days", 0, false},
		{"", 0, false},
	} {
		c.CI = tc.cost
		if d, ok := c.Budget("ci"); d != tc.want || ok != tc.ok {
			t.Errorf("Budget(%q) = %v, %v; want %v, %v", tc.cost, d, ok, tc.want, tc.ok)
		}
	}
	if _, ok := c.Budget("nightly"); ok {
		t.Error("a scale that does not exist has a budget")
	}
}

// A metric's figure stops lower error bars at 0 (its caption says so) unless the metric is Signed: runs of 1, 1
// and 10 give a t-interval reaching below 0 at both x.
func TestFiguresNonNegativeUnlessSigned(t *testing.T) {
	out := t.TempDir()
	spec := &Spec{Name: "nonneg", Metrics: []Metric{{Name: "lat", Label: "latency (ms)"}, {Name: "loss", Label: "loss (%)", Signed: true}},
		XName: "x", XLabel: "x", Cost: Cost{CI: "~1 s", Quick: "~1 s", Full: "~1 s"},
		Run: func(_ context.Context, env Env) (*Results, error) {
			r := &Results{}
			for _, x := range []float64{1, 2} {
				for rep, v := range []float64{1, 1, 10 * x} {
					r.Add(Row{Series: "s", X: x, Rep: rep, Offered: "unpaced", Values: map[string]float64{"lat": v, "loss": v}})
				}
			}
			return r, nil
		}}
	if _, err := Run(context.Background(), spec, Options{Out: out, Log: io.Discard, Scale: "quick"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"lat.txt": true, "loss.txt": false} {
		b, err := os.ReadFile(filepath.Join(out, "nonneg", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), "stop at 0"); got != want {
			t.Errorf("%s: %q; clipped %v, want %v", name, b, got, want)
		}
	}
}

// TestFailedRunLeavesNoEmptyFolder: a run that fails (or is interrupted) before it kept anything leaves
// no folder behind; one that kept a run keeps it (for --resume).
func TestFailedRunLeavesNoEmptyFolder(t *testing.T) {
	for _, keep := range []bool{false, true} {
		out := t.TempDir()
		spec := &Spec{Name: "x", Metrics: []Metric{{Name: "m"}}, Needs: Needs{Need: NeedsNothing},
			Run: func(_ context.Context, env Env) (*Results, error) {
				if err := os.MkdirAll(env.RawDir, 0o755); err != nil {
					return nil, err
				}
				if keep {
					if err := os.WriteFile(filepath.Join(env.RawDir, "r0.json"), []byte("{}"), 0o644); err != nil {
						return nil, err
					}
				}
				return nil, context.Canceled
			}}
		if _, err := Run(context.Background(), spec, Options{Out: out, Log: io.Discard}); !errors.Is(err, context.Canceled) {
			t.Fatalf("keep %v: %v, want the interrupt", keep, err)
		}
		_, err := os.Stat(filepath.Join(out, "x"))
		if kept := err == nil; kept != keep {
			t.Errorf("keep %v: folder x left %v", keep, kept)
		}
	}
}

// TestNotesSayWhatLimitedTheRuns: notes.md counts each series' diagnoses per x; rows without one
// (graph experiments) add nothing.
func TestNotesSayWhatLimitedTheRuns(t *testing.T) {
	rows := []Row{
		{Series: "kpart", X: 0, Limit: "node at its quota", Bottleneck: "sup1 CPU 99% of 0.50 core"},
		{Series: "kpart", X: 0, Limit: "node at its quota", Bottleneck: "sup2 CPU 97% of 0.50 core"},
		{Series: "kpart", X: 0, Limit: "executor busy", Bottleneck: "count task 7 busy 0.95 (sup3)"},
		{Series: "storm-even", X: 0, Limit: "none found", Bottleneck: "none found (...)"},
	}
	var b strings.Builder
	writeLimits(&b, rows)
	for _, want := range []string{"## What limited the runs",
		"- kpart, x = 0: executor busy 1 of 3 (count task 7 busy 0.95 (sup3)); node at its quota 2 of 3 (sup1 CPU 99% of 0.50 core)",
		"- storm-even, x = 0: none found 1 of 1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("notes:\n%s\nwant %q", b.String(), want)
		}
	}
	var none strings.Builder
	writeLimits(&none, []Row{{Series: "K-PART", X: 1}})
	if none.Len() != 0 {
		t.Errorf("rows without a diagnosis wrote %q", none.String())
	}
}
