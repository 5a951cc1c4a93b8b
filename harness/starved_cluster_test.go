package harness

import (
	"context"
	"errors"
	"github.com/stormlab/stormlab/harness/measure"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/docker"
)

// hostBurners is how many busy loops per host core TestClusterHostStarved runs outside every
// container, each in its own session (the kernel's autogroups weigh each session as one task: loops of
// one session share one weight). Measured on this project's 2-core Docker host, the two 0.5-core
// supervisors saturated by WordCount: with 1 loop per core in its own session they still got 0.49 and
// 0.46 core (0.92 of their quota: not starved); 2 per core from the test's session left one at 0.43.
const hostBurners = 4

// TestClusterHostStarved runs WordCount unpaced (it saturates both 0.5-core supervisors of homogeneous-2)
// once while busy loops on the host, outside every container, take most of its CPU, and asserts that
// the run names a host-starved supervisor as its bottleneck and is suspect for it, with the figures read
// from the supervisors' cgroups. The loops are killed when the run ends (and at the test's end in any
// case). Cluster time: about 2 minutes.
func TestClusterHostStarved(t *testing.T) {
	ctx := clusterTest(t)
	t0 := time.Now()
	s, err := StartSession(ctx, ClusterSpec{Shape: "homogeneous-2", Seed: 1, Logf: t.Logf}, "storm-even")
	t.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
		if s == nil {
			return
		}
		left, err := docker.Leftovers(context.Background(), docker.LabelRun+"="+s.Cluster().ID)
		if err != nil || len(left) > 0 {
			t.Errorf("left after Close: %v %v", left, err)
		}
		t.Logf("wall time: %s", time.Since(t0).Round(time.Second))
	})
	if err != nil {
		t.Fatal(err)
	}
	topo, err := StormTopology("wordcount", "starved", "--workers", "2", "--parallelism", "2", "--report-interval-secs", "2",
		"--worker-childopts", "-XX:TieredStopAtLevel=1")
	if err != nil {
		t.Fatal(err)
	}
	// The loops burn from the warm-up (the live line's phase: every worker runs) to the collect step, so
	// that the whole window is burnt: started at the window's opening they missed up to a live line's
	// 2 s of it, and the host's idle share over the window came to 4%, at the 5% threshold.
	var b burners
	t.Cleanup(b.stop)
	live := func(l Live) {
		if l.Phase == stageWarmUp || l.Phase == stageWindow || l.Phase == stageStormRead {
			b.start(hostBurners * runtime.NumCPU())
		} else {
			b.stop()
		}
	}
	r, err := s.Run(ctx, RunSpec{Topology: topo, WarmUp: 20 * time.Second, Measure: 30 * time.Second, Live: live})
	b.stop()
	t.Logf("%d host burner(s) ran %s from the warm-up to the collect step (errors: %v)", hostBurners*runtime.NumCPU(), b.ran.Round(time.Second), b.err)
	if b.err != nil || b.ran < 30*time.Second {
		t.Fatalf("the host burners ran %s, want the 30 s window at least (errors: %v)", b.ran, b.err)
	}
	if err != nil {
		t.Fatalf("run: %v\n%s", err, logsOf(err))
	}
	d := r.Diagnosis
	for _, c := range d.Cgroups {
		t.Logf("%s: used %.2f of %.2f core, throttled %s of periods (%s s), host idle %s, waited %s s/s (%s), starved %v",
			c.Host, c.Used/100, c.Quota/100, fig(c.ThrottledShare), fig(c.ThrottledS), fig(c.HostIdle), fig(c.Waited), c.WaitedFrom, c.Starved)
	}
	t.Logf("bottleneck: %s; validity: %+v; throughput %.0f tuples/s", d.Bottleneck, r.Validity, r.Measurement.Throughput)
	if len(d.Cgroups) != 2 {
		t.Fatalf("cgroup figures of %d supervisors, want 2 (unknown: %v)", len(d.Cgroups), d.Unknown)
	}
	if d.Rule != "host-starved" || !strings.HasPrefix(d.Bottleneck, "host-starved: sup") {
		t.Errorf("bottleneck %q (rule %q): want a host-starved supervisor", d.Bottleneck, d.Rule)
	}
	if r.Validity.Level != Suspect || !hasKind(r.Validity, measure.ReasonHostStarved) {
		t.Errorf("validity %+v: want suspect for host starvation", r.Validity)
	}
}

// burners are busy loops on this machine, outside every container (sha256sum of /dev/zero), each in
// its own session and pinned to one core after another: start (once) and stop (kills and waits for
// them; again is a no-op) are called from the live line's goroutine, stop after the run too.
type burners struct {
	mu      sync.Mutex
	cmds    []*exec.Cmd
	started bool
	at      time.Time
	ran     time.Duration
	err     error
}

func (b *burners) start(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started { // once: the window opens once
		return
	}
	b.started, b.at = true, time.Now()
	for i := range n {
		args := []string{"sha256sum", "/dev/zero"}
		if p, err := exec.LookPath("taskset"); err == nil {
			args = append([]string{p, "-c", strconv.Itoa(i % runtime.NumCPU())}, args...)
		}
		c := exec.Command(args[0], args[1:]...)
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // its own autogroup (see hostBurners)
		if err := c.Start(); err != nil {
			b.err = errors.Join(b.err, err)
			continue
		}
		b.cmds = append(b.cmds, c)
	}
}

func (b *burners) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.cmds {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	if len(b.cmds) > 0 {
		b.ran += time.Since(b.at)
	}
	b.cmds = nil
}

func fig(p *float64) string {
	if p == nil {
		return "unknown"
	}
	return strconv.FormatFloat(*p, 'f', 2, 64)
}
