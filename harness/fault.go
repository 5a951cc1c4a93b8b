package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/docker"
)

// FaultKind names what a fault does to the run's own cluster.
type FaultKind string

// The fault kinds (each acts at Fault.At for Fault.Duration, then is undone) and the syntax of a fault.
const (
	// FaultSyntax is the --fault syntax, for help texts and errors.
	FaultSyntax = "KIND@AT+DURATION[:TARGET], e.g. kill-supervisor@30s+20s:sup1, restart-zookeeper@40s+10s or delay@30s+20s:sup1-sup2=50ms (AT counts from the opening of the measurement window)"
	// KillSupervisor stops a supervisor's container (its worker JVMs die with it) and starts it again
	// after the duration. Target: the supervisor's hostname.
	KillSupervisor FaultKind = "kill-supervisor"
	// PauseWorker stops every worker JVM on a supervisor with SIGSTOP and resumes them with SIGCONT.
	// Target: the supervisor's hostname.
	PauseWorker FaultKind = "pause-worker"
	// RestartZooKeeper stops the ZooKeeper container and starts it again after the duration.
	RestartZooKeeper FaultKind = "restart-zookeeper"
	// RestartService stops the scheduler service's container and starts it again after the duration.
	RestartService FaultKind = "restart-service"
	// Delay sets the emulated network delay between two supervisors (both directions) for the duration,
	// then restores the cluster's own (WithNetworkDelay, usually none). Target: NODE_A-NODE_B=DELAY,
	// e.g. sup1-sup2=50ms (whole milliseconds, at most 10s). See delayFile for how.
	Delay FaultKind = "delay"

	// cpuLoad is background CPU load on every supervisor (Target: the percent of each one's CPU, e.g.
	// "50"); its undo stops it. Not a --fault kind: experiments inject it around whole runs (LoadFault).
	cpuLoad FaultKind = "cpu-load"
	// stragglerKill SIGKILLs the worker JVMs left on any supervisor after their topology is gone;
	// nothing to undo. Not a --fault kind: the session injects it while waiting for an idle cluster.
	stragglerKill FaultKind = "kill-stragglers"
)

// Needs is the set of control operations a fault of kind k needs (on the hosts it acts on).
func (k FaultKind) Needs() control.Ops {
	switch k {
	case KillSupervisor:
		return control.Of(control.OpStopSupervisor)
	case PauseWorker:
		return control.Of(control.OpPause)
	case RestartZooKeeper:
		return control.Of(control.OpStopZooKeeper)
	case RestartService:
		return control.Of(control.OpStopService)
	case Delay:
		return control.Of(control.OpDelay)
	case cpuLoad, stragglerKill:
		return control.Of(control.OpExec)
	}
	return 0
}

// hostsOf are the hosts f acts on, for its capability check: its target supervisor, both nodes of a
// delay, every supervisor (of all) for load and stragglers, none for ZooKeeper and the service.
func (f Fault) hostsOf(all []string) []string {
	switch f.Kind {
	case KillSupervisor, PauseWorker:
		return []string{f.Target}
	case Delay:
		if t, err := parseDelayTarget(f.Target, nil); err == nil {
			return []string{t.A, t.B}
		}
		return nil
	case cpuLoad, stragglerKill:
		return all
	}
	return []string{""}
}

// faultKinds lists the kinds a Fault can have.
func faultKinds() []FaultKind {
	return []FaultKind{KillSupervisor, PauseWorker, RestartZooKeeper, RestartService, Delay}
}

// needsTarget says whether a kind acts on one supervisor.
func (k FaultKind) needsTarget() bool { return k == KillSupervisor || k == PauseWorker }

// The delay fault's mechanism. The emulated delay lives in Storm's messaging layer (the kernels here
// lack sch_netem; see docker.DelayTransport), and a worker reads the cluster's fixed delay once at start.
// A run with a delay fault submits its topology with the delaying transport and delayFileConf =
// control.DelayFile; the transport then re-reads that file (lines "HOST MS": the delay of messages to
// HOST) on its own host at most every 100 ms. The fault writes the file on the two supervisors through
// the control layer (control.Control.Delay) and its undo removes it. Chosen over a signal or an RPC
// into the worker: it needs no port, and a worker that (re)starts during the fault reads the same file.
// On a target it needs the delaying transport on the cluster's workers' classpath.
const (
	delayFile     = control.DelayFile
	delayFileConf = "stormlab.net.delay.file"
	// maxDelay is the largest delay a delay fault sets (as docker.WithNetworkDelay's).
	maxDelay = control.MaxDelay
)

// delayTarget is a delay fault's target: the delay between supervisors A and B.
type delayTarget struct {
	A, B  string
	Delay time.Duration
}

// delayTargetSyntax is the target of a delay fault, for errors.
const delayTargetSyntax = "NODE_A-NODE_B=DELAY, e.g. delay@30s+20s:sup1-sup2=50ms"

// parseDelayTarget reads a delay fault's target. With hosts (the cluster's supervisors) both nodes must
// be two different ones of them, and a node name holding '-' is split where both halves are known;
// without hosts it splits at the first '-' and checks only the shape.
func parseDelayTarget(target string, hosts []string) (delayTarget, error) {
	nodes, d, ok := strings.Cut(target, "=")
	if !ok {
		return delayTarget{}, fmt.Errorf("delay target %q has no =DELAY", target)
	}
	var t delayTarget
	var err error
	if t.Delay, err = time.ParseDuration(d); err != nil {
		return delayTarget{}, fmt.Errorf("delay target %q: DELAY %q is not a duration", target, d)
	}
	if t.Delay < 0 || t.Delay > maxDelay || t.Delay%time.Millisecond != 0 {
		return delayTarget{}, fmt.Errorf("delay target %q: DELAY %s must be whole milliseconds in [0, %s]", target, t.Delay, maxDelay)
	}
	found := false
	for i := 0; i < len(nodes); i++ {
		if nodes[i] != '-' {
			continue
		}
		a, b := nodes[:i], nodes[i+1:]
		if hosts == nil || slices.Contains(hosts, a) && slices.Contains(hosts, b) {
			t.A, t.B, found = a, b, true
			break
		}
	}
	switch {
	case !found && !strings.Contains(nodes, "-"):
		return delayTarget{}, fmt.Errorf("delay target %q: no NODE_A-NODE_B", target)
	case !found:
		return delayTarget{}, fmt.Errorf("delay target %q: %q is not two supervisors of this cluster joined by '-' (supervisors: %s)", target, nodes, strings.Join(hosts, ", "))
	case t.A == "" || t.B == "":
		return delayTarget{}, fmt.Errorf("delay target %q: a node name is empty", target)
	case t.A == t.B:
		return delayTarget{}, fmt.Errorf("delay target %q: both nodes are %s; a delay is between two different supervisors", target, t.A)
	}
	return t, nil
}

// delayFaults are the delay faults among faults.
func delayFaults(faults []Fault) []Fault {
	var out []Fault
	for _, f := range faults {
		if f.Kind == Delay {
			out = append(out, f)
		}
	}
	return out
}

// delayTopologyArgs are the topology flags a run with a delay fault submits with: the delaying
// transport (also when the cluster has no fixed delay) reading delayFile. nil without delay faults, so
// fault-free runs keep Storm's own transport. They are topology conf entries (--conf of the stormlab
// topologies): a worker's conf is the supervisor's with the topology's on top.
func delayTopologyArgs(faults []Fault) []string {
	if len(delayFaults(faults)) == 0 {
		return nil
	}
	return []string{"--conf", "storm.messaging.transport=" + docker.DelayTransport, "--conf", delayFileConf + "=" + delayFile}
}

// Fault is one fault of a run, as data: Kind at At after the measurement window opened, undone
// Duration later. Faults live inside the window so that the throughput before each one (its pre-fault
// level) and after it (its recovery) are both measured.
type Fault struct {
	Kind     FaultKind     `json:"kind"`
	At       time.Duration `json:"at_ns"`
	Duration time.Duration `json:"duration_ns"`
	Target   string        `json:"target,omitempty"`
}

func (f Fault) String() string {
	s := fmt.Sprintf("%s@%s+%s", f.Kind, f.At, f.Duration)
	if f.Kind == cpuLoad || f.Kind == stragglerKill { // not window faults: no time
		s = string(f.Kind)
	}
	if f.Target != "" {
		s += ":" + f.Target
	}
	return s
}

// ParseFault reads one fault in FaultSyntax.
func ParseFault(s string) (Fault, error) {
	bad := func(why string) (Fault, error) {
		return Fault{}, fmt.Errorf("fault %q: %s; write %s", s, why, FaultSyntax)
	}
	kind, rest, ok := strings.Cut(s, "@")
	if !ok {
		return bad("no @AT")
	}
	f := Fault{Kind: FaultKind(kind)}
	if !slices.Contains(faultKinds(), f.Kind) {
		names := make([]string, 0, len(faultKinds()))
		for _, k := range faultKinds() {
			names = append(names, string(k))
		}
		return bad(fmt.Sprintf("unknown kind %q (known: %s)", kind, strings.Join(names, ", ")))
	}
	rest, f.Target, _ = strings.Cut(rest, ":")
	at, dur, ok := strings.Cut(rest, "+")
	if !ok {
		return bad("no +DURATION")
	}
	var err error
	if f.At, err = time.ParseDuration(at); err != nil {
		return bad(fmt.Sprintf("AT %q is not a duration", at))
	}
	if f.Duration, err = time.ParseDuration(dur); err != nil {
		return bad(fmt.Sprintf("DURATION %q is not a duration", dur))
	}
	if f.Kind == Delay {
		if _, err := parseDelayTarget(f.Target, nil); err != nil {
			return bad(err.Error())
		}
	}
	return f, nil
}

// ValidateFaults checks faults against a run before any cluster starts: known kinds, a target that is
// one of hosts exactly when the kind needs one, AT >= 0 and a positive duration that ends inside the
// window (measure), and never every supervisor killed at once.
func ValidateFaults(faults []Fault, hosts []string, measure time.Duration) error {
	var errs []error
	for _, f := range faults {
		switch {
		case !slices.Contains(faultKinds(), f.Kind):
			errs = append(errs, fmt.Errorf("fault %s: unknown kind %q", f, f.Kind))
			continue
		case f.Kind == Delay:
			if _, err := parseDelayTarget(f.Target, hosts); err != nil {
				errs = append(errs, fmt.Errorf("fault %s: %w; write %s", f, err, delayTargetSyntax))
			}
		case f.Kind.needsTarget() && !slices.Contains(hosts, f.Target):
			errs = append(errs, fmt.Errorf("fault %s: target %q is not a supervisor of this cluster (supervisors: %s)", f, f.Target, strings.Join(hosts, ", ")))
		case !f.Kind.needsTarget() && f.Target != "":
			errs = append(errs, fmt.Errorf("fault %s: %s takes no target; drop %q", f, f.Kind, ":"+f.Target))
		}
		if f.At < 0 || f.Duration <= 0 {
			errs = append(errs, fmt.Errorf("fault %s: AT must be >= 0 and DURATION > 0", f))
		} else if f.At+f.Duration > measure {
			errs = append(errs, fmt.Errorf("fault %s: ends at %s, after the %s measurement window; start it earlier, shorten it or lengthen the window", f, f.At+f.Duration, measure))
		}
	}
	// Two delays on one node at once: its delay file holds one state, so the first undo would end both.
	ds := delayFaults(faults)
	for i, f := range ds {
		ft, err := parseDelayTarget(f.Target, hosts)
		if err != nil {
			continue
		}
		for _, g := range ds[i+1:] {
			gt, err := parseDelayTarget(g.Target, hosts)
			if err != nil || !(f.At < g.At+g.Duration && g.At < f.At+f.Duration) {
				continue
			}
			if ft.A == gt.A || ft.A == gt.B || ft.B == gt.A || ft.B == gt.B {
				errs = append(errs, fmt.Errorf("fault %s overlaps %s on a node they share; one delay per node at a time: move one of them", f, g))
			}
		}
	}
	// Every supervisor down at one moment: a kill's start is the moment the most kills overlap.
	for _, f := range faults {
		if f.Kind != KillSupervisor {
			continue
		}
		down := map[string]bool{}
		for _, g := range faults {
			if g.Kind == KillSupervisor && g.At <= f.At && f.At < g.At+g.Duration {
				down[g.Target] = true
			}
		}
		if len(hosts) > 0 && len(down) >= len(hosts) {
			errs = append(errs, fmt.Errorf("fault %s: kills the last running supervisor (all %d down at %s); keep one running", f, len(hosts), f.At))
			break
		}
	}
	return errors.Join(errs...)
}

// FaultRecord is one fault as it happened: when it started and ended (epoch ms) and how the topology
// recovered from it.
type FaultRecord struct {
	Fault
	StartMs  int64    `json:"start_ms"`
	EndMs    int64    `json:"end_ms"`
	Error    string   `json:"error,omitempty"`
	Recovery Recovery `json:"recovery"`
	// placement at the fault's start, for ExecutorsMoved.
	before []ExecutorPlace
}

// faulter is a cluster with a nemesis (nil when it has no control layer: a target without control).
type faulter interface {
	nemesis() *Nemesis
}

// injectFaults runs faults on r's cluster, each at window open + At, undone Duration later, and
// returns their records once all are undone (undo also runs when ctx ends). Before the scheduler
// service is stopped, its reports and state so far are kept in r (the service keeps them in memory).
func injectFaults(ctx context.Context, r *running, openMs int64) []FaultRecord {
	nem := nemesisOf(r.cl)
	recs := make([]FaultRecord, len(r.spec.Faults))
	done := make(chan struct{}, len(r.spec.Faults))
	for i, f := range r.spec.Faults {
		recs[i].Fault = f
		go func() {
			defer func() { done <- struct{}{} }()
			rec := &recs[i]
			if err := pause(ctx, time.Until(time.UnixMilli(openMs).Add(f.At))); err != nil {
				rec.Error = "not started: " + err.Error()
				return
			}
			if f.Kind == RestartService {
				r.keepServiceData(ctx)
			}
			if top, err := r.cl.UI().Topology(ctx, r.id); err == nil {
				rec.before = placesOf(top)
			}
			rec.StartMs = time.Now().UnixMilli()
			undo, err := nem.Inject(ctx, f)
			if err != nil {
				rec.Error = err.Error()
				rec.EndMs = time.Now().UnixMilli()
				return
			}
			werr := pause(ctx, f.Duration)
			uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
			defer cancel()
			if err := errors.Join(werr, undo(uctx)); err != nil {
				rec.Error = err.Error()
			}
			if f.Kind == RestartService || f.Kind == RestartZooKeeper {
				if rf, ok := r.cl.(interface{ refresh(context.Context) error }); ok {
					if err := rf.refresh(uctx); err != nil {
						rec.Error = errors.Join(errors.New(rec.Error), err).Error()
					}
				}
			}
			rec.EndMs = time.Now().UnixMilli()
		}()
	}
	for range r.spec.Faults {
		<-done
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].At < recs[j].At })
	return recs
}

// nemesisOf is cl's nemesis, or nil when it has none (then every fault is refused, naming the fix).
func nemesisOf(cl runCluster) *Nemesis {
	if f, ok := cl.(faulter); ok {
		return f.nemesis()
	}
	return nil
}
