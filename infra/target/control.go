package target

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Control is how the harness reaches a target's hosts (to inject faults). Only SSH exists.
type Control struct {
	SSH *SSH `yaml:"ssh,omitempty"`
}

// SSH reaches the cluster's hosts over SSH with a key; host keys are always checked.
type SSH struct {
	User string `yaml:"user"`
	// Key is the private key file (unencrypted; ~ and paths relative to the target file work).
	Key string `yaml:"key"`
	// KnownHosts is the known_hosts file holding the hosts' keys; default ~/.ssh/known_hosts.
	KnownHosts string `yaml:"known_hosts,omitempty"`
	// Hosts maps each host as Storm names it (a supervisor's hostname) to its SSH address HOST[:PORT]
	// (port 22 by default).
	Hosts map[string]string `yaml:"hosts"`
	// Commands say how to stop and start daemons and filter traffic on these hosts (optional: without
	// them those faults are refused).
	Commands Commands `yaml:"commands,omitempty"`
}

// Commands are the shell commands for operations whose form depends on how the hosts are set up.
type Commands struct {
	// Supervisor runs on the supervisor's own host (its host key is unused).
	Supervisor *DaemonCommands `yaml:"supervisor,omitempty"`
	ZooKeeper  *DaemonCommands `yaml:"zookeeper,omitempty"`
	Service    *DaemonCommands `yaml:"service,omitempty"`
	// Drop filters the traffic between two hosts; {peer} stands for the other host's name.
	Drop *DropCommands `yaml:"drop,omitempty"`
}

// DaemonCommands stop and start one daemon.
type DaemonCommands struct {
	// Host is the key in hosts of the host the daemon runs on (zookeeper and service only).
	Host  string `yaml:"host,omitempty"`
	Stop  string `yaml:"stop"`
	Start string `yaml:"start"`
}

// DropCommands drop and heal the traffic to and from {peer}, run on each of the two hosts.
type DropCommands struct {
	Drop string `yaml:"drop"`
	Heal string `yaml:"heal"`
}

// DefaultSSHPort is the port of an SSH address without one.
const DefaultSSHPort = 22

// Addr is the SSH address (host:port) of host, and whether hosts has it.
func (s *SSH) Addr(host string) (string, bool) {
	a, ok := s.Hosts[host]
	if !ok {
		return "", false
	}
	if _, _, err := net.SplitHostPort(a); err == nil {
		return a, true
	}
	return net.JoinHostPort(a, strconv.Itoa(DefaultSSHPort)), true
}

// HostNames are the keys of hosts, sorted.
func (s *SSH) HostNames() []string {
	var out []string
	for h := range s.Hosts {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}

func (c *Control) validate() error {
	if c.SSH == nil {
		return errors.New("control has no ssh: give control: {ssh: {user: ..., key: ..., hosts: {HOST: ADDR:PORT}}} or remove control")
	}
	return c.SSH.validate()
}

func (s *SSH) validate() error {
	switch {
	case strings.TrimSpace(s.User) == "":
		return errors.New("missing control.ssh.user: give the user the harness logs in as on the hosts")
	case strings.TrimSpace(s.Key) == "":
		return errors.New("missing control.ssh.key: give the private key file the harness logs in with, e.g. ~/.ssh/stormlab_ed25519")
	case len(s.Hosts) == 0:
		return errors.New("missing control.ssh.hosts: map each supervisor's host name to its SSH address, e.g. hosts: {sup1: 10.0.0.11:22}")
	}
	for _, h := range s.HostNames() {
		if err := checkAddr(h, s.Hosts[h]); err != nil {
			return err
		}
	}
	return s.Commands.validate(s)
}

func checkAddr(name, a string) error {
	host, port := a, strconv.Itoa(DefaultSSHPort)
	if h, p, err := net.SplitHostPort(a); err == nil {
		host, port = h, p
	}
	n, err := strconv.Atoi(port)
	if strings.TrimSpace(host) == "" || strings.ContainsAny(host, "/ ") || err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("control.ssh.hosts.%s %q is not an SSH address: give HOST or HOST:PORT, e.g. 10.0.0.11:22", name, a)
	}
	return nil
}

func (c Commands) validate(s *SSH) error {
	for _, d := range []struct {
		key    string
		cmds   *DaemonCommands
		onHost bool
	}{{"supervisor", c.Supervisor, false}, {"zookeeper", c.ZooKeeper, true}, {"service", c.Service, true}} {
		if d.cmds == nil {
			continue
		}
		key := "control.ssh.commands." + d.key
		switch {
		case d.cmds.Stop == "" || d.cmds.Start == "":
			return fmt.Errorf("%s needs both stop and start: give the shell commands that stop and start %s", key, d.key)
		case d.onHost && d.cmds.Host == "":
			return fmt.Errorf("missing %s.host: give the name (a key of control.ssh.hosts) of the host %s runs on", key, d.key)
		case d.onHost && s.Hosts[d.cmds.Host] == "":
			return fmt.Errorf("%s.host %q is not a key of control.ssh.hosts: add it there with its SSH address", key, d.cmds.Host)
		case !d.onHost && d.cmds.Host != "":
			return fmt.Errorf("%s.host: the supervisor commands run on each supervisor's own host; remove host", key)
		}
	}
	if c.Drop != nil && (!strings.Contains(c.Drop.Drop, "{peer}") || !strings.Contains(c.Drop.Heal, "{peer}")) {
		return errors.New("control.ssh.commands.drop needs drop and heal, each naming {peer} (the other host), e.g. drop: 'sudo iptables -I INPUT -s {peer} -j DROP'")
	}
	return nil
}

// resolvePaths makes key and known_hosts absolute: ~ is the home folder, a relative path is relative
// to dir (the target file's folder), so a target file works from any working directory.
func (s *SSH) resolvePaths(dir string) {
	s.Key = resolvePath(s.Key, dir)
	s.KnownHosts = resolvePath(s.KnownHosts, dir)
}

func resolvePath(p, dir string) string {
	switch {
	case p == "":
		return ""
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
		return p
	case filepath.IsAbs(p):
		return p
	}
	return filepath.Join(dir, p)
}
