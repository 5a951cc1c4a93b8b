package fault

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/control"
)

// Kind names what a fault does to the run's cluster.
type Kind string

// The fault kinds (each acts at Fault.At for Fault.Duration, then is undone) and the syntax of a fault.
const (
	// Syntax is the --fault syntax, for help texts and errors.
	Syntax = "KIND@AT+DURATION[:ARG], e.g. kill-supervisor@30s+20s:sup1, restart-zookeeper@40s+10s, delay@30s+20s:sup1-sup2=50ms or straggler@10s+40s:sup1=80 (AT counts from the opening of the measurement window)"
	// KillSupervisor stops a supervisor's container (its worker JVMs die with it) and starts it again
	// after the duration. ARG: the supervisor's hostname.
	KillSupervisor Kind = "kill-supervisor"
	// PauseWorker stops every worker JVM on a supervisor with SIGSTOP and resumes them with SIGCONT.
	// ARG: the supervisor's hostname.
	PauseWorker Kind = "pause-worker"
	// RestartZooKeeper stops the ZooKeeper container and starts it again after the duration.
	RestartZooKeeper Kind = "restart-zookeeper"
	// RestartService stops the scheduler service's container and starts it again after the duration.
	RestartService Kind = "restart-service"
	// Delay sets the emulated network delay between two supervisors (both directions) for the duration,
	// then restores the cluster's own (WithNetworkDelay, usually none). ARG: NODE_A-NODE_B=DELAY,
	// e.g. sup1-sup2=50ms (whole milliseconds, at most 10s). The harness says how (its delayFile).
	Delay Kind = "delay"
	// Straggler makes one supervisor slow: background CPU load of PERCENT of its CPU for the duration,
	// from a burner topology that the bridge pins to it. ARG: HOST=PERCENT, e.g. sup1=80. The burner
	// runs idle from before the run's topology is submitted (it holds one worker slot of HOST) and the
	// fault switches it on and off through the scheduler service; it needs no control layer.
	Straggler Kind = "straggler"

	// CPULoad is background CPU load on every supervisor (ARG: the percent of each one's CPU, e.g.
	// "50"); its undo stops it. Not a --fault kind: experiments inject it around whole runs (Load).
	CPULoad Kind = "cpu-load"
	// KillStragglers SIGKILLs the worker JVMs left on any supervisor after their topology is gone;
	// nothing to undo. Not a --fault kind: the session injects it while waiting for an idle cluster.
	KillStragglers Kind = "kill-stragglers"
)

// Needs is the set of control operations a fault of kind k needs (on the hosts it acts on).
func (k Kind) Needs() control.Ops {
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
	case Straggler:
		return 0 // a burner topology: Storm does it
	case KillStragglers:
		return control.Of(control.OpExec)
	case CPULoad: // burner topologies: Storm does it, the hosts are not touched
		return 0
	}
	return 0
}

// HostsOf are the hosts f acts on, for its capability check: its supervisor, both nodes of a
// delay, every supervisor (of all) for load and stragglers, none for ZooKeeper and the service.
func (f Fault) HostsOf(all []string) []string {
	switch f.Kind {
	case KillSupervisor, PauseWorker:
		return []string{f.Arg}
	case Delay:
		if t, err := ParseDelayArg(f.Arg, nil); err == nil {
			return []string{t.A, t.B}
		}
		return nil
	case Straggler:
		if t, err := ParseStragglerArg(f.Arg, nil); err == nil {
			return []string{t.Host}
		}
		return nil
	case CPULoad, KillStragglers:
		return all
	}
	return []string{""}
}

// Kinds lists the kinds a Fault can have.
func Kinds() []Kind {
	return []Kind{KillSupervisor, PauseWorker, RestartZooKeeper, RestartService, Delay, Straggler}
}

// needsNode says whether a kind acts on one supervisor.
func (k Kind) needsNode() bool { return k == KillSupervisor || k == PauseWorker }

// DelayArg is a delay fault's argument: the delay between supervisors A and B.
type DelayArg struct {
	A, B  string
	Delay time.Duration
}

// delayArgSyntax is the argument of a delay fault, for errors.
const delayArgSyntax = "NODE_A-NODE_B=DELAY, e.g. delay@30s+20s:sup1-sup2=50ms"

// ParseDelayArg reads a delay fault's argument. With hosts (the cluster's supervisors) both nodes must
// be two different ones of them, and a node name holding '-' is split where both halves are known;
// without hosts it splits at the first '-' and checks only the shape.
func ParseDelayArg(arg string, hosts []string) (DelayArg, error) {
	nodes, d, ok := strings.Cut(arg, "=")
	if !ok {
		return DelayArg{}, fmt.Errorf("delay %q has no =DELAY", arg)
	}
	var t DelayArg
	var err error
	if t.Delay, err = time.ParseDuration(d); err != nil {
		return DelayArg{}, fmt.Errorf("delay %q: DELAY %q is not a duration", arg, d)
	}
	if t.Delay < 0 || t.Delay > control.MaxDelay || t.Delay%time.Millisecond != 0 {
		return DelayArg{}, fmt.Errorf("delay %q: DELAY %s must be whole milliseconds in [0, %s]", arg, t.Delay, control.MaxDelay)
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
		return DelayArg{}, fmt.Errorf("delay %q: no NODE_A-NODE_B", arg)
	case !found:
		return DelayArg{}, fmt.Errorf("delay %q: %q is not two supervisors of this cluster joined by '-' (supervisors: %s)", arg, nodes, strings.Join(hosts, ", "))
	case t.A == "" || t.B == "":
		return DelayArg{}, fmt.Errorf("delay %q: a node name is empty", arg)
	case t.A == t.B:
		return DelayArg{}, fmt.Errorf("delay %q: both nodes are %s; a delay is between two different supervisors", arg, t.A)
	}
	return t, nil
}

// StragglerArg is a straggler fault's argument: Percent of Host's CPU as background load.
type StragglerArg struct {
	Host    string
	Percent float64
}

// stragglerArgSyntax is the argument of a straggler fault, for errors.
const stragglerArgSyntax = "HOST=PERCENT, e.g. straggler@10s+40s:sup1=80"

// ParseStragglerArg reads a straggler fault's argument. With hosts (the cluster's supervisors) the
// host must be one of them; without, only the shape is checked.
func ParseStragglerArg(arg string, hosts []string) (StragglerArg, error) {
	host, p, ok := strings.Cut(arg, "=")
	if !ok || host == "" {
		return StragglerArg{}, fmt.Errorf("straggler %q is not HOST=PERCENT", arg)
	}
	percent, err := strconv.ParseFloat(p, 64)
	if err != nil || !(percent > 0 && percent <= 100) {
		return StragglerArg{}, fmt.Errorf("straggler %q: PERCENT %q must be a number in (0, 100]", arg, p)
	}
	if hosts != nil && !slices.Contains(hosts, host) {
		return StragglerArg{}, fmt.Errorf("straggler %q: %q is not a supervisor of this cluster (supervisors: %s)", arg, host, strings.Join(hosts, ", "))
	}
	return StragglerArg{Host: host, Percent: percent}, nil
}

// hostOf is a straggler fault's host ("" when its argument is malformed).
func hostOf(f Fault) string {
	t, _ := ParseStragglerArg(f.Arg, nil)
	return t.Host
}

// Delays are the delay faults among faults.
func Delays(faults []Fault) []Fault {
	var out []Fault
	for _, f := range faults {
		if f.Kind == Delay {
			out = append(out, f)
		}
	}
	return out
}

// Fault is one fault of a run, as data: Kind at At after the measurement window opened, undone
// Duration later. Faults live inside the window so that the throughput before each one (its pre-fault
// level) and after it (its recovery) are both measured.
type Fault struct {
	Kind     Kind          `json:"kind"`
	At       time.Duration `json:"at_ns"`
	Duration time.Duration `json:"duration_ns"`
	Arg      string        `json:"target,omitempty"` // what it acts on (ARG of the syntax); the stored key keeps its former name
}

func (f Fault) String() string {
	s := fmt.Sprintf("%s@%s+%s", f.Kind, f.At, f.Duration)
	if f.Kind == CPULoad || f.Kind == KillStragglers { // not window faults: no time
		s = string(f.Kind)
	}
	if f.Arg != "" {
		s += ":" + f.Arg
	}
	return s
}

// Parse reads one fault in Syntax.
func Parse(s string) (Fault, error) {
	bad := func(why string) (Fault, error) {
		return Fault{}, fmt.Errorf("fault %q: %s; write %s", s, why, Syntax)
	}
	kind, rest, ok := strings.Cut(s, "@")
	if !ok {
		return bad("no @AT")
	}
	f := Fault{Kind: Kind(kind)}
	if !slices.Contains(Kinds(), f.Kind) {
		names := make([]string, 0, len(Kinds()))
		for _, k := range Kinds() {
			names = append(names, string(k))
		}
		return bad(fmt.Sprintf("unknown kind %q (known: %s)", kind, strings.Join(names, ", ")))
	}
	rest, f.Arg, _ = strings.Cut(rest, ":")
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
		if _, err := ParseDelayArg(f.Arg, nil); err != nil {
			return bad(err.Error())
		}
	}
	if f.Kind == Straggler {
		if _, err := ParseStragglerArg(f.Arg, nil); err != nil {
			return bad(err.Error())
		}
	}
	return f, nil
}

// Validate checks faults against a run before any cluster starts: known kinds, an argument that is
// one of hosts exactly when the kind needs one, AT >= 0 and a positive duration that ends inside the
// window (measure), and never every supervisor killed at once.
func Validate(faults []Fault, hosts []string, measure time.Duration) error {
	var errs []error
	for _, f := range faults {
		switch {
		case !slices.Contains(Kinds(), f.Kind):
			errs = append(errs, fmt.Errorf("fault %s: unknown kind %q", f, f.Kind))
			continue
		case f.Kind == Delay:
			if _, err := ParseDelayArg(f.Arg, hosts); err != nil {
				errs = append(errs, fmt.Errorf("fault %s: %w; write %s", f, err, delayArgSyntax))
			}
		case f.Kind == Straggler:
			if _, err := ParseStragglerArg(f.Arg, hosts); err != nil {
				errs = append(errs, fmt.Errorf("fault %s: %w; write %s", f, err, stragglerArgSyntax))
			}
		case f.Kind.needsNode() && !slices.Contains(hosts, f.Arg):
			errs = append(errs, fmt.Errorf("fault %s: node %q is not a supervisor of this cluster (supervisors: %s)", f, f.Arg, strings.Join(hosts, ", ")))
		case !f.Kind.needsNode() && f.Arg != "":
			errs = append(errs, fmt.Errorf("fault %s: %s takes no argument; drop %q", f, f.Kind, ":"+f.Arg))
		}
		if f.At < 0 || f.Duration <= 0 {
			errs = append(errs, fmt.Errorf("fault %s: AT must be >= 0 and DURATION > 0", f))
		} else if f.At+f.Duration > measure {
			errs = append(errs, fmt.Errorf("fault %s: ends at %s, after the %s measurement window; start it earlier, shorten it or lengthen the window", f, f.At+f.Duration, measure))
		}
	}
	// Two delays on one node at once: its delay file holds one state, so the first undo would end both.
	ds := Delays(faults)
	for i, f := range ds {
		ft, err := ParseDelayArg(f.Arg, hosts)
		if err != nil {
			continue
		}
		for _, g := range ds[i+1:] {
			gt, err := ParseDelayArg(g.Arg, hosts)
			if err != nil || !(f.At < g.At+g.Duration && g.At < f.At+f.Duration) {
				continue
			}
			if ft.A == gt.A || ft.A == gt.B || ft.B == gt.A || ft.B == gt.B {
				errs = append(errs, fmt.Errorf("fault %s overlaps %s on a node they share; one delay per node at a time: move one of them", f, g))
			}
		}
	}
	// Two stragglers on one host at once: one burner per host and kind.
	for i, f := range faults {
		if f.Kind != Straggler {
			continue
		}
		for _, g := range faults[i+1:] {
			if g.Kind == Straggler && hostOf(f) == hostOf(g) && f.At < g.At+g.Duration && g.At < f.At+f.Duration {
				errs = append(errs, fmt.Errorf("fault %s overlaps %s on one host: give it the sum of both percents instead", f, g))
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
				down[g.Arg] = true
			}
		}
		if len(hosts) > 0 && len(down) >= len(hosts) {
			errs = append(errs, fmt.Errorf("fault %s: kills the last running supervisor (all %d down at %s); keep one running", f, len(hosts), f.At))
			break
		}
	}
	return errors.Join(errs...)
}

// Load is background CPU load of percent of each supervisor's CPU, around a whole run (Nemesis.Inject).
func Load(percent float64) Fault {
	return Fault{Kind: CPULoad, Arg: strconv.FormatFloat(percent, 'g', -1, 64)}
}
