package schedulers

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

// twoTriangles: triangle A = {0,1,2} (vertex weights 10,10,11; edges 50)
// and triangle B = {3,4,5} (weights 10,10,9; edges 50), joined by the light
// edge 2-3 (weight 1). Total vertex weight 60, total edge weight 301.
func twoTriangles() *topologies.Graph {
	g := &topologies.Graph{}
	for i, w := range []float64{10, 10, 11, 10, 10, 9} {
		g.Vertices = append(g.Vertices, topologies.Vertex{ID: i, Weight: w})
	}
	for _, e := range [][3]float64{{0, 1, 50}, {1, 2, 50}, {0, 2, 50}, {3, 4, 50}, {4, 5, 50}, {3, 5, 50}, {2, 3, 1}} {
		g.Edges = append(g.Edges, topologies.Edge{From: int(e[0]), To: int(e[1]), Weight: e[2]})
	}
	return g
}

// TestKPartTwoTriangles checks the growth phase by hand, k = 2, w_e = 30.
//
// Start in A (e.g. at 0, w=10 <= 30): S = {1,2}, gain(1) = 50-50 = 0,
// gain(2) = 50-(50+1) = -1 -> take 1 (w=20 <= 30); gain(2) = 100-1 = 99 ->
// take 2 (w=31 > 30): stop. Start at 2 (w=11): gain(0) = gain(1) = 0,
// gain(3) = 1-100 = -99 -> 0 (tie, smaller index), then 1 (w=31). Either way
// V_1 = A, V_2 = B: cut = the light edge, cut rate 1/301.
//
// Start in B (e.g. at 3, w=10): gain(4) = gain(5) = 0, gain(2) = 1-100 =
// -99 -> 4 (w=20), then 5 (gain 100, w=29 <= 30 so go on), then the only
// candidate left, 2 (gain 1-100 = -99, w=40 > 30): V_1 = {2,3,4,5},
// V_2 = {0,1}, cut = 0-2 + 1-2 = 100, cut rate 100/301. Starting at 4 or 5
// ends the same way (4,5 in either order, then 3, w=29, then 2).
func TestKPartTwoTriangles(t *testing.T) {
	g := twoTriangles()
	outA := []int{0, 0, 0, 1, 1, 1}
	outB := []int{1, 1, 0, 0, 0, 0}
	seen := map[string]bool{}
	for seed := uint64(0); seed < 40; seed++ {
		parts, err := (&KPart{Seed: seed}).Partition(context.Background(), g, 2)
		if err != nil {
			t.Fatal(err)
		}
		m := Measure(g, parts, 2)
		switch {
		case reflect.DeepEqual(parts, outA):
			seen["A"] = true
			if math.Abs(m.CutRate-1.0/301) > 1e-12 {
				t.Errorf("seed %d: cut rate %v, want 1/301", seed, m.CutRate)
			}
		case reflect.DeepEqual(parts, outB):
			seen["B"] = true
			if math.Abs(m.CutRate-100.0/301) > 1e-12 {
				t.Errorf("seed %d: cut rate %v, want 100/301", seed, m.CutRate)
			}
		default:
			t.Fatalf("seed %d: partition %v is neither hand-computed outcome", seed, parts)
		}
	}
	if !seen["A"] || !seen["B"] {
		t.Errorf("40 seeds never started in both triangles: %v", seen)
	}
}

// TestKPartBalanceStep checks single balance iterations by hand on
// outcome B above: V_1 = {2,3,4,5} (w=40), V_2 = {0,1} (w=20).
// Iteration 1: V_max = V_1, V_min = V_2; gains toward V_2: vertex 2:
// 100-1 = 99, 3: 0-(50+50+1) = -101, 4 and 5: -100 -> move 2: V_1 = B (29),
// V_2 = A (31), cut 1. Iteration 2: V_min = V_1 (29), V_max = V_2 (31);
// gains toward V_1: 2: 1-100 = -99, 0 and 1: -100 -> 2 moves back
// (the paper moves unconditionally, so a balanced state can oscillate).
func TestKPartBalanceStep(t *testing.T) {
	g := twoTriangles()
	adj := g.Undirected()
	for iters, want := range [][]int{{1, 1, 0, 0, 0, 0}, {1, 1, 1, 0, 0, 0}, {1, 1, 0, 0, 0, 0}} {
		part := []int{1, 1, 0, 0, 0, 0}
		b := newKpartBalancer(adj, kpartWeights(g), part, 2)
		if err := b.run(context.Background(), iters); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(part, want) {
			t.Errorf("%d iterations: %v, want %v", iters, part, want)
		}
	}
}

// TestKPartSingletons: k = n; no subset can give a vertex once all are
// singletons, so the adjustment stops and every part holds one vertex
// (the paper: "each subset holds only one element, cut = total").
func TestKPartSingletons(t *testing.T) {
	g, _ := topologies.RandomGraph(12, 20, 4)
	parts, err := (&KPart{Seed: 9, Mul: 5}).Partition(context.Background(), g, 12)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range parts {
		seen[p] = true
	}
	if len(seen) != 12 {
		t.Errorf("k=n with Mul=5: %d non-empty parts, want 12: %v", len(seen), parts)
	}
	if m := Measure(g, parts, 12); m.CutRate != 1 {
		t.Errorf("cut rate %v, want 1", m.CutRate)
	}
}

// TestKPartBalanceHelps: the paper's Fig. 5 trend as a check, not a number:
// over 20 random G(24,36), k=3, the mean std dev with Mul=5 is below Mul=0.
func TestKPartBalanceHelps(t *testing.T) {
	var s0, s5 float64
	for i := 0; i < 20; i++ {
		g, _ := topologies.RandomGraph(24, 36, uint64(100+i))
		for _, c := range []struct {
			mul int
			acc *float64
		}{{0, &s0}, {5, &s5}} {
			parts, err := (&KPart{Seed: uint64(i), Mul: c.mul}).Partition(context.Background(), g, 3)
			if err != nil {
				t.Fatal(err)
			}
			*c.acc += Measure(g, parts, 3).Std
		}
	}
	if s5 >= s0 {
		t.Errorf("mean std Mul=5 %.1f not below Mul=0 %.1f", s5/20, s0/20)
	}
	t.Logf("mean std: Mul=0 %.1f, Mul=5 %.1f", s0/20, s5/20)
}

// TestKPartBalancerMatchesScan compares the heap-based choice with a plain
// scan of V_max on random graphs, move by move.
func TestKPartBalancerMatchesScan(t *testing.T) {
	for gi := 0; gi < 20; gi++ {
		g, _ := topologies.RandomGraph(40, 70, uint64(gi))
		adj := g.Undirected()
		w := kpartWeights(g)
		k := 2 + gi%5
		part, err := kpartGrow(context.Background(), adj, w, k, 0, uint64(gi))
		if err != nil {
			t.Fatal(err)
		}
		b := newKpartBalancer(adj, w, part, k)
		b.limit = 50 // force rebuilds too
		for it := 0; it < 200; it++ {
			mn := 0
			for p := 1; p < k; p++ {
				if b.pw[p] < b.pw[mn] {
					mn = p
				}
			}
			mx := -1
			for p := 0; p < k; p++ {
				if p != mn && b.cnt[p] >= 2 && (mx < 0 || b.pw[p] > b.pw[mx]) {
					mx = p
				}
			}
			if mx < 0 {
				break
			}
			// gain of moving v from mx to mn under the labelling lab
			gain := func(lab []int, v int) float64 {
				g := 0.0
				nbr, ws := adj.Neighbors(v)
				for j, x := range nbr {
					switch lab[x] {
					case mn:
						g += ws[j]
					case mx:
						g -= ws[j]
					}
				}
				return g
			}
			bestGain := math.Inf(-1)
			for v := range part {
				if part[v] == mx {
					bestGain = max(bestGain, gain(part, v))
				}
			}
			before := append([]int(nil), part...)
			if err := b.run(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			moved := -1
			for v := range part {
				if part[v] != before[v] {
					moved = v
				}
			}
			if moved < 0 {
				t.Fatalf("graph %d move %d: nothing moved; scan: %d -> %d", gi, it, mx, mn)
			}
			if g := gain(before, moved); before[moved] != mx || part[moved] != mn || g != bestGain {
				t.Fatalf("graph %d move %d: moved %d from %d to %d with gain %v; scan: %d -> %d, best gain %v", gi, it, moved, before[moved], part[moved], g, mx, mn, bestGain)
			}
		}
	}
}

func TestNewKPartBadOptions(t *testing.T) {
	for _, o := range []Options{{Mul: -1}, {Alpha: -1}, {Alpha: math.NaN()}} {
		if _, err := NewKPart(o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	// Mul·|V| must fit an int, or the adjustment would silently not run.
	g, _ := topologies.RandomGraph(4, 3, 1)
	if _, err := (&KPart{Mul: math.MaxInt / 2}).Partition(context.Background(), g, 2); err == nil {
		t.Error("mul overflowing Mul·|V| accepted")
	}
}

// TestKPartTraceChangesNothing: the trace hook hears move 0 and every move
// of the balance adjustment (Mul x |V|), and the partition is the same with
// and without it.
func TestKPartTraceChangesNothing(t *testing.T) {
	g, err := topologies.RandomGraph(24, 36, 1)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := (&KPart{Seed: 7, Mul: 3}).Partition(context.Background(), g, 3)
	if err != nil {
		t.Fatal(err)
	}
	moves := 0
	traced, err := (&KPart{Seed: 7, Mul: 3, Trace: func(move int, part []int, w []float64) {
		if move != moves || len(part) != 24 || len(w) != 3 {
			t.Fatalf("trace call %d: move %d, %d vertices, %d weights", moves, move, len(part), len(w))
		}
		moves++
	}}).Partition(context.Background(), g, 3)
	if err != nil {
		t.Fatal(err)
	}
	if moves != 3*24+1 {
		t.Errorf("trace heard %d calls, want 73 (move 0 and 72 moves)", moves)
	}
	for v := range plain {
		if plain[v] != traced[v] {
			t.Fatalf("vertex %d: part %d without the trace, %d with it", v, plain[v], traced[v])
		}
	}
}
