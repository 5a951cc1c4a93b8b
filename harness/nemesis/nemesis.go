package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/harness/hostspeed"
	"github.com/stormlab/stormlab/infra/control"
)

// Nemesis disturbs a cluster on purpose (Jepsen's word), through a control layer (infra/control: docker
// exec and stop on the harness's own containers, SSH on a target's hosts). It has one shape for every
// disturbance: Inject(ctx, fault.Fault) starts it and returns its undo. The faults of a measurement window
// (FaultKinds), background CPU load (fault.CPULoad) and killing straggling worker JVMs (fault.KillStragglers) are
// all Faults; each kind states the control operations it needs (fault.Kind.Needs), so a cluster whose
// control lacks one is refused before anything is submitted (CheckControl).
//
// Background CPU load needs no control: it is Storm topologies (burner.go), so it runs on any cluster
// with the bridge, a target without control.ssh too; where there is a control layer it also raises the
// burners' CFS weight (weight.go). What is wired on a target with control.ssh:
// `run --cluster target:FILE --fault` injects pause-worker, delay, kill-supervisor, restart-zookeeper and
// restart-service over SSH (the last three with the target file's commands; delay writes the delay file
// that the delaying transport, shipped in the topology jar, reads), and whole-node CPU is read over SSH
// (StartNodeCPUReports). Not on a target: killing stragglers, which only container sessions do (on a
// user's host a worker JVM may be another topology's).
type Nemesis struct {
	ctl   control.Control // nil: no control layer (a target without control.ssh)
	storm Storm           // where the burner topologies of background load go
	// stragglers are the idle burners of a run's straggler faults, by host (PrepareStragglers), which
	// the faults switch on and off.
	stragglers map[string]burnerPlan
	load       *backgroundLoad           // the background load that runs (nil: none), for LoadApplied
	name       string                    // the cluster, for log lines
	cores      func() map[string]float64 // each supervisor's CPU cores (for fault.CPULoad)
	logf       func(string, ...any)
	before     func(context.Context) error // fault.CPULoad waits with it until the previous run is gone
	speed      func() *hostspeed.Summary   // ends the host-speed sampling of the open window (nil: none)
}

// Inject starts f and returns its undo (a no-op for fault.KillStragglers, which has nothing to undo). It
// checks first that the control offers what f needs. When it fails after changing something, it
// undoes that before returning the error.
func (n *Nemesis) Inject(ctx context.Context, f fault.Fault) (control.Undo, error) {
	if err := n.can(f); err != nil {
		return nil, err
	}
	undo, err := n.inject(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("fault %s: %w", f, err)
	}
	if f.Kind == fault.KillStragglers { // it logs what it killed; nothing to undo
		return undo, nil
	}
	n.logf("cluster %s: fault %s: started", n.name, f)
	return func(ctx context.Context) error {
		if err := undo(ctx); err != nil {
			return fmt.Errorf("undo fault %s: %w", f, err)
		}
		n.logf("cluster %s: fault %s: undone", n.name, f)
		return nil
	}, nil
}

func (n *Nemesis) inject(ctx context.Context, f fault.Fault) (control.Undo, error) {
	switch f.Kind {
	case fault.KillSupervisor:
		return n.ctl.Stop(ctx, control.Supervisor, f.Arg)
	case fault.RestartZooKeeper:
		return n.ctl.Stop(ctx, control.ZooKeeper, "")
	case fault.RestartService:
		return n.ctl.Stop(ctx, control.Service, "")
	case fault.PauseWorker:
		pids, undo, err := n.ctl.Pause(ctx, f.Arg, workerPattern)
		if err == nil {
			n.logf("cluster %s: fault %s: SIGSTOP worker JVMs %s", n.name, f, strings.Join(pids, ","))
		}
		return undo, err
	case fault.Delay:
		t, err := fault.ParseDelayArg(f.Arg, n.hosts())
		if err != nil {
			return nil, err
		}
		return n.ctl.Delay(ctx, t.A, t.B, t.Delay)
	case fault.CPULoad:
		return n.startLoad(ctx, f.Arg)
	case fault.Straggler:
		return n.switchStraggler(ctx, f)
	case fault.KillStragglers:
		return func(context.Context) error { return nil }, n.killStragglers(ctx)
	}
	return nil, errors.New("unknown kind")
}

// can checks that the control offers every operation f needs, on the hosts it acts on.
func (n *Nemesis) can(f fault.Fault) error {
	if n == nil || n.ctl == nil && f.Kind.Needs() != 0 {
		return fmt.Errorf("fault %s: %w", f, ErrNoControl)
	}
	hosts := f.HostsOf(n.hosts())
	var errs []error
	for _, op := range f.Kind.Needs().List() {
		for _, h := range hosts {
			if err := n.ctl.Can(op, h); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("fault %s needs %s: %w", f, f.Kind.Needs(), err)
	}
	return nil
}

// ErrNoControl is a fault on a cluster without a control layer.
var ErrNoControl = errors.New("this cluster has no control layer to inject faults with: add control.ssh (user, key, hosts) to the target file (stormlab's docs/own-cluster.md)")

// hosts lists the supervisors, sorted.
func (n *Nemesis) hosts() []string {
	var out []string
	for h := range n.cores() {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}

// CheckControl checks, before anything is submitted, that n can inject every fault of faults.
func (n *Nemesis) CheckControl(faults []fault.Fault) error {
	var errs []error
	for _, f := range faults {
		errs = append(errs, n.can(f))
	}
	return errors.Join(errs...)
}

// startLoad starts the load of a fault.CPULoad fault (target: the percent) on every supervisor, after the
// previous run's topology and workers are gone (so the load does not slow down their shutdown): the
// burner topologies of burner.go.
func (n *Nemesis) startLoad(ctx context.Context, target string) (control.Undo, error) {
	percent, err := strconv.ParseFloat(target, 64)
	if err != nil {
		return nil, fmt.Errorf("background load %q is not a number", target)
	}
	plans, err := burnerPlans(percent, n.cores(), n.spread(ctx, n.hosts()))
	if err != nil {
		return nil, err
	}
	if n.before != nil {
		if err := n.before(ctx); err != nil {
			return nil, fmt.Errorf("before background load: %w", err)
		}
	}
	stop, err := n.startBurners(ctx, plans)
	if err != nil {
		return nil, err
	}
	t0 := time.Now().UnixMilli()
	n.load = &backgroundLoad{plans: plans, fromMs: t0}
	return func(ctx context.Context) error {
		n.load = nil
		for _, p := range plans {
			n.logBurnerCPU(ctx, p, float64(p.tasks)*p.busy, t0)
		}
		return stop(ctx)
	}, nil
}

// workerPattern matches the command line of a Storm worker JVM (pgrep -f).
const workerPattern = "org.apache.storm.daemon.worker.Worker"

// workerProbe prints the pids of Storm worker JVMs other than the burners' (pgrep from procps: one
// process, cheap even on a 0.25-core container under load; a worker's command line holds its topology
// id, which starts with the topology's name). The bracket keeps the probe's own shell, whose command
// line holds the pattern, from matching.
const workerProbe = `pgrep -af '[o]rg.apache.storm.daemon.worker.Worker' | grep -v '` + BurnerPrefix + `' | cut -d' ' -f1; true`

// StragglerGrace is how long waitIdle lets a worker JVM outlive its topology before killing it.
const StragglerGrace = 30 * time.Second

func (n *Nemesis) WorkerPids(ctx context.Context, host string) ([]string, error) {
	out, err := n.ctl.Exec(ctx, host, workerProbe)
	if err != nil {
		return nil, fmt.Errorf("probe worker JVMs on %s: %w", host, err)
	}
	return strings.Fields(out), nil
}

// killStragglers kills (SIGKILL, by pid) the worker JVMs left on any supervisor after their
// topology is gone.
func (n *Nemesis) killStragglers(ctx context.Context) error {
	var errs []error
	for _, h := range n.hosts() {
		pids, err := n.WorkerPids(ctx, h)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(pids) == 0 {
			continue
		}
		n.logf("cluster %s: killing worker JVMs left on %s after their topology ended: pids %s", n.name, h, strings.Join(pids, ","))
		if _, err := n.ctl.Exec(ctx, h, "kill -9 "+strings.Join(pids, " ")); control.IsExit(err) {
			// A straggler may have exited between probe and kill: not an error worth failing on, but
			// said.
			n.logf("cluster %s: %v", n.name, err)
		} else if err != nil {
			errs = append(errs, fmt.Errorf("kill stragglers on %s: %w", h, err))
		}
	}
	return errors.Join(errs...)
}
