package nemesis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/protocol"
)

// How a burner reaches its level beside saturated workers.
//
// A burner's level is CPU: L% of a node of Q cores is L/100*Q cores of its threads' CPU time. On a
// container the kernel meets three obstacles, and the burner answers each:
//   - The container's CPU quota (CFS bandwidth) stops every thread of the container once the period's
//     quota is spent. A spin bounded by wall time lost that throttled time (beside saturated workers a
//     straggler got a tenth of its level: docs/results-log.md); the burner spins on its threads' CPU
//     time instead (--busy-clock cpu).
//   - Inside the container's cgroup the kernel shares the CPU between threads by their CFS weight, and
//     the measured workers run many threads against the burner's few. The burner's threads get nice
//     burnerNice (weight 88,761 against 1,024 at nice 0): beside ten runnable worker threads on a core
//     that is 90% of the core while the burner still wants CPU, enough for a level of 80% of the quota.
//     Its CPU-time target bounds it, so the weight takes nothing beyond the level. The supervisor
//     containers get CAP_SYS_NICE for it (infra/docker.CapNice): root in a container may not lower a nice
//     value without it. A cgroup of the burner's own was the other way: Docker mounts the container's
//     cgroup tree read-only (cgroup v1, and v2 without --privileged), so the container cannot make one.
//   - A thread runs on one CPU: one burner thread beside workers spread over all of the host's CPUs
//     gets at most its CPU's part of the quota. The burner runs at least as many tasks as the node's
//     processes can use CPUs (nproc), at most maxSpread.
//
// Where the weight cannot be raised (no control layer, a host that refuses: not root, no capability)
// the run's log says so and the burner runs at the workers' weight; its applied load is recorded all
// the same, and judged by the same rule (diagnose.AppliedShort).

// burnerNice is the nice value of a burner's threads (see above).
const burnerNice = -20

// maxSpread bounds the burner's tasks on a host of many CPUs.
const maxSpread = 8

// spread returns each host's CPU count (nproc) through the control layer, for sizing the burners; a
// host it cannot read (or no control layer) is left out: its burner runs ceil(cores) tasks.
func (n *Nemesis) spread(ctx context.Context, hosts []string) map[string]int {
	out := map[string]int{}
	if n.ctl == nil {
		return out
	}
	for _, h := range hosts {
		text, err := n.ctl.Exec(ctx, h, "nproc")
		k, perr := strconv.Atoi(strings.TrimSpace(text))
		if err != nil || perr != nil || k < 1 {
			n.logf("cluster %s: the CPU count of %s is unknown (nproc: %q %v): its burner runs one task per core asked", n.name, h, text, err)
			continue
		}
		out[h] = min(k, maxSpread)
	}
	return out
}

// reniceCmd renices every thread of the JVMs whose command line holds pattern (a burner's topology id
// prefix) and prints how many; exit 3: no such JVM, exit 4: renice refused. The bracket keeps the
// probe's own shell, whose command line holds the pattern, from matching.
func reniceCmd(pattern string, nice int) string {
	return fmt.Sprintf(`pids=$(pgrep -f '[%s]%s'); [ -n "$pids" ] || { echo "no JVM of the burner found"; exit 3; }; k=0; for p in $pids; do for t in /proc/$p/task/*; do renice -n %d -p "${t##*/}" >/dev/null 2>/tmp/stormlab-renice.err || { cat /tmp/stormlab-renice.err; exit 4; }; k=$((k+1)); done; done; echo $k`,
		pattern[:1], pattern[1:], nice)
}

// raiseWeight renices the threads of p's running burner JVM to burnerNice on its host. A host that
// refuses is said in the log, not an error: the load runs at the workers' weight, and its applied load
// is recorded as for any burner.
func (n *Nemesis) raiseWeight(ctx context.Context, p burnerPlan) {
	if n.ctl == nil {
		n.logf("cluster %s: burner %s: no control layer to raise its threads' CFS weight with: it runs at the workers' weight and may carry less than its level (its applied load is recorded)", n.name, p.name())
		return
	}
	out, err := n.ctl.Exec(ctx, p.host, reniceCmd(p.name()+"-", burnerNice))
	if err != nil {
		n.logf("cluster %s: burner %s: %s did not raise its threads' CFS weight (renice -n %d: %v %s; a container needs CAP_SYS_NICE, a host root): it runs at the workers' weight and may carry less than its level (its applied load is recorded)",
			n.name, p.name(), p.host, burnerNice, err, strings.TrimSpace(out))
		return
	}
	n.logf("cluster %s: burner %s: %s threads at nice %d", n.name, p.name(), strings.TrimSpace(out), burnerNice)
}

// backgroundLoad is the background load that runs (startLoad), since when, and since when the run's
// window is open (epoch ms; 0: no window opened under it).
type backgroundLoad struct {
	plans          []burnerPlan
	fromMs, openMs int64
}

// openWindow notes that a run's window opens now, for backgroundCarried.
func (n *Nemesis) openWindow() {
	if n != nil && n.load != nil {
		n.load.openMs = time.Now().UnixMilli()
	}
}

// backgroundCarried is the background load each node carried from the window's opening to now, by the
// burners' reports in the scheduler service's state (the last report interval may not be in yet: a
// mean over the others); none without background load. A failed read leaves every node's use unknown,
// which the run's judgement names.
func (n *Nemesis) backgroundCarried(ctx context.Context) []diagnose.Applied {
	if n == nil || n.load == nil || n.storm == nil {
		return nil
	}
	from := max(n.load.openMs, n.load.fromMs)
	st, err := n.storm.State(ctx, from)
	if err != nil {
		n.logf("cluster %s: background load carried: the scheduler service's state: %v", n.name, err)
		return n.LoadApplied(nil, from, time.Now().UnixMilli())
	}
	return n.LoadApplied(st.Topologies, from, time.Now().UnixMilli())
}

// LoadApplied is the background load (fault.CPULoad) each node carried over [fromMs, toMs]: per
// supervisor the cores its burner was asked and the CPU its worker used by its own reports in tops
// (the scheduler service's state). None when no background load runs, or n is nil.
func (n *Nemesis) LoadApplied(tops []protocol.TopologyState, fromMs, toMs int64) []diagnose.Applied {
	if n == nil || n.load == nil {
		return nil
	}
	var out []diagnose.Applied
	for _, p := range n.load.plans {
		a := diagnose.Applied{Host: p.host, Kind: string(fault.CPULoad), Asked: float64(p.tasks) * p.busy}
		if used, k := diagnose.BurnerCPU(tops, p.name()+"-", max(fromMs, n.load.fromMs), toMs); k > 0 {
			a.Used, a.Reports = &used, k
		}
		out = append(out, a)
	}
	return out
}
