package measure

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/schedulers"
)

func spout(comp string, start int, uptime int, acked int64, latency float64) stormui.Executor {
	return stormui.Executor{Component: comp, TaskStart: start, TaskEnd: start, Type: "spout", UptimeSeconds: uptime, Acked: acked, CompleteLatency: latency}
}

func TestCrossCheckTimed(t *testing.T) {
	// Two executors of spout "s", hand computation:
	//   e1: uptime 60 -> 70 s, 1,000 acked at 4 ms -> 3,000 at 5 ms: 2,000 tuples in 10 s = 200/s,
	//       latency sum 15,000 - 4,000 = 11,000 ms
	//   e2: uptime 62 -> 67 s, 500 acked at 6 ms -> 1,000 at 6 ms: 500 tuples in 5 s = 100/s,
	//       latency sum 6,000 - 3,000 = 3,000 ms
	// Storm: 300 tuples/s; mean latency 14,000 / 2,500 = 5.6 ms. The bolt is ignored. Storm's
	// resolution (whole-second uptimes): (200/10 + 100/5) / 300 = 13.33%, so a throughput is suspect
	// beyond 5% + 13.33% = 18.33%.
	from := &Snapshot{TimeMs: 100_000, Executors: []stormui.Executor{spout("s", 1, 60, 1000, 4), spout("s", 2, 62, 500, 6)}}
	to := &Snapshot{TimeMs: 110_000, Executors: []stormui.Executor{spout("s", 1, 70, 3000, 5), spout("s", 2, 67, 1000, 6),
		{Component: "b", TaskStart: 3, Type: "bolt", Acked: 99999}}}
	tests := []struct {
		name        string
		m           Measurement
		wantSuspect string // substring; "" = not suspect
	}{
		{"agrees", Measurement{Throughput: 306, LatencyMean: 5.5}, ""}, // 2% and 1.8% apart
		{"throughput 10% off, within Storm's resolution", Measurement{Throughput: 330, LatencyMean: 5.6}, ""},
		{"throughput 20% off", Measurement{Throughput: 360, LatencyMean: 5.6}, "throughput"},
		{"latency 20% off", Measurement{Throughput: 300, LatencyMean: 6.72}, "latency"},
	}
	for _, tc := range tests {
		c := CrossCheck(from, to, tc.m, nil)
		if !c.Compared {
			t.Fatalf("%s: not compared: %s", tc.name, c.Note)
		}
		if math.Abs(c.Throughput-300) > 1e-9 || math.Abs(c.CompleteLatencyMs-5.6) > 1e-9 || c.Acked != 2500 || math.Abs(c.Resolution-40.0/300) > 1e-9 {
			t.Errorf("%s: Storm throughput %.3f, latency %.4f, acked %d, resolution %.4f; want 300, 5.6, 2500, 0.1333", tc.name, c.Throughput, c.CompleteLatencyMs, c.Acked, c.Resolution)
		}
		if len(c.Spouts) != 1 || c.Spouts[0].Acked != 2500 || c.Spouts[0].Executors != 2 {
			t.Errorf("%s: spouts = %+v, want one spout s with 2500 acked over 2 executors", tc.name, c.Spouts)
		}
		got := c.suspectText()
		if (tc.wantSuspect == "") != (got == "") || !strings.Contains(got, tc.wantSuspect) {
			t.Errorf("%s: suspectText() = %q, want containing %q", tc.name, got, tc.wantSuspect)
		}
	}
}

// In a timed run the harness's latency is compared over the reports that match Storm's span, not
// over its window. Hand computation: one worker reports every 2 s; the window [97 s, 107 s] holds
// the reports at 100-106 s (10 tuples each: 20 ms at 100 s, 5 ms after): mean (200 + 150) / 40 =
// 8.75 ms. Storm's readings at 100 s and 110 s count 50 tuples averaging 6.2 ms (the reports at
// 102-110 s: 30 at 5 ms, 20 at 8 ms). stormSpan: (100,000 - 250 - 1,000, 110,000 - 250 + 1,000).
func TestCrossCheckLatencyOverStormSpan(t *testing.T) {
	reports, from, to := spanRun(t)
	window := Window(reports, nil, nil, 97_000, 107_000)
	if math.Abs(window.LatencyMean-8.75) > 0.01 {
		t.Fatalf("window mean latency %.3f ms, want 8.75 (hand computation)", window.LatencyMean)
	}
	c := CrossCheck(from, to, window, reports)
	if !c.Compared || math.Abs(c.CompleteLatencyMs-6.2) > 1e-9 {
		t.Fatalf("compared %v (%s), Storm's latency %.4f ms; want compared, 6.2", c.Compared, c.Note, c.CompleteLatencyMs)
	}
	if c.OurLatencyCount != 50 || math.Abs(c.OurLatencyMs-6.2) > 0.01 || !slices.Equal(c.OurLatencySpanMs, []int64{98_750, 110_750}) {
		t.Errorf("ours over Storm's span: %.3f ms over %d tuples in %v; want 6.2 ms, 50, [98750 110750]", c.OurLatencyMs, c.OurLatencyCount, c.OurLatencySpanMs)
	}
	if c.suspectText() != "" {
		t.Errorf("suspectText() = %q, want none (the window's 8.75 ms is not what Storm counted)", c.suspectText())
	}
	// Without reports (a run kept before this rule, or the topology beside a StormCounted run) the
	// window's figure is compared: 41% apart.
	if c := CrossCheck(from, to, window, nil); !strings.Contains(c.suspectText(), "latency") {
		t.Errorf("without reports: suspectText() = %q, want the window's latency suspect", c.suspectText())
	}
}

// spanRun is the run of TestCrossCheckLatencyOverStormSpan: one worker's reports at 98, 100, ...,
// 110 s (10 tuples each) and Storm's readings at 100 s and 110 s.
func spanRun(t *testing.T) (reports []protocol.WorkerReport, from, to *Snapshot) {
	t.Helper()
	for i, l := range []int64{5, 20, 5, 5, 5, 8, 8} {
		vals := make([]int64, 10)
		for j := range vals {
			vals[j] = l
		}
		reports = append(reports, protocol.WorkerReport{Host: "w", Port: 6700, TimeMs: int64(98_000 + 2_000*i), IntervalS: 2,
			WorkerStartMs: 50_000, Acked: 10, AckedTotal: int64(1_000 + 10*i), LatencyHist: hist(t, protocol.LatencyHistHighest, vals...)})
	}
	from = &Snapshot{TimeMs: 100_000, Executors: []stormui.Executor{spout("s", 1, 60, 1000, 4)}}
	to = &Snapshot{TimeMs: 110_000, Executors: []stormui.Executor{spout("s", 1, 70, 1050, (4000+310)/1050.0)}}
	return reports, from, to
}

func TestCrossCheckDataset(t *testing.T) {
	// Nothing before the submit: Storm's end reading is the whole dataset, compared by count.
	to := &Snapshot{TimeMs: 10_000, Executors: []stormui.Executor{spout("s", 1, 9, 500, 2), spout("s", 2, 9, 300, 4)}}
	c := CrossCheck(&Snapshot{TimeMs: 0}, to, Measurement{Acked: 790, LatencyMean: 2.7}, nil)
	// Storm: 800 acked, latency (1,000 + 1,200) / 800 = 2.75 ms; ours 790 (1.25% apart), 2.7 (1.8%).
	if !c.Compared || c.Quantity != "acked" || c.Acked != 800 || math.Abs(c.CompleteLatencyMs-2.75) > 1e-9 || c.suspectText() != "" {
		t.Errorf("dataset run: %+v, suspect %q; want compared by acked, 800, 2.75 ms, not suspect", c, c.suspectText())
	}
	c = CrossCheck(&Snapshot{TimeMs: 0}, to, Measurement{Acked: 700, LatencyMean: 2.75}, nil)
	if !strings.Contains(c.suspectText(), "acked 700 vs Storm's 800") {
		t.Errorf("dataset run 12.5%% short: suspectText() = %q", c.suspectText())
	}
	// Latency the harness did not measure is left out, not a disagreement.
	c = CrossCheck(&Snapshot{TimeMs: 0}, to, Measurement{Acked: 800, NotMeasured: map[string]string{metricLatency: "no histograms"}}, nil)
	if !c.Compared || c.suspectText() != "" || !strings.Contains(c.Note, "no histograms") {
		t.Errorf("latency not measured: compared %v, suspect %q, note %q; want compared on acked only", c.Compared, c.suspectText(), c.Note)
	}
}

func TestCrossCheckNotCompared(t *testing.T) {
	from := &Snapshot{TimeMs: 0, Executors: []stormui.Executor{spout("s", 1, 60, 1000, 4)}}
	end := func(e ...stormui.Executor) *Snapshot { return &Snapshot{TimeMs: 20_000, Executors: e} }
	tests := []struct {
		name     string
		from, to *Snapshot
		note     string
	}{
		{"restarted executor", from, end(spout("s", 1, 5, 200, 4)), "restarted"},
		{"no statistics at start", &Snapshot{Executors: []stormui.Executor{{Component: "s", TaskStart: 1}}}, end(spout("s", 1, 70, 2000, 4)), "no statistics"},
		{"stale statistics", from, end(spout("s", 1, 60, 1000, 4)), "did not change"},
		{"read failed", from, &Snapshot{TimeMs: 20_000, Err: "status 500"}, "failed"},
		{"no spouts", from, end(), "no spout"},
		{"no readings", nil, nil, "no reading"},
	}
	tests = append(tests, struct {
		name     string
		from, to *Snapshot
		note     string
	}{"throughput not measured", from, end(spout("s", 1, 80, 2000, 4)), "did not measure throughput"})
	// Restarted 10 s into a 40 s window, having been up 5 s at its start: at the end its uptime (30 s)
	// and acked count exceed the start's, but its uptime grew 25 s in 40 s of clock.
	tests = append(tests, struct {
		name     string
		from, to *Snapshot
		note     string
	}{"restarted, past its old uptime", &Snapshot{TimeMs: 0, Executors: []stormui.Executor{spout("s", 1, 5, 100, 4)}},
		&Snapshot{TimeMs: 40_000, Executors: []stormui.Executor{spout("s", 1, 30, 2000, 4)}}, "uptime grew 25 s in 40 s"})
	// A dataset run (no executors at the start) with a worker restart: Storm's totals miss the
	// restarted executor's first incarnation (a k-means run read 3,908 acked here, 1,954 in Storm).
	tests = append(tests, struct {
		name     string
		from, to *Snapshot
		note     string
	}{"dataset run with a restart", &Snapshot{TimeMs: 0}, end(spout("s", 1, 70, 1954, 4)), "1 worker restart(s)"})
	for _, tc := range tests {
		m := Measurement{Throughput: 1}
		if tc.name == "dataset run with a restart" {
			m = Measurement{Acked: 3908, Restarts: 1}
		}
		if tc.name == "throughput not measured" {
			m.NotMeasured = map[string]string{metricThroughput: "no ack counters"}
		}
		c := CrossCheck(tc.from, tc.to, m, nil)
		if c.Compared || !strings.Contains(c.Note, tc.note) || c.suspectText() != "" {
			t.Errorf("%s: compared %v, note %q, suspect %q; want not compared, note with %q, not suspect", tc.name, c.Compared, c.Note, c.suspectText(), tc.note)
		}
	}
}

func TestFreshSnapshot(t *testing.T) {
	// The UI answers the spout's uptime 10 s twice, then 13 s (the worker's next statistics):
	// FreshSnapshot returns the first reading in which it moved.
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up := 10
		if calls.Add(1) > 2 {
			up = 13
		}
		fmt.Fprintf(w, `{"id":"t-1","executorsTotal":1,"executors":[{"component":"s","taskStart":1,"taskEnd":1,"type":"spout","uptimeSeconds":%d,"acked":%d}]}`, up, 100*up)
	}))
	defer srv.Close()
	s := FreshSnapshot(context.Background(), stormui.New(srv.URL), "t-1", 5*time.Second)
	if s.Err != "" || len(s.Executors) != 1 || s.Executors[0].UptimeSeconds != 13 || s.Executors[0].Acked != 1300 {
		t.Errorf("FreshSnapshot = %+v, want the reading with uptime 13", s)
	}
	// Statistics that never move: the last reading after maxWait.
	calls.Store(-100)
	s = FreshSnapshot(context.Background(), stormui.New(srv.URL), "t-1", time.Second)
	if s.Err != "" || s.Executors[0].UptimeSeconds != 10 {
		t.Errorf("FreshSnapshot without news = %+v, want uptime 10", s)
	}
}

func TestMovedInDataset(t *testing.T) {
	dataset := StormCheck{Compared: true, Quantity: "acked", Diff: 1, OurAcked: 3908, Acked: 1954}
	timed := StormCheck{Compared: true, Quantity: "throughput", Diff: 0.01}
	moved := func(at int64, applied bool, n int) protocol.DecisionRecord {
		return protocol.DecisionRecord{TimeMs: at, Kind: "reschedule", Applied: applied, Decision: &schedulers.Decision{Apply: applied, Moved: n}}
	}
	for _, tc := range []struct {
		name     string
		c        StormCheck
		ds       []protocol.DecisionRecord
		compared bool
	}{
		{"dataset, nothing moved", dataset, []protocol.DecisionRecord{moved(10, false, 0), {TimeMs: 5, Kind: "schedule", Applied: true, Decision: &schedulers.Decision{Apply: true, Moved: 12}}}, true},
		{"dataset, 3 executors moved (k-means: 3,908 vs Storm's 1,954)", dataset, []protocol.DecisionRecord{moved(10, true, 3)}, false},
		{"dataset, moved after the end", dataset, []protocol.DecisionRecord{moved(200, true, 3)}, true},
		{"dataset, proposed but not applied", dataset, []protocol.DecisionRecord{moved(10, false, 3)}, true},
		{"timed run: the uptime rule decides", timed, []protocol.DecisionRecord{moved(10, true, 3)}, true},
	} {
		c := MovedInDataset(tc.c, tc.ds, 100)
		if c.Compared != tc.compared || (!c.Compared && (c.suspectText() != "" || !strings.Contains(c.Note, "moved 3 executor(s)"))) {
			t.Errorf("%s: compared %v, suspect %q, note %q; want compared %v", tc.name, c.Compared, c.suspectText(), c.Note, tc.compared)
		}
	}
}
