package native_test

import (
	"context"
	"fmt"

	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/schedulers/native"
)

// A topology of 4 executors in 2 workers on two supervisors; one supervisor
// dies, and EvenScheduler keeps the survivors and moves the dead executors
// to the free slot of the other.
func Example() {
	ctx := context.Background()
	even, err := native.Lookup("storm-even")
	if err != nil {
		panic(err)
	}
	top := native.Topology{ID: "t", Workers: 2, Inputs: map[string][]string{"spout": nil, "bolt": {"spout"}}}
	for task, comp := range []string{"bolt", "bolt", "spout", "spout"} {
		top.Executors = append(top.Executors, native.Executor{Component: comp, Start: task + 1, End: task + 1})
	}
	cluster := schedulers.Cluster{Nodes: []schedulers.Node{
		{ID: "a", Ports: []int{6700, 6701}},
		{ID: "b", Ports: []int{6700, 6701}},
	}}
	first, err := even.Schedule(ctx, cluster, top, native.Assignment{})
	if err != nil {
		panic(err)
	}
	survivors := native.Assignment{Slots: map[native.Executor]schedulers.Slot{}}
	for e, s := range first.Slots {
		if s.Node == "a" {
			survivors.Slots[e] = s
		}
	}
	afterKill := schedulers.Cluster{Nodes: cluster.Nodes[:1]}
	next, err := even.Schedule(ctx, afterKill, top, survivors)
	if err != nil {
		panic(err)
	}
	for _, e := range top.Executors {
		fmt.Println(e, first.Slots[e], "->", next.Slots[e])
	}
	// Output:
	// bolt[1 1] a:6700 -> a:6700
	// bolt[2 2] b:6700 -> a:6701
	// spout[3 3] a:6700 -> a:6700
	// spout[4 4] b:6700 -> a:6701
}
