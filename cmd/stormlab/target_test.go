package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/clusterref"

	"github.com/stormlab/stormlab/experiments"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/service"
	"github.com/stormlab/stormlab/schedulers"
)

// fakeTarget serves the few UI and service endpoints target check reads, with Nimbus's storm.scheduler
// set to scheduler, and writes a target file pointing at them (Nimbus's port is a listening socket).
func fakeTarget(t *testing.T, scheduler string) string {
	t.Helper()
	ui := http.NewServeMux()
	js := func(w http.ResponseWriter, v any) { json.NewEncoder(w).Encode(v) }
	ui.HandleFunc("/api/v1/cluster/summary", func(w http.ResponseWriter, _ *http.Request) {
		js(w, map[string]any{"supervisors": 1, "slotsTotal": 2})
	})
	ui.HandleFunc("/api/v1/supervisor/summary", func(w http.ResponseWriter, _ *http.Request) {
		js(w, map[string]any{"supervisors": []map[string]any{{"host": "sup1", "slotsTotal": 2, "totalCpu": 100}}})
	})
	ui.HandleFunc("/api/v1/cluster/configuration", func(w http.ResponseWriter, _ *http.Request) {
		js(w, map[string]any{"storm.scheduler": scheduler, "stormlab.scheduler.url": "http://svc:7070/v1/schedule"})
	})
	// Two running topologies: one that reported to the service (a stormlab run left behind), one that
	// did not (the user's own).
	ui.HandleFunc("/api/v1/topology/summary", func(w http.ResponseWriter, _ *http.Request) {
		js(w, map[string]any{"topologies": []map[string]any{{"id": "lc-kpart-1-17", "name": "lc-kpart", "status": "ACTIVE", "uptimeSeconds": 75},
			{"id": "theirs-2-18", "name": "theirs", "status": "ACTIVE"}}})
	})
	uis := httptest.NewServer(ui)
	t.Cleanup(uis.Close)
	svc := http.NewServeMux()
	svc.HandleFunc(protocol.PathState, func(w http.ResponseWriter, _ *http.Request) {
		js(w, protocol.State{Scheduler: "kpart", Rounds: 3, Topologies: []protocol.TopologyState{{ID: "lc-kpart-1-17"}, {ID: "gone-3-16"}}})
	})
	svcs := httptest.NewServer(svc)
	t.Cleanup(svcs.Close)
	nimbus, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nimbus.Close() })
	port := nimbus.Addr().(*net.TCPAddr).Port
	file := filepath.Join(t.TempDir(), "target.yaml")
	body := fmt.Sprintf("nimbus: {seeds: [127.0.0.1], port: %d}\nui: %s\nservice: {cluster: http://svc:7070, harness: %s}\n", port, uis.URL, svcs.URL)
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestTargetCheck(t *testing.T) {
	// With the bridge in Nimbus every item passes.
	code, out, errs := cli(t, "target", "check", fakeTarget(t, protocol.BridgeClass))
	if code != exitOK || !strings.Contains(out, "target ready") || strings.Contains(out, "FAIL") {
		t.Errorf("bridge installed: exit %d stdout %q stderr %q, want exit 0 and target ready", code, out, errs)
	}
	for _, item := range []string{"ui", "nimbus", "supervisors", "bridge", "service"} {
		if !strings.Contains(out, "ok    "+item) {
			t.Errorf("no ok line for %s in\n%s", item, out)
		}
	}
	// The topology left behind is listed, the user's own and one no longer running are not.
	if !strings.Contains(out, "note  leftovers    1 topologies with stormlab's instrumentation run: lc-kpart (ACTIVE, up 75s)") || strings.Contains(out, "theirs") || strings.Contains(out, "gone") {
		t.Errorf("leftovers: want lc-kpart listed alone in\n%s", out)
	}
	// A Nimbus without the bridge: said so, exit 2 with the fix.
	code, out, errs = cli(t, "target", "check", fakeTarget(t, "org.apache.storm.scheduler.EvenScheduler"))
	if code != exitBadInput || !strings.Contains(out, "FAIL  bridge") || strings.Count(errs, "\n") != 1 ||
		!strings.Contains(errs, "the bridge is not installed") || !strings.Contains(errs, "storm.scheduler: "+protocol.BridgeClass) {
		t.Errorf("no bridge: exit %d stdout %q stderr %q, want exit 2 naming the missing bridge and the fix", code, out, errs)
	}
}

// A bad target file is refused with exit 2 and one line naming the key, before anything is reached.
func TestTargetBadFile(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("nimbus: {seeds: [n], port: 6627}\nui: http://u:8080\nservice: {cluster: http://s:1, harness: http://s:1}\nnimbus_port: 1\n"), 0o644)
	missing := filepath.Join(dir, "missing.yaml")
	os.WriteFile(missing, []byte("nimbus: {seeds: [n], port: 6627}\nservice: {cluster: http://s:1, harness: http://s:1}\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"target", "check", bad}, `unknown key "nimbus_port"`},
		{[]string{"target", "check", missing}, "missing ui"},
		{[]string{"target", "check", filepath.Join(dir, "none.yaml")}, "no such file"},
		{[]string{"run", "--scheduler", "kpart", "--topology", "throughput", "--cluster", "target:" + bad}, `unknown key "nimbus_port"`},
	} {
		code, out, errs := cli(t, c.args...)
		if code != exitBadInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d stdout %q stderr %q, want exit 2 and one line containing %q", c.args, code, out, errs, c.want)
		}
	}
}

// Cluster experiments that need more than a Storm cluster with the bridge (a control section) refuse a
// target without it, one line saying why, before anything runs; the others run on one.
func TestExperimentTargetRefusals(t *testing.T) {
	file := fakeTarget(t, protocol.BridgeClass)
	onTarget := []string{"smoke", "load-curve", "kpart-cluster", "observer", "comm-cost", "deadline", "sim-validation"} // the cluster experiments that run on a target without a control section
	for _, s := range experiments.List() {
		why := s.Needs.On(clusterref.Caps{}) // fakeTarget has no control section
		if s.Needs.Docker() && !slices.Contains(onTarget, s.Name) && why == nil {
			t.Errorf("cluster experiment %s neither runs on a target nor says why it cannot (Spec.Needs)", s.Name)
		}
		if why == nil {
			continue
		}
		name := s.Name
		code, out, errs := cli(t, "experiment", name, "--cluster", "target:"+file, "--out", t.TempDir())
		if code != exitBadInput || out != "" || strings.Count(errs, "\n") != 1 ||
			!strings.Contains(errs, name+" cannot run on --cluster target:"+file+": ") || !strings.Contains(errs, why.Error()) {
			t.Errorf("experiment %s --cluster target:FILE: exit %d stdout %q stderr %q, want exit 2 and one line saying why", name, code, out, errs)
		}
	}
}

// A service started with a token: target check passes with the token in the target file and fails
// (exit 2, naming the token) without it or with a wrong one; the refusals are counted.
func TestTargetCheckToken(t *testing.T) {
	svc, err := service.New("even", schedulers.Options{Seed: 1}, service.WithToken("right"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	base := fakeTarget(t, protocol.BridgeClass)
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	// Point service.harness at the real service handler.
	i := strings.Index(string(data), "harness: ")
	body := string(data[:i]) + "harness: " + srv.URL + "}\n"
	for _, c := range []struct {
		token string
		ok    bool
	}{{"", false}, {"wrong", false}, {"right", true}} {
		file := filepath.Join(t.TempDir(), "t.yaml")
		b := body
		if c.token != "" {
			b += "token: " + c.token + "\n"
		}
		os.WriteFile(file, []byte(b), 0o600)
		code, out, errs := cli(t, "target", "check", file)
		if c.ok && (code != exitOK || !strings.Contains(out, "ok    service")) {
			t.Errorf("token %q: exit %d stdout %q stderr %q, want ok", c.token, code, out, errs)
		}
		if !c.ok && (code != exitBadInput || !strings.Contains(errs, "token is missing or wrong")) {
			t.Errorf("token %q: exit %d stdout %q stderr %q, want exit 2 naming the token", c.token, code, out, errs)
		}
	}
	if n := svc.State(0).Unauthorized; n != 2 {
		t.Errorf("service counted %d refused requests, want 2", n)
	}
}

// A Nimbus running a native storm.scheduler runs only that one: other schedulers are refused with
// exit 2, naming storm.scheduler and the bridge, before anything is submitted.
func TestRunTargetNativeNimbus(t *testing.T) {
	file := fakeTarget(t, "org.apache.storm.scheduler.EvenScheduler")
	for _, sched := range []string{"storm-ras", "kpart"} {
		code, out, errs := cli(t, "run", "--cluster", "target:"+file, "--scheduler", sched, "--topology", "throughput")
		last := lastN(errs, 1) // after the run's progress line, one error line
		if code != exitBadInput || out != "" || !strings.HasPrefix(last, "stormlab: ") ||
			!strings.Contains(last, "storm.scheduler org.apache.storm.scheduler.EvenScheduler") || !strings.Contains(last, "install the bridge") {
			t.Errorf("%s on a native EvenScheduler Nimbus: exit %d stdout %q stderr %q, want exit 2 naming storm.scheduler and the bridge", sched, code, out, errs)
		}
	}
}

// cluster up refuses bad input before any container starts: exit 2 and one line naming the fix.
func TestClusterUpBadInput(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock") // nothing may be started
	missing := filepath.Join(t.TempDir(), "no", "such", "folder", "target.yaml")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"out folder missing", []string{"cluster", "up", "--detach", "--out", missing}, "create it first"},
		{"unknown shape", []string{"cluster", "up", "--detach", "--shape", "huge-9"}, `unknown cluster shape "huge-9"`},
		{"unknown scheduler", []string{"cluster", "up", "--detach", "--scheduler", "nope"}, `unknown scheduler "nope"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli(t, c.args...)
			if code != exitBadInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d stdout %q stderr %q: want exit 2 and one line containing %q", code, out, errs, c.want)
			}
		})
	}
}
