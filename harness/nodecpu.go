package harness

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/protocol"
)

// cpuUsageCmd prints a container's CPU time in ns: cgroup v1 cpuacct, or
// v2 cpu.stat. It counts every process of the container (the supervisor,
// its workers, background load).
const cpuUsageCmd = `cat /sys/fs/cgroup/cpuacct/cpuacct.usage 2>/dev/null || cat /sys/fs/cgroup/cpu,cpuacct/cpuacct.usage 2>/dev/null || awk '/^usage_usec/{printf "%d\n", $2*1000}' /sys/fs/cgroup/cpu.stat`

// StartNodeCPUReports samples each supervisor container's whole CPU use
// (cgroup CPU time over every period) and posts it to the scheduler
// service as a protocol.NodeReport, where it becomes the load table's
// CPU_use: the node's own usage, background load included, which the
// workers' process CPU cannot see. The returned stop ends the sampling and
// reports the first error met (nil when every sample went through).
func (s *Session) StartNodeCPUReports(ctx context.Context, every time.Duration) (stop func() error, err error) {
	return startNodeCPUReports(ctx, s.nemesis.Control(), s.hosts(), *s.dc.svc, every)
}

// StartNodeCPUReports samples each supervisor host's whole CPU use through the target's control layer
// (control.ssh: the same cgroup read, which on a host outside a container is its root cgroup: the whole
// machine) and posts it to the target's service, as on containers. A target without a control layer
// that runs commands on every supervisor is refused, naming the key to add.
func (t *targetSession) StartNodeCPUReports(ctx context.Context, every time.Duration) (stop func() error, err error) {
	n := t.tc.nem
	if n == nil || n.Control() == nil {
		return nil, fmt.Errorf("whole-node CPU reports: %w", ErrNoControl)
	}
	hosts := n.Hosts()
	for _, h := range hosts {
		if err := n.Control().Can(control.OpExec, h); err != nil {
			return nil, fmt.Errorf("whole-node CPU reports: %w", err)
		}
	}
	return startNodeCPUReports(ctx, n.Control(), hosts, *t.tc.svc, every)
}

// startNodeCPUReports reads cpuUsageCmd on every host through ctl each period and posts the CPU used
// over the period to svc (a copy: the sampling keeps the address it started with).
func startNodeCPUReports(ctx context.Context, ctl control.Control, hosts []string, svc serviceClient, every time.Duration) (stop func() error, err error) {
	if every <= 0 {
		every = 2 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil && ctx.Err() == nil {
			first = err
		}
	}
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prev int64
			var prevAt time.Time
			for {
				out, err := ctl.Exec(ctx, h, cpuUsageCmd)
				now := time.Now()
				ns, perr := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
				switch {
				case ctx.Err() != nil:
					return
				case err != nil || perr != nil:
					fail(errors.Join(err, perr, fmt.Errorf("node CPU of %s: output %q", h, out)))
				default:
					if !prevAt.IsZero() && ns >= prev {
						dt := now.Sub(prevAt).Seconds()
						rep := protocol.NodeReport{Host: h, TimeMs: now.UnixMilli(), IntervalS: dt, CPUPercent: float64(ns-prev) / (dt * 1e9) * 100}
						if err := svc.post(ctx, protocol.PathNodes, rep); err != nil {
							fail(fmt.Errorf("node CPU of %s: %w", h, err))
						}
					}
					prev, prevAt = ns, now
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(every):
				}
			}
		}()
	}
	return func() error {
		cancel()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return first
	}, nil
}
