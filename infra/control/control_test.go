package control

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/control/sshtest"
	"github.com/stormlab/stormlab/infra/target"
)

func TestOps(t *testing.T) {
	for _, c := range []struct {
		have, need Ops
		missing    []Op
		str        string
	}{
		{Of(OpExec, OpPause), Of(OpPause), nil, "exec, pause"},
		{Of(OpExec), Of(OpExec, OpStopSupervisor, OpDrop), []Op{OpStopSupervisor, OpDrop}, "exec"},
		{0, Of(OpDelay), []Op{OpDelay}, "none"},
		{AllOps, AllOps, nil, "exec, stop-supervisor, stop-zookeeper, stop-service, pause, delay, drop"},
	} {
		if got := c.have.Missing(c.need); !reflect.DeepEqual(got, c.missing) {
			t.Errorf("%s missing %s = %v, want %v", c.have, c.need, got, c.missing)
		}
		if got := c.have.String(); got != c.str {
			t.Errorf("String() = %q, want %q", got, c.str)
		}
		for _, o := range c.need.List() {
			if c.have.Has(o) == contains(c.missing, o) {
				t.Errorf("%s.Has(%s) = %v, but missing is %v", c.have, o, c.have.Has(o), c.missing)
			}
		}
	}
	for d, want := range map[Daemon]Op{Supervisor: OpStopSupervisor, ZooKeeper: OpStopZooKeeper, Service: OpStopService, "nimbus": 0} {
		if got := d.Op(); got != want {
			t.Errorf("%s.Op() = %s, want %s", d, got, want)
		}
	}
}

func contains(ops []Op, o Op) bool {
	for _, x := range ops {
		if x == o {
			return true
		}
	}
	return false
}

// TestDockerOps: the docker control offers everything but drop, and says why not.
func TestDockerOps(t *testing.T) {
	d := NewDocker(nil)
	if d.Ops() != AllOps&^Of(OpDrop) {
		t.Errorf("docker ops %s", d.Ops())
	}
	var ue *UnsupportedError
	if err := d.Can(OpDrop, "sup1"); !errors.As(err, &ue) || ue.Op != OpDrop || !strings.Contains(err.Error(), "NET_ADMIN") {
		t.Errorf("Can(drop) = %v, want an UnsupportedError saying why", err)
	}
}

// TestSSHCapabilities: which ops an SSH control offers follows from the target file's commands, and a
// refusal names the key to add. No connection is made.
func TestSSHCapabilities(t *testing.T) {
	key, known := sshtest.KeyFiles(t)
	base := target.SSH{User: "storm", Key: key, KnownHosts: known, Hosts: map[string]string{"sup1": "10.0.0.11:22", "zk": "10.0.0.5"}}
	full := base
	full.Commands = target.Commands{
		Supervisor: &target.DaemonCommands{Stop: "a", Start: "b"},
		ZooKeeper:  &target.DaemonCommands{Host: "zk", Stop: "a", Start: "b"},
		Service:    &target.DaemonCommands{Host: "zk", Stop: "a", Start: "b"},
		Drop:       &target.DropCommands{Drop: "d {peer}", Heal: "h {peer}"},
	}
	for _, c := range []struct {
		name string
		cfg  target.SSH
		op   Op
		host string
		want string // "" = allowed
	}{
		{"exec on a known host", base, OpExec, "sup1", ""},
		{"pause on a known host", base, OpPause, "sup1", ""},
		{"delay on an unknown host", base, OpDelay, "sup9", "add control.ssh.hosts.sup9: ADDR:PORT"},
		{"stop supervisor without commands", base, OpStopSupervisor, "sup1", "add control.ssh.commands.supervisor: {stop: ..., start: ...}"},
		{"stop zookeeper without commands", base, OpStopZooKeeper, "", "add control.ssh.commands.zookeeper: {host: ..., stop: ..., start: ...}"},
		{"stop service without commands", base, OpStopService, "", "add control.ssh.commands.service"},
		{"drop without commands", base, OpDrop, "sup1", "add control.ssh.commands.drop: {drop: ..., heal: ...}"},
		{"stop supervisor with commands", full, OpStopSupervisor, "sup1", ""},
		{"stop zookeeper with commands", full, OpStopZooKeeper, "", ""},
		{"drop with commands", full, OpDrop, "sup1", ""},
		{"stop supervisor with commands, unknown host", full, OpStopSupervisor, "sup9", "add control.ssh.hosts.sup9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewSSH(&c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Can(c.op, c.host)
			var ue *UnsupportedError
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Can(%s, %q) = %v, want nil", c.op, c.host, err)
			case c.want != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), c.want)):
				t.Errorf("Can(%s, %q) = %v, want an UnsupportedError containing %q", c.op, c.host, err, c.want)
			case c.want == "" && !s.Ops().Has(c.op):
				t.Errorf("Ops() = %s lacks %s, which Can allows", s.Ops(), c.op)
			}
		})
	}
	s, err := NewSSH(&base)
	if err != nil {
		t.Fatal(err)
	}
	if s.Ops() != Of(OpExec, OpPause, OpDelay) {
		t.Errorf("ops without commands: %s, want exec, pause, delay", s.Ops())
	}
}

func TestNewSSHErrors(t *testing.T) {
	key, known := sshtest.KeyFiles(t)
	notKey := filepath.Join(t.TempDir(), "not-a-key")
	if err := os.WriteFile(notKey, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, key, known, want string
	}{
		{"missing key", "/nonexistent/id", known, "control.ssh.key: open /nonexistent/id"},
		{"not a key", notKey, known, "give an unencrypted private key"},
		{"missing known_hosts", key, "/nonexistent/known_hosts", "known_hosts /nonexistent/known_hosts"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewSSH(&target.SSH{User: "u", Key: c.key, KnownHosts: c.known, Hosts: map[string]string{"a": "b"}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}
