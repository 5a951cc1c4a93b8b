package simcluster

import (
	"fmt"
	"strings"
)

// flow is the run's totals the self-checks read: per model executor, tuples received and executed,
// and the spouts' trees emitted and acked.
type flow struct {
	received, executed []int64
	emitted, acked     int64
}

func (f *flow) add(counts []countsView) {
	if f.received == nil {
		f.received, f.executed = make([]int64, len(counts)), make([]int64, len(counts))
	}
	for i, c := range counts {
		f.executed[i] += c.executed
		for to, n := range c.sent {
			f.received[to] += n
		}
		if c.spout {
			f.emitted += c.executed
			f.acked += c.acked
		}
	}
}

// countsView is what the checks need of one executor's interval counters.
type countsView struct {
	executed, acked int64
	sent            map[int]int64
	spout           bool
}

// selfChecks are the model's checks on this run, each "name: ok" or "name: failed: why": no bolt
// executed more tuples than it received, no more trees were acked than emitted, and no node used more
// CPU than its cores give.
func (r *simRun) selfChecks() []string {
	var out []string
	add := func(name string, err error) {
		if err != nil {
			out = append(out, name+": failed: "+err.Error())
		} else {
			out = append(out, name+": ok")
		}
	}
	add("tuples conserved", r.conserved())
	acked := error(nil)
	if r.flow.acked > r.flow.emitted {
		acked = fmt.Errorf("%d trees acked, %d emitted", r.flow.acked, r.flow.emitted)
	}
	add("acks within trees emitted", acked)
	add("CPU within capacity", r.cpuWithin())
	return out
}

func (r *simRun) conserved() error {
	for i := range r.modelTasks {
		if r.rt.costs.Components[r.componentOf(r.modelTasks[i])].Spout {
			continue
		}
		if r.flow.executed[i] > r.flow.received[i] {
			return fmt.Errorf("task %d executed %d tuples, received %d", r.modelTasks[i], r.flow.executed[i], r.flow.received[i])
		}
	}
	return nil
}

// cpuWithin checks that no node used more than its cores over the run, and a node under a quota whose
// periods are out of step with the run (sim.Node.QuotaPhase) up to two periods' quota more: the period
// under way as the run starts has its whole quota for what is left of it, and so has the one under way
// as it ends, from its start.
func (r *simRun) cpuWithin() error {
	for i, used := range r.x.NodeUsage() {
		n := r.cfg.Nodes[i]
		limit := n.Cores * r.t
		if n.QuotaPhase > 0 {
			limit += 2 * n.Cores * n.QuotaPeriod
		}
		if used > limit*(1+1e-9)+1e-9 {
			return fmt.Errorf("%s used %.3f core-seconds in %.1f s of %.2f cores", n.Name, used, r.t, n.Cores)
		}
	}
	return nil
}

func isOK(check string) bool { return strings.HasSuffix(check, ": ok") }
