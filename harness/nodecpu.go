package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/stormlab/stormlab/harness/nemesis"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/protocol"
)

// StartNodeCPUReports samples each supervisor container's whole CPU use (cgroup CPU time over every period)
// and posts it to the scheduler service as a protocol.NodeReport, where it becomes the load table's CPU_use:
// the node's own usage, background load included, which the workers' process CPU cannot see. The returned
// stop ends the sampling and reports the first error met (nil when every sample went through).
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

// startNodeCPUReports samples hosts' whole CPU through ctl (nemesis.StartNodeCPU) and posts it to svc
// (a copy: the sampling keeps the address it started with).
func startNodeCPUReports(ctx context.Context, ctl control.Control, hosts []string, svc serviceClient, every time.Duration) (stop func() error, err error) {
	post := func(ctx context.Context, rep protocol.NodeReport) error {
		return svc.post(ctx, protocol.PathNodes, rep)
	}
	return nemesis.StartNodeCPU(ctx, ctl, hosts, post, every)
}
