package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Background CPU load in the supervisor containers, for the deadline
// paper's runs "under CPU usage 20/50/80%" (002_39f4f6839cbfd73d.txt
// Figs. 7-8).
//
// Definition: a load of L percent on a supervisor with a quota of Q cores
// offers L/100*Q core-seconds of busy looping per second, i.e. L percent of
// that supervisor's CPU quota. It runs as n = ceil(L/100*Q) shell loops,
// each busy for d = L/100*Q/n of every 100 ms period (timeout-bounded busy
// loop, then sleep). It is an offered load: when the workers of a run need
// the rest of the quota, CFS shares the quota between them and the loops,
// which is what the paper's "CPU usage" setting does to the tasks. The
// loops run in their own session inside the container; StopBackgroundLoad
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

// StartBackgroundLoad starts a load of percent (0-100) of each supervisor's
// CPU quota in every supervisor of the session. 0 does nothing. It first
// waits until the previous run's topology and workers are gone, so the
// load does not slow down their shutdown.
func (s *Session) StartBackgroundLoad(ctx context.Context, percent float64) error {
	if percent < 0 || percent > 100 {
		return fmt.Errorf("background load %.0f%% out of range [0, 100]", percent)
	}
	if percent == 0 {
		return nil
	}
	if s.runs > 0 {
		if err := s.WaitIdle(ctx, 2*time.Minute); err != nil {
			return fmt.Errorf("before background load: %w", err)
		}
	}
	for _, sup := range s.c.Supervisors() {
		cores := percent / 100 * sup.Spec.CPUs
		n := int(math.Ceil(cores))
		busyMs := int(math.Round(cores / float64(n) * loadPeriodMs))
		for i := 0; i < n; i++ {
			code, out, err := s.c.Exec(ctx, sup.Host(), "sh", "-c", loadScript(busyMs))
			if err != nil || code != 0 {
				return errors.Join(err, fmt.Errorf("start background load on %s: exit %d: %s", sup.Host(), code, out))
			}
		}
	}
	return nil
}

// StopBackgroundLoad kills every load loop started in the session's
// supervisors (by process group: "kill -TERM -PGID"; dash, the image's
// sh, rejects "kill -- -PGID").
func (s *Session) StopBackgroundLoad(ctx context.Context) error {
	var errs []error
	script := fmt.Sprintf(`[ -f %[1]s ] || exit 0; for p in $(cat %[1]s); do kill -TERM -$p 2>/dev/null; done; rm -f %[1]s`, loadPidFile)
	for _, h := range s.Hosts() {
		if code, out, err := s.c.Exec(context.WithoutCancel(ctx), h, "sh", "-c", script); err != nil || code != 0 {
			errs = append(errs, errors.Join(err, fmt.Errorf("stop background load on %s: exit %d: %s", h, code, out)))
		}
	}
	return errors.Join(errs...)
}
