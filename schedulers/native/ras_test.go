package native

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/schedulers"
)

// rasTestTopology is the topology of TestDefaultResourceAwareStrategy's
// acker tests: spout (1 executor) -> bolt-1 -> bolt-2 -> bolt-3 (2 each),
// shuffle, with n ackers. Task ids as TestUtilsForResourceAwareScheduler.
// genExecsAndComps numbers them, spouts then bolts in the iteration order of
// the topology's HashMap of bolts: bolt-1, bolt-3, bolt-2, __acker
// (TestJavaOrder checks that order).
func rasTestTopology(ackers, perWorker int) Topology {
	t := Topology{ID: "testTopology-id", Workers: 0,
		Inputs: map[string][]string{"spout": nil, "bolt-1": {"spout"}, "bolt-2": {"bolt-1"}, "bolt-3": {"bolt-2"}},
		Resources: map[string]Resources{
			"spout": {CPU: 50, OnHeapMB: 450}, "bolt-1": {CPU: 50, OnHeapMB: 450},
			"bolt-2": {CPU: 50, OnHeapMB: 450}, "bolt-3": {CPU: 50, OnHeapMB: 450},
			AckerComponent: {CPU: 50, OnHeapMB: 250},
		},
		WorkerMaxHeapMB: 2000, AckersPerWorker: perWorker,
	}
	comps := []string{"spout", "bolt-1", "bolt-1", "bolt-3", "bolt-3", "bolt-2", "bolt-2"}
	for i := 0; i < ackers; i++ {
		comps = append(comps, AckerComponent)
	}
	for task, c := range comps {
		t.Executors = append(t.Executors, Executor{Component: c, Start: task, End: task})
	}
	return t
}

// genSupervisors is TestUtilsForResourceAwareScheduler.genSupervisors(n,
// ports, cpu, mem): ids r000s000..., hosts host-000-rack-000..., ports 0..
func genSupervisors(n, ports int, cpu, mem float64) schedulers.Cluster {
	var c schedulers.Cluster
	for i := 0; i < n; i++ {
		nd := schedulers.Node{ID: fmt.Sprintf("r000s%03d", i), Host: fmt.Sprintf("host-%03d-rack-000", i), CPU: cpu, MemoryMB: mem}
		for p := 0; p < ports; p++ {
			nd.Ports = append(nd.Ports, p)
		}
		c.Nodes = append(c.Nodes, nd)
	}
	return c
}

// Source: apache/storm v2.8.4, storm-server/src/test/java/org/apache/storm/
// scheduler/resource/strategies/scheduling/TestDefaultResourceAwareStrategy.java,
// testDefaultResourceAwareStrategyWithoutSettingAckerExecutors (ackers per
// worker unset = 1, 0, 2; Nimbus makes 2 ackers per estimated worker, 2
// workers) and testDefaultResourceAwareStrategyWithSettingAckerExecutors (4
// ackers; Nimbus sets 2 per worker): 4 supervisors of 4 ports, 200% CPU and
// 2000 MB; executors of 50% and 450 MB, ackers 50% and 250 MB, worker heap
// limit 2000 MB. The expected workers are the tests' sets of executors.
func TestRASStormAckerCases(t *testing.T) {
	cases := []struct {
		name              string
		ackers, perWorker int
		want              string
	}{
		{"without acker executors, per worker unset", 2, 0, "0 | 1,3,5,7 | 2,4,6,8"},
		{"without acker executors, per worker 1", 2, 1, "0 | 1,3,5,7 | 2,4,6,8"},
		{"without acker executors, per worker 0", 0, -1, "0,1,3 | 2,4,5,6"},
		{"without acker executors, per worker 2", 4, 2, "0,1,3 | 2,6,7,8 | 4,5,9,10"},
		{"with 4 acker executors", 4, 2, "0,1,3 | 2,6,7,8 | 4,5,9,10"},
	}
	for _, c := range cases {
		a, err := RAS{}.Schedule(context.Background(), genSupervisors(4, 4, 200, 2000), rasTestTopology(c.ackers, c.perWorker), Assignment{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := workerSets(a); got != c.want || len(a.Unassigned) != 0 {
			t.Errorf("%s: workers %s (unassigned %v, %s), want %s", c.name, got, a.Unassigned, a.Status, c.want)
		}
	}
}

// The orders the Storm test's comments print: "Ordered execs: [[6, 6], [2,
// 2], [4, 4], [5, 5], [1, 1], [3, 3], [0, 0], [8, 8], [7, 7]]" and "Ackers:
// [[8, 8], [7, 7], [10, 10], [9, 9]]" (same source), and Java's own hash of
// "hello" (String.hashCode, 99162322).
func TestJavaOrder(t *testing.T) {
	if h := javaStringHash("hello"); h != 99162322 {
		t.Errorf(`javaStringHash("hello") = %d, want 99162322`, h)
	}
	bolts := javaOrder([]string{"bolt-1", "bolt-2", "bolt-3", AckerComponent}, javaStringHash, capGrown(4))
	if want := []string{"bolt-1", "bolt-3", "bolt-2", AckerComponent}; !slices.Equal(bolts, want) {
		t.Errorf("HashMap order of the bolts %v, want %v", bolts, want)
	}
	r := newRASTopology(rasTestTopology(2, 1))
	order, _ := r.orderExecutors(r.Executors)
	var got []int
	for _, e := range order {
		got = append(got, e.Start)
	}
	if want := []int{6, 2, 4, 5, 1, 3, 0, 8, 7}; !slices.Equal(got, want) {
		t.Errorf("executor order %v, want %v", got, want)
	}
	r = newRASTopology(rasTestTopology(4, 2))
	_, ackers := r.orderExecutors(r.Executors)
	got = got[:0]
	for _, e := range ackers {
		got = append(got, e.Start)
	}
	if want := []int{8, 7, 10, 9}; !slices.Equal(got, want) {
		t.Errorf("acker order %v, want %v", got, want)
	}
}

// After a supervisor dies RAS keeps the survivors and places the dead
// executors on free slots only (never in a surviving worker), packing them
// onto the node that already holds most of the topology. Derived from
// BaseResourceAwareStrategy and NodeSorterHostProximity (storm-server 2.8).
func TestRASAfterKill(t *testing.T) {
	ctx := context.Background()
	top := rasTestTopology(2, 1)
	a, err := RAS{}.Schedule(ctx, genSupervisors(4, 4, 200, 2000), top, Assignment{})
	if err != nil {
		t.Fatal(err)
	}
	dead := a.Slots[Executor{Component: "bolt-2", Start: 6, End: 6}].Node // the worker 2,4,6,8
	survivors := Assignment{Slots: map[Executor]schedulers.Slot{}}
	for e, s := range a.Slots {
		if s.Node != dead {
			survivors.Slots[e] = s
		}
	}
	var live schedulers.Cluster
	for _, n := range genSupervisors(4, 4, 200, 2000).Nodes {
		if n.ID != dead {
			live.Nodes = append(live.Nodes, n)
		}
	}
	b, err := RAS{}.Schedule(ctx, live, top, survivors)
	if err != nil {
		t.Fatal(err)
	}
	for e, s := range survivors.Slots {
		if b.Slots[e] != s {
			t.Errorf("survivor %v moved from %s to %s", e, s, b.Slots[e])
		}
	}
	if len(b.Unassigned) != 0 {
		t.Fatalf("unassigned %v: %s", b.Unassigned, b.Status)
	}
	// Nodes sorted by executors of the topology already there: the full node
	// of 1,3,5,7 cannot take any, so the spout's node (150% CPU free) takes 6
	// with its bound acker 8 in a new worker, then 2 (the node is not
	// re-sorted between components); 4 goes to the empty node.
	spout := b.Slots[Executor{Component: "spout", Start: 0, End: 0}]
	for _, task := range []int{6, 8, 2} {
		if n := nodeOf(b, task); n != spout.Node {
			t.Errorf("task %d on %s, want the spout's node %s: %s", task, n, spout.Node, describe(b))
		}
	}
	if n := nodeOf(b, 4); n == spout.Node || n == "" || n == survivors.Slots[Executor{Component: "bolt-1", Start: 1, End: 1}].Node {
		t.Errorf("task 4 on %q, want the empty node: %s", n, describe(b))
	}
	old := slotExecutors(survivors.Slots)
	for e, s := range b.Slots {
		if _, kept := survivors.Slots[e]; !kept && old[s] != nil {
			t.Errorf("executor %v joined the surviving worker %s: RAS places only on originally free slots", e, s)
		}
	}
}

func nodeOf(a Assignment, task int) string {
	for e, s := range a.Slots {
		if e.Start == task {
			return s.Node
		}
	}
	return ""
}

// stormTopology numbers the executors of components given as name and
// parallelism, in order, from task 0 (as genExecsAndComps does).
func stormTopology(inputs map[string][]string, res map[string]Resources, maxHeap float64, comps ...any) Topology {
	t := Topology{ID: "topology1", Inputs: inputs, Resources: res, WorkerMaxHeapMB: maxHeap}
	task := 0
	for i := 0; i < len(comps); i += 2 {
		for k := 0; k < comps[i+1].(int); k++ {
			t.Executors = append(t.Executors, Executor{Component: comps[i].(string), Start: task, End: task})
			task++
		}
	}
	return t
}

// nodeUse sums the requests of an assignment's executors per node.
func nodeUse(t Topology, a Assignment) map[string]Resources {
	r := newRASTopology(t)
	out := map[string]Resources{}
	for e, s := range a.Slots {
		u, q := out[s.Node], r.request(e)
		u.CPU += q.CPU
		u.OnHeapMB += q.OnHeapMB + q.OffHeapMB
		out[s.Node] = u
	}
	return out
}

// Source: apache/storm v2.8.4, storm-server/src/test/java/org/apache/storm/
// scheduler/resource/TestResourceAwareScheduler.java, the cases about one
// topology: defaultTopologyConf is 10% CPU and 128 MB per executor, worker
// heap limit 8192 MB; genSupervisors(n, ports, cpu, mem). Each row checks
// what the Java test asserts (workers, nodes, status, resources).
func TestRASStormSchedulerCases(t *testing.T) {
	def := map[string]Resources{}
	cases := []struct {
		name     string
		c        schedulers.Cluster
		t        Topology
		workers  int // -1: not asserted
		nodes    int
		status   string
		fullNode bool // every node's CPU and memory exactly used (testHeterogeneousCluster, Test3)
	}{
		{"sanityTestOfScheduling", genSupervisors(1, 2, 400, 2000),
			stormTopology(map[string][]string{"spout-0": nil, "bolt-0": {"spout-0"}}, def, 8192, "spout-0", 1, "bolt-0", 1),
			1, 1, "Running - Fully Scheduled by DefaultResourceAwareStrategy", false},
		{"testTopologyWithMultipleSpouts, topology1", genSupervisors(2, 4, 400, 2000),
			stormTopology(map[string][]string{"wordSpout1": nil, "wordSpout2": nil, "wordCountBolt1": {"wordSpout1", "wordSpout2"},
				"wordCountBolt2": {"wordCountBolt1"}, "wordCountBolt3": {"wordCountBolt1"}, "wordCountBolt4": {"wordCountBolt2"}, "wordCountBolt5": {"wordSpout2"}},
				def, 8192, "wordSpout1", 1, "wordSpout2", 1, "wordCountBolt1", 1, "wordCountBolt2", 1, "wordCountBolt3", 1, "wordCountBolt4", 1, "wordCountBolt5", 1),
			1, 1, "Running - Fully Scheduled by DefaultResourceAwareStrategy", false},
		{"testTopologyWithMultipleSpouts, topology2", genSupervisors(2, 4, 400, 2000),
			stormTopology(map[string][]string{"wordSpoutX": nil, "wordSpoutY": nil}, def, 8192, "wordSpoutX", 1, "wordSpoutY", 1),
			1, 1, "Running - Fully Scheduled by DefaultResourceAwareStrategy", false},
		{"testResourceLimitation", genSupervisors(2, 2, 400, 2000),
			stormTopology(map[string][]string{"wordSpout": nil, "wordCountBolt": {"wordSpout"}},
				map[string]Resources{"wordSpout": {CPU: 250, OnHeapMB: 1000, OffHeapMB: 200}, "wordCountBolt": {CPU: 100, OnHeapMB: 500, OffHeapMB: 100}},
				8192, "wordSpout", 2, "wordCountBolt", 1),
			2, 2, "Running - Fully Scheduled by DefaultResourceAwareStrategy", false},
		{"testTopologyWorkerMaxHeapSize, 4 executors", genSupervisors(2, 2, 400, 2000),
			stormTopology(map[string][]string{"wordSpout1": nil}, def, 128, "wordSpout1", 4),
			4, 2, "Running - Fully Scheduled by DefaultResourceAwareStrategy", false},
		{"testTopologyWorkerMaxHeapSize, 5 executors", genSupervisors(2, 2, 400, 2000),
			stormTopology(map[string][]string{"wordSpout2": nil}, def, 128, "wordSpout2", 5),
			0, 0, "Not enough resources to schedule", false},
		{"testHeterogeneousCluster, Test3 (topology5 alone)",
			schedulers.Cluster{Nodes: []schedulers.Node{
				{ID: "r00s000", Host: "host-0", CPU: 800, MemoryMB: 4096, Ports: []int{0, 1, 2, 3}},
				{ID: "r00s001", Host: "host-1", CPU: 200, MemoryMB: 1024, Ports: []int{0, 1, 2, 3}}}},
			stormTopology(map[string][]string{"wordSpout5": nil}, map[string]Resources{"wordSpout5": {CPU: 25, OnHeapMB: 100, OffHeapMB: 28}}, 8192, "wordSpout5", 40),
			-1, 2, "Running - Fully Scheduled by DefaultResourceAwareStrategy", true},
	}
	for _, c := range cases {
		a, err := RAS{}.Schedule(context.Background(), c.c, c.t, Assignment{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ns := map[string]bool{}
		for _, s := range a.Slots {
			ns[s.Node] = true
		}
		if (c.workers >= 0 && len(a.Workers()) != c.workers) || len(ns) != c.nodes || !strings.HasPrefix(a.Status, c.status) {
			t.Errorf("%s: %d workers on %d nodes, status %q; want %d on %d, status %q: %s", c.name, len(a.Workers()), len(ns), a.Status, c.workers, c.nodes, c.status, describe(a))
		}
		if c.workers == 0 && len(a.Unassigned) != len(c.t.Executors) {
			t.Errorf("%s: %d unassigned, want all %d", c.name, len(a.Unassigned), len(c.t.Executors))
		}
		if c.fullNode {
			use := nodeUse(c.t, a)
			for _, n := range c.c.Nodes {
				if u := use[n.ID]; math.Abs(u.CPU-n.CPU) > 1e-4 || math.Abs(u.OnHeapMB-n.MemoryMB) > 1e-4 {
					t.Errorf("%s: node %s uses %+v of %g%% and %g MB, want all", c.name, n.ID, u, n.CPU, n.MemoryMB)
				}
			}
		}
	}
}

// Storm re-sorts the nodes only when an executor's component is the same as
// the previous one's (BaseResourceAwareStrategy.scheduleExecutorsOnNodes
// with SchedulingSearcherState.isExecCompDifferentFromPrior, which returns
// true for the same component). Derived from that source: survivors c, c on
// X and c on Y; b (50% CPU) fits only on Y; a (20%) comes next, of another
// component, so the nodes keep the order sorted for b (X first: more of the
// topology's executors) and a lands on X. Sorted afresh, Y (as many
// executors, more CPU left) would come first.
func TestRASResortQuirk(t *testing.T) {
	top := stormTopology(map[string][]string{"a": nil, "b": {"a"}, "c": {"b"}},
		map[string]Resources{"a": {CPU: 20, OnHeapMB: 100}, "b": {CPU: 50, OnHeapMB: 100}, "c": {CPU: 85, OnHeapMB: 100}},
		8192, "a", 1, "b", 1, "c", 3)
	c := schedulers.Cluster{Nodes: []schedulers.Node{
		{ID: "X", CPU: 200, MemoryMB: 2000, Ports: []int{0, 1, 2, 3}},
		{ID: "Y", CPU: 200, MemoryMB: 2000, Ports: []int{0, 1, 2, 3}},
		{ID: "Z", CPU: 200, MemoryMB: 2000, Ports: []int{0, 1, 2, 3}},
	}}
	survivors := Assignment{Slots: map[Executor]schedulers.Slot{
		{"c", 2, 2}: slot("X", 0), {"c", 3, 3}: slot("X", 0), {"c", 4, 4}: slot("Y", 0),
	}}
	a, err := RAS{}.Schedule(context.Background(), c, top, survivors)
	if err != nil {
		t.Fatal(err)
	}
	if nodeOf(a, 1) != "Y" || nodeOf(a, 0) != "X" || len(a.Unassigned) != 0 {
		t.Errorf("b (task 1) on %q and a (task 0) on %q, want Y and X: %s (%s)", nodeOf(a, 1), nodeOf(a, 0), describe(a), a.Status)
	}
}
