package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/testcontainers/testcontainers-go"
)

// A supervisor's link rate (SupervisorSpec.LinkMbit, WithLinkRate) limits what its container sends:
// the bytes Storm's transfer sends to workers of other nodes, and, with them, its small traffic to
// ZooKeeper, Nimbus and the scheduler service. Traffic between the workers of one node goes over the
// loopback device and is not limited; nor is what the node receives (it is limited by its peers'
// rates).
//
// The limit is a tbf qdisc on the container's eth0, set from the host inside the container's network
// namespace (nsenter -t <pid> -n tc ...): the containers get no NET_ADMIN capability, and the kernels
// stormlab runs on lack sch_netem but have tbf and htb. tbf, not htb: one rate for all of a node's
// egress is what a node's NIC is (sim.Node.NICBytesPerS models the same), and tbf is that shaper
// without classes; htb is for rates per destination, which nothing here asks for.
//
// Its burst is 10 ms of the rate, at least 16 KiB (ten full frames and more than one HZ tick's worth at
// the rates used here), so over a measurement window of seconds the rate holds within a fraction of a
// percent; its latency (the longest a packet may wait in the queue) is 100 ms: a deep enough queue
// that TCP keeps the link busy, a short enough one that ZooKeeper's and Nimbus's heartbeats behind
// the transfer's bytes are not delayed towards their timeouts (seconds).
//
// The qdisc lives in the container's network namespace, so it goes with the container; a container
// stopped and started again (a supervisor fault) gets a new namespace, and the limit is set again on
// every start (a post-start hook).
const (
	linkDevice   = "eth0"
	linkBurstMin = 16 << 10 // bytes
	linkBurstS   = 0.010    // seconds of the rate
	linkLatency  = "100ms"
	// MaxLinkMbit bounds SupervisorSpec.LinkMbit: 100 Gbit/s, beyond any NIC this models.
	MaxLinkMbit = 100000
)

// Host tools the link limit needs, and the package that ships each (Debian and Ubuntu names).
var linkTools = []struct{ path, pkg string }{
	{"/usr/sbin/tc", "iproute2"},
	{"/usr/sbin/ip", "iproute2"},
	{"/usr/bin/nsenter", "util-linux"},
}

// linkBytesPerS is a rate in Mbit/s as bytes per second (tc's mbit is 10^6 bits).
func linkBytesPerS(mbit float64) float64 { return mbit * 1e6 / 8 }

// tbfArgs is the tc command (without "tc") that sets dev's root qdisc to a tbf of mbit.
func tbfArgs(mbit float64) []string {
	bits := int64(math.Round(mbit * 1e6))
	burst := max(linkBurstMin, int64(math.Ceil(linkBytesPerS(mbit)*linkBurstS)))
	return []string{"qdisc", "replace", "dev", linkDevice, "root", "tbf",
		"rate", strconv.FormatInt(bits, 10) + "bit", "burst", strconv.FormatInt(burst, 10), "latency", linkLatency}
}

// unlimitArgs removes the root qdisc (back to the device's default, noqueue on a veth).
func unlimitArgs() []string { return []string{"qdisc", "del", "dev", linkDevice, "root"} }

// inNetns prefixes a command to run in process pid's network namespace.
func inNetns(pid int, cmd ...string) []string {
	return append([]string{"nsenter", "-t", strconv.Itoa(pid), "-n"}, cmd...)
}

// checkLinkTools says what to install when this host cannot set link limits.
func checkLinkTools() error {
	var missing, pkgs []string
	for _, t := range linkTools {
		if _, err := os.Stat(t.path); err != nil {
			missing = append(missing, t.path)
			if !strings.Contains(strings.Join(pkgs, " "), t.pkg) {
				pkgs = append(pkgs, t.pkg)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("a supervisor link rate needs %s on this host: install them (apt-get install %s) or run without a link rate",
			strings.Join(missing, ", "), strings.Join(pkgs, " "))
	}
	return nil
}

// containerPid is the host pid of ctr's main process, checked to be visible from here: with a remote
// engine (DOCKER_HOST elsewhere, Docker Desktop) it is not, and nsenter cannot enter it.
func containerPid(ctx context.Context, ctr testcontainers.Container) (int, error) {
	info, err := ctr.Inspect(ctx)
	if err != nil {
		return 0, fmt.Errorf("inspect: %w", err)
	}
	if info.State == nil || info.State.Pid <= 0 {
		return 0, errors.New("the container has no running process")
	}
	pid := info.State.Pid
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/ns/net", pid)); err != nil {
		return 0, fmt.Errorf("the container's process %d is not visible on this host (%v): link rates need the Docker engine on this machine, run as root", pid, err)
	}
	return pid, nil
}

// run runs a host command and returns its output, or an error with the command and its output.
func runHost(ctx context.Context, cmd []string) (string, error) {
	out, err := exec.CommandContext(ctx, cmd[0], cmd[1:]...).CombinedOutput()
	if err != nil {
		fix := ""
		if strings.Contains(string(out), "Operation not permitted") {
			fix = " (entering a container's namespace needs root, or CAP_SYS_ADMIN and CAP_NET_ADMIN)"
		}
		return string(out), fmt.Errorf("%s: %w: %s%s", strings.Join(cmd, " "), err, strings.TrimSpace(string(out)), fix)
	}
	return string(out), nil
}

// setLink sets (mbit > 0) or removes (mbit == 0) the link limit of the container and checks that the
// qdisc in place is the one asked for.
func setLink(ctx context.Context, ctr testcontainers.Container, mbit float64) error {
	pid, err := containerPid(ctx, ctr)
	if err != nil {
		return err
	}
	args := tbfArgs(mbit)
	if mbit == 0 {
		args = unlimitArgs()
	}
	if out, err := runHost(ctx, inNetns(pid, append([]string{"tc"}, args...)...)); err != nil {
		// Removing a root qdisc that is not there is what we want already.
		if mbit > 0 || !strings.Contains(out, "Cannot delete qdisc with handle of zero") {
			return err
		}
	}
	out, err := runHost(ctx, inNetns(pid, "tc", "-j", "qdisc", "show", "dev", linkDevice))
	if err != nil {
		return err
	}
	return checkQdisc(out, mbit)
}

// qdisc is one entry of `tc -j qdisc show`: tbf's rate is in bytes per second.
type qdisc struct {
	Kind    string `json:"kind"`
	Root    bool   `json:"root"`
	Options struct {
		Rate float64 `json:"rate"`
	} `json:"options"`
}

// checkQdisc checks tc's JSON listing: a root tbf at mbit (within 1%: tc stores the rate in its own
// units), or, for mbit == 0, no root tbf.
func checkQdisc(listing string, mbit float64) error {
	var qs []qdisc
	if err := json.Unmarshal([]byte(listing), &qs); err != nil {
		return fmt.Errorf("read tc's qdisc listing: %w (%.200s)", err, listing)
	}
	for _, q := range qs {
		if !q.Root {
			continue
		}
		if mbit == 0 {
			if q.Kind == "tbf" {
				return fmt.Errorf("the root qdisc of %s is still tbf after removing it", linkDevice)
			}
			return nil
		}
		want := linkBytesPerS(mbit)
		if q.Kind != "tbf" || math.Abs(q.Options.Rate-want) > 0.01*want {
			return fmt.Errorf("root qdisc of %s is %s at %.0f B/s, want tbf at %.0f B/s", linkDevice, q.Kind, q.Options.Rate, want)
		}
		return nil
	}
	if mbit == 0 {
		return nil
	}
	return fmt.Errorf("no root qdisc on %s after setting a tbf: %.200s", linkDevice, listing)
}

// linkHook sets host's link limit on every start of its container, at the rate the cluster records
// for it then (SetLinkRate may have changed it).
func (c *Cluster) linkHook(host string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithAdditionalLifecycleHooks(testcontainers.ContainerLifecycleHooks{
		PostStarts: []testcontainers.ContainerHook{func(ctx context.Context, ctr testcontainers.Container) error {
			mbit := c.linkOf(host)
			if mbit == 0 {
				return nil
			}
			if err := setLink(ctx, ctr, mbit); err != nil {
				return fmt.Errorf("link rate %g Mbit/s: %w", mbit, err)
			}
			c.logf("cluster %s: %s sends at most %g Mbit/s (tbf on %s)", c.ID, host, mbit, linkDevice)
			return nil
		}},
	})
}

// linkOf is host's link rate as the cluster records it now (0: unlimited).
func (c *Cluster) linkOf(host string) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.links[host]
}

// SetLinkRate sets (mbit > 0) or removes (mbit == 0) the link limit of supervisor host's container,
// for the runs that follow on the same cluster; a restart of the container keeps it.
func (c *Cluster) SetLinkRate(ctx context.Context, host string, mbit float64) error {
	if err := checkLinkMbit(host, mbit); err != nil {
		return err
	}
	if err := checkLinkTools(); err != nil {
		return err
	}
	ctr := c.container(host)
	c.mu.Lock()
	sup := c.supervisor(host)
	c.mu.Unlock()
	if ctr == nil || sup == nil {
		return fmt.Errorf("set link rate: %q is not a supervisor of cluster %s", host, c.ID)
	}
	if err := setLink(ctx, ctr, mbit); err != nil {
		return fmt.Errorf("set link rate of %s: %w", host, err)
	}
	c.mu.Lock()
	if c.links == nil {
		c.links = map[string]float64{}
	}
	c.links[host] = mbit
	sup.Spec.LinkMbit = mbit
	c.mu.Unlock()
	return nil
}

// supervisor is the running supervisor host, or nil (c.mu held).
func (c *Cluster) supervisor(host string) *Supervisor {
	for _, s := range c.supervisors {
		if s.Spec.Host == host {
			return s
		}
	}
	return nil
}

func checkLinkMbit(host string, mbit float64) error {
	if !(mbit >= 0 && mbit <= MaxLinkMbit) {
		return fmt.Errorf("supervisor %s: link rate %g Mbit/s out of range [0, %d] (0 = unlimited)", host, mbit, MaxLinkMbit)
	}
	return nil
}

// LinkCounters are a supervisor's egress counters at one moment: its eth0's transmitted bytes and
// packets (all of its traffic to other containers) and its root qdisc's drops (0 without a limit).
type LinkCounters struct {
	TxBytes, TxPackets int64
	Drops              int64
}

// LinkCounters reads host's egress counters from the host, in the container's network namespace.
func (c *Cluster) LinkCounters(ctx context.Context, host string) (LinkCounters, error) {
	ctr := c.container(host)
	if ctr == nil {
		return LinkCounters{}, fmt.Errorf("link counters: no container %q in cluster %s", host, c.ID)
	}
	pid, err := containerPid(ctx, ctr)
	if err != nil {
		return LinkCounters{}, err
	}
	out, err := runHost(ctx, inNetns(pid, "ip", "-s", "-j", "link", "show", "dev", linkDevice))
	if err != nil {
		return LinkCounters{}, err
	}
	var links []struct {
		Stats struct {
			Tx struct{ Bytes, Packets, Dropped int64 }
		} `json:"stats64"`
	}
	if err := json.Unmarshal([]byte(out), &links); err != nil || len(links) != 1 {
		return LinkCounters{}, fmt.Errorf("read ip's link listing: %v (%.200s)", err, out)
	}
	lc := LinkCounters{TxBytes: links[0].Stats.Tx.Bytes, TxPackets: links[0].Stats.Tx.Packets}
	if out, err = runHost(ctx, inNetns(pid, "tc", "-s", "-j", "qdisc", "show", "dev", linkDevice)); err != nil {
		return LinkCounters{}, err
	}
	var qs []struct {
		Root  bool  `json:"root"`
		Drops int64 `json:"drops"`
	}
	if err := json.Unmarshal([]byte(out), &qs); err != nil {
		return LinkCounters{}, fmt.Errorf("read tc's qdisc statistics: %w (%.200s)", err, out)
	}
	for _, q := range qs {
		if q.Root {
			lc.Drops = q.Drops
		}
	}
	return lc, nil
}

// limited says whether any of the supervisors has a link rate.
func limited(sups []SupervisorSpec) bool {
	for _, s := range sups {
		if s.LinkMbit > 0 {
			return true
		}
	}
	return false
}

// Links maps each supervisor with a link limit to its rate now, Mbit/s; nil when none has one.
func (c *Cluster) Links() map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out map[string]float64
	for h, mbit := range c.links {
		if mbit > 0 {
			if out == nil {
				out = map[string]float64{}
			}
			out[h] = mbit
		}
	}
	return out
}
