package harness

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/control/sshtest"
	"github.com/stormlab/stormlab/infra/protocol"
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
	undo := inject(fault.Fault{Kind: fault.KillSupervisor, Target: "sup1", Duration: time.Second})
	sh("test -e /tmp/sup-stopped")
	if err := undo(ctx); err != nil {
		t.Fatal(err)
	}
	sh("test ! -e /tmp/sup-stopped")

	worker := "/tmp/" + workerPattern
	sh("cp /bin/sleep " + worker + " && setsid " + worker + " 600 </dev/null >/dev/null 2>&1 &")
	pid := sh("pgrep -f '[/]tmp/org.apache.storm'")
	undo = inject(fault.Fault{Kind: fault.PauseWorker, Target: "sup1", Duration: time.Second})
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
}

// TestNodeCPUOverSSH reads a host's whole CPU use through the SSH control (the container's cgroup, as on
// the harness's own supervisors) and posts it to the service with the target's token: while one busy
// loop runs on the host, a report reads at least half a core (the loop is one core; the tolerance is for
// a shared 2-core machine), and every report names the host and carries the token.
func TestNodeCPUOverSSH(t *testing.T) {
	srv := sshtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctl, err := control.NewSSH(&target.SSH{User: sshtest.User, Key: srv.Key, KnownHosts: srv.KnownHosts,
		Hosts: map[string]string{"sup1": srv.Addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	var mu sync.Mutex
	var reps []protocol.NodeReport
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rep protocol.NodeReport
		if r.URL.Path != protocol.PathNodes || r.Header.Get("Authorization") != "Bearer tok" || json.NewDecoder(r.Body).Decode(&rep) != nil {
			http.Error(w, "bad node report", http.StatusBadRequest)
			return
		}
		mu.Lock()
		reps = append(reps, rep)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer svc.Close()
	if _, err := ctl.Exec(ctx, "sup1", `setsid timeout 8 sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &`); err != nil {
		t.Fatal(err)
	}
	stop, err := startNodeCPUReports(ctx, ctl, []string{"sup1"}, serviceClient{BaseURL: svc.URL, Token: "tok"}, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if err := pause(ctx, 4*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatalf("node CPU reports: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	most := 0.0
	for _, r := range reps {
		if r.Host != "sup1" || !(r.IntervalS > 0) {
			t.Errorf("report %+v: want host sup1 and an interval", r)
		}
		most = max(most, r.CPUPercent)
	}
	if len(reps) < 3 || most < 50 {
		t.Errorf("%d reports, highest %.1f%% CPU: want >= 3 and one >= 50%% while a busy loop runs", len(reps), most)
	}
}

// A target without a control section has no whole-node CPU to offer: refused, naming the key to add.
func TestNodeCPUNeedsControl(t *testing.T) {
	ts := &targetSession{tc: &targetCluster{nem: &Nemesis{}}}
	if _, err := ts.StartNodeCPUReports(context.Background(), time.Second); err == nil || !strings.Contains(err.Error(), "control.ssh") {
		t.Errorf("node CPU on a target without control: %v; want a refusal naming control.ssh", err)
	}
}
