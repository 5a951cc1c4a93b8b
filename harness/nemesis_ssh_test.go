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

	"github.com/stormlab/stormlab/harness/nemesis"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/control/sshtest"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/target"
)

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
	ts := &targetSession{tc: &targetCluster{nem: nemesis.New(nemesis.Config{})}}
	if _, err := ts.StartNodeCPUReports(context.Background(), time.Second); err == nil || !strings.Contains(err.Error(), "control.ssh") {
		t.Errorf("node CPU on a target without control: %v; want a refusal naming control.ssh", err)
	}
}
