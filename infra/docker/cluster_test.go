package docker

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/images"
	"github.com/stormlab/stormlab/infra/protocol"
)

// needEngine skips the test with -short or when no Docker engine answers (CI starts one with
// .ci/install-docker.sh).
func needEngine(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("container test: skipped with -short")
	}
	cli, err := images.NewClient(context.Background())
	if errors.Is(err, images.ErrNoEngine) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	cli.Close()
}

// testContext is cancelled on interrupt, so that a ^C still runs the cleanups registered with t.Cleanup.
func testContext(t testing.TB) context.Context {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	t.Cleanup(stop)
	return ctx
}

// runCluster starts a cluster and registers its removal, then a check that nothing of the run is left.
func runCluster(t *testing.T, opts ...Option) (*Cluster, error) {
	t.Helper()
	ctx := testContext(t)
	c, err := Run(ctx, append([]Option{WithLogf(t.Logf)}, opts...)...)
	t.Cleanup(func() {
		if c == nil {
			return
		}
		if err := c.Terminate(context.Background()); err != nil {
			t.Errorf("terminate: %v", err)
		}
		left, err := Leftovers(context.Background(), LabelRun+"="+c.ID)
		if err != nil {
			t.Errorf("list leftovers: %v", err)
		}
		if len(left) > 0 {
			t.Errorf("left after Terminate: %s", strings.Join(left, ", "))
		}
	})
	return c, err
}

type supSummary struct {
	Supervisors []struct {
		Host       string  `json:"host"`
		SlotsTotal int     `json:"slotsTotal"`
		TotalCPU   float64 `json:"totalCpu"`
		TotalMem   float64 `json:"totalMem"`
	} `json:"supervisors"`
}

func TestClusterHeterogeneous2(t *testing.T) {
	needEngine(t)
	c, err := runCluster(t, WithShape("heterogeneous-2"), WithNetworkDelay(5))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cluster start (zookeeper up -> all supervisors registered): %s (target < 30 s)", c.StartDuration().Round(time.Millisecond))
	ctx := testContext(t)

	// Nimbus sees both supervisors with the capacities the shape sets: heterogeneous-2 is
	// sup1 = 0.5 core / 1024 MB and sup2 = 1.0 core / 1536 MB, so cpu 50 and 100, memory
	// 1024-384 = 640 and 1536-384 = 1152 MB, 4 slots each.
	base, err := c.UIURL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Errorf("UIURL = %s, want loopback", base)
	}
	resp, err := http.Get(base + "/api/v1/supervisor/summary")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sum supSummary
	if err := json.NewDecoder(resp.Body).Decode(&sum); err != nil {
		t.Fatal(err)
	}
	sort.Slice(sum.Supervisors, func(i, j int) bool { return sum.Supervisors[i].Host < sum.Supervisors[j].Host })
	want := []struct {
		host     string
		cpu, mem float64
	}{{"sup1", 50, 640}, {"sup2", 100, 1152}}
	if len(sum.Supervisors) != len(want) {
		t.Fatalf("Nimbus lists %d supervisors, want %d: %+v", len(sum.Supervisors), len(want), sum)
	}
	for i, w := range want {
		got := sum.Supervisors[i]
		if got.Host != w.host || got.TotalCPU != w.cpu || got.TotalMem != w.mem || got.SlotsTotal != 4 {
			t.Errorf("supervisor %d = %+v, want host %s cpu %.0f mem %.0f slots 4", i, got, w.host, w.cpu, w.mem)
		}
	}

	// The containers carry the matching limits.
	for _, s := range c.Supervisors() {
		info, err := s.Container.Inspect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := info.HostConfig.NanoCPUs, int64(s.Spec.CPUs*1e9); got != want {
			t.Errorf("%s NanoCPUs = %d, want %d", s.Host(), got, want)
		}
		if got, want := info.HostConfig.Memory, int64(s.Spec.MemoryMB)<<20; got != want {
			t.Errorf("%s Memory = %d, want %d", s.Host(), got, want)
		}
		// The engine reports the capability with its CAP_ prefix (CAP_SYS_NICE).
		if !slices.ContainsFunc(info.HostConfig.CapAdd, func(c string) bool { return strings.TrimPrefix(c, "CAP_") == CapNice }) {
			t.Errorf("%s CapAdd = %v, want %s (background load raises its burner's weight)", s.Host(), info.HostConfig.CapAdd, CapNice)
		}
		// WithNetworkDelay(5) selects the delaying transport in the supervisor's storm.yaml.
		code, out, err := c.Exec(ctx, s.Host(), "cat", StormHome+"/conf/storm.yaml")
		if err != nil || code != 0 || !strings.Contains(out, "storm.messaging.transport: "+DelayTransport) || !strings.Contains(out, DelayConf+": 5") {
			t.Errorf("%s: storm.yaml lacks the 5 ms delay transport: %d %v\n%s", s.Host(), code, err, out)
		}
		if len(info.HostConfig.PortBindings) != 0 {
			t.Errorf("%s publishes ports %v; supervisors should publish none", s.Host(), info.HostConfig.PortBindings)
		}
	}
	// Published ports bind to loopback only.
	for _, role := range []string{RoleNimbus, RoleUI} {
		info, err := c.Container(role).Inspect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for port, bs := range info.HostConfig.PortBindings {
			for _, b := range bs {
				if b.HostIP.String() != "127.0.0.1" {
					t.Errorf("%s publishes %s on %s, want 127.0.0.1", role, port, b.HostIP)
				}
			}
		}
	}
}

// TestTerminateAfterFailedRun starts a cluster whose Nimbus cannot start (its scheduler class does not
// exist): Run must fail naming Nimbus with the last lines of its log, and Terminate must leave nothing.
func TestTerminateAfterFailedRun(t *testing.T) {
	needEngine(t)
	c, err := runCluster(t, WithShape("homogeneous-2"), WithScheduler("org.stormlab.NoSuchScheduler"),
		WithStartTimeout(90*time.Second))
	if err == nil {
		t.Fatal("Run with a missing scheduler class succeeded; want an error")
	}
	if c == nil {
		t.Fatal("Run returned no partial cluster with its error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "start nimbus") || !strings.Contains(msg, "last lines of the nimbus log") {
		t.Errorf("error does not name nimbus with its log:\n%s", msg)
	}
	if !strings.Contains(msg, "NoSuchScheduler") {
		t.Errorf("error does not show the cause from the nimbus log:\n%s", msg)
	}
	var se *StartError
	if !errors.As(err, &se) || se.Role != RoleNimbus || se.Err == nil || !strings.Contains(se.Log, "NoSuchScheduler") {
		t.Errorf("error chain has no *StartError for nimbus with its cause and log: %#v", se)
	}
	// The cleanup registered by runCluster checks that nothing labelled with c.ID remains.
}

func TestOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Option
		want string
	}{
		{"unknown shape", WithShape("nope"), "unknown cluster shape"},
		{"no supervisors", WithSupervisors(), "no supervisors"},
		{"bad cpu", WithSupervisors(SupervisorSpec{Host: "a", CPUs: 0, MemoryMB: 1024}), "CPUs"},
		{"small memory", WithSupervisors(SupervisorSpec{Host: "a", CPUs: 1, MemoryMB: 256}), "too small"},
		{"duplicate host", WithSupervisors(SupervisorSpec{Host: "a", CPUs: 1, MemoryMB: 1024}, SupervisorSpec{Host: "a", CPUs: 1, MemoryMB: 1024}), "twice"},
		{"negative delay", WithNetworkDelay(-1), "out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Run(context.Background(), tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run error = %v, want one containing %q", err, tc.want)
			}
			if c != nil {
				t.Errorf("an invalid option created a cluster %s", c.ID)
				c.Terminate(context.Background())
			}
		})
	}
}

// TestProfilesMemory checks the 8 GiB budget for every shape with UI and service (hand sum for
// heterogeneous-4: supervisors 1024+1280+1280+1536 = 5120, ZooKeeper 384, Nimbus 768, UI 256,
// service 256: 6784 MB).
func TestProfilesMemory(t *testing.T) {
	for _, name := range Shapes() {
		sups, err := Shape(name)
		if err != nil {
			t.Fatal(err)
		}
		total := MemoryTotalMB(sups, true, true)
		if total > 8192 {
			t.Errorf("%s: %d MB of container memory, over 8 GiB", name, total)
		}
		for _, s := range sups {
			if err := s.validate(); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		t.Logf("%s: %d supervisors, %d MB total container memory", name, len(sups), total)
	}
	sups, _ := Shape("heterogeneous-4")
	if got := MemoryTotalMB(sups, true, true); got != 6784 {
		t.Errorf("heterogeneous-4 total = %d MB, want 6784 (hand sum)", got)
	}
}

// TestServiceWithoutUI runs the scheduler service container next to a cluster without UI: the service
// answers its health check on 127.0.0.1, Nimbus gets its URL, and supervisor registration is read from
// ZooKeeper instead of the UI.
func TestServiceWithoutUI(t *testing.T) {
	needEngine(t)
	c, err := runCluster(t, WithSupervisors(SupervisorSpec{Host: "solo", CPUs: 0.5, MemoryMB: 1024, Slots: 2}),
		WithUI(false), WithService("", "--scheduler", "even"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	u, err := c.ServiceURL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Errorf("ServiceURL = %s, want loopback", u)
	}
	resp, err := http.Get(u + protocol.PathHealth)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("service health: %s", resp.Status)
	}
	code, out, err := c.Exec(ctx, RoleNimbus, "cat", StormHome+"/conf/storm.yaml")
	if err != nil || code != 0 || !strings.Contains(out, ServiceURLConf+": http://"+ServiceAlias+":7070"+protocol.PathSchedule) {
		t.Errorf("nimbus storm.yaml lacks the service URL: %d %v\n%s", code, err, out)
	}
	if _, err := c.UIURL(ctx); err == nil {
		t.Error("UIURL succeeded on a cluster without UI")
	}
	t.Logf("cluster start without UI (registration read from ZooKeeper): %s", c.StartDuration().Round(time.Millisecond))
}

// TestTerminateAfterInterrupt cancels Run's context as soon as ZooKeeper is up (as a ^C would through
// signal.NotifyContext): Run must fail, and Terminate with the same cancelled context must still remove
// everything of the run (runCluster's cleanup checks, with a fresh context; here the cancelled one is
// used first).
func TestTerminateAfterInterrupt(t *testing.T) {
	needEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := Run(ctx, WithShape("homogeneous-2"), WithLogf(func(format string, args ...any) {
		t.Logf(format, args...)
		if strings.Contains(format, "zookeeper up") {
			cancel()
		}
	}))
	if err == nil {
		t.Fatal("Run succeeded although its context was cancelled")
	}
	if c == nil {
		t.Fatalf("Run returned no partial cluster: %v", err)
	}
	t.Logf("Run after cancel: %.200s", err)
	if err := c.Terminate(ctx); err != nil {
		t.Errorf("Terminate with the cancelled context: %v", err)
	}
	left, err := Leftovers(context.Background(), LabelRun+"="+c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("left after Terminate: %s", strings.Join(left, ", "))
		c.Terminate(context.Background())
	}
}
