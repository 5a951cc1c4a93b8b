package docker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	dcontainer "github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	dnetwork "github.com/docker/docker/api/types/network"
	"github.com/testcontainers/testcontainers-go"

	"github.com/stormlab/stormlab/infra/images"
)

// cleanupTimeout bounds Terminate and RemoveLeftovers, which run on a context detached from the caller's
// so that they still work after an interrupt cancelled it.
const cleanupTimeout = 2 * time.Minute

// Terminate removes every container and the network of the cluster: first the ones Run recorded
// (killed together), then anything still labelled with the run id, so that a
// container created by a Run that failed half-way is removed too. It is safe on a nil or partial
// Cluster, may be called more than once, and ignores ctx's cancellation (it keeps ctx's values).
func (c *Cluster) Terminate(ctx context.Context) error {
	if c == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	c.mu.Lock()
	order := append([]string(nil), c.order...)
	ctrs := c.containers
	c.containers = map[string]*testcontainers.DockerContainer{}
	c.order = nil
	c.supervisors = nil
	nw := c.network
	c.network = nil
	lock := c.lock
	c.lock = nil
	c.mu.Unlock()
	defer machineUnlock(lock)
	t0 := time.Now()

	// The containers are thrown away with everything in them: they are killed, not stopped (a Storm
	// daemon's graceful stop took about 2 s each), and all at once.
	errs := make([]error, len(order))
	var wg sync.WaitGroup
	for i, role := range order {
		if ctr := ctrs[role]; ctr != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := ctr.Terminate(ctx, testcontainers.StopTimeout(0)); err != nil {
					errs[i] = fmt.Errorf("remove %s: %w", role, err)
				}
			}()
		}
	}
	wg.Wait()
	errs = slices.DeleteFunc(errs, func(e error) bool { return e == nil })
	if nw != nil {
		if err := nw.Remove(ctx); err != nil {
			errs = append(errs, fmt.Errorf("remove network: %w", err))
		}
	}
	// The sweep by label catches what the calls above missed; its success makes their errors moot.
	if err := removeLabelled(ctx, LabelRun+"="+c.ID); err != nil {
		errs = append(errs, err)
		return fmt.Errorf("terminate cluster %s: %w", c.ID, errors.Join(errs...))
	}
	if c.logf != nil && len(order) > 0 {
		c.logf("cluster %s: removed in %s", c.ID, time.Since(t0).Round(time.Millisecond))
	}
	return nil
}

// RemoveLeftovers removes every stormlab container and network except those of a live owner process
// (see LabelOwnerPID) and of a standing cluster (LabelStanding; RemoveStanding removes those):
// leftovers of dead owners and those without owner labels (made before owners were recorded). Images
// are kept: they are the build cache.
func RemoveLeftovers(ctx context.Context) error {
	setEnv()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	return removeWhere(ctx, LabelAll+"=true", removableLeftover)
}

// removableLeftover: RemoveLeftovers removes it (no owner labels, or a dead owner; never a standing
// cluster's).
func removableLeftover(labels map[string]string) bool {
	if labels[LabelStanding] == "true" {
		return false
	}
	_, labelled := labels[LabelOwnerPID]
	return !labelled || !ownerOf(labels).Alive()
}

// Leftover is one stormlab container or network and the process that owns it.
type Leftover struct {
	Kind  string // "container" or "network"
	Name  string
	Run   string // LabelRun
	Owner Owner  // zero PID: no owner labels
	// Standing: part of a standing cluster (LabelStanding), kept whatever its owner.
	Standing bool
}

func (l Leftover) String() string { return l.Kind + " " + l.Name }

// ListLeftovers lists the containers and networks carrying label (key=value) with their owners.
func ListLeftovers(ctx context.Context, label string) ([]Leftover, error) {
	cli, err := images.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	f := filters.NewArgs(filters.Arg("label", label))
	ctrs, err := cli.ContainerList(ctx, dcontainer.ListOptions{All: true, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	nets, err := cli.NetworkList(ctx, dnetwork.ListOptions{Filters: f})
	if err != nil {
		return nil, fmt.Errorf("list networks: %w", err)
	}
	var out []Leftover
	for _, c := range ctrs {
		name := c.ID[:12]
		if len(c.Names) > 0 {
			name = c.Names[0]
		}
		out = append(out, Leftover{Kind: "container", Name: name, Run: c.Labels[LabelRun], Owner: ownerOf(c.Labels), Standing: c.Labels[LabelStanding] == "true"})
	}
	for _, n := range nets {
		out = append(out, Leftover{Kind: "network", Name: n.Name, Run: n.Labels[LabelRun], Owner: ownerOf(n.Labels), Standing: n.Labels[LabelStanding] == "true"})
	}
	return out, nil
}

// Leftovers lists the names of containers and networks carrying label (key=value); tests use it to
// check that nothing is left behind.
func Leftovers(ctx context.Context, label string) ([]string, error) {
	l, err := ListLeftovers(ctx, label)
	out := make([]string, len(l))
	for i, x := range l {
		out[i] = x.String()
	}
	return out, err
}

func removeLabelled(ctx context.Context, label string) error {
	return removeWhere(ctx, label, func(map[string]string) bool { return true })
}

// removeWhere removes the containers, then the networks, carrying label for which remove(labels) holds.
func removeWhere(ctx context.Context, label string, remove func(labels map[string]string) bool) error {
	cli, err := images.NewClient(ctx)
	if err != nil {
		return fmt.Errorf("remove leftovers: %w", err)
	}
	defer cli.Close()
	f := filters.NewArgs(filters.Arg("label", label))
	var errs []error
	ctrs, err := cli.ContainerList(ctx, dcontainer.ListOptions{All: true, Filters: f})
	if err != nil {
		return fmt.Errorf("remove leftovers: list containers: %w", err)
	}
	for _, c := range ctrs {
		if !remove(c.Labels) {
			continue
		}
		if err := cli.ContainerRemove(ctx, c.ID, dcontainer.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			errs = append(errs, fmt.Errorf("remove container %s: %w", c.ID[:12], err))
		}
	}
	// Networks after their containers: removing a network with members fails.
	nets, err := cli.NetworkList(ctx, dnetwork.ListOptions{Filters: f})
	if err != nil {
		return fmt.Errorf("remove leftovers: list networks: %w", err)
	}
	for _, n := range nets {
		if !remove(n.Labels) {
			continue
		}
		if err := cli.NetworkRemove(ctx, n.ID); err != nil {
			errs = append(errs, fmt.Errorf("remove network %s: %w", n.Name, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("remove leftovers (%s): %w", label, errors.Join(errs...))
	}
	return nil
}

// RemoveStanding removes every container and network of standing clusters (WithStanding) and returns
// how many there were.
func RemoveStanding(ctx context.Context) (int, error) {
	setEnv()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	left, err := ListLeftovers(ctx, LabelStanding+"=true")
	if err != nil {
		return 0, err
	}
	return len(left), removeLabelled(ctx, LabelStanding+"=true")
}

// Release lets a standing cluster outlive this process: it gives up the machine-wide cluster lock and
// forgets the containers, so that nothing here removes them; RemoveStanding does.
func (c *Cluster) Release() {
	c.mu.Lock()
	lock := c.lock
	c.lock = nil
	c.containers = map[string]*testcontainers.DockerContainer{}
	c.order, c.supervisors, c.network = nil, nil, nil
	c.mu.Unlock()
	machineUnlock(lock)
}
