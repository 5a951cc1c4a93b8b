package control

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/stormlab/stormlab/infra/docker"
)

// Docker controls the harness's own containerized cluster: commands through docker exec, daemons by
// stopping and starting their containers (same container: its files, network alias and configuration
// stay; a published port may get another host port, which the caller reads again).
type Docker struct {
	c *docker.Cluster
	shellOps
}

// NewDocker is the control of cluster c.
func NewDocker(c *docker.Cluster) *Docker {
	d := &Docker{c: c}
	d.shellOps = shellOps{exec: d.Exec}
	return d
}

// Name is "docker".
func (d *Docker) Name() string { return "docker" }

// Ops is every operation but drop (see the package doc).
func (d *Docker) Ops() Ops { return AllOps &^ Of(OpDrop) }

// Can checks op and, for an op acting on one host, that host is one of the cluster's supervisors.
func (d *Docker) Can(op Op, host string) error {
	if !d.Ops().Has(op) {
		return &UnsupportedError{Control: d.Name(), Op: op, Host: host,
			Fix: "the containers here get no NET_ADMIN capability to filter packets; run drop faults on a target whose control.ssh.commands.drop is set"}
	}
	if host == "" || op == OpStopZooKeeper || op == OpStopService {
		return nil
	}
	var hosts []string
	for _, s := range d.c.Supervisors() {
		hosts = append(hosts, s.Host())
	}
	if !slices.Contains(hosts, host) {
		return &UnsupportedError{Control: d.Name(), Op: op, Host: host, Fix: fmt.Sprintf("not a container of cluster %s (supervisors: %v)", d.c.ID, hosts)}
	}
	return nil
}

// Exec runs cmd with sh -c in host's container.
func (d *Docker) Exec(ctx context.Context, host, cmd string) (string, error) {
	code, out, err := d.c.Exec(ctx, host, "sh", "-c", cmd)
	if err != nil {
		return out, fmt.Errorf("%s on %s: %w", cmd, host, err)
	}
	if code != 0 {
		return out, &ExitError{Host: host, Cmd: cmd, Code: code, Out: out}
	}
	return out, nil
}

// Stop stops daemon's container (a supervisor's by host; ZooKeeper's and the service's by role).
func (d *Docker) Stop(ctx context.Context, daemon Daemon, host string) (Undo, error) {
	role := host
	switch daemon {
	case ZooKeeper:
		role = docker.RoleZooKeeper
	case Service:
		role = docker.RoleService
	case Supervisor:
	default:
		return nil, fmt.Errorf("stop %q: unknown daemon", daemon)
	}
	if err := d.Can(daemon.Op(), host); err != nil {
		return nil, err
	}
	ctr := d.c.Container(role)
	if ctr == nil {
		return nil, fmt.Errorf("no %s container in cluster %s", role, d.c.ID)
	}
	grace := 2 * time.Second
	if err := ctr.Stop(ctx, &grace); err != nil {
		return nil, fmt.Errorf("stop %s: %w", role, err)
	}
	return func(ctx context.Context) error {
		if err := ctr.Start(ctx); err != nil {
			return fmt.Errorf("start %s again: %w", role, err)
		}
		return nil
	}, nil
}

// Pause SIGSTOPs the processes matching pattern in host's container.
func (d *Docker) Pause(ctx context.Context, host, pattern string) ([]string, Undo, error) {
	if err := d.Can(OpPause, host); err != nil {
		return nil, nil, err
	}
	return d.pause(ctx, host, pattern)
}

// Delay writes DelayFile into both supervisors' containers.
func (d *Docker) Delay(ctx context.Context, a, b string, dl time.Duration) (Undo, error) {
	for _, h := range []string{a, b} {
		if err := d.Can(OpDelay, h); err != nil {
			return nil, err
		}
	}
	return d.delay(ctx, a, b, dl)
}

// Drop is not offered (see Ops).
func (d *Docker) Drop(ctx context.Context, a, b string) (Undo, error) {
	return nil, d.Can(OpDrop, a)
}

// Close does nothing: the cluster is its owner's to remove.
func (d *Docker) Close() error { return nil }
