package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers"
)

// roundRobin is a test-only scheduler: vertex v on worker v mod k, workers
// spread over the nodes like Storm's EvenScheduler. It keeps the last
// problem so tests can look at what the service built.
type roundRobin struct {
	mu   sync.Mutex
	last *schedulers.Problem
	err  error
	bad  bool // return an assignment with a slot the cluster lacks
}

func (r *roundRobin) Schedule(ctx context.Context, p *schedulers.Problem) (*schedulers.Assignment, error) {
	r.mu.Lock()
	r.last = p
	r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	k := p.Workers
	if k > p.Graph.N() {
		k = p.Graph.N()
	}
	slots, err := schedulers.SpreadSlots(&p.Cluster, k)
	if err != nil {
		return nil, err
	}
	if r.bad {
		slots[0].Port = 1
	}
	a := &schedulers.Assignment{Workers: slots, Executors: make([]int, p.Graph.N())}
	for v := range a.Executors {
		a.Executors[v] = v % k
	}
	return a, nil
}

func (r *roundRobin) problem() *schedulers.Problem {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// mover is a test-only Dynamic scheduler: Reschedule puts every executor
// on the first slot of the last node.
type mover struct {
	roundRobin
	calls int
	apply bool
}

func (m *mover) Reschedule(ctx context.Context, p *schedulers.Problem) (*schedulers.Assignment, bool, error) {
	m.calls++
	n := p.Cluster.Nodes[len(p.Cluster.Nodes)-1]
	return &schedulers.Assignment{
		Workers:   []schedulers.Slot{{Node: n.ID, Port: n.Ports[0]}},
		Executors: make([]int, p.Graph.N()),
	}, m.apply, nil
}

func ex(s, e int) protocol.Executor { return protocol.Executor{Start: s, End: e} }

// chain is topology t1: spout [1], bolt [2] [3], __acker [4], listed out of
// order as Java's HashMap would; stream spout -> bolt. Two supervisors with
// two ports each (s2 has half the CPU).
func chain() *protocol.Snapshot {
	return &protocol.Snapshot{
		Topologies: []protocol.Topology{{
			ID: "t1", Name: "chain", NumWorkers: 2, NeedsScheduling: true,
			Executors: []protocol.ComponentExecutor{
				{Executor: ex(3, 3), Component: "bolt"},
				{Executor: ex(1, 1), Component: "spout"},
				{Executor: ex(4, 4), Component: "__acker"},
				{Executor: ex(2, 2), Component: "bolt"},
			},
			Streams: []protocol.Stream{{From: "spout", To: "bolt", Grouping: "shuffle"}},
		}},
		Supervisors: []protocol.Supervisor{
			{ID: "s2", Host: "h2", CPU: 50, MemoryMB: 1024, Ports: []int{6700, 6701}, FreePorts: []int{6700, 6701}},
			{ID: "s1", Host: "h1", CPU: 100, MemoryMB: 2048, Ports: []int{6700, 6701}, FreePorts: []int{6700, 6701}},
		},
	}
}

// placed is chain() running: [1] [3] on s1:6700, [2] [4] on s2:6700.
func placed() *protocol.Snapshot {
	s := chain()
	s.Topologies[0].NeedsScheduling = false
	s.Topologies[0].Assignment = []protocol.ExecutorSlot{
		{Executor: ex(1, 1), Supervisor: "s1", Port: 6700},
		{Executor: ex(2, 2), Supervisor: "s2", Port: 6700},
		{Executor: ex(3, 3), Supervisor: "s1", Port: 6700},
		{Executor: ex(4, 4), Supervisor: "s2", Port: 6700},
	}
	s.Supervisors[0].FreePorts = []int{6701}
	s.Supervisors[1].FreePorts = []int{6701}
	return s
}

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestFirstPlacement(t *testing.T) {
	var log bytes.Buffer
	rr := &roundRobin{}
	s := NewWithScheduler("rr", rr, WithLog(&log))
	d, err := s.Schedule(context.Background(), chain())
	if err != nil {
		t.Fatal(err)
	}
	// Vertices sorted by first task: 0=[1] spout, 1=[2] bolt, 2=[3] bolt,
	// 3=[4] acker. SpreadSlots(k=2) over s1, s2 (equal free slots, by id)
	// gives s1:6700, s2:6700; round robin puts 0,2 on s1 and 1,3 on s2.
	want := []protocol.WorkerAssignment{
		{Supervisor: "s1", Port: 6700, Executors: []protocol.Executor{ex(1, 1), ex(3, 3)}},
		{Supervisor: "s2", Port: 6700, Executors: []protocol.Executor{ex(2, 2), ex(4, 4)}},
	}
	if len(d.Topologies) != 1 || !equalJSON(d.Topologies[0].Workers, want) {
		t.Fatalf("decision = %+v, want workers %+v", d.Topologies, want)
	}
	p := rr.problem()
	if p.Current != nil || p.Load != nil || p.Workers != 2 {
		t.Errorf("problem: current %v load %v workers %d; want nil, nil, 2", p.Current, p.Load, p.Workers)
	}
	// Before measurement: unit weights, stream edges spout -> each bolt executor.
	if p.Graph.N() != 4 || p.Graph.TotalVertexWeight() != 4 || len(p.Graph.Edges) != 2 {
		t.Errorf("graph: %d vertices weight %v, %d edges; want 4, 4, 2", p.Graph.N(), p.Graph.TotalVertexWeight(), len(p.Graph.Edges))
	}
	if p.Cluster.Nodes[0].ID != "s1" || p.Cluster.Nodes[1].CPU != 50 {
		t.Errorf("cluster not sorted by id: %+v", p.Cluster.Nodes)
	}
	st := s.State(0)
	if len(st.Decisions) != 1 {
		t.Fatalf("%d decisions logged, want 1", len(st.Decisions))
	}
	rec := st.Decisions[0]
	// Hand computation: edges 0->1 (s1->s2, cut) and 0->2 (s1->s1): cut rate
	// 1/2; node weights 2 and 2, so std 0.
	if rec.Kind != "schedule" || !rec.Applied || math.Abs(rec.Predicted.CutRate-0.5) > 1e-12 || rec.Predicted.Std != 0 {
		t.Errorf("record = %+v; want schedule, applied, cut rate 0.5, std 0", rec)
	}
	if !strings.Contains(log.String(), `"event":"decision"`) || !strings.Contains(log.String(), `"cut_rate":0.5`) {
		t.Errorf("log line missing: %s", log.String())
	}
	if st.Rounds != 1 || len(st.RoundTimes) != 1 || st.RoundTimes[0].Executors != 4 {
		t.Errorf("rounds = %d, round times %+v", st.Rounds, st.RoundTimes)
	}
}

// TestDeclaredMemory: the memory the bridge says each executor's component declares is its vertex's
// MemoryMB (what R-Storm and the deadline scheduler read), following the executor when the service
// sorts the executors by first task; an executor without it keeps 0 (the schedulers' default).
func TestDeclaredMemory(t *testing.T) {
	snap := chain()
	for i, e := range snap.Topologies[0].Executors {
		if e.Component != "__acker" {
			snap.Topologies[0].Executors[i].MemoryMB = float64(64 * e.Executor.Start)
		}
	}
	rr := &roundRobin{}
	if _, err := NewWithScheduler("rr", rr).Schedule(context.Background(), snap); err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, v := range rr.problem().Graph.Vertices {
		got = append(got, v.MemoryMB)
	}
	if want := []float64{64, 128, 192, 0}; !slices.Equal(got, want) {
		t.Errorf("vertices' memory %v, want %v (64 MB x first task; the acker undeclared)", got, want)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestRunningTopologyIsLeftToStaticScheduler(t *testing.T) {
	rr := &roundRobin{}
	s := NewWithScheduler("rr", rr)
	d, err := s.Schedule(context.Background(), placed())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Topologies) != 0 || rr.problem() != nil || len(s.State(0).Decisions) != 0 {
		t.Errorf("a static scheduler was asked about a running topology: %+v", d)
	}
	// Storm's flag alone (fewer workers than asked) does not force a new placement.
	snap := placed()
	snap.Topologies[0].NeedsScheduling = true
	snap.Topologies[0].NumWorkers = 3
	if d, _ := s.Schedule(context.Background(), snap); len(d.Topologies) != 0 {
		t.Errorf("complete assignment was replaced: %+v", d)
	}
	// One executor lost its slot: schedule again.
	snap.Topologies[0].Assignment = snap.Topologies[0].Assignment[1:]
	if d, _ := s.Schedule(context.Background(), snap); len(d.Topologies) != 1 {
		t.Errorf("incomplete assignment not rescheduled: %+v", d)
	}
}

func TestDynamicReschedulePeriod(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	m := &mover{apply: true}
	s := NewWithScheduler("mover", m, WithClock(clk.now), WithRescheduleEvery(30*time.Second))
	ctx := context.Background()
	steps := []struct {
		advance time.Duration
		calls   int
		moved   bool
	}{
		{0, 0, false},                // placed by someone else: the period starts now
		{10 * time.Second, 0, false}, // too early
		{21 * time.Second, 1, true},  // 31 s after: reschedule, applied
		{5 * time.Second, 1, false},  // too early again
	}
	for i, st := range steps {
		clk.t = clk.t.Add(st.advance)
		d, err := s.Schedule(ctx, placed())
		if err != nil {
			t.Fatal(err)
		}
		if m.calls != st.calls || (len(d.Topologies) == 1) != st.moved {
			t.Fatalf("step %d: calls %d moved %v, want %d %v", i, m.calls, len(d.Topologies) == 1, st.calls, st.moved)
		}
		if st.moved && (d.Topologies[0].Workers[0].Supervisor != "s2" || len(d.Topologies[0].Workers[0].Executors) != 4) {
			t.Errorf("step %d: decision %+v", i, d.Topologies[0])
		}
	}
	// apply=false: logged, nothing sent. No worker reports here, so the
	// topology is offered again only settleMax plus a period after the change.
	m.apply = false
	clk.t = clk.t.Add(settleMax + 30*time.Second)
	d, _ := s.Schedule(ctx, placed())
	recs := s.State(0).Decisions
	if len(d.Topologies) != 0 || m.calls != 2 || recs[len(recs)-1].Applied || recs[len(recs)-1].Kind != "reschedule" {
		t.Errorf("apply=false: decision %+v, calls %d, record %+v", d, m.calls, recs[len(recs)-1])
	}
}

// TestSettleAfterChange: after an applied change the topology is offered
// again only when every worker of its current placement has reported a
// period (30 s here) of work after the change and after its own start (a
// restarted JVM's first seconds are not the placement's load), or
// settleMax plus a period after the change. Placement of placed(): workers
// s1:6700 (host h1) and s2:6700 (host h2); the change is at t = 1031 s.
func TestSettleAfterChange(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	m := &mover{apply: true}
	s := NewWithScheduler("mover", m, WithClock(clk.now), WithRescheduleEvery(30*time.Second))
	ctx := context.Background()
	report := func(host string, atS, startS int64) {
		t.Helper()
		if err := s.Report(&protocol.WorkerReport{Topology: "t1", Host: host, Port: 6700, TimeMs: atS * 1000, IntervalS: 1, WorkerStartMs: startS * 1000}); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name    string
		advance time.Duration
		reports func()
		calls   int
	}{
		{"placed by someone else: the period starts", 0, func() {}, 0},
		{"31 s later: offered and applied", 31 * time.Second, func() {}, 1},
		{"period over, no report since the change", 40 * time.Second, func() {}, 1},
		{"h1 settled, h2 restarted at 1040 s and reported 25 s of work", 10 * time.Second,
			func() { report("h1", 1061, 900); report("h2", 1065, 1040) }, 1},
		{"h2 reported 30 s after its restart", 5 * time.Second, func() { report("h2", 1070, 1040) }, 2},
	}
	for _, st := range steps {
		clk.t = clk.t.Add(st.advance)
		st.reports()
		if _, err := s.Schedule(ctx, placed()); err != nil {
			t.Fatal(err)
		}
		if m.calls != st.calls {
			t.Fatalf("%s: %d reschedule calls, want %d", st.name, m.calls, st.calls)
		}
	}
	// A worker that never reports again (a lost node) holds the topology
	// back for settleMax after the change at most.
	clk.t = clk.t.Add(settleMax + 30*time.Second - time.Second)
	if _, err := s.Schedule(ctx, placed()); err != nil {
		t.Fatal(err)
	}
	if m.calls != 2 {
		t.Fatalf("within settleMax plus a period of the second change: %d calls, want 2", m.calls)
	}
	clk.t = clk.t.Add(time.Second)
	if _, err := s.Schedule(ctx, placed()); err != nil {
		t.Fatal(err)
	}
	if m.calls != 3 {
		t.Fatalf("settleMax plus a period after the change: %d calls, want 3", m.calls)
	}
}

func TestMeasuredWeightsAndLoadTable(t *testing.T) {
	rr := &roundRobin{}
	s := NewWithScheduler("rr", rr)
	// Worker s1:6700 (host h1) runs tasks 1 and 3 over 10 s: task 1 used
	// 5 s of CPU (50 % of a core), task 3 1 s (10 %); task 3 got 1000
	// tuples from task 1 (100/s, same node) and task 2 got 500 from task 1
	// (50/s, across nodes). Task 2 and 4 are not measured.
	rep := &protocol.WorkerReport{
		Topology: "t1", Host: "h1", Port: 6700, TimeMs: 10_000, IntervalS: 10,
		CPU:              []protocol.TaskCPU{{Task: 1, CPUNs: 5e9}, {Task: 3, CPUNs: 1e9}},
		Traffic:          []protocol.TaskTraffic{{Src: 1, Dst: 3, Count: 1000}, {Src: 1, Dst: 2, Count: 500}},
		Acked:            7,
		WorkerCPUPercent: 60,
		WorkerMemoryMB:   200,
	}
	if err := s.Report(rep); err != nil {
		t.Fatal(err)
	}
	snap := placed()
	snap.Topologies[0].Assignment = snap.Topologies[0].Assignment[1:] // force Schedule
	if _, err := s.Schedule(context.Background(), snap); err != nil {
		t.Fatal(err)
	}
	p := rr.problem()
	// Vertex weights: [1] 50, [3] 10, [2] and [4] the mean 30.
	wantW := []float64{50, 30, 10, 30}
	for v, w := range wantW {
		if math.Abs(p.Graph.Vertices[v].Weight-w) > 1e-9 {
			t.Errorf("vertex %d weight %v, want %v", v, p.Graph.Vertices[v].Weight, w)
		}
	}
	// Edges from traffic: 0->1 (50/s), 0->2 (100/s).
	if len(p.Graph.Edges) != 2 || p.Graph.Edges[0].Weight != 50 || p.Graph.Edges[1].Weight != 100 {
		t.Errorf("edges = %+v", p.Graph.Edges)
	}
	if p.Load == nil || len(p.Load.Nodes) != 2 {
		t.Fatalf("load = %+v", p.Load)
	}
	// s1: 60 % of a core on a 100 % node = 60 %; memory 2048 - 200.
	// Performance is capacity: R = 150 tuples/s over 0.6 busy cores = 250
	// tuples/s per core; s1 has 1 core (250), s2 half a core (125), though
	// s2 runs nothing.
	s1 := p.Load.Nodes[0]
	if s1.Node != "s1" || s1.CPUUsed != 60 || s1.MemoryFreeMB != 1848 || math.Abs(s1.CPUThroughput-250) > 1e-9 {
		t.Errorf("s1 row = %+v", s1)
	}
	s2 := p.Load.Nodes[1]
	if math.Abs(s2.CPUThroughput-125) > 1e-9 || s2.CPUUsed != 0 {
		t.Errorf("s2 row = %+v", s2)
	}
	// Task 1 is unplaced in this snapshot, so no node sends across: the
	// network column needs both ends placed.
	if s1.NetworkLoad != 0 {
		t.Errorf("s1 network = %v, want 0", s1.NetworkLoad)
	}
	if p.Load.Tasks[0].CPU != 50 || p.Load.Tasks[0].Network != 150 {
		t.Errorf("task load of [1] = %+v, want cpu 50 network 150", p.Load.Tasks[0])
	}

	// With the full assignment, s1 sends 50/s to s2.
	if _, err := s.Schedule(context.Background(), placed()); err != nil {
		t.Fatal(err)
	}
	st := s.State(0)
	if st.Load[0].NetworkLoad != 50 {
		t.Errorf("s1 network after full placement = %v, want 50", st.Load[0].NetworkLoad)
	}
	top := st.Topologies[0]
	if top.Acked != 7 || len(top.Traffic) != 2 || top.CPU[0].CPUNs != 5e9 || len(top.Executors) != 4 {
		t.Errorf("topology state = %+v", top)
	}
}

func TestSchedulerErrorsGoToDecision(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *roundRobin
		want string
	}{
		{"error", &roundRobin{err: errors.New("no luck")}, "no luck"},
		{"invalid", &roundRobin{bad: true}, "invalid assignment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewWithScheduler("rr", tc.s)
			d, err := s.Schedule(context.Background(), chain())
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Topologies) != 0 || len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Error, tc.want) {
				t.Errorf("decision = %+v, want one error with %q", d, tc.want)
			}
			if recs := s.State(0).Decisions; len(recs) != 1 || recs[0].Error == "" {
				t.Errorf("records = %+v", recs)
			}
		})
	}
	// Too few slots: SpreadSlots' impossible-cluster error reaches the bridge.
	snap := chain()
	snap.Topologies[0].NumWorkers = 4
	snap.Supervisors = snap.Supervisors[:1]
	d, _ := NewWithScheduler("rr", &roundRobin{}).Schedule(context.Background(), snap)
	if len(d.Errors) != 1 || !strings.Contains(d.Errors[0].Error, "impossible cluster") {
		t.Errorf("decision = %+v", d)
	}
}

func TestHTTP(t *testing.T) {
	s := NewWithScheduler("rr", &roundRobin{})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	post := func(path, body string) (*http.Response, string) {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return resp, b.String()
	}
	snap, _ := json.Marshal(chain())
	cases := []struct {
		path, body string
		code       int
		contains   string
	}{
		{protocol.PathSchedule, "{bad", 400, "decode Snapshot"},
		{protocol.PathSchedule, `{"topologies":[{"id":"a"},{"id":"a"}]}`, 400, "twice"},
		{protocol.PathSchedule, string(snap), 200, `"supervisor":"s1"`},
		{protocol.PathSchedule, `{"topologies":[{"id":"x","executors":[]}]}`, 200, "no executors"},
		{protocol.PathMetrics, `{"topology":"t1","interval_s":0}`, 400, "interval_s"},
		{protocol.PathMetrics, `[1,2]`, 400, "decode WorkerReport"},
		{protocol.PathMetrics, `{"topology":"t1","host":"h1","port":6700,"time_ms":5,"interval_s":10,"acked":3}`, 204, ""},
		{protocol.PathFallback, `{"topology":"t1","reason":"service down"}`, 204, ""},
		{protocol.PathHealth, ``, 405, "use GET"},
	}
	for _, c := range cases {
		resp, body := post(c.path, c.body)
		if resp.StatusCode != c.code || !strings.Contains(body, c.contains) {
			t.Errorf("POST %s %q: %d %s; want %d containing %q", c.path, c.body, resp.StatusCode, body, c.code, c.contains)
		}
	}
	get := func(path string, v any) int {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if v != nil && resp.StatusCode == 200 {
			if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
				t.Fatal(err)
			}
		}
		return resp.StatusCode
	}
	var st protocol.State
	if code := get(protocol.PathState, &st); code != 200 || len(st.Fallbacks) != 1 || st.Reports != 1 || len(st.Decisions) != 1 || st.Topologies[0].Acked != 3 {
		t.Errorf("state %d: %+v", code, st)
	}
	var reps []protocol.WorkerReport
	if get(protocol.PathReports+"?since_ms=6", &reps); len(reps) != 0 {
		t.Errorf("since_ms=6 returned %d reports, want 0", len(reps))
	}
	if get(protocol.PathReports, &reps); len(reps) != 1 {
		t.Errorf("reports = %d, want 1", len(reps))
	}
	if code := get(protocol.PathState+"?since_ms=x", nil); code != 400 {
		t.Errorf("bad since_ms: %d, want 400", code)
	}
	if resp, _ := post(protocol.PathReset, ""); resp.StatusCode != 204 {
		t.Errorf("reset: %d", resp.StatusCode)
	}
	if get(protocol.PathState, &st); len(st.Fallbacks) != 0 || st.Reports != 0 || len(st.Topologies) != 0 {
		t.Errorf("after reset: %+v", st)
	}
	var h map[string]string
	if get(protocol.PathHealth, &h); h["status"] != "ok" || h["scheduler"] != "rr" {
		t.Errorf("health = %v", h)
	}
}

// TestConcurrent runs rounds, reports and state reads at once (go test -race).
func TestConcurrent(t *testing.T) {
	s := NewWithScheduler("rr", &roundRobin{})
	hist := latencyHist(t, map[int64]int64{5: 2})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(3)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				if _, err := s.Schedule(context.Background(), chain()); err != nil {
					t.Error(err)
				}
			}
		}()
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				_ = s.Report(&protocol.WorkerReport{Topology: "t1", Host: "h1", Port: 6700 + i, TimeMs: int64(j + 1), IntervalS: 1,
					CPU: []protocol.TaskCPU{{Task: 1, CPUNs: 1e6}}, Traffic: []protocol.TaskTraffic{{Src: 1, Dst: 2, Count: 3}}, LatencyHist: hist})
			}
		}(i)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				_ = s.State(0)
				if _, err := s.reg.Gather(); err != nil { // a /metrics scrape
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if st := s.State(0); st.Rounds != 80 || st.Reports != 80 {
		t.Errorf("rounds %d reports %d, want 80 80", st.Rounds, st.Reports)
	}
	if n := s.m.topos["t1"].latencyHist.TotalCount(); n != 160 { // 80 reports of 2 latencies
		t.Errorf("merged latency count %d, want 160", n)
	}
}

// TestAggregateMatchesMap checks the counting-sort aggregation against a
// plain map on traffic with repeated pairs, multi-task executors, self
// loops, unknown tasks and zero rates.
func TestAggregateMatchesMap(t *testing.T) {
	topo := &protocol.Topology{ID: "t", Executors: []protocol.ComponentExecutor{
		{Executor: ex(5, 6), Component: "b"}, {Executor: ex(-1, -1), Component: "__system"},
		{Executor: ex(1, 2), Component: "a"}, {Executor: ex(3, 4), Component: "a"},
	}}
	ix, err := newExecIndex(topo)
	if err != nil {
		t.Fatal(err)
	}
	// Vertices by first task: 0=[-1], 1=[1 2], 2=[3 4], 3=[5 6].
	var traffic []taskRate
	want := map[[2]int]float64{}
	for i := 0; i < 500; i++ {
		src, dst := i%9-1, (i*7)%9-1 // tasks -1..7; 0 and 7 belong to no executor
		rate := float64(i%4) * 0.5
		traffic = append(traffic, taskRate{src, dst, rate})
		a, okA := ix.vertex(src)
		b, okB := ix.vertex(dst)
		if okA && okB && a != b && rate > 0 {
			want[[2]int{a, b}] += rate
		}
	}
	got := aggregate(len(ix.execs), traffic, ix)
	if len(got) != len(want) {
		t.Fatalf("%d edges, want %d", len(got), len(want))
	}
	for i, e := range got {
		if i > 0 && (got[i-1].From > e.From || (got[i-1].From == e.From && got[i-1].To >= e.To)) {
			t.Errorf("edges not sorted at %d: %+v then %+v", i, got[i-1], e)
		}
		if math.Abs(e.Weight-want[[2]int{e.From, e.To}]) > 1e-9 {
			t.Errorf("edge %d->%d weight %v, want %v", e.From, e.To, e.Weight, want[[2]int{e.From, e.To}])
		}
	}
}

// TestStateOptions: the state names the options the scheduler runs with (what a run records to be
// simulated again), after New and after a switch; a scheduler given built has none to name.
func TestStateOptions(t *testing.T) {
	s, err := New("kpart", schedulers.Options{Seed: 3, Mul: 7})
	if err != nil {
		t.Fatal(err)
	}
	if o := s.State(0).Options; o == nil || o.Seed != 3 || o.Mul != 7 {
		t.Errorf("after New: options %+v, want seed 3, mul 7", o)
	}
	if err := s.SetScheduler("kpart", schedulers.Options{Seed: 1}, 0); err != nil {
		t.Fatal(err)
	}
	if o := s.State(0).Options; o == nil || o.Seed != 1 || o.Mul != 0 {
		t.Errorf("after a switch: options %+v, want seed 1, mul 0", o)
	}
	if o := NewWithScheduler("rr", &roundRobin{}).State(0).Options; o != nil {
		t.Errorf("given built: options %+v, want none", o)
	}
}
