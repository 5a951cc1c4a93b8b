package native

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/schedulers"
)

// Even is Storm's EvenScheduler (storm-server 2.8,
// org.apache.storm.scheduler.EvenScheduler.scheduleTopology): executors that
// are alive keep their slots; the others, sorted by start task, go
// round-robin over the first (topology.workers - alive workers) free slots
// in sortSlots order (grouped by supervisor id, ports ascending, supervisors
// with more free slots first, ties by supervisor id, then interleaved). With
// no free slot they stay unassigned. It models the topology alone on the
// cluster: every slot the current assignment does not use is free.
//
// schedulers.Even is the same rule for a fresh placement in the project's
// Go scheduler interface; this model adds what Storm does after a kill.
// Where scheduleTopology would throw (more alive workers than
// topology.workers, after a rebalance to fewer), nothing is reassigned.
type Even struct{}

// Name implements Scheduler.
func (Even) Name() string { return "storm-even" }

// Schedule implements Scheduler.
func (Even) Schedule(ctx context.Context, c schedulers.Cluster, t Topology, current Assignment) (Assignment, error) {
	if err := ctx.Err(); err != nil {
		return Assignment{}, err
	}
	if err := checkWorkers(c, t, current); err != nil {
		return Assignment{}, fmt.Errorf("storm-even: %w", err)
	}
	out := Assignment{Slots: cloneSlots(current.Slots)}
	out.Status = evenPlace(c, t, out.Slots)
	return finish(t, out), nil
}

// evenPlace is EvenScheduler.scheduleTopology applied to slots (the
// topology's assignment, changed in place); it returns a status when
// executors were left unassigned.
func evenPlace(c schedulers.Cluster, t Topology, slots map[Executor]schedulers.Slot) string {
	alive := slotExecutors(slots)
	free := freeSlots(c, slots)
	total := min(t.Workers, len(free)+len(alive))
	sorted := sortSlots(free)
	n := min(max(total-len(alive), 0), len(sorted))
	var todo []Executor
	for _, e := range t.Executors {
		if _, ok := slots[e]; !ok {
			todo = append(todo, e)
		}
	}
	if len(todo) == 0 {
		return ""
	}
	if n == 0 {
		return fmt.Sprintf("%d executors unassigned: no free slot (EvenScheduler uses only free slots)", len(todo))
	}
	slices.SortStableFunc(todo, func(a, b Executor) int { return a.Start - b.Start })
	for i, e := range todo {
		slots[e] = sorted[i%n]
	}
	return ""
}

// checkWorkers is check with topology.workers at least 1, which
// EvenScheduler divides by.
func checkWorkers(c schedulers.Cluster, t Topology, current Assignment) error {
	if t.Workers < 1 {
		return fmt.Errorf("topology %s asks for %d workers: topology.workers must be at least 1", t.ID, t.Workers)
	}
	return check(c, t, current)
}

// sortSlots is EvenScheduler.sortSlots: slots grouped by node (a TreeMap by
// node id), ports ascending, groups by size descending (a stable sort), then
// interleaved (ServerUtils.interleaveAll).
func sortSlots(free []schedulers.Slot) []schedulers.Slot {
	groups := map[string][]schedulers.Slot{}
	for _, s := range free {
		groups[s.Node] = append(groups[s.Node], s)
	}
	ids := make([]string, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
		slices.SortFunc(groups[id], func(a, b schedulers.Slot) int { return a.Port - b.Port })
	}
	slices.Sort(ids)
	slices.SortStableFunc(ids, func(a, b string) int { return len(groups[b]) - len(groups[a]) })
	var out []schedulers.Slot
	for round := 0; len(out) < len(free); round++ {
		for _, id := range ids {
			if round < len(groups[id]) {
				out = append(out, groups[id][round])
			}
		}
	}
	return out
}

// freeSlots lists the cluster's slots the assignment does not use.
func freeSlots(c schedulers.Cluster, slots map[Executor]schedulers.Slot) []schedulers.Slot {
	used := map[schedulers.Slot]bool{}
	for _, s := range slots {
		used[s] = true
	}
	var out []schedulers.Slot
	for _, n := range c.Nodes {
		for _, p := range n.Ports {
			if s := (schedulers.Slot{Node: n.ID, Port: p}); !used[s] {
				out = append(out, s)
			}
		}
	}
	return out
}

// slotExecutors inverts an assignment (Utils.reverseMap).
func slotExecutors(slots map[Executor]schedulers.Slot) map[schedulers.Slot][]Executor {
	out := map[schedulers.Slot][]Executor{}
	for e, s := range slots {
		out[s] = append(out[s], e)
	}
	return out
}

// Default is Storm's DefaultScheduler (storm-server 2.8,
// org.apache.storm.scheduler.DefaultScheduler.defaultSchedule), what Nimbus
// runs without a storm.scheduler. When executors are unassigned or fewer
// workers run than it can use (min(topology.workers, alive workers + free
// slots)), it first frees the alive workers whose executor count does not
// fit the even split of all executors over that many workers (badSlots:
// Utils.integerDivided counts how many workers may hold each size; the
// workers are visited in the order of Java's HashMap of slots, so which of
// two equal workers stays is the order javaorder.go computes), then runs
// EvenScheduler. Blacklisting is not modelled.
type Default struct{}

// Name implements Scheduler.
func (Default) Name() string { return "storm-default" }

// Schedule implements Scheduler.
func (Default) Schedule(ctx context.Context, c schedulers.Cluster, t Topology, current Assignment) (Assignment, error) {
	if err := ctx.Err(); err != nil {
		return Assignment{}, err
	}
	if err := checkWorkers(c, t, current); err != nil {
		return Assignment{}, fmt.Errorf("storm-default: %w", err)
	}
	out := Assignment{Slots: cloneSlots(current.Slots)}
	alive := slotExecutors(out.Slots)
	total := min(t.Workers, len(alive)+len(freeSlots(c, out.Slots)))
	if total > len(alive) || len(out.Slots) != len(t.Executors) {
		for _, s := range badSlots(alive, len(t.Executors), total) {
			for _, e := range alive[s] {
				delete(out.Slots, e)
			}
		}
	}
	out.Status = evenPlace(c, t, out.Slots)
	return finish(t, out), nil
}

// badSlots is DefaultScheduler.badSlots: the alive workers left over once
// each size of Utils.integerDivided(executors, workers) has taken as many
// workers as it may, in the iteration order of Utils.reverseMap's HashMap.
func badSlots(alive map[schedulers.Slot][]Executor, executors, workers int) []schedulers.Slot {
	if workers == 0 {
		return nil
	}
	quota := map[int]int{executors / workers: workers - executors%workers}
	if executors%workers != 0 {
		quota[executors/workers+1] = executors % workers
	}
	// reverseMap puts the slots into its HashMap as it meets them in the
	// assignment's HashMap of executors.
	var execs []Executor
	slotOf := map[Executor]schedulers.Slot{}
	for s, es := range alive {
		for _, e := range es {
			execs = append(execs, e)
			slotOf[e] = s
		}
	}
	slices.SortFunc(execs, func(a, b Executor) int { return a.Start - b.Start })
	var keys []schedulers.Slot
	for _, e := range javaOrder(execs, executorHash, capGrown(len(execs))) {
		if !slices.Contains(keys, slotOf[e]) {
			keys = append(keys, slotOf[e])
		}
	}
	var bad []schedulers.Slot
	for _, s := range javaOrder(keys, slotHash, capGrown(len(keys))) {
		if quota[len(alive[s])] > 0 {
			quota[len(alive[s])]--
			continue
		}
		bad = append(bad, s)
	}
	return bad
}

// describe writes an assignment as Storm's logs do, slot by slot, for test
// failures.
func describe(a Assignment) string {
	var b strings.Builder
	by := slotExecutors(a.Slots)
	for _, s := range a.Workers() {
		es := by[s]
		slices.SortFunc(es, func(x, y Executor) int { return x.Start - y.Start })
		fmt.Fprintf(&b, "%s:", s)
		for _, e := range es {
			fmt.Fprintf(&b, " %d", e.Start)
		}
		b.WriteString("; ")
	}
	if len(a.Unassigned) > 0 {
		fmt.Fprintf(&b, "unassigned %v", a.Unassigned)
	}
	return b.String()
}
