package native

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/schedulers"
)

// RAS is Storm's ResourceAwareScheduler with DefaultResourceAwareStrategy
// (storm-server 2.8, org.apache.storm.scheduler.resource): the topology
// alone on the cluster, so no priorities and no eviction
// (ResourceAwareScheduler.scheduleTopology). Executors that are alive keep
// their slots and those slots take no more; the unassigned ones are ordered
// by ExecSorterByConnectionCount with the ackers last
// (BaseResourceAwareStrategy.isolateAckersToEnd), and placed by
// BaseResourceAwareStrategy.scheduleExecutorsOnNodes: nodes sorted by
// NodeSorterHostProximity (one rack; hosts, then nodes of a host, by
// executors of the topology already there, then average and minimum share
// of the available CPU and memory, then id), each executor on the first
// originally free slot where it fits (RasNode.wouldFit: CPU and memory left
// on the node, on-heap memory of the worker under
// topology.worker.max.heap.size.mb), bound ackers with the first executor of
// each worker (SchedulingSearcherState.getNumOfAckersToBind), backtracking
// when an executor fits nowhere, at most MaxStateSearch states. It keeps
// Storm's quirks: nodes are re-sorted only when an executor's component is
// the same as the one before it (isExecCompDifferentFromPrior returns the
// opposite of its name), and topology.workers is ignored. If the search
// fails the assignment stays as it was, with Storm's status.
//
// Left out: generic resources, shared memory, storm.worker.min.cpu.pcore.percent
// (taken as 0, its default), racks (one rack, as without a
// topology.network.topography plugin), favoured and unfavoured nodes,
// blacklisting, the scheduling time limit, the one-executor- and
// one-component-per-worker options, and the order by proximity
// (topology.ras.order.executors.by.proximity.needs). Nodes of one host are
// sorted when the host is, not when the iterator first reaches them.
// Zero node capacities mean supervisor.cpu.capacity 400 and
// supervisor.memory.capacity.mb 4096, Storm's defaults.
type RAS struct{}

// Name implements Scheduler.
func (RAS) Name() string { return "storm-ras" }

// Schedule implements Scheduler.
func (RAS) Schedule(ctx context.Context, c schedulers.Cluster, t Topology, current Assignment) (Assignment, error) {
	if err := ctx.Err(); err != nil {
		return Assignment{}, err
	}
	if err := check(c, t, current); err != nil {
		return Assignment{}, fmt.Errorf("storm-ras: %w", err)
	}
	s := newSearch(c, newRASTopology(t), current.Slots)
	if len(s.unassigned) == 0 {
		return finish(t, Assignment{Slots: cloneSlots(current.Slots), Status: "Fully Scheduled"}), nil
	}
	if msg := s.feasible(); msg != "" {
		return finish(t, Assignment{Slots: cloneSlots(current.Slots), Status: msg}), nil
	}
	ok, err := s.run(ctx)
	if err != nil {
		return Assignment{}, fmt.Errorf("storm-ras: %w", err)
	}
	if !ok {
		msg := fmt.Sprintf("Not enough resources to schedule after evicting lower priority topologies. Cannot schedule by DefaultResourceAwareStrategy (%d states traversed, backtracked %d times, %d of %d executors scheduled)",
			s.states, s.backtracks, s.index, len(s.execs))
		return finish(t, Assignment{Slots: cloneSlots(current.Slots), Status: msg}), nil
	}
	return finish(t, Assignment{Slots: s.slots, Status: fmt.Sprintf("Running - Fully Scheduled by DefaultResourceAwareStrategy (%d states traversed, backtracked %d times)", s.states, s.backtracks)}), nil
}

// rasNode is a RasNode: a supervisor, its capacity and its originally free
// slots in the order of its Java HashSet.
type rasNode struct {
	id, host string
	cpu, mem float64
	free     []schedulers.Slot
}

// search is the state of scheduleExecutorsOnNodes and SchedulingSearcherState.
type search struct {
	t          *rasTopology
	nodes      []*rasNode
	byID       map[string]*rasNode
	slots      map[Executor]schedulers.Slot
	unassigned []Executor
	execs      []Executor
	ackers     []Executor // unassigned ackers, a deque
	bound      map[Executor]bool
	boundAt    map[schedulers.Slot][]Executor
	withBound  map[Executor]bool
	index      int
	states     int
	backtracks int
	// used, count and heap are kept with slots: resources taken per node,
	// the topology's executors per node, on-heap memory per worker.
	used  map[string]Resources
	count map[string]int
	heap  map[schedulers.Slot]float64
}

func newSearch(c schedulers.Cluster, t *rasTopology, current map[Executor]schedulers.Slot) *search {
	s := &search{t: t, byID: map[string]*rasNode{}, slots: map[Executor]schedulers.Slot{},
		bound: map[Executor]bool{}, boundAt: map[schedulers.Slot][]Executor{}, withBound: map[Executor]bool{},
		used: map[string]Resources{}, count: map[string]int{}, heap: map[schedulers.Slot]float64{}}
	used := map[schedulers.Slot]bool{}
	for e, sl := range current {
		used[sl] = true
		s.put(e, sl)
	}
	for _, n := range c.Nodes {
		rn := &rasNode{id: n.ID, host: n.Host, cpu: orDefault(n.CPU, DefaultSupervisorCPU), mem: orDefault(n.MemoryMB, DefaultSupervisorMemMB)}
		if rn.host == "" {
			rn.host = n.ID
		}
		var free []schedulers.Slot
		for _, p := range slices.Sorted(slices.Values(n.Ports)) {
			if sl := (schedulers.Slot{Node: n.ID, Port: p}); !used[sl] {
				free = append(free, sl)
			}
		}
		rn.free = javaOrder(free, slotHash, capGrown(len(free)))
		s.nodes = append(s.nodes, rn)
		s.byID[n.ID] = rn
	}
	for _, e := range t.Executors {
		if _, ok := current[e]; !ok {
			s.unassigned = append(s.unassigned, e)
		}
	}
	return s
}

// feasible is BaseResourceAwareStrategy.checkSchedulingFeasibility and
// the resource check of ResourceAwareScheduler.scheduleTopology: a status
// when the search cannot start, else "".
func (s *search) feasible() string {
	var needCPU, needMem, freeCPU, freeMem float64
	for _, e := range s.unassigned {
		r := s.t.request(e)
		needCPU += r.CPU
		needMem += r.OnHeapMB + r.OffHeapMB
	}
	for _, n := range s.nodes {
		c, m := s.available(n)
		freeCPU += c
		freeMem += m
	}
	if needCPU > freeCPU || needMem > freeMem {
		return fmt.Sprintf("Not enough resources to schedule after evicting lower priority topologies. Required CPU %g%% and memory %g MB, available %g%% and %g MB", needCPU, needMem, freeCPU, freeMem)
	}
	if len(s.nodes) == 0 {
		return "No available nodes to schedule tasks on!"
	}
	spout := false
	for _, in := range s.t.Inputs {
		spout = spout || len(in) == 0
	}
	if !spout {
		return "Cannot find a Spout!"
	}
	if len(s.unassigned) >= s.t.maxSt {
		return fmt.Sprintf("Unassignerd Executor count (%d) is greater than searchable state count %d", len(s.unassigned), s.t.maxSt)
	}
	return ""
}

// available is a node's CPU and memory left (RasNode.getTotalAvailableResources).
func (s *search) available(n *rasNode) (cpu, mem float64) {
	u := s.used[n.id]
	return max(n.cpu-u.CPU, 0), max(n.mem-u.OnHeapMB-u.OffHeapMB, 0)
}

// put assigns e to sl and drop takes it off, keeping the sums.
func (s *search) put(e Executor, sl schedulers.Slot) {
	r := s.t.request(e)
	s.slots[e] = sl
	u := s.used[sl.Node]
	u.CPU += r.CPU
	u.OnHeapMB += r.OnHeapMB
	u.OffHeapMB += r.OffHeapMB
	s.used[sl.Node] = u
	s.count[sl.Node]++
	s.heap[sl] += r.OnHeapMB
}

func (s *search) drop(e Executor) {
	sl, ok := s.slots[e]
	if !ok {
		return
	}
	r := s.t.request(e)
	delete(s.slots, e)
	u := s.used[sl.Node]
	u.CPU -= r.CPU
	u.OnHeapMB -= r.OnHeapMB
	u.OffHeapMB -= r.OffHeapMB
	s.used[sl.Node] = u
	s.count[sl.Node]--
	s.heap[sl] -= r.OnHeapMB
}

// couldEverFit is RasNode.couldEverFit.
func (s *search) couldEverFit(n *rasNode, e Executor) bool {
	cpu, mem := s.available(n)
	r := s.t.request(e)
	return r.CPU <= cpu && r.OnHeapMB+r.OffHeapMB <= mem
}

// wouldFit is RasNode.wouldFit with Cluster.wouldFit.
func (s *search) wouldFit(sl schedulers.Slot, e Executor) bool {
	n := s.byID[sl.Node]
	if !s.couldEverFit(n, e) {
		return false
	}
	return s.heap[sl]+s.t.request(e).OnHeapMB <= s.t.maxHeap
}

// run is scheduleExecutorsOnNodes; it reports whether every executor got a slot.
func (s *search) run(ctx context.Context) (bool, error) {
	s.execs, s.ackers = s.t.orderExecutors(s.unassigned)
	n := len(s.execs)
	progress := make([]int, n)
	for i := range progress {
		progress[i] = -1
	}
	at := make([]schedulers.Slot, n)
	var sorted []*rasNode
	pidx := -1
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if s.states > s.t.maxSt {
			return false, nil
		}
		i, e := s.index, s.execs[s.index]
		if s.bound[e] {
			if i == n-1 {
				return true, nil
			}
			s.index++
			continue
		}
		if sorted == nil || i == 0 || s.execs[i-1].Component == e.Component {
			pidx = -1
			sorted = s.sortNodes()
		}
		if sl, ok := s.tryPlace(e, i, sorted, progress, &pidx); ok {
			if i == n-1 {
				return true, nil
			}
			at[i] = sl
			s.index++
			continue
		}
		sorted = nil
		if i == 0 {
			return false, nil
		}
		s.backtrack(at)
		progress[i] = -1
	}
}

// tryPlace is one pass of scheduleExecutorsOnNodes' node and slot loops for
// executor e at index i: it skips the slots tried before and assigns e (with
// its bound ackers) to the first that fits.
func (s *search) tryPlace(e Executor, i int, sorted []*rasNode, progress []int, pidx *int) (schedulers.Slot, bool) {
	for _, n := range sorted {
		if !s.couldEverFit(n, e) {
			continue
		}
		for _, sl := range n.free {
			*pidx++
			if *pidx <= progress[i] {
				continue
			}
			progress[i]++
			if !s.wouldFit(sl, e) {
				continue
			}
			s.states++
			s.put(e, sl)
			if s.bindAckers(e, sl) > 0 {
				s.withBound[e] = true
			}
			return sl, true
		}
	}
	return schedulers.Slot{}, false
}

// bindAckers is getNumOfAckersToBind and assignBoundAckersForNewWorkerSlot.
func (s *search) bindAckers(e Executor, sl schedulers.Slot) int {
	if e.Component == AckerComponent || s.boundAt[sl] != nil || len(s.ackers) == 0 {
		return 0
	}
	ackerHeap := s.t.request(s.ackers[0]).OnHeapMB
	room := math.Floor((s.t.maxHeap - s.t.request(e).OnHeapMB) / ackerHeap)
	want := min(float64(len(s.ackers)), float64(s.t.perWkr), room)
	for k := 0; k < int(want); k++ {
		if !s.wouldFit(sl, s.ackers[0]) {
			return k
		}
		a := s.ackers[0]
		s.ackers = s.ackers[1:]
		s.put(a, sl)
		s.bound[a] = true
		s.boundAt[sl] = append(s.boundAt[sl], a)
	}
	return max(int(want), 0)
}

// backtrack is SchedulingSearcherState.backtrack: back to the last executor
// placed directly, freed, with its bound ackers (whose slot Storm frees
// whole, RasNode.free).
func (s *search) backtrack(at []schedulers.Slot) {
	s.index--
	for s.index >= 0 && s.bound[s.execs[s.index]] {
		s.index--
	}
	s.backtracks++
	e := s.execs[s.index]
	sl := at[s.index]
	s.drop(e)
	if s.withBound[e] {
		delete(s.withBound, e)
		if acks := s.boundAt[sl]; acks != nil {
			for k := len(acks) - 1; k >= 0; k-- {
				delete(s.bound, acks[k])
				s.ackers = append([]Executor{acks[k]}, s.ackers...)
			}
			delete(s.boundAt, sl)
			for x, y := range s.slots {
				if y == sl {
					s.drop(x)
				}
			}
		}
	}
}

// sortNodes is NodeSorterHostProximity.sortAllNodes for one rack: hosts,
// then the nodes of each host, each level by sortObjectResourcesCommon.
func (s *search) sortNodes() []*rasNode {
	hosts := map[string][]*rasNode{}
	var names []string
	for _, n := range s.nodes {
		if hosts[n.host] == nil {
			names = append(names, n.host)
		}
		hosts[n.host] = append(hosts[n.host], n)
	}
	items := make([]resItem, len(names))
	for i, h := range names {
		items[i] = s.item(h, hosts[h]...)
	}
	var out []*rasNode
	for _, h := range sortItems(items) {
		nodes := hosts[h.id]
		its := make([]resItem, len(nodes))
		for i, n := range nodes {
			its[i] = s.item(n.id, n)
		}
		for _, it := range sortItems(its) {
			out = append(out, s.byID[it.id])
		}
	}
	return out
}

// resItem is an ObjectResourcesItem: available resources of a host or node
// and the topology's executors on it.
type resItem struct {
	id       string
	cpu, mem float64
	count    int
}

func (s *search) item(id string, nodes ...*rasNode) resItem {
	it := resItem{id: id}
	for _, n := range nodes {
		c, m := s.available(n)
		it.cpu += c
		it.mem += m
		it.count += s.count[n.id]
	}
	return it
}

// sortItems orders items as sortObjectResourcesCommon: more executors of the
// topology first, then higher average and minimum share of the items'
// available CPU and memory (NormalizedResources.calculateAveragePercentageUsedBy
// and calculateMinPercentageUsedBy), then id.
func sortItems(items []resItem) []resItem {
	var cpu, mem float64
	for _, it := range items {
		cpu += it.cpu
		mem += it.mem
	}
	avg := map[string]float64{}
	low := map[string]float64{}
	for _, it := range items {
		sum, parts, m := 0.0, 0, 1.0
		if mem != 0 {
			sum += it.mem / mem
			parts++
			m = math.Min(m, it.mem/mem)
		}
		if cpu != 0 {
			sum += it.cpu / cpu
			parts++
			m = math.Min(m, it.cpu/cpu)
		}
		avg[it.id] = 100
		if parts > 0 {
			avg[it.id] = sum * 100 / float64(parts)
		}
		low[it.id] = m * 100
	}
	out := slices.Clone(items)
	slices.SortFunc(out, func(a, b resItem) int {
		switch {
		case a.count != b.count:
			return b.count - a.count
		case avg[a.id] != avg[b.id]:
			return cmpDesc(avg[a.id], avg[b.id])
		case low[a.id] != low[b.id]:
			return cmpDesc(low[a.id], low[b.id])
		}
		return strings.Compare(a.id, b.id)
	})
	return out
}

func cmpDesc(a, b float64) int {
	if a > b {
		return -1
	}
	return 1
}
