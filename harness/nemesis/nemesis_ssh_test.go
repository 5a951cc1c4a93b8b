package nemesis

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/control/sshtest"
	"github.com/stormlab/stormlab/infra/target"
)

// TestNemesisOverSSH injects the nemesis's faults through the SSH control into a real OpenSSH server
// in a container standing for two supervisors (no Storm: a copy of sleep named like a worker JVM stands
// for the worker): kill-supervisor runs the target file's stop and start commands, pause-worker stops
// and resumes the "worker" (kernel process state), and the straggler kill ends the "worker" (background
// load is burner topologies, which need Storm: the deadline experiment's tests). About 10 s once the
// image is built.
func TestNemesisOverSSH(t *testing.T) {
	srv := sshtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctl, err := control.NewSSH(&target.SSH{User: sshtest.User, Key: srv.Key, KnownHosts: srv.KnownHosts,
		Hosts:    map[string]string{"sup1": srv.Addr, "sup2": srv.Addr},
		Commands: target.Commands{Supervisor: &target.DaemonCommands{Stop: "touch /tmp/sup-stopped", Start: "rm /tmp/sup-stopped"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	n := &Nemesis{ctl: ctl, name: "ssh-test", logf: t.Logf,
		cores: func() map[string]float64 { return map[string]float64{"sup1": 1, "sup2": 0.5} }}
	sh := func(cmd string) string {
		t.Helper()
		out, err := ctl.Exec(ctx, "sup1", cmd)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		return strings.TrimSpace(out)
	}
	inject := func(f fault.Fault) control.Undo {
		t.Helper()
		undo, err := n.Inject(ctx, f)
		if err != nil {
			t.Fatalf("inject %s: %v", f, err)
		}
		return undo
	}
	undo := inject(fault.Fault{Kind: fault.KillSupervisor, Arg: "sup1", Duration: time.Second})
	sh("test -e /tmp/sup-stopped")
	if err := undo(ctx); err != nil {
		t.Fatal(err)
	}
	sh("test ! -e /tmp/sup-stopped")

	worker := "/tmp/" + workerPattern
	sh("cp /bin/sleep " + worker + " && setsid " + worker + " 600 </dev/null >/dev/null 2>&1 &")
	pid := sh("pgrep -f '[/]tmp/org.apache.storm'")
	undo = inject(fault.Fault{Kind: fault.PauseWorker, Arg: "sup1", Duration: time.Second})
	if s := sh("ps -o stat= -p " + pid); !strings.HasPrefix(s, "T") {
		t.Errorf("worker state after pause-worker %q, want T", s)
	}
	if err := undo(ctx); err != nil {
		t.Fatal(err)
	}
	if s := sh("ps -o stat= -p " + pid); !strings.HasPrefix(s, "S") {
		t.Errorf("worker state after the undo %q, want S", s)
	}

	undo = inject(fault.Fault{Kind: fault.KillStragglers})
	if err := undo(ctx); err != nil {
		t.Fatal(err)
	}
	if out := sh("pgrep -f '[/]tmp/org.apache.storm'; true"); out != "" {
		t.Errorf("worker %s still runs after the straggler kill", out)
	}

	// A host that refuses to raise a burner's weight (the login is not root): said in the log, the
	// load left to run.
	p := burnerPlan{host: "sup1", tasks: 1, busy: 0.5}
	burner := "/tmp/" + p.name() + "-1-17"
	sh("cp /bin/sleep " + burner + " && setsid " + burner + " 600 </dev/null >/dev/null 2>&1 &")
	defer sh("pkill -f '[/]tmp/" + p.name() + "'; true")
	var logs []string
	n.logf = func(format string, a ...any) { logs = append(logs, fmt.Sprintf(format, a...)) }
	n.raiseWeight(ctx, p)
	if len(logs) != 1 || !strings.Contains(logs[0], "did not raise") || !strings.Contains(logs[0], "CAP_SYS_NICE") {
		t.Errorf("log %q: want the refusal said, naming what the host lacks", logs)
	}
}
