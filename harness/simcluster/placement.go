package simcluster

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
	"github.com/stormlab/stormlab/schedulers/native"
	"github.com/stormlab/stormlab/topologies"
)

// slot is a worker slot: a node (index in the cluster's nodes) and a port.
type slot struct {
	node int
	port int
}

// basePort is a simulated supervisor's first slot, as Storm's supervisor.slots.ports starts.
const basePort = 6700

// snapshot is the round's view Nimbus would send the bridge: the cluster's supervisors with their
// free slots and the topology with its current placement.
func (r *simRun) snapshot() *protocol.Snapshot {
	used := map[slot]bool{}
	for _, a := range r.assign {
		used[slot{r.supervisorNode(a.Supervisor), a.Port}] = true
	}
	snap := &protocol.Snapshot{TimeMs: r.now().UnixMilli()}
	for i, n := range r.c.named.Nodes {
		sup := protocol.Supervisor{ID: r.c.named.supervisorID(n.Name), Host: n.Name, CPU: 100 * n.Cores, MemoryMB: r.c.named.memoryOf(n.Name)}
		for p := basePort; p < basePort+r.c.named.Slots; p++ {
			sup.Ports = append(sup.Ports, p)
			if !used[slot{i, p}] {
				sup.FreePorts = append(sup.FreePorts, p)
			}
		}
		snap.Supervisors = append(snap.Supervisors, sup)
	}
	t := protocol.Topology{ID: r.id, Name: r.spec.Topology.Name, NumWorkers: r.rt.workers, Assignment: slices.Clone(r.assign), NeedsScheduling: len(r.assign) == 0}
	for _, name := range r.names {
		for k := range r.rt.parOf(name) {
			task := r.first[name] + k
			t.Executors = append(t.Executors, protocol.ComponentExecutor{Executor: protocol.Executor{Start: task, End: task}, Component: name, MemoryMB: r.memoryMB(name)})
		}
	}
	for _, s := range r.rt.streams {
		t.Streams = append(t.Streams, protocol.Stream{From: s.From, To: s.To, Grouping: string(s.Grouping)})
	}
	snap.Topologies = []protocol.Topology{t}
	return snap
}

// declaredMemory is each component's memory as the bridge sends it (Storm's
// TopologyDetails.getTotalMemReqTask): on- plus off-heap, Storm's defaults where res (the
// topology's declared resources, nil: none declared) leaves them at zero.
func declaredMemory(res map[string]native.Resources) func(string) float64 {
	return func(component string) float64 {
		x := res[component]
		if x.OnHeapMB == 0 {
			x.OnHeapMB = native.DefaultOnHeapMB
		}
		return x.OnHeapMB + x.OffHeapMB
	}
}

// nodeIndex is the index of the node named name (its host).
func (r *simRun) nodeIndex(name string) int {
	return slices.IndexFunc(r.c.named.Nodes, func(n sim.Node) bool { return n.Name == name })
}

// supervisorNode is the index of the node whose supervisor id is id.
func (r *simRun) supervisorNode(id string) int {
	return slices.IndexFunc(r.c.named.Nodes, func(n sim.Node) bool { return r.c.named.supervisorID(n.Name) == id })
}

// placed reads the decision for the run's topology: its slots (in the decision's order), each
// model executor's slot index, and the assignment as Nimbus would record it. ok is false when the
// decision leaves the topology as it is.
func (r *simRun) placed(dec *protocol.Decision) (slots []slot, execSlot []int, assign []protocol.ExecutorSlot, ok bool, err error) {
	for _, e := range dec.Errors {
		if e.ID == r.id {
			return nil, nil, nil, false, fmt.Errorf("scheduler %s could not place the topology: %s", r.spec.Scheduler, e.Error)
		}
	}
	i := slices.IndexFunc(dec.Topologies, func(t protocol.TopologyDecision) bool { return t.ID == r.id })
	if i < 0 {
		return nil, nil, nil, false, nil
	}
	taskSlot := map[int]int{}
	for w, wa := range dec.Topologies[i].Workers {
		n := r.supervisorNode(wa.Supervisor)
		if n < 0 {
			return nil, nil, nil, false, fmt.Errorf("scheduler %s placed a worker on supervisor %q, which the cluster does not have", r.spec.Scheduler, wa.Supervisor)
		}
		slots = append(slots, slot{n, wa.Port})
		for _, e := range wa.Executors {
			for t := e.Start; t <= e.End; t++ {
				taskSlot[t] = w
				assign = append(assign, protocol.ExecutorSlot{Executor: protocol.Executor{Start: t, End: t}, Supervisor: wa.Supervisor, Port: wa.Port})
			}
		}
	}
	for _, task := range r.modelTasks {
		w, ok := taskSlot[task]
		if !ok {
			return nil, nil, nil, false, fmt.Errorf("scheduler %s left task %d unassigned", r.spec.Scheduler, task)
		}
		execSlot = append(execSlot, w)
	}
	slices.SortFunc(assign, func(a, b protocol.ExecutorSlot) int { return cmp.Compare(a.Executor.Start, b.Executor.Start) })
	return slots, execSlot, assign, true, nil
}

// ackerWorkers is the worker (an index of the decision's slots, placed's) of each of the topology's
// acker executors, in task order, as dec places them; nil unless it places every one of them (the
// model then runs one acker on each worker).
func (r *simRun) ackerWorkers(dec *protocol.Decision) []int {
	i := slices.IndexFunc(dec.Topologies, func(t protocol.TopologyDecision) bool { return t.ID == r.id })
	n := r.rt.parOf(topologies.AckerComponent)
	if i < 0 || n == 0 || !r.rt.ackers {
		return nil
	}
	first := r.first[topologies.AckerComponent]
	out := make([]int, n)
	for k := range out {
		out[k] = -1
	}
	for w, wa := range dec.Topologies[i].Workers {
		for _, e := range wa.Executors {
			for t := max(e.Start, first); t <= min(e.End, first+n-1); t++ {
				out[t-first] = w
			}
		}
	}
	if slices.Contains(out, -1) {
		return nil
	}
	return out
}

// isAcker: Storm's acker executors, which the model runs where the scheduler put them (ackerWorkers).
func isAcker(component string) bool { return component == topologies.AckerComponent }
