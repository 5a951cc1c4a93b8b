package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/docker"
)

// Nemesis disturbs a session's cluster on purpose (Jepsen's word): background CPU load in the
// supervisors and killing straggling worker JVMs; faults (killing and pausing containers, restarting
// ZooKeeper or the scheduler service, changing the emulated delay) belong here too. It acts only on
// the session's own containers.
type Nemesis struct {
	c      *docker.Cluster
	logf   func(string, ...any)
	before func(context.Context) error // waits until the previous run is gone
}

// Background CPU load in the supervisor containers, for the runs "under CPU usage 20/50/80%" of Choi,
// Jeon, Lim, Bok and Yoo, "Dynamic Task Scheduling Scheme for Processing Real-Time Stream Data in Storm
// Environments" (2021), Figs. 7-8.
//
// Definition: a load of L percent on a supervisor with a quota of Q cores
// offers L/100*Q core-seconds of busy looping per second, i.e. L percent of
// that supervisor's CPU quota. It runs as n = ceil(L/100*Q) shell loops,
// each busy for d = L/100*Q/n of every 100 ms period (timeout-bounded busy
// loop, then sleep). It is an offered load: when the workers of a run need
// the rest of the quota, CFS shares the quota between them and the loops,
// which is what the paper's "CPU usage" setting does to the tasks. The
// loops run in their own session inside the container; StopLoad
// kills that process group (and tearing the container down ends it too).

const loadPidFile = "/tmp/stormlab-load.pids"

// loadPeriodMs is the duty-cycle period of the load loops.
const loadPeriodMs = 100

// loadScript returns the shell command that starts one duty-cycled loop
// busy busyMs of every loadPeriodMs.
func loadScript(busyMs int) string {
	idle := loadPeriodMs - busyMs
	loop := fmt.Sprintf(`while :; do timeout %.3f sh -c 'while :; do :; done'; sleep %.3f; done`, float64(busyMs)/1000, float64(idle)/1000)
	if idle <= 0 {
		loop = `while :; do :; done`
	}
	// setsid: the loop leads its own process group so one kill ends it and
	// its children; all descriptors closed so the exec returns at once.
	return fmt.Sprintf(`setsid sh -c "echo \$\$ >> %s; %s" </dev/null >/dev/null 2>&1 &`, loadPidFile, strings.ReplaceAll(loop, `"`, `\"`))
}

// StartLoad starts a load of percent (0-100) of each supervisor's CPU quota in every supervisor. 0
// does nothing. It first waits until the previous run's topology and workers are gone, so the load
// does not slow down their shutdown.
func (n *Nemesis) StartLoad(ctx context.Context, percent float64) error {
	if percent < 0 || percent > 100 {
		return fmt.Errorf("background load %.0f%% out of range [0, 100]", percent)
	}
	if percent == 0 {
		return nil
	}
	if n.before != nil {
		if err := n.before(ctx); err != nil {
			return fmt.Errorf("before background load: %w", err)
		}
	}
	for _, sup := range n.c.Supervisors() {
		cores := percent / 100 * sup.Spec.CPUs
		k := int(math.Ceil(cores))
		busyMs := int(math.Round(cores / float64(k) * loadPeriodMs))
		for i := 0; i < k; i++ {
			code, out, err := n.c.Exec(ctx, sup.Host(), "sh", "-c", loadScript(busyMs))
			if err != nil {
				return fmt.Errorf("start background load on %s: %w", sup.Host(), err)
			}
			if code != 0 {
				return fmt.Errorf("start background load on %s: exit %d: %s", sup.Host(), code, out)
			}
		}
	}
	return nil
}

// StopLoad kills every load loop started in the supervisors (by process group: "kill -TERM -PGID";
// dash, the image's sh, rejects "kill -- -PGID").
func (n *Nemesis) StopLoad(ctx context.Context) error {
	var errs []error
	script := fmt.Sprintf(`[ -f %[1]s ] || exit 0; for p in $(cat %[1]s); do kill -TERM -$p 2>/dev/null; done; rm -f %[1]s`, loadPidFile)
	for _, sup := range n.c.Supervisors() {
		h := sup.Host()
		code, out, err := n.c.Exec(context.WithoutCancel(ctx), h, "sh", "-c", script)
		if err != nil {
			errs = append(errs, fmt.Errorf("stop background load on %s: %w", h, err))
		} else if code != 0 {
			errs = append(errs, fmt.Errorf("stop background load on %s: exit %d: %s", h, code, out))
		}
	}
	return errors.Join(errs...)
}

// workerProbe prints the pids of Storm worker JVMs (pgrep from procps: one process, cheap even on a
// 0.25-core container under background load). The bracket keeps the probe's own shell, whose command
// line holds the pattern, from matching.
const workerProbe = `pgrep -f '[o]rg.apache.storm.daemon.worker.Worker'; true`

// stragglerGrace is how long waitIdle lets a worker JVM outlive its topology before killing it.
const stragglerGrace = 30 * time.Second

func (n *Nemesis) workerPids(ctx context.Context, host string) ([]string, error) {
	code, out, err := n.c.Exec(ctx, host, "sh", "-c", workerProbe)
	if err != nil {
		return nil, fmt.Errorf("probe worker JVMs on %s: %w", host, err)
	}
	if code != 0 {
		return nil, fmt.Errorf("probe worker JVMs on %s: exit %d: %s", host, code, out)
	}
	return strings.Fields(out), nil
}

// killStragglers kills (SIGKILL, by pid) the worker JVMs left on any supervisor after their
// topology is gone.
func (n *Nemesis) killStragglers(ctx context.Context) error {
	var errs []error
	for _, sup := range n.c.Supervisors() {
		h := sup.Host()
		pids, err := n.workerPids(ctx, h)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(pids) == 0 {
			continue
		}
		n.logf("cluster %s: killing worker JVMs left on %s after their topology ended: pids %s", n.c.ID, h, strings.Join(pids, ","))
		if code, out, err := n.c.Exec(ctx, h, append([]string{"kill", "-9"}, pids...)...); err != nil {
			errs = append(errs, fmt.Errorf("kill stragglers on %s: %w", h, err))
		} else if code != 0 {
			// A straggler may have exited between probe and kill: not an error worth failing on, but
			// said.
			n.logf("cluster %s: kill -9 %s on %s: exit %d: %s", n.c.ID, strings.Join(pids, " "), h, code, strings.TrimSpace(out))
		}
	}
	return errors.Join(errs...)
}
