package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/topologies"
)

// Background CPU load on every supervisor, for the runs "under CPU usage 20/50/80%" of Choi, Jeon,
// Lim, Bok and Yoo, "Dynamic Task Scheduling Scheme for Processing Real-Time Stream Data in Storm
// Environments" (2021), Figs. 7-8.
//
// It is Storm-native, so it runs on any cluster with the bridge and needs no access to the hosts: one
// burner topology (topologies.BurnerClass) per supervisor, whose conf names that host
// (protocol.NodesConf) and Storm's EvenScheduler (protocol.TopologySchedulerConf), so the bridge
// places its executors on that host only.
//
// Definition: a load of L percent on a supervisor with Q cores is L/100*Q cores of busy looping. It
// runs as k = max(ceil(L/100*Q), the node's CPUs) spout tasks, each spinning until it has used
// L/100*Q/k of every 100 ms in CPU time, then sleeping; its threads' CFS weight is raised where the
// node allows (weight.go says why each). What the burner really used is in its worker's own reports
// (process CPU): the run records it as the load applied (LoadApplied, StragglerApplied), and the
// scheduler service counts it in the node's CPU use, as it counts every instrumented worker's.

// BurnerPrefix starts the name of every burner topology; a run's idle check and straggler probe leave
// topologies and worker JVMs of that name alone (they are the load, not leftovers).
const BurnerPrefix = "stormlab-burner-"

// burnerStart bounds the wait for the burners' executors to run.
const burnerStart = 3 * time.Minute

// burnerPlan is one supervisor's burner: tasks spout tasks, each busy busy of every period.
type burnerPlan struct {
	host  string
	tasks int
	busy  float64
	role  string // in the name, between BurnerPrefix and the host: "" (background load) or "straggler-"
	// switched: the burner starts idle and polls the service for its busy fraction (a straggler's,
	// switched by its fault: protocol.PathBurn).
	switched bool
}

// burnerPlans sizes the burner of every supervisor (cores: host -> CPU cores) for a load of percent,
// sorted by host; spread (host -> CPUs its threads can run on, absent: unknown) sets a least task count.
func burnerPlans(percent float64, cores map[string]float64, spread map[string]int) ([]burnerPlan, error) {
	if !(percent > 0 && percent <= 100) {
		return nil, fmt.Errorf("background load %v%% out of range (0, 100]", percent)
	}
	var out []burnerPlan
	for host, q := range cores {
		if !(q > 0) {
			return nil, fmt.Errorf("background load on %s: the supervisor's CPU capacity is %v cores; set supervisor.cpu.capacity (or the target file's capacity) above 0", host, q)
		}
		c := percent / 100 * q
		k := max(int(math.Ceil(c-1e-9)), spread[host])
		out = append(out, burnerPlan{host: host, tasks: k, busy: c / float64(k)})
	}
	slices.SortFunc(out, func(a, b burnerPlan) int { return strings.Compare(a.host, b.host) })
	return out, nil
}

// name is the burner's topology name: BurnerPrefix and the host, with characters a topology name
// does not take replaced by '-'.
func (p burnerPlan) name() string {
	h := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, p.host)
	return BurnerPrefix + p.role + h
}

// args are the burner's main-class arguments: one worker of a small heap, C1 only (it spins one
// loop; start-up is what matters), placed on p.host by Storm's EvenScheduler through the bridge.
func (p burnerPlan) args() []string {
	return []string{"--name", p.name(), "--workers", "1", "--parallelism", strconv.Itoa(p.tasks),
		"--busy-fraction", strconv.FormatFloat(p.busy, 'f', 4, 64), "--busy-clock", "cpu", "--worker-heap-mb", "64",
		"--worker-childopts", "-XX:TieredStopAtLevel=1 -Xss512k", "--report-interval-secs", "2",
		"--conf", protocol.NodesConf + "=" + p.host, "--conf", protocol.TopologySchedulerConf + "=storm-even",
		"--busy-from-service=" + strconv.FormatBool(p.switched)}
}

// IsBurner says whether a topology (name or id: Storm's id starts with the name) is a burner.
func IsBurner(nameOrID string) bool { return strings.HasPrefix(nameOrID, BurnerPrefix) }

// startBurners submits every plan's burner (in parallel: a submit is a JVM start), waits until each
// one's executors all run on its host, and returns the undo that kills them all and waits until Nimbus
// has forgotten them. When it fails, it kills what it submitted before returning.
func (n *Nemesis) startBurners(ctx context.Context, plans []burnerPlan) (control.Undo, error) {
	cl := n.storm
	if cl == nil {
		return nil, errors.New("this cluster cannot take topologies from the nemesis")
	}
	jar, err := cl.Jar()
	if err != nil {
		return nil, err
	}
	if err := n.noBurnerRuns(ctx, plans); err != nil {
		return nil, err
	}
	t0 := time.Now()
	stop := func(ctx context.Context) error {
		t1 := time.Now()
		err := n.stopBurners(ctx, plans)
		n.logf("cluster %s: %d burner(s) gone %s after the kill", n.name, len(plans), time.Since(t1).Round(100*time.Millisecond))
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(plans))
	for i, p := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = n.startBurner(ctx, jar, p)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(err, stop(context.WithoutCancel(ctx)))
	}
	n.logf("cluster %s: %d burner(s) running %s after their submission", n.name, len(plans), time.Since(t0).Round(100*time.Millisecond))
	return stop, nil
}

// noBurnerRuns refuses to start when a burner of plans already runs: a run cut short without its undo
// (a killed process) left it, or another harness shares the cluster. Killing it here could break the
// other harness, so the user is told how to remove it.
func (n *Nemesis) noBurnerRuns(ctx context.Context, plans []burnerPlan) error {
	tops, err := n.storm.UI().Topologies(ctx)
	if err != nil {
		return fmt.Errorf("before background load: %w", err)
	}
	for _, p := range plans {
		if slices.ContainsFunc(tops, func(t stormui.TopologySummary) bool { return t.Name == p.name() }) {
			return fmt.Errorf("a burner topology %s already runs on the cluster (left by a run that was killed, or another harness's): kill it (storm kill %s, or the Storm UI) and run again", p.name(), p.name())
		}
	}
	return nil
}

// startBurner submits p's burner and waits until it runs on p.host only.
func (n *Nemesis) startBurner(ctx context.Context, jar string, p burnerPlan) error {
	if err := n.storm.Submit(ctx, jar, topologies.BurnerClass, p.args()...); err != nil {
		return fmt.Errorf("submit burner on %s: %w", p.host, err)
	}
	since := time.Now().UnixMilli()
	id, execs, err := n.storm.WaitRunning(ctx, p.name(), burnerStart)
	if err != nil {
		return fmt.Errorf("burner on %s: %w (the bridge places it: Nimbus must run %s)", p.host, err, protocol.BridgeClass)
	}
	for _, e := range execs {
		if e.Host != p.host {
			return fmt.Errorf("burner on %s: an executor of %s runs on %s: the bridge did not pin it (Nimbus must run %s)", p.host, e.Component, e.Host, protocol.BridgeClass)
		}
	}
	// Placed is not yet burning: the worker JVM starts after its assignment. The load is on once the
	// worker reports its own process CPU (its second report: the first has no baseline).
	measured := func(x protocol.WorkerReport) bool { return !x.Lacks(protocol.FieldWorkerCPU) }
	if err := n.storm.WaitReports(ctx, id, since, execs, burnerStart, measured, "reported their CPU"); err != nil {
		return fmt.Errorf("burner on %s: %w (its worker reports to the scheduler service like any instrumented topology's)", p.host, err)
	}
	n.raiseWeight(ctx, p)
	n.logf("cluster %s: burner %s: %d tasks, each spinning %.0f%% of every 100 ms in CPU time", n.name, p.name(), p.tasks, 100*p.busy)
	return nil
}

// stopBurners kills every burner of plans that Nimbus lists (one never submitted is fine) and waits
// until Nimbus lists none of them.
func (n *Nemesis) stopBurners(ctx context.Context, plans []burnerPlan) error {
	ui := n.storm.UI()
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	var tops []stormui.TopologySummary
	err := retry(ctx, 30*time.Second, func(ctx context.Context) (err error) {
		tops, err = ui.Topologies(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("stop burners: %w", err)
	}
	var errs []error
	var killed []string
	for _, p := range plans {
		if !slices.ContainsFunc(tops, func(t stormui.TopologySummary) bool { return t.Name == p.name() }) {
			continue
		}
		if err := ui.Kill(ctx, p.name(), 0); err != nil {
			errs = append(errs, fmt.Errorf("kill burner: %w", err))
			continue
		}
		killed = append(killed, p.name())
	}
	for _, name := range killed {
		if err := n.storm.WaitGone(ctx, name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// logBurnerCPU says what a burner offered (cores) and the CPU its worker used by its own reports
// (process CPU, mean over the reports since sinceMs): on a node whose CPU is short the two differ, and
// the second is what the node's other workers met. A failed read is said, not an error: the load ran.
func (n *Nemesis) logBurnerCPU(ctx context.Context, p burnerPlan, offered float64, sinceMs int64) {
	st, err := n.storm.State(ctx, sinceMs)
	if err != nil {
		n.logf("cluster %s: burner %s's own CPU reports: %v", n.name, p.name(), err)
		return
	}
	sum, k := 0.0, 0
	for _, t := range st.Topologies {
		if strings.HasPrefix(t.ID, p.name()+"-") {
			for _, w := range t.WorkerCPU { // State cut the series at sinceMs
				sum, k = sum+w.CPUPercent, k+1
			}
		}
	}
	used := "no report"
	if k > 0 {
		used = fmt.Sprintf("%.2f cores (mean of %d reports)", sum/float64(k)/100, k)
	}
	n.logf("cluster %s: burner %s: offered %.2f cores, its worker used %s", n.name, p.name(), offered, used)
}

// PrepareStragglers starts, idle, one switched burner per host that a straggler fault of faults names
// (sized for the largest of that host's percents), before the run's topology is submitted, so that each
// fault switches a running burner on at its AT instead of waiting for a worker JVM to start. The undo
// kills them. Nothing to do (a no-op undo) without straggler faults.
func (n *Nemesis) PrepareStragglers(ctx context.Context, faults []fault.Fault) (control.Undo, error) {
	plans := map[string]burnerPlan{}
	var spread map[string]int
	for _, f := range faults {
		if f.Kind != fault.Straggler {
			continue
		}
		if spread == nil {
			spread = n.spread(ctx, n.hosts())
		}
		t, err := fault.ParseStragglerArg(f.Arg, n.hosts())
		if err != nil {
			return nil, err
		}
		ps, err := burnerPlans(t.Percent, map[string]float64{t.Host: n.cores()[t.Host]}, spread)
		if err != nil {
			return nil, err
		}
		p := ps[0]
		p.role, p.switched = "straggler-", true
		if q, ok := plans[t.Host]; !ok || p.tasks > q.tasks {
			plans[t.Host] = p
		}
	}
	if len(plans) == 0 {
		return func(context.Context) error { return nil }, nil
	}
	list := make([]burnerPlan, 0, len(plans))
	for _, p := range plans {
		list = append(list, p)
	}
	stop, err := n.startBurners(ctx, list)
	if err != nil {
		return nil, err
	}
	n.stragglers = plans
	return func(ctx context.Context) error {
		n.stragglers = nil
		return stop(ctx)
	}, nil
}

// switchStraggler switches on the prepared burner of straggler fault f at f's percent of its host's
// CPU (the burner's tasks poll the service every 500 ms) and returns the undo that switches it off.
func (n *Nemesis) switchStraggler(ctx context.Context, f fault.Fault) (control.Undo, error) {
	t, err := fault.ParseStragglerArg(f.Arg, n.hosts())
	if err != nil {
		return nil, err
	}
	p, ok := n.stragglers[t.Host]
	if !ok {
		return nil, fmt.Errorf("no burner was started on %s before the run (a run prepares one per straggler fault)", t.Host)
	}
	cores := t.Percent / 100 * n.cores()[t.Host]
	svc := n.storm
	if err := svc.Post(ctx, protocol.PathBurn, protocol.Burn{Topology: p.name(), Busy: cores / float64(p.tasks)}); err != nil {
		return nil, fmt.Errorf("switch on burner %s: %w", p.name(), err)
	}
	on := time.Now().UnixMilli()
	return func(ctx context.Context) error {
		err := svc.Post(ctx, protocol.PathBurn, protocol.Burn{Topology: p.name(), Busy: 0})
		n.logBurnerCPU(ctx, p, cores, on)
		if err != nil {
			return fmt.Errorf("switch off burner %s: %w", p.name(), err)
		}
		return nil
	}, nil
}

// StragglerApplied is the load straggler fault f's burner carried over [fromMs, toMs] against the load
// f asked (its percent of the host's cores; capacity: host -> percent of a core), read from the
// burner worker's own reports in tops (the scheduler service's state); nil when f is not a straggler.
func StragglerApplied(tops []protocol.TopologyState, f fault.Fault, capacity map[string]float64, fromMs, toMs int64) *diagnose.Applied {
	if f.Kind != fault.Straggler || fromMs <= 0 {
		return nil
	}
	t, err := fault.ParseStragglerArg(f.Arg, nil)
	if err != nil {
		return nil
	}
	p := burnerPlan{host: t.Host, role: "straggler-"}
	a := &diagnose.Applied{Host: t.Host, Kind: string(f.Kind), Asked: t.Percent / 100 * capacity[t.Host] / 100}
	if used, n := diagnose.BurnerCPU(tops, p.name()+"-", fromMs, toMs); n > 0 {
		a.Used, a.Reports = &used, n
	}
	return a
}
