package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/docker"
)

// FaultKind names what a fault does to the run's own cluster.
type FaultKind string

// The fault kinds. Each acts at Fault.At for Fault.Duration, then is undone.
const (
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
)

// FaultKinds lists the kinds a Fault can have.
func FaultKinds() []FaultKind {
	return []FaultKind{KillSupervisor, PauseWorker, RestartZooKeeper, RestartService}
}

// needsTarget says whether a kind acts on one supervisor.
func (k FaultKind) needsTarget() bool { return k == KillSupervisor || k == PauseWorker }

// Fault is one fault of a run, as data: Kind at At after the measurement window opened, undone
// Duration later. Faults live inside the window so that the throughput before each one (its pre-fault
// level) and after it (its recovery) are both measured.
type Fault struct {
	Kind     FaultKind     `json:"kind"`
	At       time.Duration `json:"at_ns"`
	Duration time.Duration `json:"duration_ns"`
	Target   string        `json:"target,omitempty"`
}

// FaultSyntax is the --fault syntax, for help texts and errors.
const FaultSyntax = "KIND@AT+DURATION[:TARGET], e.g. kill-supervisor@30s+20s:sup1 or restart-zookeeper@40s+10s (AT counts from the opening of the measurement window)"

func (f Fault) String() string {
	s := fmt.Sprintf("%s@%s+%s", f.Kind, f.At, f.Duration)
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
	if !slices.Contains(FaultKinds(), f.Kind) {
		names := make([]string, 0, len(FaultKinds()))
		for _, k := range FaultKinds() {
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
	return f, nil
}

// ValidateFaults checks faults against a run before any cluster starts: known kinds, a target that is
// one of hosts exactly when the kind needs one, AT >= 0 and a positive duration that ends inside the
// window (measure), and never every supervisor killed at once.
func ValidateFaults(faults []Fault, hosts []string, measure time.Duration) error {
	var errs []error
	for _, f := range faults {
		switch {
		case !slices.Contains(FaultKinds(), f.Kind):
			errs = append(errs, fmt.Errorf("fault %s: unknown kind %q", f, f.Kind))
			continue
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

// Faulter is a Cluster that can inject faults into itself (the docker cluster does, through its
// Nemesis). Inject starts f and returns how to undo it.
type Faulter interface {
	Inject(ctx context.Context, f Fault) (undo func(context.Context) error, err error)
}

// Inject starts f on the session's own containers and returns its undo.
func (n *Nemesis) Inject(ctx context.Context, f Fault) (func(context.Context) error, error) {
	switch f.Kind {
	case KillSupervisor:
		return n.stopContainer(ctx, f.Target)
	case RestartZooKeeper:
		return n.stopContainer(ctx, docker.RoleZooKeeper)
	case RestartService:
		return n.stopContainer(ctx, docker.RoleService)
	case PauseWorker:
		pids, err := n.workerPids(ctx, f.Target)
		if err != nil {
			return nil, err
		}
		if len(pids) == 0 {
			return nil, fmt.Errorf("pause-worker: no worker JVM runs on %s", f.Target)
		}
		if err := n.signal(ctx, f.Target, "-STOP", pids); err != nil {
			return nil, err
		}
		n.logf("cluster %s: fault %s: SIGSTOP worker JVMs %s", n.c.ID, f, strings.Join(pids, ","))
		return func(ctx context.Context) error { return n.signal(ctx, f.Target, "-CONT", pids) }, nil
	}
	return nil, fmt.Errorf("fault %s: unknown kind", f)
}

func (n *Nemesis) signal(ctx context.Context, host, sig string, pids []string) error {
	code, out, err := n.c.Exec(ctx, host, append([]string{"kill", sig}, pids...)...)
	if err != nil {
		return fmt.Errorf("kill %s on %s: %w", sig, host, err)
	}
	if code != 0 {
		return fmt.Errorf("kill %s %s on %s: exit %d: %s", sig, strings.Join(pids, " "), host, code, strings.TrimSpace(out))
	}
	return nil
}

// stopContainer stops the container of role (a role or a supervisor's hostname); the undo starts it
// again (same container: its files, network alias and configuration stay; a published port may get
// another host port, see dockerCluster.refresh).
func (n *Nemesis) stopContainer(ctx context.Context, role string) (func(context.Context) error, error) {
	ctr := n.c.Container(role)
	if ctr == nil {
		return nil, fmt.Errorf("no %s container in cluster %s", role, n.c.ID)
	}
	grace := 2 * time.Second
	if err := ctr.Stop(ctx, &grace); err != nil {
		return nil, fmt.Errorf("stop %s: %w", role, err)
	}
	n.logf("cluster %s: fault: stopped %s", n.c.ID, role)
	return func(ctx context.Context) error {
		if err := ctr.Start(ctx); err != nil {
			return fmt.Errorf("start %s again: %w", role, err)
		}
		n.logf("cluster %s: fault: started %s again", n.c.ID, role)
		return nil
	}, nil
}

// injectFaults runs faults on r's cluster, each at window open + At, undone Duration later, and
// returns their records once all are undone (undo also runs when ctx ends). Before the scheduler
// service is stopped, its reports and state so far are kept in r (the service keeps them in memory).
func injectFaults(ctx context.Context, r *running, openMs int64) []FaultRecord {
	fl, _ := r.cl.(Faulter)
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
			undo, err := fl.Inject(ctx, f)
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
