package schedulers

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sort"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

func twoNodes() Cluster {
	return Cluster{Nodes: []Node{{ID: "a", CPU: 400, Ports: []int{6700}}, {ID: "b", CPU: 400, Ports: []int{6700}}}}
}

// seedForOutcomeA finds a seed for which K-PART (Mul 0) splits
// twoTriangles into A / B (see TestKPartTwoTriangles).
func seedForOutcomeA(t *testing.T) uint64 {
	g := twoTriangles()
	for seed := uint64(0); seed < 100; seed++ {
		parts, _ := (&KPart{Seed: seed}).Partition(context.Background(), g, 2)
		if reflect.DeepEqual(parts, []int{0, 0, 0, 1, 1, 1}) {
			return seed
		}
	}
	t.Fatal("no seed starts in triangle A")
	return 0
}

// TestKPartDynamicApplyRule, by hand on twoTriangles with one slot on each
// of nodes a and b, 2 workers. f gives A = {0,1,2} (31) / B = {3,4,5} (29),
// g one worker per node: estimate cut 1/301, node std |31-29|/2 = 1 in
// CPU, which is 1/4 = 0.25 in percent of a node of 400 % capacity.
//
//   - Current {0,1,2,3} on a (41), {4,5} on b (19): cut 3-4 + 3-5 = 100/301,
//     std 11 CPU = 11/4 = 2.75 % of a node. Both improve -> apply. Relabelled: A overlaps a by 31 -> a;
//     B -> b. Both workers change; lightest first: b (29), then a (31), one
//     batch (different nodes).
//   - Current {0,1,3} on a (30), {2,4,5} on b (30): std 0 <= 1 -> balance
//     does not improve -> keep the current assignment.
func TestKPartDynamicApplyRule(t *testing.T) {
	g := twoTriangles()
	s := &KPartDynamic{Seed: seedForOutcomeA(t)}
	cl := twoNodes()
	slots := []Slot{{"a", 6700}, {"b", 6700}}

	cur := &Assignment{Workers: slots, Executors: []int{0, 0, 0, 0, 1, 1}}
	d, err := s.Decide(context.Background(), &Problem{Graph: g, Cluster: cl, Workers: 2, Current: cur})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Apply {
		t.Fatalf("not applied: %s (current %+v, new %+v)", d.Reason, d.Current, d.New)
	}
	if d.Current.InterNodeRate != 100.0/301 || d.Current.NodeStd != 2.75 {
		t.Errorf("current estimate %+v, want rate 100/301, std 2.75", *d.Current)
	}
	if d.New.InterNodeRate != 1.0/301 || d.New.NodeStd != 0.25 {
		t.Errorf("new estimate %+v, want rate 1/301, std 0.25", d.New)
	}
	parts, _ := d.Proposed.NodeParts()
	if d.Proposed.NodeOf(0) != "a" || d.Proposed.NodeOf(3) != "b" || !reflect.DeepEqual(parts, []int{0, 0, 0, 1, 1, 1}) {
		t.Errorf("proposed %+v, want A on a, B on b", d.Proposed)
	}
	want := []WorkerMove{{Worker: 1, Slot: Slot{"b", 6700}, CPU: 29, Executors: 3}, {Worker: 0, Slot: Slot{"a", 6700}, CPU: 31, Executors: 3}}
	if !reflect.DeepEqual(d.Moves, want) || !reflect.DeepEqual(d.Batches, [][]int{{0, 1}}) {
		t.Errorf("moves %+v batches %v, want %+v in one batch", d.Moves, d.Batches, want)
	}

	cur = &Assignment{Workers: slots, Executors: []int{0, 0, 1, 0, 1, 1}}
	a, apply, err := s.Reschedule(context.Background(), &Problem{Graph: g, Cluster: cl, Workers: 2, Current: cur})
	if err != nil {
		t.Fatal(err)
	}
	if apply || a != cur {
		t.Errorf("applied although the balance gets worse (std 0 -> 1)")
	}
	d, _ = s.Decide(context.Background(), &Problem{Graph: g, Cluster: cl, Workers: 2, Current: cur})
	if d.Reason != "balance does not improve" {
		t.Errorf("reason %q", d.Reason)
	}
}

// TestKPartDynamicMigrationBatches: two workers on each of nodes a and b
// change; batches hold at most one restart per node, lightest first.
func TestKPartDynamicMigrationBatches(t *testing.T) {
	g := &topologies.Graph{}
	for i, w := range []float64{1, 2, 3, 4} {
		g.Vertices = append(g.Vertices, topologies.Vertex{ID: i, Weight: w})
	}
	cur := &Assignment{Workers: []Slot{{"a", 1}, {"a", 2}, {"b", 1}, {"b", 2}}, Executors: []int{0, 1, 2, 3}}
	next := &Assignment{Workers: cur.Workers, Executors: []int{1, 0, 3, 2}}
	moves, batches, stop := migrationPlan(g, cur, next)
	// Workers by CPU: a:2 holds 0 (1), a:1 holds 1 (2), b:2 holds 2 (3),
	// b:1 holds 3 (4). Batches keep that order and cut it where a node
	// would restart twice: {a:2}, {a:1, b:2}, {b:1}.
	var got []string
	for _, b := range batches {
		var s []string
		for _, i := range b {
			s = append(s, moves[i].Slot.String())
		}
		got = append(got, fmt.Sprint(s))
	}
	if want := []string{"[a:2]", "[a:1 b:2]", "[b:1]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("batches %v, want %v", got, want)
	}
	if len(stop) != 0 {
		t.Errorf("stop %v, want none", stop)
	}
}

// TestKPartDynamicProperties: over random graphs and clusters, decisions
// are valid, deterministic, use at most p.Workers workers; deciding again
// on the applied assignment with the same load proposes no move.
func TestKPartDynamicProperties(t *testing.T) {
	ctx := context.Background()
	for gi := 0; gi < 30; gi++ {
		n := 10 + 7*gi
		g, _ := topologies.RandomGraph(n, 3*n/2, uint64(gi))
		var cl Cluster
		for i := 0; i < 2+gi%5; i++ {
			ports := []int{6700, 6701, 6702, 6703}[:1+(i+gi)%4]
			cl.Nodes = append(cl.Nodes, Node{ID: fmt.Sprintf("n%d", i), CPU: float64(100 * (1 + i%3)), Ports: ports})
		}
		workers := min(len(cl.Slots()), 1+gi%9)
		s := &KPartDynamic{Seed: uint64(gi), Mul: gi % 3}
		cur, err := Even{}.Schedule(ctx, &Problem{Graph: g, Cluster: cl, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		p := &Problem{Graph: g, Cluster: cl, Workers: workers, Current: cur}
		d1, err := s.Decide(ctx, p)
		if err != nil {
			t.Fatalf("graph %d: %v", gi, err)
		}
		d2, _ := s.Decide(ctx, p)
		if !reflect.DeepEqual(d1, d2) {
			t.Fatalf("graph %d: same input, different decisions", gi)
		}
		if err := d1.Proposed.Validate(g, &cl); err != nil {
			t.Fatalf("graph %d: %v", gi, err)
		}
		if len(d1.Proposed.Workers) > workers {
			t.Fatalf("graph %d: %d workers, %d asked", gi, len(d1.Proposed.Workers), workers)
		}
		if d1.Apply != (d1.New.InterNodeRate < d1.Current.InterNodeRate && d1.New.NodeStd < d1.Current.NodeStd) {
			t.Fatalf("graph %d: apply=%v with current %+v new %+v", gi, d1.Apply, *d1.Current, d1.New)
		}
		for i := 1; i < len(d1.Moves); i++ {
			if d1.Moves[i].CPU < d1.Moves[i-1].CPU {
				t.Fatalf("graph %d: moves not lightest first", gi)
			}
		}
		again, err := s.Decide(ctx, &Problem{Graph: g, Cluster: cl, Workers: workers, Current: d1.Proposed})
		if err != nil {
			t.Fatal(err)
		}
		if again.Apply || len(again.Moves) != 0 {
			t.Fatalf("graph %d: re-deciding on its own proposal: apply=%v, %d moves", gi, again.Apply, len(again.Moves))
		}
	}
}

// TestParallelism checks the recommendation by hand.
func TestParallelism(t *testing.T) {
	mk := func(cpu map[string][]float64) *topologies.Graph {
		g := &topologies.Graph{}
		var names []string
		for c := range cpu {
			names = append(names, c)
		}
		sort.Strings(names)
		for _, c := range names {
			for _, w := range cpu[c] {
				g.Vertices = append(g.Vertices, topologies.Vertex{ID: len(g.Vertices), Weight: w, Component: c})
			}
		}
		return g
	}
	// L = 10 : 30 : 60. 10 threads x 1 worker: 1, 3, 6 exactly (error 0).
	g := mk(map[string][]float64{"spout": {5, 5}, "split": {15, 15}, "count": {20, 20, 20}})
	r, err := Parallelism(g, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, c := range r.Components {
		got[c.Component] = c.Recommended
	}
	if want := map[string]int{"spout": 1, "split": 3, "count": 6}; !reflect.DeepEqual(got, want) || r.ThreadsPerWorker != 10 {
		t.Errorf("recommended %v at %d threads, want %v at 10", got, r.ThreadsPerWorker, want)
	}
	// Equal loads of three components: 10 threads gives 4,3,3 (error 20%),
	// 11 gives 4,4,3, 12 gives 4,4,4 exactly -> 12 threads per worker.
	g = mk(map[string][]float64{"a": {7}, "b": {7}, "c": {7}})
	r, _ = Parallelism(g, 1)
	if r.ThreadsPerWorker != 12 || r.Total != 12 {
		t.Errorf("equal loads: %d threads, total %d; want 12, 12", r.ThreadsPerWorker, r.Total)
	}
	for _, c := range r.Components {
		if c.Recommended != 4 || c.Current != 1 {
			t.Errorf("%+v, want recommended 4, current 1", c)
		}
	}
	if _, err := Parallelism(g, 0); err == nil {
		t.Error("0 workers accepted")
	}
}

func BenchmarkKPartDynamic(b *testing.B) {
	var cl Cluster
	for i := 0; i < 16; i++ {
		cl.Nodes = append(cl.Nodes, Node{ID: fmt.Sprintf("n%02d", i), CPU: 400, Ports: []int{6700, 6701, 6702, 6703}})
	}
	for _, n := range []int{1000, 10000} {
		g := benchGraph(b, n)
		cur, err := Even{}.Schedule(context.Background(), &Problem{Graph: g, Cluster: cl, Workers: 64})
		if err != nil {
			b.Fatal(err)
		}
		s := &KPartDynamic{Seed: 1, Mul: 1}
		b.Run(fmt.Sprintf("executors=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Decide(context.Background(), &Problem{Graph: g, Cluster: cl, Workers: 64, Current: cur}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestEstimateBalanceInPercentOfCapacity: node a has 200 % CPU capacity, b
// 100 %; 40 % of one core on a and 20 % on b are 20 % of each node, so the
// balance (std of node CPU in percent of capacity) is 0, not the raw
// |40-20|/2 = 10. Moving the 20 to a gives 60/200 = 30 % and 0 %: std 15.
func TestEstimateBalanceInPercentOfCapacity(t *testing.T) {
	g := &topologies.Graph{Vertices: []topologies.Vertex{{ID: 0, Weight: 40}, {ID: 1, Weight: 20}}}
	c := &Cluster{Nodes: []Node{{ID: "a", CPU: 200, Ports: []int{6700}}, {ID: "b", CPU: 100, Ports: []int{6700}}}}
	slots := []Slot{{"a", 6700}, {"b", 6700}}
	for _, tc := range []struct {
		execs []int
		std   float64
	}{{[]int{0, 1}, 0}, {[]int{0, 0}, 15}} {
		e := EstimateAssignment(g, c, &Assignment{Workers: slots, Executors: tc.execs})
		if math.Abs(e.NodeStd-tc.std) > 1e-12 {
			t.Errorf("executors %v: node std %v, want %v", tc.execs, e.NodeStd, tc.std)
		}
	}
}
