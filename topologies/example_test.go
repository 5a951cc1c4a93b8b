package topologies_test

import (
	"fmt"

	"github.com/stormlab/stormlab/topologies"
)

// RandomGraph is the K-PART paper's G(n, m) with weights 1..100, seeded: the
// same n, m and seed give the same graph on every machine, so experiment
// inputs can be regenerated instead of stored. This output pins the
// generator: if it changes, every published partition figure changes too.
func ExampleRandomGraph() {
	g, err := topologies.RandomGraph(3, 2, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range g.Vertices {
		fmt.Printf("vertex %d weight %v\n", v.ID, v.Weight)
	}
	for _, e := range g.Edges {
		fmt.Printf("edge %d->%d weight %v\n", e.From, e.To, e.Weight)
	}
	// Output:
	// vertex 0 weight 26
	// vertex 1 weight 29
	// vertex 2 weight 77
	// edge 0->2 weight 76
	// edge 1->0 weight 100
}
