package target

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const withControl = good + `control:
  ssh:
    user: storm
    key: keys/id_ed25519
    known_hosts: ~/stormlab_known_hosts
    hosts:
      sup1: 10.0.0.11:2222
      sup2: sup2.example.org
      zk1: 10.0.0.5
    commands:
      supervisor: {stop: sudo systemctl stop storm-supervisor, start: sudo systemctl start storm-supervisor}
      zookeeper: {host: zk1, stop: sudo systemctl stop zookeeper, start: sudo systemctl start zookeeper}
      drop: {drop: 'sudo iptables -I INPUT -s {peer} -j DROP', heal: 'sudo iptables -D INPUT -s {peer} -j DROP'}
`

func TestParseControl(t *testing.T) {
	tg, err := Parse([]byte(withControl))
	if err != nil {
		t.Fatal(err)
	}
	s := tg.Control.SSH
	want := &SSH{User: "storm", Key: "keys/id_ed25519", KnownHosts: "~/stormlab_known_hosts",
		Hosts: map[string]string{"sup1": "10.0.0.11:2222", "sup2": "sup2.example.org", "zk1": "10.0.0.5"},
		Commands: Commands{
			Supervisor: &DaemonCommands{Stop: "sudo systemctl stop storm-supervisor", Start: "sudo systemctl start storm-supervisor"},
			ZooKeeper:  &DaemonCommands{Host: "zk1", Stop: "sudo systemctl stop zookeeper", Start: "sudo systemctl start zookeeper"},
			Drop:       &DropCommands{Drop: "sudo iptables -I INPUT -s {peer} -j DROP", Heal: "sudo iptables -D INPUT -s {peer} -j DROP"},
		}}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got %+v, want %+v", s, want)
	}
	for host, addr := range map[string]string{"sup1": "10.0.0.11:2222", "sup2": "sup2.example.org:22", "zk1": "10.0.0.5:22"} {
		if got, ok := s.Addr(host); !ok || got != addr {
			t.Errorf("Addr(%s) = %q, %v; want %q", host, got, ok, addr)
		}
	}
	if _, ok := s.Addr("sup9"); ok {
		t.Error("Addr(sup9) found")
	}
}

// Load makes the key relative to the target file's folder and expands ~ in known_hosts.
func TestLoadResolvesControlPaths(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(p, []byte(withControl), 0o600); err != nil {
		t.Fatal(err)
	}
	tg, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	s := tg.Control.SSH
	if s.Key != filepath.Join(dir, "keys/id_ed25519") || s.KnownHosts != filepath.Join(home, "stormlab_known_hosts") {
		t.Errorf("key %q known_hosts %q", s.Key, s.KnownHosts)
	}
}

func TestParseControlErrors(t *testing.T) {
	ctl := func(body string) string { return good + "control:\n" + body }
	ssh := func(extra string) string {
		return ctl("  ssh:\n    user: storm\n    key: id\n    hosts: {sup1: 10.0.0.11:22, zk1: 10.0.0.5}\n" + extra)
	}
	for _, tc := range []struct{ name, yaml, want string }{
		{"no ssh", ctl("  {}\n"), "control has no ssh"},
		{"unknown control key", ctl("  telnet: {}\n"), `unknown key "telnet" under control: remove it (known keys: ssh)`},
		{"unknown ssh key", ssh("    password: x\n"), `unknown key "password" under control.ssh`},
		{"missing user", ctl("  ssh: {key: id, hosts: {sup1: a}}\n"), "missing control.ssh.user"},
		{"missing key", ctl("  ssh: {user: u, hosts: {sup1: a}}\n"), "missing control.ssh.key"},
		{"missing hosts", ctl("  ssh: {user: u, key: id}\n"), "missing control.ssh.hosts"},
		{"bad port", ctl("  ssh: {user: u, key: id, hosts: {sup1: '10.0.0.11:99999'}}\n"), `control.ssh.hosts.sup1 "10.0.0.11:99999" is not an SSH address`},
		{"port not a number", ctl("  ssh: {user: u, key: id, hosts: {sup1: 'a:ssh'}}\n"), "is not an SSH address"},
		{"empty address", ctl("  ssh: {user: u, key: id, hosts: {sup1: ''}}\n"), `control.ssh.hosts.sup1 "" is not an SSH address`},
		{"unknown commands key", ssh("    commands: {nimbus: {stop: a, start: b}}\n"), `unknown key "nimbus" under control.ssh.commands`},
		{"stop without start", ssh("    commands: {supervisor: {stop: a}}\n"), "control.ssh.commands.supervisor needs both stop and start"},
		{"zookeeper without host", ssh("    commands: {zookeeper: {stop: a, start: b}}\n"), "missing control.ssh.commands.zookeeper.host"},
		{"zookeeper on an unknown host", ssh("    commands: {zookeeper: {host: zk9, stop: a, start: b}}\n"), `control.ssh.commands.zookeeper.host "zk9" is not a key of control.ssh.hosts`},
		{"supervisor with host", ssh("    commands: {supervisor: {host: sup1, stop: a, start: b}}\n"), "run on each supervisor's own host; remove host"},
		{"drop without peer", ssh("    commands: {drop: {drop: a, heal: b}}\n"), "each naming {peer}"},
		{"unknown daemon command key", ssh("    commands: {service: {host: zk1, stop: a, start: b, restart: c}}\n"), `unknown key "restart" in a command of control.ssh.commands`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}
