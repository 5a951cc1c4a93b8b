package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/infra/target"
	"github.com/stormlab/stormlab/topologies"
)

const wcID = "wc-7-1700000000"

// fixtureUI serves dir as a UI: summary.json, visualization.json and one <component>.json per
// component page. With phase folders 0/ and 1/ the component pages come from 0/ until the
// visualization has been read a second time (the second snapshot), then from 1/.
func fixtureUI(t *testing.T, dir string) *httptest.Server {
	var visReads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, "/api/v1/")
		var file string
		switch {
		case p == "topology/summary":
			file = "summary.json"
		case p == "topology/"+wcID+"/visualization":
			visReads.Add(1)
			file = "visualization.json"
		case strings.HasPrefix(p, "topology/"+wcID+"/component/"):
			c := strings.TrimPrefix(p, "topology/"+wcID+"/component/")
			file = c + ".json"
			if phase := filepath.Join(dir, fmt.Sprint(visReads.Load()-1)); dirExists(phase) {
				file = filepath.Join(fmt.Sprint(visReads.Load()-1), c+".json")
			}
		}
		data, err := os.ReadFile(filepath.Join(dir, file))
		if file == "" || err != nil {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// snapshotAt reads a snapshot through the fixture UI and stamps it.
func snapshotAt(t *testing.T, ui *stormui.Client, ms int64) *Snapshot {
	t.Helper()
	s, err := readSnapshot(context.Background(), ui, wcID)
	if err != nil {
		t.Fatal(err)
	}
	s.TimeMs = ms
	return s
}

type approx struct {
	name      string
	got, want float64
}

func checkAll(t *testing.T, tol float64, xs ...approx) {
	t.Helper()
	for _, x := range xs {
		if math.Abs(x.got-x.want) > tol {
			t.Errorf("%s = %v, want %v (tol %g)", x.name, x.got, x.want, tol)
		}
	}
}

func vertexWeights(c *topologies.Captured) map[int]float64 {
	m := map[int]float64{}
	for _, v := range c.Vertices {
		m[v.ID] = v.Weight
	}
	return m
}

func edgeMap(c *topologies.Captured) map[[2]int]topologies.CapturedEdge {
	m := map[[2]int]topologies.CapturedEdge{}
	for _, e := range c.Edges {
		m[[2]int{e.From, e.To}] = e
	}
	return m
}

// TestBuildFromStormUI: Storm UI's recorded answers (testdata/storm-ui, two readings whose executor
// uptimes are 10 s apart) give, worked by hand from the counter differences over 10 s:
//   - streams: sentence->split 1000/10 = 100/s (shuffle), split->count 10000/10 = 1000/s, count->report
//     1000/s, both "fields" (Storm's UI shows a global grouping as fields and gives no field names);
//   - edges spread over task pairs: sentence {5,6} -> split {7,8}: 100/4 = 25 each; split -> count
//     {3,4}: 1000/4 = 250; count -> report {9}: 1000/2 = 500;
//   - bolt CPU = executed x execute latency / span: split 1000 x 2.5 ms / 10 s = 25% over tasks 7, 8
//     (12.5 each); count [3-3] 5000 x 1.0 ms = 50%, [4-4] 5000 x 0.4 ms = 20%; report 10000 x 0.1 ms
//     = 10%; spouts 0 (unknown);
//   - CPU per tuple: split 0.25 core / 100 tuples/s = 2500 us, count 0.7 / 1000 = 700 us, report 100 us;
//   - the acker's streams into the spout and the spout's __ack_init stream are left out.
func TestBuildFromStormUI(t *testing.T) {
	ui := stormui.New(fixtureUI(t, filepath.Join("testdata", "storm-ui")).URL)
	s0 := snapshotAt(t, ui, 1_700_000_000_000)
	s1 := snapshotAt(t, ui, 1_700_000_010_000)
	comps, err := s1.structure()
	if err != nil {
		t.Fatal(err)
	}
	c, err := buildFromUI(s0, s1, comps)
	if err != nil {
		t.Fatal(err)
	}
	c.Provenance = topologies.Provenance{Topology: "wc", SpanS: 10, Source: c.Provenance.Source, Estimated: c.Provenance.Estimated}
	c.Placement = placement(comps)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Provenance.Source != topologies.SourceStormUI || !c.Provenance.Estimated {
		t.Errorf("provenance %+v: want storm-ui, estimated", c.Provenance)
	}
	wantStreams := []topologies.CapturedStream{
		{From: "split", To: "count", Stream: "default", Grouping: topologies.GroupFields, TuplesPerS: 1000},
		{From: "count", To: "report", Stream: "default", Grouping: topologies.GroupFields, TuplesPerS: 1000},
		{From: "sentence", To: "split", Stream: "default", Grouping: topologies.GroupShuffle, TuplesPerS: 100},
	}
	if !reflect.DeepEqual(c.Streams, wantStreams) {
		t.Errorf("streams %+v\nwant %+v", c.Streams, wantStreams)
	}
	w, e := vertexWeights(c), edgeMap(c)
	const tol = 1e-9
	checkAll(t, tol,
		approx{"vertex 5", w[5], 0}, approx{"vertex 7", w[7], 12.5}, approx{"vertex 8", w[8], 12.5},
		approx{"vertex 3", w[3], 50}, approx{"vertex 4", w[4], 20}, approx{"vertex 9", w[9], 10},
		approx{"edge 5->7", e[[2]int{5, 7}].Weight, 25}, approx{"edge 6->8", e[[2]int{6, 8}].Weight, 25},
		approx{"edge 7->4", e[[2]int{7, 4}].Weight, 250}, approx{"edge 3->9", e[[2]int{3, 9}].Weight, 500},
		approx{"edges", float64(len(c.Edges)), 4 + 4 + 2},
	)
	want := map[string][5]float64{ // emit, execute, cpu, cpu us/tuple, parallelism
		"sentence": {100, 0, 0, 0, 2}, "split": {1000, 100, 25, 2500, 1}, "count": {1000, 1000, 70, 700, 2}, "report": {0, 1000, 10, 100, 1},
	}
	for _, k := range c.Components {
		x := want[k.Name]
		checkAll(t, tol, approx{k.Name + " emit/s", k.EmitPerS, x[0]}, approx{k.Name + " execute/s", k.ExecutePerS, x[1]},
			approx{k.Name + " cpu", k.CPUPercent, x[2]}, approx{k.Name + " us/tuple", k.CPUMicrosPerTuple, x[3]},
			approx{k.Name + " parallelism", float64(k.Parallelism), x[4]})
	}
	wantPlace := topologies.Placement{5: "sup1:6700", 6: "sup2:6700", 7: "sup1:6700", 8: "sup1:6700", 3: "sup1:6701", 4: "sup2:6700", 9: "sup2:6701"}
	if !reflect.DeepEqual(c.Placement, wantPlace) {
		t.Errorf("placement %v, want %v", c.Placement, wantPlace)
	}
	// The same reading twice: no statistics arrived in between, and that is refused.
	if _, err := buildFromUI(s1, s1, comps); err == nil || !strings.Contains(err.Error(), "did not refresh during the window") {
		t.Errorf("same reading twice: error %v, want statistics not refreshed", err)
	}
}

func readReports(t *testing.T) []protocol.WorkerReport {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "stormlab-ui", "reports.json"))
	if err != nil {
		t.Fatal(err)
	}
	var reps []protocol.WorkerReport
	if err := json.Unmarshal(data, &reps); err != nil {
		t.Fatal(err)
	}
	return reps
}

// TestBuildInstrumented: the workers' reports (testdata/stormlab-ui/reports.json, two workers with
// two 5 s reports each: 10 s covered each) give, worked by hand (count / 10 s):
//   - task CPU: 3: 3e9 ns -> 30%, 5: 10%, 7: 20%, 8: 10%, 4: 20%, 6: 10%, 9: 5%;
//   - edges (tuples executed): 5->7 = 5->8 = 6->7 = 6->8 = 50/s, 7->3 = 8->3 = 200, 7->4 = 8->4 =
//     300, 3->9 = 400, 4->9 = 600; 5->1 goes to an acker task and is left out;
//   - emits: sentence 100+100 = 200/s, split 500+500 = 1000, count 400+600 = 1000;
//   - sampled sizes: 5: 640 B/10 = 64, 6: 60, 7: 40, 8: 50, 4: 30, 3 none (its component's: 30);
//     edge bytes = rate x source size: 5->7 3200, 8->4 15000, 3->9 12000; components: sentence
//     1240/20 = 62, split 1800/40 = 45, count 30, report unknown (0);
//   - components: split executes 4 x 50 = 200/s at 30% -> 1500 us/tuple; count 1000/s at 50% -> 500;
//     report 1000/s at 5% -> 50; sentence emits 200/s at 20% -> 1000;
//   - the stormlab UI names the fields: count reads split on fields [word], report reads count on
//     no fields, i.e. global;
//   - memory: sup1's worker (tasks 3, 5, 7, 8) reported 200 and 240 MB (mean 220: 55 per task), sup2's
//     (tasks 4, 6, 9) 150 MB and then nothing (50 per task): sentence 5+6 = 105, split 7+8 = 110,
//     count 3+4 = 105, report 9 = 50.
func TestBuildInstrumented(t *testing.T) {
	ui := stormui.New(fixtureUI(t, filepath.Join("testdata", "stormlab-ui")).URL)
	comps, err := snapshotAt(t, ui, 0).structure()
	if err != nil {
		t.Fatal(err)
	}
	c := buildInstrumented(comps, foldReports(readReports(t)))
	c.Provenance = topologies.Provenance{Topology: "wc", SpanS: 10, Source: c.Provenance.Source, Estimated: c.Provenance.Estimated}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Provenance.Estimated {
		t.Error("exact reports marked estimated")
	}
	wantStreams := []topologies.CapturedStream{
		{From: "split", To: "count", Stream: "default", Grouping: topologies.GroupFields, Fields: []string{"word"}, TuplesPerS: 1000, BytesPerTuple: 45},
		{From: "count", To: "report", Stream: "default", Grouping: topologies.GroupGlobal, TuplesPerS: 1000, BytesPerTuple: 30},
		{From: "sentence", To: "split", Stream: "default", Grouping: topologies.GroupShuffle, TuplesPerS: 200, BytesPerTuple: 62},
	}
	if !reflect.DeepEqual(c.Streams, wantStreams) {
		t.Errorf("streams %+v\nwant %+v", c.Streams, wantStreams)
	}
	w, e := vertexWeights(c), edgeMap(c)
	const tol = 1e-9
	checkAll(t, tol,
		approx{"vertex 3", w[3], 30}, approx{"vertex 5", w[5], 10}, approx{"vertex 7", w[7], 20},
		approx{"vertex 9", w[9], 5}, approx{"edges", float64(len(c.Edges)), 10},
		approx{"edge 5->7", e[[2]int{5, 7}].Weight, 50}, approx{"edge 5->7 bytes", e[[2]int{5, 7}].BytesPerS, 3200},
		approx{"edge 8->4", e[[2]int{8, 4}].Weight, 300}, approx{"edge 8->4 bytes", e[[2]int{8, 4}].BytesPerS, 15000},
		approx{"edge 3->9", e[[2]int{3, 9}].Weight, 400}, approx{"edge 3->9 bytes", e[[2]int{3, 9}].BytesPerS, 12000},
	)
	want := map[string][6]float64{ // emit, execute, cpu, us/tuple, bytes, memory MB
		"sentence": {200, 0, 20, 1000, 62, 105}, "split": {1000, 200, 30, 1500, 45, 110}, "count": {1000, 1000, 50, 500, 30, 105}, "report": {0, 1000, 5, 50, 0, 50},
	}
	for _, k := range c.Components {
		x := want[k.Name]
		checkAll(t, tol, approx{k.Name + " emit/s", k.EmitPerS, x[0]}, approx{k.Name + " execute/s", k.ExecutePerS, x[1]},
			approx{k.Name + " cpu", k.CPUPercent, x[2]}, approx{k.Name + " us/tuple", k.CPUMicrosPerTuple, x[3]},
			approx{k.Name + " bytes", k.TupleBytes, x[4]}, approx{k.Name + " memory", k.MemoryMB, x[5]})
	}
}

// TestBuildInstrumentedWithoutEmits: reports of an older instrumentation (no emit counts) give the
// stream rates from the tuples executed between the two components (the same figures here: each
// stream is the only one between its components and none is an all grouping), marked estimated.
func TestBuildInstrumentedWithoutEmits(t *testing.T) {
	ui := stormui.New(fixtureUI(t, filepath.Join("testdata", "stormlab-ui")).URL)
	comps, err := snapshotAt(t, ui, 0).structure()
	if err != nil {
		t.Fatal(err)
	}
	reps := readReports(t)
	for i := range reps {
		reps[i].Emits = nil
	}
	c := buildInstrumented(comps, foldReports(reps))
	if !c.Provenance.Estimated {
		t.Error("stream rates from executed tuples not marked estimated")
	}
	got := map[string]float64{}
	for _, s := range c.Streams {
		got[s.From] = s.TuplesPerS
	}
	emit := map[string]float64{}
	for _, k := range c.Components {
		emit[k.Name] = k.EmitPerS
	}
	checkAll(t, 1e-9, approx{"sentence stream", got["sentence"], 200}, approx{"split stream", got["split"], 1000},
		approx{"count stream", got["count"], 1000}, approx{"split emits", emit["split"], 1000}, approx{"report emits", emit["report"], 0})
}

// fakeService answers /v1/reports with reports (none by default) and counts the calls.
func fakeService(t *testing.T, reps []protocol.WorkerReport) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != protocol.PathReports {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(reps)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func fixtureTarget(t *testing.T, uiDir string, reps []protocol.WorkerReport) *target.Target {
	return &target.Target{Name: "lab", UI: fixtureUI(t, uiDir).URL,
		Service: target.Service{Cluster: "http://service:7070", Harness: fakeService(t, reps).URL}}
}

// TestCaptureStormUI runs Capture end to end against the recorded Storm UI (no reports of the
// topology reach the service): the file is estimated, placed, and its rates keep the recorded
// ratios (the divisor is the real, short window, so only ratios are exact: split emits 10 times
// what sentence emits, count's CPU is 7 times report's).
func TestCaptureStormUI(t *testing.T) {
	tg := fixtureTarget(t, filepath.Join("testdata", "storm-ui"), nil)
	c, err := Capture(context.Background(), tg, "wc", 50*time.Millisecond, WithReportWait(50*time.Millisecond), WithVersion("test"))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Provenance
	if p.Source != StormUI || !p.Estimated || p.Cluster != "lab" || p.TopologyID != wcID || p.StormlabVersion != "test" || !(p.SpanS > 0) || p.ToMs <= p.FromMs {
		t.Errorf("provenance %+v", p)
	}
	if len(c.Placement) != 7 {
		t.Errorf("placement %v: want all 7 tasks", c.Placement)
	}
	byName := map[string]topologies.CapturedComponent{}
	for _, k := range c.Components {
		byName[k.Name] = k
	}
	checkAll(t, 1e-9, approx{"split/sentence emits", byName["split"].EmitPerS / byName["sentence"].EmitPerS, 10},
		approx{"count/report cpu", byName["count"].CPUPercent / byName["report"].CPUPercent, 7})
}

// TestCaptureRefuses: requests that cannot be met are BadInputErrors naming the fix.
func TestCaptureRefuses(t *testing.T) {
	ctx := context.Background()
	ok := fixtureTarget(t, filepath.Join("testdata", "storm-ui"), nil)
	down := &target.Target{UI: "http://127.0.0.1:1", Service: ok.Service}
	for _, c := range []struct {
		name string
		tg   *target.Target
		topo string
		span time.Duration
		opts []Option
		want string
	}{
		{"zero window", ok, "wc", 0, nil, "give a positive duration"},
		{"negative window", ok, "wc", -time.Second, nil, "give a positive duration"},
		{"unknown source", ok, "wc", time.Second, []Option{WithSource("guess")}, `source "guess"`},
		{"not running", ok, "nope", time.Second, nil, `topology "nope" is not running on lab (running: other, wc)`},
		{"killed is not running", ok, "old", time.Second, nil, `"old" is not running`},
		{"ui down", down, "wc", time.Second, nil, "does not answer"},
		{"instrumented without reports", ok, "wc", 20 * time.Millisecond, []Option{WithSource(Instrumented), WithReportWait(20 * time.Millisecond)}, "no worker report"},
	} {
		_, err := Capture(ctx, c.tg, c.topo, c.span, c.opts...)
		if err == nil || !IsBadInput(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v (bad input %v), want a bad-input error containing %q", c.name, err, IsBadInput(err), c.want)
		}
	}
}

// TestCaptureNoStats: a window in which Storm's statistics do not refresh (the same recorded pages at
// both ends) and no report arrives is bad input.
func TestCaptureNoStats(t *testing.T) {
	tg := fixtureTarget(t, filepath.Join("testdata", "stormlab-ui"), nil)
	tg.UI = fixtureUIWithSummary(t, filepath.Join("testdata", "stormlab-ui")).URL
	_, err := Capture(context.Background(), tg, "wc", 20*time.Millisecond, WithReportWait(20*time.Millisecond))
	if err == nil || !IsBadInput(err) || !strings.Contains(err.Error(), "no worker reports and Storm's statistics of count did not refresh") {
		t.Errorf("error %v, want bad input about no reports and no statistics", err)
	}
}

// fixtureUIWithSummary serves dir (which has no summary.json) with storm-ui's summary.
func fixtureUIWithSummary(t *testing.T, dir string) *httptest.Server {
	inner := fixtureUI(t, dir)
	summary, err := os.ReadFile(filepath.Join("testdata", "storm-ui", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/topology/summary" {
			w.Write(summary)
			return
		}
		http.Redirect(w, r, inner.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestExecSpan: an executor's span is the growth of its uptime; a restarted executor (uptime went
// down) counts from its restart, one not in the first reading from its start; counters follow the
// same rule (delta).
func TestExecSpan(t *testing.T) {
	p0 := &stormui.ComponentPage{Executors: []stormui.ExecutorStat{{TaskStart: 1, UptimeSeconds: 100}}}
	for _, c := range []struct {
		name string
		e    stormui.ExecutorStat
		want float64
	}{
		{"grew", stormui.ExecutorStat{TaskStart: 1, UptimeSeconds: 112}, 12},
		{"no new statistics", stormui.ExecutorStat{TaskStart: 1, UptimeSeconds: 100}, 0},
		{"restarted", stormui.ExecutorStat{TaskStart: 1, UptimeSeconds: 7}, 7},
		{"new executor", stormui.ExecutorStat{TaskStart: 2, UptimeSeconds: 9}, 9},
	} {
		if got := execSpan(p0, c.e); got != c.want {
			t.Errorf("%s: span %v, want %v", c.name, got, c.want)
		}
	}
	if delta(10, 25) != 15 || delta(25, 4) != 4 {
		t.Errorf("delta: %v %v, want 15 and 4", delta(10, 25), delta(25, 4))
	}
}
