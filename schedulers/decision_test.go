package schedulers

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

// Every Dynamic scheduler says why it decides, so the service can record
// each decision typed.
func TestEveryDynamicExplains(t *testing.T) {
	for _, i := range List() {
		s, err := i.New(Options{})
		if err != nil {
			t.Fatalf("%s: %v", i.Name, err)
		}
		if _, ok := s.(Dynamic); ok {
			if _, ok := s.(Explainer); !ok {
				t.Errorf("%s is Dynamic but not an Explainer", i.Name)
			}
		}
	}
	for _, name := range []string{"online", "tstorm", "kpart-dynamic", "deadline", "adaptive"} {
		s, _ := New(name, Options{})
		if _, ok := s.(Dynamic); !ok {
			t.Errorf("%s does not re-plan (not Dynamic)", name)
		}
	}
}

func TestParseOptions(t *testing.T) {
	o, err := ParseOptions(`{"seed":7,"mul":5,"alpha":0.1,"theta":0.7,"consolidation":2,"weight_vertices":true,"deadline_weight":2,"bandwidth_bytes":1e6,"improvement":0.2}`)
	if err != nil {
		t.Fatal(err)
	}
	want := Options{Seed: 7, Mul: 5, Alpha: 0.1, Theta: 0.7, Consolidation: 2, WeightVertices: true, DeadlineWeight: 2, BandwidthBytes: 1e6, Improvement: 0.2}
	if o != want {
		t.Fatalf("parsed %+v, want %+v", o, want)
	}
	js, err := o.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if back, err := ParseOptions(js); err != nil || back != o {
		t.Fatalf("round trip %s -> %+v, %v", js, back, err)
	}
	if o, err := ParseOptions(" "); err != nil || o != (Options{}) {
		t.Fatalf("empty options: %+v, %v", o, err)
	}
	for _, bad := range []string{`{"theeta":0.5}`, `{"mul":"5"}`, `{"seed":1}{"seed":2}`, `[1]`} {
		if _, err := ParseOptions(bad); err == nil {
			t.Errorf("ParseOptions(%s): no error", bad)
		}
	}
	if _, err := ParseOptions(`{"theeta":0.5}`); err == nil || !strings.Contains(err.Error(), "theeta") || !strings.Contains(err.Error(), "theta") {
		t.Errorf("unknown field error %v: want the bad name and the valid ones", err)
	}
	if _, err := New("online", Options{Improvement: 1}); err == nil {
		t.Error("online accepts improvement 1")
	}
	if _, err := New("deadline", Options{DeadlineWeight: -1}); err == nil {
		t.Error("deadline accepts a negative deadline weight")
	}
}

// crossed is twoTriangles on nodes a and b (one slot each) with executors
// {0,1,3} on a and {2,4,5} on b: edges 0-2, 1-2, 3-4, 3-5 (50 each) and
// 2-3 (1) cross, 201 of 301 tuples/s.
func crossed() *Problem {
	cl := Cluster{Nodes: []Node{{ID: "a", CPU: 100, Ports: []int{6700}}, {ID: "b", CPU: 100, Ports: []int{6700}}}}
	cur := &Assignment{Workers: []Slot{{"a", 6700}, {"b", 6700}}, Executors: []int{0, 0, 1, 0, 1, 1}}
	load := &Load{Tasks: []TaskLoad{{Executor: 0, CPU: 10}}}
	return &Problem{Graph: twoTriangles(), Cluster: cl, Workers: 2, Current: cur, Load: load}
}

// TestOnlineReplan: T-PART on the measured traffic splits the triangles
// (TestOnlineTwoTriangles), cut 1/301 against 201/301 now: 99.5 % lower,
// applied. Relabelling keeps {0,1} on a and {4,5} on b (overlap 2 each),
// so only 2 (b -> a) and 3 (a -> b) move. On that placement the next round
// finds no gain (0 % < 10 %) and keeps it; without a measured load it keeps
// the placement and says the traffic was not measured.
func TestOnlineReplan(t *testing.T) {
	ctx := context.Background()
	p := crossed()
	a, d, err := Online{}.Explain(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Apply || d.Moved != 2 || math.Abs(d.Current.InterNodeRate-201.0/301) > 1e-12 || math.Abs(d.New.InterNodeRate-1.0/301) > 1e-12 {
		t.Fatalf("decision %+v (current %+v new %+v): want applied, 2 moved, 201/301 -> 1/301", d, d.Current, d.New)
	}
	for v, want := range []string{"a", "a", "a", "b", "b", "b"} {
		if a.NodeOf(v) != want {
			t.Errorf("executor %d on %s, want %s", v, a.NodeOf(v), want)
		}
	}
	p.Current = a
	a2, d2, err := Online{}.Explain(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if d2.Apply || a2 != a || !strings.Contains(d2.Reason, "less than 10% lower") {
		t.Fatalf("second round %+v: want the placement kept", d2)
	}
	p.Load = nil
	if _, d3, _ := (Online{}).Explain(ctx, p); d3.Apply || !slices.Equal(d3.NotMeasured, []string{"traffic"}) {
		t.Fatalf("no load: %+v, want kept and traffic not measured", d3)
	}
}

// TestTStormReplanTrigger: T-Storm's greedy puts {2,3,0} and {1,4,5}
// together on twoTriangles (descending traffic 2,3,0,1,4,5, capacity 3):
// cut 0-1, 1-2, 3-4, 3-5 = 200/301 against the crossed 201/301, 0.5 %
// lower: kept with the default 10 % trigger, applied with 0.1 %.
func TestTStormReplanTrigger(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		imp   float64
		apply bool
	}{{0, false}, {0.001, true}} {
		s, err := New("tstorm", Options{Improvement: tc.imp})
		if err != nil {
			t.Fatal(err)
		}
		_, d, err := s.(Explainer).Explain(ctx, crossed())
		if err != nil {
			t.Fatal(err)
		}
		if d.Apply != tc.apply || math.Abs(d.New.InterNodeRate-200.0/301) > 1e-12 {
			t.Errorf("improvement %v: %+v (new %+v), want apply %v and new rate 200/301", tc.imp, d, d.New, tc.apply)
		}
	}
}

// cpuMemProblem is measured-shaped input for the deadline scheduler's
// CPU+memory branch: n1 (one core, 5000 tuples/s of performance) at 95 %
// CPU and 90 % memory, n2 (two cores, 10000 tuples/s) at 20 % and 30 %.
// spout v0 on n2 sends 1000 tuples/s to bolt v1 on n1, which sends 1000
// tuples/s of size bytes each to sink v2 on n1. Deadlines 100 ms from
// T_start 0, Now 50 ms: eq. 1 gives v1 60*0.5 = 30, v2 20*0.5 = 10, so ST
// = v1 (eq. 4). Eq. 6: staying costs 1000/5000 = 0.2; moving to n2 costs
// 1000/10000 + 1000*size/125e6 = 0.1 + 8e-6*size: cheaper below 12500
// bytes.
func cpuMemProblem(size float64) *Problem {
	g := &topologies.Graph{
		Vertices: []topologies.Vertex{{ID: 0, Weight: 10, Component: "spout"}, {ID: 1, Weight: 60, Component: "bolt"}, {ID: 2, Weight: 20, Component: "sink"}},
		Edges:    []topologies.Edge{{From: 0, To: 1, Weight: 1000}, {From: 1, To: 2, Weight: 1000}},
	}
	cl := Cluster{Nodes: []Node{{ID: "n1", CPU: 100, MemoryMB: 2048, Ports: []int{6700, 6701}}, {ID: "n2", CPU: 200, MemoryMB: 2048, Ports: []int{6700, 6701}}}}
	cur := &Assignment{Workers: []Slot{{"n1", 6700}, {"n2", 6700}}, Executors: []int{1, 0, 0}}
	load := &Load{NowMs: 50,
		Nodes: []NodeLoad{
			{Node: "n1", CPUUsed: 95, CPUThroughput: 5000, MemoryTotalMB: 2048, MemoryFreeMB: 204.8},
			{Node: "n2", CPUUsed: 20, CPUThroughput: 10000, MemoryTotalMB: 2048, MemoryFreeMB: 1433.6},
		},
		Tasks: []TaskLoad{
			{Executor: 0, Node: "n2", CPU: 10, Network: 1000, TupleSize: size, DeadlineMs: 100},
			{Executor: 1, Node: "n1", CPU: 60, Network: 1000, TupleSize: size, DeadlineMs: 100},
			{Executor: 2, Node: "n1", CPU: 20, DeadlineMs: 100},
		}}
	return &Problem{Topology: "t", Graph: g, Cluster: cl, Workers: 2, Current: cur, Load: load}
}

func TestDeadlineCPUMemoryTupleSize(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		size  float64
		moves bool
	}{{100, true}, {12000, true}, {12500, false}, {100000, false}} {
		a, d, err := Deadline{}.Explain(ctx, cpuMemProblem(tc.size))
		if err != nil {
			t.Fatal(err)
		}
		if d.Trigger != "cpu+memory load" || d.Apply != tc.moves || len(d.NotMeasured) != 0 {
			t.Errorf("size %v: %+v, want cpu+memory load, apply %v, all measured", tc.size, d, tc.moves)
			continue
		}
		if tc.moves && (len(d.Migrations) != 1 || d.Migrations[0].Executor != 1 || a.NodeOf(1) != "n2") {
			t.Errorf("size %v: migrations %+v, want bolt v1 to n2", tc.size, d.Migrations)
		}
	}
	// Without tuple sizes the branch cannot weigh the transfer: nothing
	// moves and the decision says so.
	_, d, err := Deadline{}.Explain(ctx, cpuMemProblem(0))
	if err != nil {
		t.Fatal(err)
	}
	if d.Apply || !slices.Contains(d.NotMeasured, "tuple_size") {
		t.Errorf("no tuple size: %+v, want kept and tuple_size not measured", d)
	}
	// Without node performance the same.
	p := cpuMemProblem(100)
	for i := range p.Load.Nodes {
		p.Load.Nodes[i].CPUThroughput = 0
	}
	if _, d, _ := (Deadline{}).Explain(ctx, p); d.Apply || !slices.Contains(d.NotMeasured, "node_performance") {
		t.Errorf("no node performance: %+v, want kept and node_performance not measured", d)
	}
	// A measured topology without any deadline: nothing moves, and the
	// decision names the deadline as not measured (never ranked as zero).
	p = cpuMemProblem(100)
	for i := range p.Load.Tasks {
		p.Load.Tasks[i].DeadlineMs = 0
	}
	if _, d, err := (Deadline{}).Explain(ctx, p); err != nil || d.Apply || !slices.Contains(d.NotMeasured, "deadline") {
		t.Errorf("no deadlines: %+v, %v: want kept and deadline not measured", d, err)
	}
	// Per-task T_start: the same deadline started later is farther away
	// (eq. 1: Now/(T_start+T_dline)), so ST is the task that started first.
	p = cpuMemProblem(100)
	p.Load.Tasks[1].StartMs, p.Load.Tasks[1].CPU = 400, 60 // v1: 60*50/500 = 6
	p.Load.Tasks[2].CPU = 20                               // v2: 20*50/100 = 10
	_, d, err = Deadline{}.Explain(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Migrations) != 1 || d.Migrations[0].Executor != 2 {
		t.Errorf("migrations %+v, want the sink v2 (eq. 1 value 10 > 6)", d.Migrations)
	}
}
