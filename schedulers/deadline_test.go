package schedulers

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

// dlScenario builds a problem where executor v runs on node place[v] (one
// worker per node, port 6700) with the given monitor rows and load table.
func dlScenario(nodes []Node, place []string, tasks []TaskLoad, load []NodeLoad, now int64) *Problem {
	g := &topologies.Graph{}
	for v := range place {
		g.Vertices = append(g.Vertices, topologies.Vertex{ID: v, Weight: 1})
	}
	for i := range nodes {
		nodes[i].Ports = []int{6700, 6701}
	}
	a := &Assignment{}
	worker := map[string]int{}
	for _, n := range place {
		if _, ok := worker[n]; !ok {
			worker[n] = len(a.Workers)
			a.Workers = append(a.Workers, Slot{Node: n, Port: 6700})
		}
		a.Executors = append(a.Executors, worker[n])
	}
	for i := range tasks {
		tasks[i].Node = place[tasks[i].Executor]
	}
	return &Problem{Graph: g, Cluster: Cluster{Nodes: nodes}, Current: a, Load: &Load{Nodes: load, Tasks: tasks, NowMs: now}}
}

const dlTol = 0.01 // percent / eq. 1 units; the paper prints two decimals

// Fig. 5 of 002 (CPU load-based scheduling). The figure itself is missing
// from our copy; the text fixes: mean CPU 56% by eq. 2, node 1 chosen as the
// free node (largest eq. 3 deviation), node 3 loaded, node 3's throughput
// higher than node 1's so the task with the farther deadline (Task10) moves
// to node 1, and the mean rises to 65%. Our numbers are constructed to meet
// exactly those statements: CPU 30/50/88% (mean 56), node 3's tasks 40, 36
// and 12 (% of one core, one-core nodes), throughputs 400/800/1300, so
// Task10 costs 12*1300/400 = 39% on node 1: after, 69/50/76%, mean 65.
// (The mean rises because node 1 is slower; that is our reading of why the
// paper's mean goes up.)
func TestDeadlineFig5(t *testing.T) {
	nodes := []Node{{ID: "node1", CPU: 100}, {ID: "node2", CPU: 100}, {ID: "node3", CPU: 100}}
	place := []string{"node1", "node2", "node3", "node3", "node3"}
	tasks := []TaskLoad{
		{Executor: 0, CPU: 30, StartMs: 1, DeadlineMs: 9},
		{Executor: 1, CPU: 50, StartMs: 1, DeadlineMs: 9},
		{Executor: 2, CPU: 40, StartMs: 2, DeadlineMs: 8},  // Task8: 9/10 = .9
		{Executor: 3, CPU: 36, StartMs: 2, DeadlineMs: 10}, // Task9: 9/12 = .75
		{Executor: 4, CPU: 12, StartMs: 2, DeadlineMs: 18}, // Task10: 9/20 = .45, farthest
	}
	load := []NodeLoad{
		{Node: "node1", CPUUsed: 30, CPUThroughput: 400, MemoryTotalMB: 4096, MemoryFreeMB: 2048},
		{Node: "node2", CPUUsed: 50, CPUThroughput: 800, MemoryTotalMB: 2048, MemoryFreeMB: 1024},
		{Node: "node3", CPUUsed: 88, CPUThroughput: 1300, MemoryTotalMB: 2048, MemoryFreeMB: 1024},
	}
	p := dlScenario(nodes, place, tasks, load, 9)
	dec, err := Deadline{}.Decide(p)
	if err != nil {
		t.Fatal(err)
	}
	if dec.Type != LoadCPU {
		t.Fatalf("load type %s, want cpu", dec.Type)
	}
	if math.Abs(dec.MeanCPUBefore-56) > dlTol || math.Abs(dec.MeanCPUAfter-65) > dlTol {
		t.Errorf("mean CPU %.2f -> %.2f, want 56 -> 65", dec.MeanCPUBefore, dec.MeanCPUAfter)
	}
	want := []Migration{{Executor: 4, From: "node3", To: "node1", Value: 12 * 0.45}}
	if len(dec.Migrations) != 1 || dec.Migrations[0].Executor != 4 || dec.Migrations[0].To != "node1" {
		t.Fatalf("migrations %+v, want %+v", dec.Migrations, want)
	}
	if got := dec.Assignment.NodeOf(4); got != "node1" {
		t.Fatalf("Task10 on %s after the round, want node1", got)
	}
	if err := dec.Assignment.Validate(p.Graph, &p.Cluster); err != nil {
		t.Fatal(err)
	}
	// Reversed throughputs: node 3 slower than node 1, so the task with the
	// closest deadline (Task8, .9) is picked; on node 1 it would cost
	// 40*400/1300 = 12.3% -> 42.3%, below theta, so it moves.
	load[0].CPUThroughput, load[2].CPUThroughput = 1300, 400
	dec, _ = Deadline{}.Decide(dlScenario(nodes, place, tasks, load, 9))
	if len(dec.Migrations) != 1 || dec.Migrations[0].Executor != 2 {
		t.Fatalf("with a slower loaded node: migrations %+v, want Task8 (executor 2)", dec.Migrations)
	}
}

// Fig. 6 of 002 (CPU and memory load-based scheduling), part 1: the
// selection. Now = 2; Task3 has CPU 50 and start+deadline = 3, Task4 CPU 90
// and start+deadline = 6, so eq. 1 (alpha = 1) gives 50*2/3 = 33.33 and
// 90*2/6 = 30 (the paper's values); Task3 is ST (eq. 4). Eq. 6 with tuple
// size 1, network 0.001: node 2 (throughput 100) 0.01 + 0.001, node 3
// (throughput 227.27) 0.0044 + 0.001, staying on node 1 (throughput 100)
// 0.01 -> node 3, as in the paper.
func TestDeadlineFig6Selection(t *testing.T) {
	nodes := []Node{{ID: "node1", CPU: 200}, {ID: "node2", CPU: 100}, {ID: "node3", CPU: 200}}
	place := []string{"node1", "node1", "node1", "node2", "node3"}
	tasks := []TaskLoad{
		{Executor: 0, CPU: 50, StartMs: 1, DeadlineMs: 2, TupleSize: 1, Network: 0.001, MemoryMB: 128},   // Task3
		{Executor: 1, CPU: 90, StartMs: 1, DeadlineMs: 5, TupleSize: 1, Network: 0.001, MemoryMB: 128},   // Task4
		{Executor: 2, CPU: 56, StartMs: 10, DeadlineMs: 10, TupleSize: 1, Network: 0.001, MemoryMB: 128}, // 5.6
	}
	load := []NodeLoad{
		{Node: "node1", CPUUsed: 98, CPUThroughput: 100, MemoryTotalMB: 4096, MemoryFreeMB: 409.6},
		{Node: "node2", CPUUsed: 60, CPUThroughput: 100, MemoryTotalMB: 2048, MemoryFreeMB: 1024},
		{Node: "node3", CPUUsed: 50, CPUThroughput: 2500.0 / 11, MemoryTotalMB: 2048, MemoryFreeMB: 1228.8},
	}
	p := dlScenario(nodes, place, tasks, load, 2)
	dec, err := Deadline{}.Decide(p)
	if err != nil {
		t.Fatal(err)
	}
	if dec.Type != LoadCPUMemory {
		t.Fatalf("load type %s, want cpu+memory", dec.Type)
	}
	if len(dec.Migrations) != 1 {
		t.Fatalf("migrations %+v, want one", dec.Migrations)
	}
	m := dec.Migrations[0]
	if m.Executor != 0 || m.To != "node3" || math.Abs(m.Value-33.33) > dlTol {
		t.Fatalf("migration %+v, want Task3 (value 33.33) to node3", m)
	}
	task4 := 90 * 2.0 / 6
	if math.Abs(task4-30) > dlTol || m.Value <= task4 {
		t.Fatalf("Task4 value %.2f should be 30 and below Task3's", task4)
	}
	if dec.MeanCPUAfter >= dec.MeanCPUBefore {
		t.Errorf("mean CPU %.2f -> %.2f, want a decrease", dec.MeanCPUBefore, dec.MeanCPUAfter)
	}
}

// Fig. 6 part 2: the means 91% -> 78%. With three nodes the mean falls by
// 13 points only if node 1 sheds 39 points more than node 3 gains, which is
// impossible when Task4 (90% of a core) shares node 1 with Task3 (50%):
// node 1 then has >= 140% of a core, so Task3 is at most 50/140 = 36% of it.
// Our reading: Task4 runs on node 2; node 1 is one core with Task3 (50) and
// a low-priority task (48): 98%; node 2 95% (memory 70%, so only node 1 is
// CPU+memory loaded); node 3 has two cores, 80%, and throughput 2500/11
// (2.27x node 1), so Task3 costs 50/2.27/2 = 11 points there. After:
// 48/95/91%, mean 78.
func TestDeadlineFig6Means(t *testing.T) {
	nodes := []Node{{ID: "node1", CPU: 100}, {ID: "node2", CPU: 100}, {ID: "node3", CPU: 200}}
	place := []string{"node1", "node1", "node2", "node2", "node3"}
	tasks := []TaskLoad{
		{Executor: 0, CPU: 50, StartMs: 1, DeadlineMs: 2, TupleSize: 1, Network: 0.001, MemoryMB: 128},   // Task3: 33.33
		{Executor: 1, CPU: 48, StartMs: 10, DeadlineMs: 10, TupleSize: 1, Network: 0.001, MemoryMB: 128}, // 4.8
		{Executor: 2, CPU: 90, StartMs: 1, DeadlineMs: 5, TupleSize: 1, Network: 0.001, MemoryMB: 128},   // Task4: 30
		{Executor: 3, CPU: 5, StartMs: 1, DeadlineMs: 5, MemoryMB: 128},
		{Executor: 4, CPU: 160, StartMs: 1, DeadlineMs: 5, MemoryMB: 128},
	}
	load := []NodeLoad{
		{Node: "node1", CPUUsed: 98, CPUThroughput: 100, MemoryTotalMB: 4096, MemoryFreeMB: 409.6},
		{Node: "node2", CPUUsed: 95, CPUThroughput: 100, MemoryTotalMB: 2048, MemoryFreeMB: 614.4},
		{Node: "node3", CPUUsed: 80, CPUThroughput: 2500.0 / 11, MemoryTotalMB: 2048, MemoryFreeMB: 1228.8},
	}
	dec, err := Deadline{}.Decide(dlScenario(nodes, place, tasks, load, 2))
	if err != nil {
		t.Fatal(err)
	}
	if dec.Type != LoadCPUMemory || len(dec.Migrations) != 1 || dec.Migrations[0].Executor != 0 || dec.Migrations[0].To != "node3" {
		t.Fatalf("decision %s %+v, want Task3 to node3", dec.Type, dec.Migrations)
	}
	if math.Abs(dec.MeanCPUBefore-91) > dlTol || math.Abs(dec.MeanCPUAfter-78) > dlTol {
		t.Errorf("mean CPU %.2f -> %.2f, want 91 -> 78", dec.MeanCPUBefore, dec.MeanCPUAfter)
	}
}

// Fig. 4 of 002 (memory load): every node >= 80% memory, three tasks per
// node with equal CPU (1) and memory, Now = 4. Task1 has start 1, deadline 5:
// eq. 1 gives 4/6 = 0.66 as in the paper. The other start/deadline values
// are ours (figure missing), chosen so each node's lowest-priority task is
// the one the paper names: Tasks 4, 7 and 3. Removing one task (100 MB of
// 1000, 90% used) brings each node to 80% = theta, so one task per node is
// delayed, queued highest priority first: Task4 (.33), Task7 (.25), Task3 (.2).
func TestDeadlineMemoryFig4(t *testing.T) {
	nodes := []Node{{ID: "node1"}, {ID: "node2"}, {ID: "node3"}}
	// Executor v is Task v+1.
	place := []string{"node1", "node2", "node3", "node1", "node1", "node2", "node2", "node3", "node3"}
	sd := [][2]int64{{1, 5}, {1, 3}, {1, 19}, {1, 11}, {1, 7}, {1, 7}, {1, 15}, {2, 2}, {1, 4}}
	var tasks []TaskLoad
	for v, x := range sd {
		tasks = append(tasks, TaskLoad{Executor: v, CPU: 1, MemoryMB: 100, StartMs: x[0], DeadlineMs: float64(x[1])})
	}
	var load []NodeLoad
	for _, n := range nodes {
		load = append(load, NodeLoad{Node: n.ID, CPUUsed: 50, CPUThroughput: 100, MemoryTotalMB: 1000, MemoryFreeMB: 100})
	}
	p := dlScenario(nodes, place, tasks, load, 4)
	dec, err := Deadline{}.Decide(p)
	if err != nil {
		t.Fatal(err)
	}
	if dec.Type != LoadMemory {
		t.Fatalf("load type %s, want memory", dec.Type)
	}
	if want := []int{3, 6, 2}; !reflect.DeepEqual(dec.Delayed, want) {
		t.Fatalf("delayed executors %v, want %v (Tasks 4, 7, 3)", dec.Delayed, want)
	}
	if v := 1 * 4.0 / 6; math.Abs(v-0.66) > dlTol {
		t.Fatalf("Task1 value %.3f, want 0.66", v)
	}
	a, apply, err := Deadline{}.Reschedule(context.Background(), p)
	if err != nil || apply || !reflect.DeepEqual(a, p.Current) {
		t.Fatalf("memory load must keep the placement: apply=%v err=%v", apply, err)
	}
}

func TestDeadlineStaticAndInitial(t *testing.T) {
	g, _ := topologies.RandomGraph(20, 30, 1)
	c := capacityCluster(g, 3, 1.5)
	p := &Problem{Graph: g, Cluster: c, Workers: 3}
	a, err := Deadline{}.Schedule(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := RStorm{}.Schedule(context.Background(), p)
	if !reflect.DeepEqual(a, r) {
		t.Fatal("initial placement is not R-Storm's")
	}
	p.Current = a
	p.Load = &Load{Nodes: []NodeLoad{{Node: c.Nodes[0].ID, CPUUsed: 40, MemoryTotalMB: 100, MemoryFreeMB: 60}}}
	dec, err := Deadline{}.Decide(p)
	if err != nil || dec.Type != LoadNone || dec.Assignment != a {
		t.Fatalf("no load: type %v err %v, want none and the same assignment", dec.Type, err)
	}
	for _, info := range []Info{deadlineInfo, adaptiveInfo} {
		for _, theta := range []float64{1.5, -0.1, math.NaN()} {
			if _, err := info.New(Options{Theta: theta}); err == nil {
				t.Fatalf("%s: theta %v accepted", info.Name, theta)
			}
		}
	}
}

// randomDeadlineProblem: R-Storm placement, random node and task loads.
func randomDeadlineProblem(n, nodes int, seed uint64) *Problem {
	g, _ := topologies.RandomGraph(n, 2*n, seed)
	c := capacityCluster(g, nodes, 1.5)
	p := &Problem{Graph: g, Cluster: c, Workers: nodes}
	p.Current, _ = RStorm{}.Schedule(context.Background(), p)
	r := rand.New(rand.NewPCG(seed, 7))
	l := &Load{NowMs: 1000}
	for _, nd := range c.Nodes {
		l.Nodes = append(l.Nodes, NodeLoad{Node: nd.ID, CPUUsed: 100 * r.Float64(), CPUThroughput: 100 + 900*r.Float64(),
			MemoryTotalMB: 4096, MemoryFreeMB: 4096 * r.Float64()})
	}
	for v := 0; v < n; v++ {
		l.Tasks = append(l.Tasks, TaskLoad{Executor: v, Node: p.Current.NodeOf(v), CPU: 50 * r.Float64(), MemoryMB: 64,
			StartMs: int64(r.IntN(900)), DeadlineMs: 50 + 500*r.Float64(), Network: 0.001 * r.Float64(), TupleSize: r.Float64()})
	}
	p.Load = l
	return p
}

func TestDeadlineProperties(t *testing.T) {
	types := map[LoadType]int{}
	for seed := uint64(1); seed <= 40; seed++ {
		p := randomDeadlineProblem(30, 4, seed)
		dec, err := Deadline{}.Decide(p)
		if err != nil {
			t.Fatal(err)
		}
		types[dec.Type]++
		if err := dec.Assignment.Validate(p.Graph, &p.Cluster); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		again, _ := Deadline{}.Decide(p)
		if !reflect.DeepEqual(dec, again) {
			t.Fatalf("seed %d: not deterministic", seed)
		}
		moved := 0
		for v := range p.Graph.Vertices {
			if dec.Assignment.NodeOf(v) != p.Current.NodeOf(v) {
				moved++
			}
		}
		if moved != len(dec.Migrations) {
			t.Fatalf("seed %d: %d executors changed node, %d migrations reported", seed, moved, len(dec.Migrations))
		}
	}
	if len(types) < 3 {
		t.Errorf("random loads reached only %v: the property test should cover more branches", types)
	}
}

func BenchmarkDeadline(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		p := randomDeadlineProblem(n, 16, 3)
		p.Load.Nodes[0].CPUUsed, p.Load.Nodes[0].MemoryFreeMB = 95, 100 // a CPU+memory loaded node
		b.Run(fmt.Sprintf("executors=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, _, err := (Deadline{}).Reschedule(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
