package harness

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/control/sshtest"
	"github.com/stormlab/stormlab/infra/target"
)

// TestCheckTargetFaults: a target run refuses, before anything is reached, the faults its control
// cannot perform, naming the target-file key to add. Only files are read (key, known_hosts).
func TestCheckTargetFaults(t *testing.T) {
	key, known := sshtest.KeyFiles(t)
	ssh := func(cmds target.Commands) *target.Target {
		return &target.Target{Control: &target.Control{SSH: &target.SSH{User: "storm", Key: key, KnownHosts: known,
			Hosts: map[string]string{"sup1": "10.0.0.11:22", "sup2": "10.0.0.12:22", "zk1": "10.0.0.5:22"}, Commands: cmds}}}
	}
	bare := ssh(target.Commands{})
	withSup := ssh(target.Commands{Supervisor: &target.DaemonCommands{Stop: "a", Start: "b"},
		ZooKeeper: &target.DaemonCommands{Host: "zk1", Stop: "a", Start: "b"}})
	f := func(s string) fault.Fault {
		x, err := fault.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, c := range []struct {
		name   string
		t      *target.Target
		faults []fault.Fault
		want   string // "" = accepted
	}{
		{"no control section", &target.Target{}, []fault.Fault{f("restart-service@10s+5s")}, "add control.ssh (user, key, hosts) to the target file"},
		{"no faults, no control", &target.Target{}, nil, ""},
		{"a straggler needs no control (a burner topology)", &target.Target{}, []fault.Fault{f("straggler@10s+30s:sup1=50")}, ""},
		{"pause needs no commands", bare, []fault.Fault{f("pause-worker@10s+5s:sup1")}, ""},
		{"delay needs no commands (the transport is in the topology jar)", bare, []fault.Fault{f("delay@20s+5s:sup1-sup2=50ms")}, ""},
		{"kill without supervisor commands", bare, []fault.Fault{f("kill-supervisor@10s+5s:sup1")}, "add control.ssh.commands.supervisor: {stop: ..., start: ...} to the target file"},
		{"restart zookeeper without commands", bare, []fault.Fault{f("restart-zookeeper@10s+5s")}, "add control.ssh.commands.zookeeper"},
		{"restart service without commands", withSup, []fault.Fault{f("restart-service@10s+5s")}, "add control.ssh.commands.service"},
		{"kill and zookeeper with commands", withSup, []fault.Fault{f("kill-supervisor@10s+5s:sup2"), f("restart-zookeeper@20s+5s")}, ""},
		{"pause on a host without address", bare, []fault.Fault{f("pause-worker@10s+5s:sup3")}, "add control.ssh.hosts.sup3: ADDR:PORT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckTargetFaults(c.t, c.faults)
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("CheckTargetFaults = %v, want %q", err, c.want)
			}
		})
	}
}
