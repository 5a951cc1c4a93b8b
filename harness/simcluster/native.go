package simcluster

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/schedulers/native"
)

// nativeScheduler decides as Storm's own scheduler name would, through its Go model
// (schedulers/native), on the snapshot Nimbus would give it. hosts, when given (the topology's
// stormlab.nodes), are the supervisors EvenScheduler and DefaultScheduler may use, as the bridge's
// view gives them; RAS ignores it, as under the bridge.
func nativeScheduler(name string, hosts []string, res map[string]native.Resources) (func(context.Context, *protocol.Snapshot) (*protocol.Decision, error), error) {
	s, err := native.Lookup(name)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, snap *protocol.Snapshot) (*protocol.Decision, error) {
		dec := &protocol.Decision{Scheduler: name}
		if len(hosts) > 0 && name != "storm-ras" {
			snap = onHosts(snap, hosts)
		}
		for _, t := range snap.Topologies {
			td, err := nativeDecide(ctx, s, snap, t, res)
			if err != nil {
				dec.Errors = append(dec.Errors, protocol.TopologyError{ID: t.ID, Error: err.Error()})
				continue
			}
			dec.Topologies = append(dec.Topologies, td)
		}
		return dec, nil
	}, nil
}

// nativeDecide is one topology's placement by s, as the bridge's answer would carry it.
func nativeDecide(ctx context.Context, s native.Scheduler, snap *protocol.Snapshot, t protocol.Topology, res map[string]native.Resources) (protocol.TopologyDecision, error) {
	var c schedulers.Cluster
	for _, sup := range snap.Supervisors {
		c.Nodes = append(c.Nodes, schedulers.Node{ID: sup.ID, Host: sup.Host, CPU: sup.CPU, MemoryMB: sup.MemoryMB, Ports: sup.Ports})
	}
	nt := native.Topology{ID: t.ID, Workers: t.NumWorkers, Inputs: map[string][]string{}, Resources: res}
	comp := map[int]string{}
	for _, e := range t.Executors {
		nt.Executors = append(nt.Executors, native.Executor{Component: e.Component, Start: e.Executor.Start, End: e.Executor.End})
		comp[e.Executor.Start] = e.Component
		if !isAcker(e.Component) {
			nt.Inputs[e.Component] = nt.Inputs[e.Component][:0:0] // a spout is a component without inputs
		}
	}
	for _, st := range t.Streams {
		nt.Inputs[st.To] = append(nt.Inputs[st.To], st.From)
	}
	cur := native.Assignment{Slots: map[native.Executor]schedulers.Slot{}}
	for _, a := range t.Assignment {
		e := native.Executor{Component: comp[a.Executor.Start], Start: a.Executor.Start, End: a.Executor.End}
		cur.Slots[e] = schedulers.Slot{Node: a.Supervisor, Port: a.Port}
	}
	a, err := s.Schedule(ctx, c, nt, cur)
	if err != nil {
		return protocol.TopologyDecision{}, err
	}
	bySlot := map[schedulers.Slot][]protocol.Executor{}
	for e, sl := range a.Slots {
		bySlot[sl] = append(bySlot[sl], protocol.Executor{Start: e.Start, End: e.End})
	}
	td := protocol.TopologyDecision{ID: t.ID}
	for _, sl := range slices.SortedFunc(maps.Keys(bySlot), func(x, y schedulers.Slot) int {
		if x.Node != y.Node {
			return strings.Compare(x.Node, y.Node)
		}
		return x.Port - y.Port
	}) {
		ex := bySlot[sl]
		slices.SortFunc(ex, func(x, y protocol.Executor) int { return x.Start - y.Start })
		td.Workers = append(td.Workers, protocol.WorkerAssignment{Supervisor: sl.Node, Port: sl.Port, Executors: ex})
	}
	return td, nil
}

// onHosts is snap with only the supervisors on hosts.
func onHosts(snap *protocol.Snapshot, hosts []string) *protocol.Snapshot {
	view := *snap
	view.Supervisors = nil
	for _, sup := range snap.Supervisors {
		if slices.Contains(hosts, sup.Host) {
			view.Supervisors = append(view.Supervisors, sup)
		}
	}
	return &view
}
