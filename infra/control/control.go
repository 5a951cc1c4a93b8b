package control

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"time"
)

// Op is one operation a Control may offer.
type Op uint16

// The operations. Stop* stop a daemon (its undo starts it again).
const (
	OpExec           Op = 1 << iota // run a shell command on a host
	OpStopSupervisor                // stop a supervisor (its worker JVMs go with it) and start it again
	OpStopZooKeeper                 // stop ZooKeeper and start it again
	OpStopService                   // stop the scheduler service and start it again
	OpPause                         // SIGSTOP processes on a host, SIGCONT them again
	OpDelay                         // delay the traffic between two hosts, then restore it
	OpDrop                          // drop the traffic between two hosts, then heal it
	opEnd
)

var opNames = map[Op]string{
	OpExec: "exec", OpStopSupervisor: "stop-supervisor", OpStopZooKeeper: "stop-zookeeper",
	OpStopService: "stop-service", OpPause: "pause", OpDelay: "delay", OpDrop: "drop",
}

func (o Op) String() string {
	if n, ok := opNames[o]; ok {
		return n
	}
	return fmt.Sprintf("op(%d)", uint16(o))
}

// Ops is a set of operations: what a Control offers, or what a fault needs.
type Ops uint16

// Of is the set of ops.
func Of(ops ...Op) Ops {
	var s Ops
	for _, o := range ops {
		s |= Ops(o)
	}
	return s
}

// AllOps is every operation.
const AllOps = Ops(opEnd - 1)

// Has says whether o is in s.
func (s Ops) Has(o Op) bool { return s&Ops(o) != 0 }

// Missing lists the ops of need that s lacks, in Op order.
func (s Ops) Missing(need Ops) []Op { return (need &^ s).List() }

// List is s's ops in Op order.
func (s Ops) List() []Op {
	var out []Op
	for v := uint16(s); v != 0; v &= v - 1 {
		out = append(out, Op(1<<bits.TrailingZeros16(v)))
	}
	return out
}

func (s Ops) String() string {
	var names []string
	for _, o := range s.List() {
		names = append(names, o.String())
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Daemon is a long-running process a Control can stop and start.
type Daemon string

// The daemons.
const (
	Supervisor Daemon = "supervisor"
	ZooKeeper  Daemon = "zookeeper"
	Service    Daemon = "service"
)

// Op is the operation that stops d.
func (d Daemon) Op() Op {
	switch d {
	case Supervisor:
		return OpStopSupervisor
	case ZooKeeper:
		return OpStopZooKeeper
	case Service:
		return OpStopService
	}
	return 0
}

// Undo reverses what an operation did. It is safe to call with a context that outlives the caller's
// (callers pass context.WithoutCancel so a cancelled run still heals its cluster).
type Undo func(context.Context) error

// Control acts on a cluster's hosts. Hosts are named as Storm names them (a supervisor's
// storm.local.hostname); ZooKeeper and the service are found by the Control itself (host "").
type Control interface {
	// Name says which implementation this is ("docker", "ssh"), for messages.
	Name() string
	// Ops is the set of operations this Control offers on some host.
	Ops() Ops
	// Can returns nil when op can act on host, else an *UnsupportedError naming what is missing.
	Can(op Op, host string) error
	// Exec runs cmd with sh -c on host and returns its combined output; a non-zero exit is *ExitError.
	Exec(ctx context.Context, host, cmd string) (string, error)
	// Stop stops daemon d (on host, for a supervisor); the undo starts it again.
	Stop(ctx context.Context, d Daemon, host string) (Undo, error)
	// Pause stops (SIGSTOP) the processes on host whose command line matches pattern (pgrep -f) and
	// returns their pids; the undo resumes them (SIGCONT). No matching process is an error.
	Pause(ctx context.Context, host, pattern string) ([]string, Undo, error)
	// Delay delays the traffic between hosts a and b (both directions) by d; the undo restores it.
	Delay(ctx context.Context, a, b string, d time.Duration) (Undo, error)
	// Drop drops the traffic between hosts a and b (both directions); the undo heals it.
	Drop(ctx context.Context, a, b string) (Undo, error)
	// Close releases connections.
	Close() error
}

// UnsupportedError is an operation a Control cannot perform: Fix says what to add.
type UnsupportedError struct {
	Control string
	Op      Op
	Host    string
	Fix     string
}

func (e *UnsupportedError) Error() string {
	on := ""
	if e.Host != "" {
		on = " on " + e.Host
	}
	return fmt.Sprintf("the %s control cannot %s%s: %s", e.Control, e.Op, on, e.Fix)
}

// ExitError is a command that ran and exited non-zero.
type ExitError struct {
	Host, Cmd string
	Code      int
	Out       string
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("%s on %s: exit %d: %s", e.Cmd, e.Host, e.Code, strings.TrimSpace(e.Out))
}

// IsExit says whether err is a command's non-zero exit (as opposed to not reaching the host).
func IsExit(err error) bool {
	var x *ExitError
	return errors.As(err, &x)
}

// DelayFile is the file the delaying transport re-reads on a worker's host (lines "HOST MS": the delay
// of messages to HOST), at most every 100 ms. Delay writes it with write-and-rename, so a worker never
// reads half a file; its undo removes it, so the cluster's own delay applies again.
const DelayFile = "/tmp/stormlab-delay"

// MaxDelay is the largest delay Delay sets.
const MaxDelay = 10 * time.Second

// shellOps implements the operations that are shell commands on a host (pause, delay) once for every
// Control whose Exec runs a command there.
type shellOps struct {
	exec func(ctx context.Context, host, cmd string) (string, error)
}

// pause SIGSTOPs the processes matching pattern on host; the undo SIGCONTs the same pids.
func (s shellOps) pause(ctx context.Context, host, pattern string) ([]string, Undo, error) {
	pids, err := s.pids(ctx, host, pattern)
	if err != nil {
		return nil, nil, err
	}
	if len(pids) == 0 {
		return nil, nil, fmt.Errorf("pause on %s: no process matches %q", host, pattern)
	}
	list := strings.Join(pids, " ")
	if _, err := s.exec(ctx, host, "kill -STOP "+list); err != nil {
		return nil, nil, fmt.Errorf("pause: %w", err)
	}
	return pids, func(ctx context.Context) error {
		if _, err := s.exec(ctx, host, "kill -CONT "+list); err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		return nil
	}, nil
}

// pids lists the pids of the processes on host whose command line matches pattern. The pattern is
// quoted for the shell; pgrep's own shell never matches because pgrep excludes itself and the
// pattern is wrapped so the sh -c command line holding it does not match it ("[x]yz" matches "xyz").
func (s shellOps) pids(ctx context.Context, host, pattern string) ([]string, error) {
	if pattern == "" {
		return nil, errors.New("empty process pattern")
	}
	pat := "[" + pattern[:1] + "]" + pattern[1:]
	out, err := s.exec(ctx, host, "pgrep -f "+quote(pat)+"; true")
	if err != nil {
		return nil, fmt.Errorf("find processes matching %q on %s: %w", pattern, host, err)
	}
	return strings.Fields(out), nil
}

// delay writes DelayFile on both hosts (each names the other); the undo removes both files.
func (s shellOps) delay(ctx context.Context, a, b string, d time.Duration) (Undo, error) {
	if d < 0 || d > MaxDelay || d%time.Millisecond != 0 {
		return nil, fmt.Errorf("delay %s: give whole milliseconds in [0, %s]", d, MaxDelay)
	}
	if a == b {
		return nil, fmt.Errorf("delay between %s and itself: give two different hosts", a)
	}
	undo := func(ctx context.Context) error {
		var errs []error
		for _, h := range []string{a, b} {
			_, err := s.exec(ctx, h, "rm -f "+DelayFile)
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	}
	for _, p := range [][2]string{{a, b}, {b, a}} {
		script := fmt.Sprintf("printf '%%s %%d\\n' %s %d > %s.tmp && mv -f %s.tmp %s", quote(p[1]), d.Milliseconds(), DelayFile, DelayFile, DelayFile)
		if _, err := s.exec(ctx, p[0], script); err != nil {
			return nil, errors.Join(fmt.Errorf("delay: %w", err), undo(context.WithoutCancel(ctx)))
		}
	}
	return undo, nil
}

// quote single-quotes s for sh.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
