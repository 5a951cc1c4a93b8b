package harness

import (
	"context"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/docker"
)

// hostBurners is how many busy loops per host core TestClusterHostStarved runs outside every
// container, each in its own session. The containers share one cgroup parent (docker's), whose weight
// equals one busy loop's, and the kernel's autogroups give each session one such weight too (loops of one
// session share it: started from the test's own session, four loops took only half of a 2-core host). With
// one loop per core the whole cluster gets about 2/3 of a core on a 2-core host, while the two
// supervisors alone ask for 1 core.
const hostBurners = 1

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
	stop := burnHost(t, hostBurners*runtime.NumCPU())
	r, err := s.Run(ctx, RunSpec{Topology: topo, WarmUp: 20 * time.Second, Measure: 30 * time.Second})
	stop()
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
	if r.Validity.Level != Suspect || !hasKind(r.Validity, ReasonHostStarved) {
		t.Errorf("validity %+v: want suspect for host starvation", r.Validity)
	}
}

// burnHost starts n busy loops on this machine, outside every container (sha256sum of /dev/zero), and
// returns the stop that kills them and waits for them; the test's cleanup calls it too.
func burnHost(t *testing.T, n int) (stop func()) {
	t.Helper()
	var cmds []*exec.Cmd
	for i := range n {
		args := []string{"sha256sum", "/dev/zero"}
		if p, err := exec.LookPath("taskset"); err == nil { // pinned, one core after another
			args = append([]string{p, "-c", strconv.Itoa(i % runtime.NumCPU())}, args...)
		}
		c := exec.Command(args[0], args[1:]...)
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // its own autogroup (see hostBurners)
		if err := c.Start(); err != nil {
			t.Fatalf("host burner: %v", err)
		}
		cmds = append(cmds, c)
	}
	done := false
	stop = func() {
		if done {
			return
		}
		done = true
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
		t.Logf("%d host burner(s) stopped", len(cmds))
	}
	t.Cleanup(stop)
	return stop
}

func fig(p *float64) string {
	if p == nil {
		return "unknown"
	}
	return strconv.FormatFloat(*p, 'f', 2, 64)
}
