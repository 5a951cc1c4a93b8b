package schedulers_test

import (
	"context"
	"fmt"

	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// Measure on a 4-vertex graph, checked by hand: parts {0,2} (weight 40) and
// {1,3} (60) against the expected 50 give std 10, max_dev 10/50 = 0.2 and
// max_over 60/50 = 1.2; the cut edges 0-1, 1-2 and 2-3 weigh 20 of 40, so
// the cut rate is 0.5.
func ExampleMeasure() {
	g := &topologies.Graph{
		Vertices: []topologies.Vertex{{ID: 0, Weight: 10}, {ID: 1, Weight: 20}, {ID: 2, Weight: 30}, {ID: 3, Weight: 40}},
		Edges: []topologies.Edge{
			{From: 0, To: 1, Weight: 5}, {From: 1, To: 2, Weight: 5},
			{From: 2, To: 3, Weight: 10}, {From: 0, To: 2, Weight: 20},
		},
	}
	m := schedulers.Measure(g, []int{0, 1, 0, 1}, 2)
	fmt.Printf("cut rate %.2f, std %.1f, max dev %.2f, max over %.2f\n", m.CutRate, m.Std, m.MaxDev, m.MaxOver)
	// Output: cut rate 0.50, std 10.0, max dev 0.20, max over 1.20
}

// K-PART on two heavy triangles joined by one light edge, k = 2 (the hand
// trace is in TestKPartTwoTriangles): growth from a vertex of triangle A
// takes the whole triangle, so only the light edge is cut: 1/301. Seed 1
// starts in A; a seed starting in B ends with V_1 = {2,3,4,5}.
func ExampleKPart_Partition() {
	g := &topologies.Graph{}
	for i, w := range []float64{10, 10, 11, 10, 10, 9} {
		g.Vertices = append(g.Vertices, topologies.Vertex{ID: i, Weight: w})
	}
	for _, e := range [][3]float64{{0, 1, 50}, {1, 2, 50}, {0, 2, 50}, {3, 4, 50}, {4, 5, 50}, {3, 5, 50}, {2, 3, 1}} {
		g.Edges = append(g.Edges, topologies.Edge{From: int(e[0]), To: int(e[1]), Weight: e[2]})
	}
	s, err := schedulers.New("kpart", schedulers.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	parts, err := s.(schedulers.Partitioner).Partition(context.Background(), g, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(parts, schedulers.Measure(g, parts, 2).CutRate == 1.0/301)
	// Output: [0 0 0 1 1 1] true
}
