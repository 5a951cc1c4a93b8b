package nemesis

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/control/sshtest"
	"github.com/stormlab/stormlab/infra/target"
)

func TestFaultNeeds(t *testing.T) {
	for k, want := range map[fault.Kind]control.Ops{
		fault.KillSupervisor:   control.Of(control.OpStopSupervisor),
		fault.PauseWorker:      control.Of(control.OpPause),
		fault.RestartZooKeeper: control.Of(control.OpStopZooKeeper),
		fault.RestartService:   control.Of(control.OpStopService),
		fault.Delay:            control.Of(control.OpDelay),
		fault.Straggler:        0, // a burner topology: no control
		fault.CPULoad:          0, // burner topologies: no control
		fault.KillStragglers:   control.Of(control.OpExec),
	} {
		if got := k.Needs(); got != want {
			t.Errorf("%s needs %s, want %s", k, got, want)
		}
	}
}

// A nemesis refuses a fault its control cannot perform before acting (no connection is attempted: the
// hosts' addresses are not reachable from here and would fail differently).
func TestInjectRefusesBeforeActing(t *testing.T) {
	key, known := sshtest.KeyFiles(t)
	ctl, err := control.NewSSH(&target.SSH{User: "storm", Key: key, KnownHosts: known, Hosts: map[string]string{"sup1": "192.0.2.1:22"}})
	if err != nil {
		t.Fatal(err)
	}
	n := &Nemesis{ctl: ctl, name: "t", cores: func() map[string]float64 { return map[string]float64{"sup1": 1} }, logf: t.Logf}
	_, err = n.Inject(t.Context(), fault.Fault{Kind: fault.KillSupervisor, Arg: "sup1"})
	if err == nil || !strings.Contains(err.Error(), "needs stop-supervisor") || !strings.Contains(err.Error(), "control.ssh.commands.supervisor") {
		t.Errorf("Inject = %v, want a refusal naming the op and the key", err)
	}
}
