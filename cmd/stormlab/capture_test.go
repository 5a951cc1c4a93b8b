package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/internal/golden"
	"github.com/stormlab/stormlab/topologies"
)

// recordedUI serves the recorded Storm UI answers of harness/capture/testdata/storm-ui (a topology
// wc, two readings of its component pages: the first snapshot gets 0/, later ones 1/) and two
// supervisors, sup1 (200% CPU) and sup2 (100%), 4 slots each; the service holds no report.
// It writes a target file pointing at them.
func recordedUI(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "harness", "capture", "testdata", "storm-ui")
	const id = "wc-7-1700000000"
	var vis atomic.Int32
	serve := func(w http.ResponseWriter, file string) {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		w.Write(data)
	}
	ui := http.NewServeMux()
	ui.HandleFunc("/api/v1/topology/summary", func(w http.ResponseWriter, _ *http.Request) { serve(w, "summary.json") })
	ui.HandleFunc("/api/v1/topology/"+id+"/visualization", func(w http.ResponseWriter, _ *http.Request) {
		vis.Add(1)
		serve(w, "visualization.json")
	})
	ui.HandleFunc("/api/v1/topology/"+id+"/component/", func(w http.ResponseWriter, r *http.Request) {
		phase := min(vis.Load()-1, 1)
		serve(w, filepath.Join(fmt.Sprint(phase), filepath.Base(r.URL.Path)+".json"))
	})
	ui.HandleFunc("/api/v1/supervisor/summary", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"supervisors":[{"id":"s1","host":"sup1","slotsTotal":4,"totalCpu":200,"totalMem":2048},{"id":"s2","host":"sup2","slotsTotal":4,"totalCpu":100,"totalMem":2048}]}`))
	})
	uis := httptest.NewServer(ui)
	t.Cleanup(uis.Close)
	svcs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == protocol.PathReports {
			w.Write([]byte(`[]`))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(svcs.Close)
	file := filepath.Join(t.TempDir(), "target.yaml")
	body := fmt.Sprintf("name: lab\nnimbus: {seeds: [127.0.0.1], port: 6627}\nui: %s\nservice: {cluster: http://svc:7070, harness: %s}\n", uis.URL, svcs.URL)
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestCaptureCLI: a capture of the recorded topology writes a valid captured file (Storm's
// statistics: estimated) that whatif reads with the target's capacities and its placement.
func TestCaptureCLI(t *testing.T) {
	tg := recordedUI(t)
	out := filepath.Join(t.TempDir(), "wc.json")
	code, stdout, stderr := cli(t, "capture", "--target", tg, "--topology", "wc", "--for", "100ms", "--report-wait", "100ms", "--out", out)
	if code != exitOK || !strings.Contains(stdout, "captured wc over") || !strings.Contains(stdout, "storm-ui, estimated") {
		t.Fatalf("capture: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	c, err := topologies.ReadCapturedFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Components) != 4 || len(c.Vertices) != 7 || len(c.Placement) != 7 || c.Provenance.Cluster != "lab" {
		t.Errorf("captured %d components, %d tasks, placement %v, cluster %q", len(c.Components), len(c.Vertices), c.Placement, c.Provenance.Cluster)
	}
	code, stdout, stderr = cli(t, "whatif", out, "--cluster", "target:"+tg, "--schedulers", "kpart,even", "--format", "json")
	if code != exitOK {
		t.Fatalf("whatif: exit %d stderr %q", code, stderr)
	}
	var o whatifOutput
	if err := json.Unmarshal([]byte(stdout), &o); err != nil {
		t.Fatal(err)
	}
	if o.Cluster != "target lab" || len(o.Nodes) != 2 || o.Nodes[0].CPU != 200 || len(o.Nodes[0].Ports) != 4 || o.Current == "" {
		t.Fatalf("whatif cluster %q nodes %+v current %q: want target lab, sup1 at 200%% with 4 ports, a current placement", o.Cluster, o.Nodes, o.Current)
	}
	for _, r := range o.Rows {
		if r.Err != "" || r.Moved < 0 || r.Moved > 7 {
			t.Errorf("%s: err %q moved %d, want a placement and 0..7 moved", r.Scheduler, r.Err, r.Moved)
		}
	}
}

// TestCaptureBadInput: each refused request exits 2 with the fix and writes nothing.
func TestCaptureBadInput(t *testing.T) {
	tg := recordedUI(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "g.json")
	empty := filepath.Join(dir, "empty.yaml")
	os.WriteFile(empty, nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"capture", "--topology", "wc", "--out", out}, "no --target"},
		{[]string{"capture", "--target", tg, "--out", out}, "no --topology"},
		{[]string{"capture", "--target", tg, "--topology", "wc"}, "no --out"},
		{[]string{"capture", "--target", tg, "--topology", "wc", "--out", out, "--for", "0s"}, "--for 0s: give a positive duration"},
		{[]string{"capture", "--target", tg, "--topology", "wc", "--out", out, "--for", "-5s"}, "give a positive duration"},
		{[]string{"capture", "--target", tg, "--topology", "wc", "--out", filepath.Join(dir, "no", "g.json")}, "does not exist"},
		{[]string{"capture", "--target", filepath.Join(dir, "missing.yaml"), "--topology", "wc", "--out", out}, "target file"},
		{[]string{"capture", "--target", empty, "--topology", "wc", "--out", out}, "empty"},
		{[]string{"capture", "--target", tg, "--topology", "nope", "--out", out, "--for", "10ms"}, `topology "nope" is not running on lab (running: other, wc)`},
		{[]string{"capture", "--target", tg, "--topology", "wc", "--out", out, "--for", "10ms", "--report-wait", "10ms", "--source", "instrumented"}, "no worker report"},
		{[]string{"capture", "--target", tg, "--topology", "wc", "--out", out, "--source", "x"}, `source "x"`},
	} {
		code, stdout, stderr := cli(t, c.args...)
		if code != exitBadInput || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit 2 and %q", c.args, code, stdout, stderr, c.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%v: the folder holds %v, want only empty.yaml", c.args, entries)
		}
	}
}

// TestWhatifCapturedGolden: a captured file with a placement on a cluster file whose nodes are the
// placement's hosts adds the "executors moved" column (testdata/whatif-captured.golden; -update).
func TestWhatifCapturedGolden(t *testing.T) {
	cl := filepath.Join("testdata", "cluster-sup12.json")
	code, out, errOut := cli(t, "whatif", filepath.Join("testdata", "captured-small.json"), "--cluster", cl, "--schedulers", "kpart,even,rstorm")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Assert(t, filepath.Join("testdata", "whatif-captured.golden"), []byte(out))
	// A cluster without the placement's hosts (a what-if elsewhere): placed, moves not counted, and
	// the note says why.
	other := filepath.Join(t.TempDir(), "other.json")
	os.WriteFile(other, []byte(`{"nodes":[{"id":"a","cpu":100,"ports":[6700]}]}`), 0o644)
	code, out, errOut = cli(t, "whatif", filepath.Join("testdata", "captured-small.json"), "--cluster", other, "--schedulers", "even")
	if code != exitOK || strings.Contains(out, "executors moved │") || !strings.Contains(out, "executors moved: not counted: placement host sup1 is no node of the cluster (nodes: a)") {
		t.Errorf("foreign cluster: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// experiment --topology: bad input is refused before anything runs (exit 2, one line naming the fix,
// no results folder): an experiment that runs its own topologies, a topology that is no replay, a
// replay file that does not exist, a suite.
func TestExperimentTopologyBadInput(t *testing.T) {
	replay := filepath.Join("..", "..", "topologies", "testdata", "replay-small.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"kpart-cluster", "--topology", "replay:" + replay}, "--topology applies to load-curve, sim-validation only"},
		{[]string{"load-curve", "--topology", "wordcount"}, "give replay:FILE"},
		{[]string{"load-curve", "--topology", "replay:" + filepath.Join(t.TempDir(), "none.json")}, "not found"},
		{[]string{"default", "--topology", "replay:" + replay}, "not to the suite default"},
	} {
		out := t.TempDir()
		code, stdout, errs := cli(t, append([]string{"experiment", "--out", out}, c.args...)...)
		entries, _ := os.ReadDir(out)
		if code != exitBadInput || stdout != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) || len(entries) != 0 {
			t.Errorf("experiment %v: exit %d stdout %q stderr %q, %d files: want exit 2, one line with %q, nothing written", c.args, code, stdout, errs, len(entries), c.want)
		}
	}
}
