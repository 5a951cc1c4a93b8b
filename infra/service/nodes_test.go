package service

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers"
)

// TestNodeCPUDrivesDeadline: the two pipelines on their good placement
// (s1 runs spoutA + boltA, 10 + 35 + 2 = 47 % of its core; s2 spoutB +
// boltB, 57 %). With only the workers' CPU no node is over theta 0.95 and
// the deadline scheduler keeps the placement ("none"). A whole-node report
// of 99 % for s2 (background load on its host) puts s2 over theta: CPU
// load, loaded node s2, free node s1; equal performance (one core each), so
// the task with the closest deadline moves: boltB (1,000 ms; spoutB has
// none), costing 45 % on s1: 47 + 45 = 92 <= 95. The scheduler is chosen
// over HTTP (POST /v1/scheduler) with its options as JSON, and every
// decision is recorded typed.
func TestNodeCPUDrivesDeadline(t *testing.T) {
	clk := &fakeClock{t: time.UnixMilli(1_700_000_100_000)}
	s, err := New("even", schedulers.Options{}, WithClock(clk.now), WithRescheduleEvery(0))
	if err != nil {
		t.Fatal(err)
	}
	post := httpService(t, s)
	post(protocol.PathScheduler, protocol.SchedulerChoice{Scheduler: "deadline", Options: json.RawMessage(`{"theta":0.95}`)}, nil)
	for _, r := range pipelineReports(goodPlace, clk.t.UnixMilli()) {
		post(protocol.PathMetrics, r, nil)
	}
	var d protocol.Decision
	post(protocol.PathSchedule, twoPipelines(goodPlace), &d)
	st := s.State(0)
	if len(d.Topologies) != 0 || len(st.Decisions) != 1 || st.Decisions[0].Decision == nil || st.Decisions[0].Decision.Trigger != "none load" || st.Decisions[0].Applied {
		t.Fatalf("no node over theta: decision %+v, log %+v: want one recorded, not applied, trigger none", d, st.Decisions)
	}
	if st.Scheduler != "deadline" {
		t.Errorf("state names scheduler %q, want deadline", st.Scheduler)
	}
	clk.t = clk.t.Add(time.Second)
	post(protocol.PathNodes, protocol.NodeReport{Host: "h2", TimeMs: clk.t.UnixMilli(), IntervalS: 1, CPUPercent: 99}, nil)
	post(protocol.PathSchedule, twoPipelines(goodPlace), &d)
	st = s.State(0)
	rec := st.Decisions[len(st.Decisions)-1]
	if len(st.Decisions) != 2 || !rec.Applied || rec.Decision == nil || rec.Decision.Trigger != "cpu load" {
		t.Fatalf("s2 at 99 %%: log %+v: want a second, applied cpu-load decision", st.Decisions)
	}
	if m := rec.Decision.Migrations; len(m) != 1 || m[0].From != "s2" || m[0].To != "s1" || nodeOf(d.Topologies[0], 4) != "s1" {
		t.Errorf("migrations %+v, placement %+v: want boltB (task 4) s2 -> s1", m, d.Topologies)
	}
	for _, row := range st.Load {
		if row.Node == "s2" && row.CPUUsed != 99 {
			t.Errorf("s2 CPU_use %v, want the node's 99 %%", row.CPUUsed)
		}
	}
	// A stale node report (older than max(3 intervals, 30 s)) no longer counts.
	clk.t = clk.t.Add(31 * time.Second)
	for _, row := range s.State(0).Load {
		if row.Node == "s2" && row.CPUUsed == 99 {
			t.Errorf("stale node report still used: %+v", row)
		}
	}
}

// TestBesideWorkersCountInNodeCPU: the good placement of TestNodeCPUDrivesDeadline (s2 at 57 %), and
// the worker of a topology the service does not place (a burner of background load, placed by Storm's
// EvenScheduler, so absent from the snapshot) reporting 45 % of process CPU on h2. Without any node
// report, s2's CPU_use is the sum of every fresh worker on it: 57 + 45 = 102 % > theta 0.95, so the
// deadline scheduler moves boltB as it does under a whole-node report. Once the burner's reports are
// older than max(3 intervals, 30 s) = 30 s, they no longer count: s2 is back at 57 %.
func TestBesideWorkersCountInNodeCPU(t *testing.T) {
	clk := &fakeClock{t: time.UnixMilli(1_700_000_100_000)}
	s, err := New("deadline", schedulers.Options{Theta: 0.95}, WithClock(clk.now), WithRescheduleEvery(0))
	if err != nil {
		t.Fatal(err)
	}
	post := httpService(t, s)
	for _, r := range pipelineReports(goodPlace, clk.t.UnixMilli()) {
		post(protocol.PathMetrics, r, nil)
	}
	burner := protocol.WorkerReport{Topology: "stormlab-burner-h2-2-1700000000", Host: "h2", Port: 6701,
		TimeMs: clk.t.UnixMilli(), IntervalS: 2, WorkerCPUPercent: 45}
	post(protocol.PathMetrics, burner, nil)
	var d protocol.Decision
	post(protocol.PathSchedule, twoPipelines(goodPlace), &d)
	st := s.State(0)
	rec := st.Decisions[len(st.Decisions)-1]
	if !rec.Applied || rec.Decision == nil || rec.Decision.Trigger != "cpu load" {
		t.Fatalf("s2 at 57 + 45 %%: log %+v: want an applied cpu-load decision", st.Decisions)
	}
	cpuOf := func(st protocol.State, node string) float64 {
		for _, row := range st.Load {
			if row.Node == node {
				return row.CPUUsed
			}
		}
		return -1
	}
	if got := cpuOf(st, "s2"); math.Abs(got-102) > 1e-9 {
		t.Errorf("s2 CPU_use %v, want 57 + 45 = 102 %%", got)
	}
	clk.t = clk.t.Add(31 * time.Second)
	for _, r := range pipelineReports(goodPlace, clk.t.UnixMilli()) {
		post(protocol.PathMetrics, r, nil)
	}
	if got := cpuOf(s.State(0), "s2"); math.Abs(got-57) > 1e-9 {
		t.Errorf("s2 CPU_use %v after the burner's reports went stale, want 57 %%", got)
	}
}

// TestDeadlineWithoutDeadlinesIsNotMeasured: the same topology reporting
// no deadline cannot be ranked by eq. 1: the round keeps the placement and
// its record names the deadline as not measured (nothing is silently
// ranked as zero, and the run's claims can tell).
func TestDeadlineWithoutDeadlinesIsNotMeasured(t *testing.T) {
	clk := &fakeClock{t: time.UnixMilli(1_700_000_100_000)}
	s, err := New("deadline", schedulers.Options{}, WithClock(clk.now), WithRescheduleEvery(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pipelineReports(goodPlace, clk.t.UnixMilli()) {
		r.Deadlines = nil
		if err := s.Report(&r); err != nil {
			t.Fatal(err)
		}
	}
	d, err := s.Schedule(t.Context(), twoPipelines(goodPlace))
	if err != nil {
		t.Fatal(err)
	}
	recs := s.State(0).Decisions
	if len(d.Errors) != 0 || len(recs) != 1 || recs[0].Applied || recs[0].Decision == nil || !slices.Contains(recs[0].Decision.NotMeasured, "deadline") {
		t.Fatalf("errors %+v, log %+v: want the placement kept and the deadline named not measured", d.Errors, recs)
	}
}

func TestBadNodeReportsAndSchedulerChoice(t *testing.T) {
	s, _ := New("even", schedulers.Options{})
	for _, r := range []*protocol.NodeReport{nil, {IntervalS: 1}, {Host: "h", IntervalS: 0}, {Host: "h", IntervalS: 1, CPUPercent: -1}} {
		if err := s.NodeReport(r); err == nil {
			t.Errorf("node report %+v accepted", r)
		}
	}
	if err := s.SetScheduler("nope", schedulers.Options{}, 0); err == nil || s.Name() != "even" {
		t.Errorf("unknown scheduler: err %v, name %s", err, s.Name())
	}
	if err := s.SetScheduler("deadline", schedulers.Options{Theta: 2}, 0); err == nil {
		t.Error("theta 2 accepted")
	}
	if err := s.choose(&protocol.SchedulerChoice{Scheduler: "kpart-dynamic", RescheduleEveryMs: -1}); err == nil || s.Name() != "even" {
		t.Errorf("negative reschedule period: err %v, scheduler %s: want refused, scheduler kept", err, s.Name())
	}
}

// TestSchedulerChoicePeriod: a SchedulerChoice over HTTP sets the rescheduling period when it names one
// (so an experiment can set it on a cluster it did not start) and keeps the current one otherwise.
func TestSchedulerChoicePeriod(t *testing.T) {
	s, err := New("even", schedulers.Options{}, WithRescheduleEvery(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	post := httpService(t, s)
	for _, c := range []struct {
		everyMs int64
		want    time.Duration
	}{
		{15_000, 15 * time.Second},
		{0, 15 * time.Second}, // none named: kept
		{2_500, 2500 * time.Millisecond},
	} {
		post(protocol.PathScheduler, protocol.SchedulerChoice{Scheduler: "kpart-dynamic", RescheduleEveryMs: c.everyMs}, nil)
		s.mu.Lock()
		got := s.every
		s.mu.Unlock()
		if got != c.want || s.Name() != "kpart-dynamic" {
			t.Errorf("reschedule_every_ms %d: period %s, scheduler %s; want %s, kpart-dynamic", c.everyMs, got, s.Name(), c.want)
		}
	}
}

// TestNotMeasuredIsRecorded: a worker that says it could not measure tuple
// sizes, and reports without memory, make the round's record name both;
// the deadline scheduler's own decision names the tuple size too (its
// CPU+memory branch cannot weigh a transfer without it).
func TestNotMeasuredIsRecorded(t *testing.T) {
	clk := &fakeClock{t: time.UnixMilli(1_700_000_100_000)}
	s, err := New("deadline", schedulers.Options{}, WithClock(clk.now), WithRescheduleEvery(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pipelineReports(goodPlace, clk.t.UnixMilli()) {
		r.NotMeasured = []string{protocol.FieldTupleSizes}
		r.WorkerMemoryMB = 0
		if err := s.Report(&r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Schedule(t.Context(), twoPipelines(goodPlace)); err != nil {
		t.Fatal(err)
	}
	recs := s.State(0).Decisions
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	for _, f := range []string{protocol.FieldTupleSizes, "worker_memory"} {
		if !slices.Contains(recs[0].NotMeasured, f) {
			t.Errorf("record not_measured %v lacks %q", recs[0].NotMeasured, f)
		}
	}
	if slices.Contains(recs[0].NotMeasured, "node_performance") || slices.Contains(recs[0].NotMeasured, "task_cpu") {
		t.Errorf("record not_measured %v names measured inputs", recs[0].NotMeasured)
	}
	if d := recs[0].Decision; d == nil || !slices.Contains(d.NotMeasured, "tuple_size") {
		t.Errorf("decision %+v: want tuple_size not measured", d)
	}
}
