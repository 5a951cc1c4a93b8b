package schedulers

import (
	"context"
	"reflect"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

// TestOnlineTwoTriangles follows the pair loop by hand (k = 2, capacity 3).
// Pairs by traffic (stable): 0-1, 1-2, 0-2, 3-4, 4-5, 3-5 (50 each), 2-3 (1).
//   - 0-1: both free -> least-loaded slot for two: slot 0 = {0,1}.
//   - 1-2: candidates {0 (holds 1), 1 (least loaded)}; lift 1; costs
//     (1,2)->(0,0) = 0 (0 is with both) is the first minimum: slot 0 = {0,1,2}.
//   - 0-2: both in 0; slot 0 keeps them (cost 0).
//   - 3-4: both free, slot 0 full -> slot 1 = {3,4}; 4-5 -> slot 1 = {3,4,5}.
//   - 2-3: candidates {0,1}, no slot has room for a third; lift 2 and 3;
//     (0,1) costs only the edge 2-3 = 1, (0,0) = 100, (1,1) = 100, (1,0)
//     = 201 -> unchanged. Result: the cut is the light edge.
func TestOnlineTwoTriangles(t *testing.T) {
	g := twoTriangles()
	parts, err := Online{}.Partition(context.Background(), g, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 0, 0, 1, 1, 1}; !reflect.DeepEqual(parts, want) {
		t.Errorf("parts %v, want %v", parts, want)
	}
}

// TestOnlinePath: path 0-1 (10), 1-2 (5), k = 3, capacity 1.
//   - 0-1: no slot takes two -> 0 to slot 0; slot 0 full -> 1 to slot 1.
//   - 1-2: candidates {1 (holds 1), 2 (least loaded with room)}; lift 1;
//     (1,1) and (2,2) do not fit; (1,2): 1's traffic to 0 (10) + edge 1-2
//     (5) = 15; (2,1) = 15 too; first found is (1,2).
func TestOnlinePath(t *testing.T) {
	g := &topologies.Graph{
		Vertices: []topologies.Vertex{{ID: 0, Weight: 5}, {ID: 1, Weight: 5}, {ID: 2, Weight: 5}},
		Edges:    []topologies.Edge{{From: 0, To: 1, Weight: 10}, {From: 1, To: 2, Weight: 5}},
	}
	parts, err := Online{}.Partition(context.Background(), g, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 2}; !reflect.DeepEqual(parts, want) {
		t.Errorf("parts %v, want %v", parts, want)
	}
}

// TestOnlineCapacityAndNoEmptySlots: over random graphs, no slot exceeds
// ceil(n/k) executors, and no slot is empty (the fill step).
func TestOnlineCapacityAndNoEmptySlots(t *testing.T) {
	for gi := 0; gi < 40; gi++ {
		n := 2 + gi
		g, _ := topologies.RandomGraph(n, min(n*(n-1)/2, 2*n), uint64(gi))
		for _, k := range []int{2, 3, n / 2, n} {
			if k < 1 || k > n {
				continue
			}
			parts, err := Online{}.Partition(context.Background(), g, k)
			if err != nil {
				t.Fatal(err)
			}
			cnt := make([]int, k)
			for _, p := range parts {
				cnt[p]++
			}
			for p, c := range cnt {
				if c == 0 || c > (n+k-1)/k {
					t.Fatalf("G(%d) k=%d: slot %d holds %d executors (capacity %d): %v", n, k, p, c, (n+k-1)/k, parts)
				}
			}
		}
	}
}
