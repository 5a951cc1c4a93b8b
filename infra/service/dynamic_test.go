package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers"
)

// This file checks that the dynamic schedulers (kpart-dynamic, deadline,
// adaptive) decide through the service on the
// load table the workers feed it. Everything goes over HTTP as in the
// cluster: worker reports to POST /v1/metrics, the bridge's snapshot of the
// running topology to POST /v1/schedule.
//
// The topology has two independent pipelines and acking off (no __acker):
//
//	task 1 spoutA -> task 2 boltA    1000 tuples/s, shuffle
//	task 3 spoutB -> task 4 boltB    1000 tuples/s, shuffle
//
// CPU (percent of one core): spouts 10, boltA 35, boltB 45. boltA's tuples
// have a 500 ms deadline, boltB's 1000 ms. Two supervisors of one core each
// (s1 on host h1, s2 on h2), 2048 MB, ports 6700 and 6701; the topology
// asks for 2 workers. Vertices (sorted by first task): v0 spoutA, v1 boltA,
// v2 spoutB, v3 boltB. Each worker reports its tasks' CPU plus 2 % of its
// own and 300 MB of memory.
//
// Bad placement ("crossed"): both spouts on s1:6700, both bolts on
// s2:6700. s2 runs 35 + 45 + 2 = 82 % of its core (over the 80 % threshold
// of deadline and adaptive), s1 22 %, and every tuple crosses nodes.
// Good placement: pipeline A on s1:6700 (47 %), B on s2:6700 (57 %), no
// traffic between nodes, no node over 80 %.

// recorder wraps a registry scheduler and keeps every Problem it is given.
type recorder struct {
	inner schedulers.Scheduler
	mu    sync.Mutex
	seen  []*schedulers.Problem
}

func (r *recorder) keep(p *schedulers.Problem) {
	r.mu.Lock()
	r.seen = append(r.seen, p)
	r.mu.Unlock()
}

func (r *recorder) last() *schedulers.Problem {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.seen) == 0 {
		return nil
	}
	return r.seen[len(r.seen)-1]
}

func (r *recorder) Schedule(ctx context.Context, p *schedulers.Problem) (*schedulers.Assignment, error) {
	r.keep(p)
	return r.inner.Schedule(ctx, p)
}

func (r *recorder) Reschedule(ctx context.Context, p *schedulers.Problem) (*schedulers.Assignment, bool, error) {
	r.keep(p)
	return r.inner.(schedulers.Dynamic).Reschedule(ctx, p)
}

// twoPipelines is the running topology with the given placement (task ->
// supervisor, all on port 6700).
func twoPipelines(place map[int]string) *protocol.Snapshot {
	snap := &protocol.Snapshot{
		Topologies: []protocol.Topology{{
			ID: "t2-1-1700000000", Name: "two-pipelines", NumWorkers: 2,
			Executors: []protocol.ComponentExecutor{
				{Executor: ex(4, 4), Component: "boltB"},
				{Executor: ex(1, 1), Component: "spoutA"},
				{Executor: ex(3, 3), Component: "spoutB"},
				{Executor: ex(2, 2), Component: "boltA"},
			},
			Streams: []protocol.Stream{
				{From: "spoutA", To: "boltA", Grouping: "shuffle"},
				{From: "spoutB", To: "boltB", Grouping: "shuffle"},
			},
		}},
		Supervisors: []protocol.Supervisor{
			{ID: "s1", Host: "h1", CPU: 100, MemoryMB: 2048, Ports: []int{6700, 6701}},
			{ID: "s2", Host: "h2", CPU: 100, MemoryMB: 2048, Ports: []int{6700, 6701}},
		},
	}
	used := map[string]bool{}
	for task := 1; task <= 4; task++ {
		sup := place[task]
		snap.Topologies[0].Assignment = append(snap.Topologies[0].Assignment,
			protocol.ExecutorSlot{Executor: ex(task, task), Supervisor: sup, Port: 6700})
		used[sup] = true
	}
	for i := range snap.Supervisors {
		if used[snap.Supervisors[i].ID] {
			snap.Supervisors[i].FreePorts = []int{6701}
		} else {
			snap.Supervisors[i].FreePorts = []int{6700, 6701}
		}
	}
	return snap
}

var (
	badPlace  = map[int]string{1: "s1", 2: "s2", 3: "s1", 4: "s2"}
	goodPlace = map[int]string{1: "s1", 2: "s1", 3: "s2", 4: "s2"}
	taskCPU   = map[int]float64{1: 10, 2: 35, 3: 10, 4: 45} // percent of one core
	deadlines = map[int]float64{2: 500, 4: 1000}            // ms, at the bolts
)

// pipelineReports are the reports of one 10 s interval ending at endMs, as
// the workers of the placement would send them: CPU per task, traffic
// counted by the worker of the executing task, deadlines at the bolts
// (processing 20 ms per tuple), acks and latency at the spouts.
func pipelineReports(place map[int]string, endMs int64) []protocol.WorkerReport {
	host := map[string]string{"s1": "h1", "s2": "h2"}
	cpuShare := taskCPU
	byHost := map[string]*protocol.WorkerReport{}
	for _, sup := range []string{"s1", "s2"} {
		byHost[sup] = &protocol.WorkerReport{Topology: "t2-1-1700000000", Host: host[sup], Port: 6700, TimeMs: endMs,
			IntervalS: 10, WorkerMemoryMB: 300}
	}
	for task := 1; task <= 4; task++ {
		w := byHost[place[task]]
		w.CPU = append(w.CPU, protocol.TaskCPU{Task: task, CPUNs: int64(cpuShare[task] / 100 * 10 * 1e9)})
		w.WorkerCPUPercent += cpuShare[task]
		switch task {
		case 1, 3: // spouts: 1000 tuples/s acked, latency samples
			w.Acked += 10_000
			w.CompleteLatencyMs = append(w.CompleteLatencyMs, 20, 21, 25)
		case 2, 4: // bolts execute their spout's tuples and see their deadline
			w.Traffic = append(w.Traffic, protocol.TaskTraffic{Src: task - 1, Dst: task, Count: 10_000})
			deadline := deadlines[task]
			w.Deadlines = append(w.Deadlines, protocol.TaskDeadline{Task: task, Count: 10_000,
				SumProcessingMs: 10_000 * 20, SumQoS: 10_000 * 20 / deadline})
		}
	}
	var out []protocol.WorkerReport
	for _, sup := range []string{"s1", "s2"} {
		w := byHost[sup]
		if len(w.CPU) == 0 {
			continue // no worker of the topology there
		}
		w.WorkerCPUPercent += 2 // the worker's own threads
		out = append(out, *w)
	}
	return out
}

// httpService serves s and returns a POST helper that fails the test on a
// non-2xx answer.
func httpService(t *testing.T, s *Service) func(path string, body, answer any) {
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return func(path string, body, answer any) {
		t.Helper()
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Post(srv.URL+path, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, data)
		}
		if answer != nil {
			if err := json.Unmarshal(data, answer); err != nil {
				t.Fatalf("POST %s: answer %s: %v", path, data, err)
			}
		}
	}
}

// nodeOf returns the supervisor of task in a decision.
func nodeOf(d protocol.TopologyDecision, task int) string {
	for _, w := range d.Workers {
		for _, e := range w.Executors {
			if e.Start <= task && task <= e.End {
				return w.Supervisor
			}
		}
	}
	return ""
}

// cutAndStd measures a decision on the known load: the share of the
// 2000 tuples/s that crosses nodes, and the population std dev of the two
// nodes' task CPU.
func cutAndStd(d protocol.TopologyDecision) (cut, std float64) {
	if nodeOf(d, 1) != nodeOf(d, 2) {
		cut += 0.5
	}
	if nodeOf(d, 3) != nodeOf(d, 4) {
		cut += 0.5
	}
	load := map[string]float64{}
	for task, c := range taskCPU {
		load[nodeOf(d, task)] += c
	}
	return cut, math.Abs(load["s1"]-load["s2"]) / 2
}

func TestDynamicSchedulersUseWorkerLoad(t *testing.T) {
	const t0 = int64(1_700_000_100_000) // the service's clock at the first round
	type scenario struct {
		name string
		seed uint64
		// check judges the decision on the bad placement by the
		// scheduler's own rule.
		check func(t *testing.T, d protocol.TopologyDecision)
	}
	var cases []scenario
	for seed := uint64(1); seed <= 5; seed++ {
		cases = append(cases, scenario{"kpart-dynamic", seed, func(t *testing.T, d protocol.TopologyDecision) {
			// The current placement cuts all traffic (inter-node rate 1)
			// with node CPU 20 / 80 (std 30). K-PART's proposal is
			// applied only if both improve, so the answer must have both
			// lower (K-PART with Mul 1; with Mul 0, no balance adjustment,
			// the growing step overshoots on this 4-executor graph for
			// some seeds and the scheduler keeps the placement).
			if cut, std := cutAndStd(d); !(cut < 1 && std < 30) {
				t.Errorf("new placement has cut %v, CPU std %v: want both below the current 1 and 30", cut, std)
			}
		}})
	}
	cases = append(cases,
		scenario{"deadline", 1, func(t *testing.T, d protocol.TopologyDecision) {
			// CPU load (s2 at 82 % > 80 %, memory 15 % used): mean 52,
			// loaded node s2 (deviation 52 - 82 = -30), free node s1.
			// Node performance is capacity (one core each, the same
			// tuples per core-second), so the loaded node is not the faster
			// one and the task with the closest deadline moves (eq. 1,
			// largest Now / (T_start + T_dline)): boltA (500 ms) rather
			// than boltB (1000 ms). s1 goes to 22 + 35 = 57 <= 80. One
			// migration per round.
			want := map[int]string{1: "s1", 2: "s1", 3: "s1", 4: "s2"}
			for task, sup := range want {
				if got := nodeOf(d, task); got != sup {
					t.Errorf("task %d on %q, want %q", task, got, sup)
				}
			}
		}},
		scenario{"adaptive", 1, func(t *testing.T, d protocol.TopologyDecision) {
			// s2 at 82 % > 80 %; target s1 (22 %). Cost = new CPU of s1 /
			// 100 + (traffic added - removed) / total: boltA 0.57 - 1000 /
			// 2000 = 0.07, boltB 0.67 - 0.5 = 0.17. boltA moves; s2 falls
			// to 47 %: done.
			want := map[int]string{1: "s1", 2: "s1", 3: "s1", 4: "s2"}
			for task, sup := range want {
				if got := nodeOf(d, task); got != sup {
					t.Errorf("task %d on %q, want %q", task, got, sup)
				}
			}
		}},
	)
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/seed=%d", c.name, c.seed), func(t *testing.T) {
			inner, err := schedulers.New(c.name, schedulers.Options{Seed: c.seed, Mul: 1})
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{inner: inner}
			clock := &fakeClock{t: time.UnixMilli(t0)}
			s := NewWithScheduler(c.name, rec, WithRescheduleEvery(0), WithClock(clock.now))
			post := httpService(t, s)

			// --- bad placement: the scheduler must move executors.
			for _, r := range pipelineReports(badPlace, t0-1000) {
				post(protocol.PathMetrics, r, nil)
			}
			var dec protocol.Decision
			post(protocol.PathSchedule, twoPipelines(badPlace), &dec)
			p := rec.last()
			if p == nil || p.Current == nil {
				t.Fatalf("the scheduler was not offered the running topology (problem %+v)", p)
			}
			// The first report interval began at t0 - 11 s.
			checkLoad(t, p, map[string]float64{"s1": 22, "s2": 82}, badPlace, 11_000)
			if len(dec.Errors) > 0 || len(dec.Topologies) != 1 {
				t.Fatalf("bad placement: decision %+v, want a new placement of the topology", dec)
			}
			c.check(t, dec.Topologies[0])
			st := s.State(0)
			if n := len(st.Decisions); n != 1 || st.Decisions[0].Kind != "reschedule" || !st.Decisions[0].Applied {
				t.Errorf("decision log %+v: want one applied reschedule", st.Decisions)
			}

			// --- good placement, fresh measurements: left alone.
			clock.t = clock.t.Add(30 * time.Second)
			post(protocol.PathReset, nil, nil)
			for _, r := range pipelineReports(goodPlace, t0+29_000) {
				post(protocol.PathMetrics, r, nil)
			}
			dec = protocol.Decision{}
			post(protocol.PathSchedule, twoPipelines(goodPlace), &dec)
			p = rec.last()
			checkLoad(t, p, map[string]float64{"s1": 47, "s2": 57}, goodPlace, 11_000)
			if len(dec.Errors) > 0 || len(dec.Topologies) != 0 {
				t.Errorf("good placement: decision %+v, want it left alone", dec)
			}
			st = s.State(0)
			if n := len(st.Decisions); n != 1 || st.Decisions[0].Kind != "reschedule" || st.Decisions[0].Applied {
				t.Errorf("decision log %+v: want one reschedule, not applied", st.Decisions)
			}
			// The log predicts the kept placement: no traffic crosses.
			if n := len(st.Decisions); n > 0 && st.Decisions[0].Predicted.CutRate != 0 {
				t.Errorf("predicted cut rate of the good placement %v, want 0", st.Decisions[0].Predicted.CutRate)
			}
		})
	}
}

// checkLoad checks the problem the scheduler got against the reports:
// node CPU (percent of the node: worker CPU over a 100 % node), memory
// (2048 - 300 MB), per-task CPU (percent of one core, from CPU ns over
// 10 s), network (1000 tuples/s out of each spout), the bolts' deadlines,
// the monitor's clock (NowMs: ms since the topology's first report
// interval began) and the graph weights from the same numbers.
func checkLoad(t *testing.T, p *schedulers.Problem, nodeCPU map[string]float64, place map[int]string, nowMs int64) {
	t.Helper()
	if p.Load == nil {
		t.Fatal("problem without load: the reports did not reach the scheduler")
	}
	if len(p.Load.Nodes) != 2 {
		t.Fatalf("load table has %d rows, want 2: %+v", len(p.Load.Nodes), p.Load.Nodes)
	}
	for _, n := range p.Load.Nodes {
		if math.Abs(n.CPUUsed-nodeCPU[n.Node]) > 1e-9 {
			t.Errorf("node %s CPU used %v, want %v", n.Node, n.CPUUsed, nodeCPU[n.Node])
		}
		if n.MemoryTotalMB != 2048 || n.MemoryFreeMB != 2048-300 {
			t.Errorf("node %s memory %v free of %v, want 1748 of 2048", n.Node, n.MemoryFreeMB, n.MemoryTotalMB)
		}
	}
	if len(p.Load.Tasks) != 4 {
		t.Fatalf("task monitor has %d rows, want 4", len(p.Load.Tasks))
	}
	for v, tl := range p.Load.Tasks {
		task := v + 1 // one task per executor, vertex order = task order
		wantNet := 0.0
		if task == 1 || task == 3 {
			wantNet = 1000
		}
		if tl.Executor != v || math.Abs(tl.CPU-taskCPU[task]) > 1e-9 || tl.Network != wantNet ||
			math.Abs(tl.DeadlineMs-deadlines[task]) > 1e-9 || tl.Node != place[task] || tl.StartMs != 0 {
			t.Errorf("task row %d = %+v, want cpu %v network %v deadline %v start 0 on %s", v, tl, taskCPU[task], wantNet, deadlines[task], place[task])
		}
		if w := p.Graph.Vertices[v].Weight; math.Abs(w-taskCPU[task]) > 1e-9 {
			t.Errorf("vertex %d weight %v, want the measured %v", v, w, taskCPU[task])
		}
	}
	if p.Load.NowMs != nowMs {
		t.Errorf("load NowMs = %d, want %d: ms since the topology's first report interval began (eq. 1's Now)", p.Load.NowMs, nowMs)
	}
	if len(p.Graph.Edges) != 2 {
		t.Errorf("graph edges %+v, want v0->v1 and v2->v3 at 1000/s", p.Graph.Edges)
	}
	for _, e := range p.Graph.Edges {
		if e.Weight != 1000 {
			t.Errorf("edge %+v, want weight 1000 tuples/s", e)
		}
	}
}

// TestPlacementOnLostSupervisor: s2 is gone (its container killed) while the topology still has executors
// on it. A dynamic scheduler is not handed that placement as the current one (kpart-dynamic rejected it:
// "worker 1 is on slot s2:6700, which the cluster does not have", and the bridge fell back to
// EvenScheduler); the topology is placed anew on what is left, s1.
func TestPlacementOnLostSupervisor(t *testing.T) {
	s, err := New("kpart-dynamic", schedulers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap := twoPipelines(goodPlace)
	snap.Supervisors = snap.Supervisors[:1] // s2 lost
	d, err := s.Schedule(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Errors) != 0 || len(d.Topologies) != 1 {
		t.Fatalf("decision %+v, want one placement and no error", d)
	}
	n := 0
	for _, w := range d.Topologies[0].Workers {
		if w.Supervisor != "s1" {
			t.Errorf("worker on %s:%d, want s1 only", w.Supervisor, w.Port)
		}
		n += len(w.Executors)
	}
	if n != 4 {
		t.Errorf("%d executors placed, want 4", n)
	}
	recs := s.State(0).Decisions
	if len(recs) != 1 || recs[0].Kind != "schedule" {
		t.Errorf("decisions %+v, want one first placement (schedule)", recs)
	}
}
