package native

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/schedulers"
)

func slot(node string, port int) schedulers.Slot { return schedulers.Slot{Node: node, Port: port} }

// nodes makes supervisors id0, id1, ... with the given ports each.
func nodes(ports [][]int, ids ...string) schedulers.Cluster {
	var c schedulers.Cluster
	for i, ps := range ports {
		c.Nodes = append(c.Nodes, schedulers.Node{ID: ids[i], Ports: ps})
	}
	return c
}

// spoutTopology is the topology of Storm's nimbus_test.clj tests: one spout
// "1" with n executors (tasks 1..n), no ackers.
func spoutTopology(n, workers int) Topology {
	t := Topology{ID: "test", Workers: workers, Inputs: map[string][]string{"1": nil}}
	for i := 1; i <= n; i++ {
		t.Executors = append(t.Executors, Executor{Component: "1", Start: i, End: i})
	}
	return t
}

// sizes is the executor count per worker, sorted (nimbus_test.clj's
// check-distribution).
func sizes(a Assignment) []int {
	var out []int
	for _, es := range slotExecutors(a.Slots) {
		out = append(out, len(es))
	}
	slices.Sort(out)
	return out
}

// Source: apache/storm v2.8.4, storm-core/test/clj/org/apache/storm/scheduler_test.clj, test-sort-slots.
func TestSortSlots(t *testing.T) {
	cases := []struct {
		in, want []schedulers.Slot
	}{
		{
			in: []schedulers.Slot{slot("supervisor1", 6700), slot("supervisor1", 6701),
				slot("supervisor2", 6700), slot("supervisor2", 6701), slot("supervisor2", 6702)},
			want: []schedulers.Slot{slot("supervisor2", 6700), slot("supervisor1", 6700),
				slot("supervisor2", 6701), slot("supervisor1", 6701), slot("supervisor2", 6702)},
		},
		{
			in: []schedulers.Slot{slot("supervisor1", 6700), slot("supervisor1", 6701),
				slot("supervisor2", 6700), slot("supervisor2", 6701), slot("supervisor2", 6702),
				slot("supervisor3", 6700), slot("supervisor3", 6703), slot("supervisor3", 6702), slot("supervisor3", 6701)},
			want: []schedulers.Slot{slot("supervisor3", 6700), slot("supervisor2", 6700), slot("supervisor1", 6700),
				slot("supervisor3", 6701), slot("supervisor2", 6701), slot("supervisor1", 6701),
				slot("supervisor3", 6702), slot("supervisor2", 6702), slot("supervisor3", 6703)},
		},
	}
	for i, c := range cases {
		if got := sortSlots(c.in); !slices.Equal(got, c.want) {
			t.Errorf("case %d: sortSlots = %v, want %v", i, got, c.want)
		}
	}
}

// recorded is testdata/kpc-storm-even-i0-r0.json.
type recorded struct {
	Source    string            `json:"source"`
	Workers   int               `json:"workers"`
	Nodes     []schedulers.Node `json:"nodes"`
	Executors []struct {
		Executor
		Host string `json:"host"`
		Port int    `json:"port"`
	} `json:"executors"`
}

// TestEvenReproducesRecordedRun places the recorded run's topology afresh
// and compares with where its executors ran. Storm's only choice not fixed
// by the input is the order of the two supervisors (equal free slots, so
// sortSlots orders them by supervisor id, a random UUID on a real cluster):
// the model must give the recorded placement for one order of ids, and the
// same workers (sets of tasks) for both. DefaultScheduler must agree.
func TestEvenReproducesRecordedRun(t *testing.T) {
	raw, err := os.ReadFile("testdata/kpc-storm-even-i0-r0.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec recorded
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	want := map[Executor]string{}
	top := Topology{ID: "kpc", Workers: rec.Workers, Inputs: map[string][]string{"sentence": nil, "split": {"sentence"}, "count": {"split"}, "report": {"count"}}}
	for _, e := range rec.Executors {
		top.Executors = append(top.Executors, e.Executor)
		want[e.Executor] = fmt.Sprintf("%s:%d", e.Host, e.Port)
	}
	matched := 0
	var groupings []string
	for _, ids := range [][2]string{{"a-uuid", "b-uuid"}, {"b-uuid", "a-uuid"}} {
		c := schedulers.Cluster{Nodes: slices.Clone(rec.Nodes)}
		host := map[string]string{}
		for i := range c.Nodes {
			host[ids[i]] = c.Nodes[i].Host
			c.Nodes[i].ID = ids[i]
		}
		a, err := Even{}.Schedule(context.Background(), c, top, Assignment{})
		if err != nil {
			t.Fatal(err)
		}
		// DefaultScheduler places a fresh topology as EvenScheduler does.
		if d, err := (Default{}).Schedule(context.Background(), c, top, Assignment{}); err != nil || describe(d) != describe(a) {
			t.Errorf("storm-default %s (%v), want storm-even's %s", describe(d), err, describe(a))
		}
		same := len(a.Unassigned) == 0
		for e, s := range a.Slots {
			same = same && fmt.Sprintf("%s:%d", host[s.Node], s.Port) == want[e]
		}
		if same {
			matched++
		}
		groupings = append(groupings, workerSets(a))
	}
	if matched != 1 {
		t.Errorf("%d of the two supervisor-id orders reproduce the recorded placement (%s), want exactly 1", matched, rec.Source)
	}
	if groupings[0] != groupings[1] {
		t.Errorf("the workers differ with the supervisor order: %s vs %s", groupings[0], groupings[1])
	}
}

// workerSets writes the tasks of each worker, workers sorted, so placements
// that differ only in which slot holds a worker compare equal.
func workerSets(a Assignment) string {
	var ws []string
	for _, es := range slotExecutors(a.Slots) {
		var ts []string
		slices.SortFunc(es, func(x, y Executor) int { return x.Start - y.Start })
		for _, e := range es {
			ts = append(ts, fmt.Sprint(e.Start))
		}
		ws = append(ws, strings.Join(ts, ","))
	}
	slices.Sort(ws)
	return strings.Join(ws, " | ")
}

// Storm's own reassignment tests. Source: apache/storm v2.8.4,
// storm-core/test/clj/org/apache/storm/nimbus_test.clj (LocalCluster runs
// DefaultScheduler): test-reassign-squeezed-topology and
// test-reassignment-to-constrained-cluster. The storm-even rows are what
// EvenScheduler.scheduleTopology gives on the same states (derived from its
// source, not from a Storm test).
func TestReassignment(t *testing.T) {
	ctx := context.Background()
	// test-reassign-squeezed-topology: 9 executors, 4 workers, one
	// supervisor with one port: [9]; a supervisor with 2 ports joins:
	// [3 3 3]; one with 8 ports joins: [2 2 2 3], the worker of 3 that
	// stays keeps its executors.
	top := spoutTopology(9, 4)
	c := nodes([][]int{{1}}, "s1")
	a, err := Default{}.Schedule(ctx, c, top, Assignment{})
	if err != nil || !slices.Equal(sizes(a), []int{9}) {
		t.Fatalf("one slot: sizes %v (%v), want [9]", sizes(a), err)
	}
	c = nodes([][]int{{1}, {1, 2}}, "s1", "s2")
	a, err = Default{}.Schedule(ctx, c, top, a)
	if err != nil || !slices.Equal(sizes(a), []int{3, 3, 3}) {
		t.Fatalf("three slots: sizes %v (%v), want [3 3 3]", sizes(a), err)
	}
	before := slotExecutors(a.Slots)
	c = nodes([][]int{{1}, {1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}}, "s1", "s2", "s3")
	b, err := Default{}.Schedule(ctx, c, top, a)
	if err != nil || !slices.Equal(sizes(b), []int{2, 2, 2, 3}) {
		t.Fatalf("eleven slots: sizes %v (%v), want [2 2 2 3]", sizes(b), err)
	}
	kept := 0
	for s, es := range slotExecutors(b.Slots) {
		if len(es) == 3 && sameExecutors(es, before[s]) {
			kept++
		}
	}
	if kept != 1 {
		t.Errorf("%d workers of 3 kept their executors, want 1: %s", kept, describe(b))
	}
	// Storm-even on the same step keeps all three workers of 3 (alive) and
	// has one more worker to fill, but no executor to give it.
	e, err := Even{}.Schedule(ctx, c, top, a)
	if err != nil || !slices.Equal(sizes(e), []int{3, 3, 3}) {
		t.Errorf("storm-even, eleven slots: sizes %v (%v), want [3 3 3]", sizes(e), err)
	}
}

func TestReassignmentToConstrainedCluster(t *testing.T) {
	ctx := context.Background()
	// test-reassignment-to-constrained-cluster: supervisors a and b with one
	// port each, 2 executors, 2 workers; b is killed: 1 worker.
	top := spoutTopology(2, 2)
	c := nodes([][]int{{1}, {1}}, "a", "b")
	a, err := Default{}.Schedule(ctx, c, top, Assignment{})
	if err != nil || !slices.Equal(sizes(a), []int{1, 1}) {
		t.Fatalf("first placement: sizes %v (%v), want [1 1]", sizes(a), err)
	}
	var onA Executor
	for e, s := range a.Slots {
		if s.Node == "a" {
			onA = e
		}
	}
	survivors := Assignment{Slots: map[Executor]schedulers.Slot{onA: slot("a", 1)}}
	killed := nodes([][]int{{1}}, "a")
	d, err := Default{}.Schedule(ctx, killed, top, survivors)
	if err != nil || !slices.Equal(sizes(d), []int{2}) || len(d.Unassigned) != 0 {
		t.Errorf("storm-default after the kill: %s (%v), want both executors on a:1", describe(d), err)
	}
	// EvenScheduler has no free slot: the dead executor stays unassigned.
	e, err := Even{}.Schedule(ctx, killed, top, survivors)
	if err != nil || len(e.Unassigned) != 1 || e.Slots[onA] != slot("a", 1) || e.Status == "" {
		t.Errorf("storm-even after the kill: %s, status %q (%v), want one executor unassigned", describe(e), e.Status, err)
	}
}

// EvenScheduler after a supervisor kill on a cluster with spare slots: the
// survivors stay, the dead executors go round-robin over the free slots in
// sortSlots order, as many as topology.workers minus the alive workers.
// Derived from EvenScheduler.scheduleTopology (storm-server 2.8).
func TestEvenAfterKill(t *testing.T) {
	top := spoutTopology(8, 4)
	full := nodes([][]int{{6700, 6701}, {6700, 6701}, {6700, 6701}}, "n1", "n2", "n3")
	a, err := Even{}.Schedule(context.Background(), full, top, Assignment{})
	if err != nil {
		t.Fatal(err)
	}
	// Fresh: sortSlots = n1:6700 n2:6700 n3:6700 n1:6701 ...; 4 workers.
	want := "n1:6700: 1 5; n1:6701: 4 8; n2:6700: 2 6; n3:6700: 3 7; "
	if got := describe(a); got != want {
		t.Fatalf("fresh placement %q, want %q", got, want)
	}
	// n1 dies: tasks 1, 4, 5, 8 are dead; 2 workers alive, 2 to add on the
	// free slots n2:6701 n3:6701 (sortSlots: one free slot each, by id).
	survivors := Assignment{Slots: map[Executor]schedulers.Slot{}}
	for e, s := range a.Slots {
		if s.Node != "n1" {
			survivors.Slots[e] = s
		}
	}
	after := nodes([][]int{{6700, 6701}, {6700, 6701}}, "n2", "n3")
	b, err := Even{}.Schedule(context.Background(), after, top, survivors)
	if err != nil {
		t.Fatal(err)
	}
	want = "n2:6700: 2 6; n2:6701: 1 5; n3:6700: 3 7; n3:6701: 4 8; "
	if got := describe(b); got != want {
		t.Errorf("after the kill %q, want %q", got, want)
	}
}

func sameExecutors(a, b []Executor) bool {
	if len(a) != len(b) {
		return false
	}
	for _, e := range a {
		if !slices.Contains(b, e) {
			return false
		}
	}
	return true
}
