package harness

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/harness/measure"
)

// TestClusterBurners runs the tests of load as applied and of a starved host on one session of
// homogeneous-2 (two supervisors of 0.5 core, both saturated by WordCount unpaced), one run each, in an
// order where none leaves anything behind for the next (each undoes its load; the host's loops stop
// with their run): a cluster start and teardown for the three, not one each. Cluster time: about 5
// minutes.
func TestClusterBurners(t *testing.T) {
	ctx := clusterTest(t)
	s := stormEvenSession(ctx, t, "homogeneous-2")
	t.Run("straggler applied", func(t *testing.T) { stragglerApplied(ctx, t, s) })
	t.Run("background load applied", func(t *testing.T) { backgroundLoadApplied(ctx, t, s) })
	t.Run("host starved", func(t *testing.T) { hostStarved(ctx, t, s) })
}

// stragglerApplied runs WordCount unpaced on homogeneous-2 (two supervisors of 0.5 core, both
// saturated) with a straggler of 80% on sup1 (0.40 cores asked) for 20 s of a 30 s window, and asserts
// that its burner gets its share beside the saturated workers: the load it carried, by its own reports,
// at least minCarried of the cores asked (a straggler recorded before the burner spun on CPU time at a
// raised weight got 0.03 of 0.40), and the run judged by the 10% rule.
func stragglerApplied(ctx context.Context, t *testing.T, s *Session) {
	f, err := fault.Parse("straggler@5s+20s:sup1=80")
	if err != nil {
		t.Fatal(err)
	}
	topo, err := StormTopology("wordcount", "straggled", "--workers", "2", "--parallelism", "2", "--report-interval-secs", "2",
		"--worker-childopts", "-XX:TieredStopAtLevel=1")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(ctx, RunSpec{Topology: topo, WarmUp: 20 * time.Second, Measure: 30 * time.Second, Faults: []fault.Fault{f}})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, logsOf(err))
	}
	if len(r.Faults) != 1 || r.Faults[0].Applied == nil || r.Faults[0].Error != "" {
		t.Fatalf("fault records %+v: want the straggler with its applied load", r.Faults)
	}
	a := r.Faults[0].Applied
	for _, c := range r.Diagnosis.Cgroups {
		t.Logf("%s: used %.2f of %.2f core, throttled %s of periods, host idle %s", c.Host, c.Used/100, c.Quota/100, fig(c.ThrottledShare), fig(c.HostIdle))
	}
	t.Logf("straggler on %s: asked %.2f cores, used %s over %d reports; bottleneck: %s; validity %+v", a.Host, a.Asked, fig(a.Used), a.Reports, r.Diagnosis.Bottleneck, r.Validity)
	if a.Host != "sup1" || a.Asked < 0.399 || a.Asked > 0.401 || a.Used == nil || a.Reports == 0 {
		t.Errorf("applied %+v: want sup1, 0.40 cores asked, its use measured", a)
	}
	checkCarried(t, []diagnose.Applied{*a}, r.Validity)
}

// minCarried is the least share of its level a burner must carry beside saturated workers in these
// tests: measured 0.33-0.39 of 0.40 cores for a straggler and 0.25-0.26 of 0.25 for background load on
// this shared 2-core host, against 0.03-0.17 of 0.40 before the burner spun on CPU time at a raised
// weight (0.6 of 0.40 is 0.24, above all of those). The 10% rule (diagnose.AppliedShort) judges the run; a test on a host others use cannot
// promise it, so it checks the rule is applied and the burner's share is far above the old one.
const minCarried = 0.6

// checkCarried asserts each burner carried at least minCarried of its level, and that the run is
// load-short exactly when one carried less than 1 - diagnose.AppliedShort of it.
func checkCarried(t *testing.T, applied []diagnose.Applied, v measure.Validity) {
	t.Helper()
	short := false
	for _, a := range applied {
		if a.Used == nil || *a.Used < minCarried*a.Asked {
			t.Errorf("%s: applied %s of %.2f cores: want at least %.2f of it carried", a.Host, fig(a.Used), a.Asked, minCarried)
			continue
		}
		short = short || *a.Used < (1-diagnose.AppliedShort)*a.Asked
	}
	if short != hasKind(v, measure.ReasonLoadShort) {
		t.Errorf("validity %+v: load-short is %v, want %v (the 10%% rule on %+v)", v, !short, short, applied)
	}
}

// backgroundLoadApplied runs WordCount unpaced on homogeneous-2 (both 0.5-core supervisors
// saturated) under background load of 50% (fault.CPULoad: 0.25 cores asked of each supervisor) and
// asserts that the run records, per supervisor, the load its burner carried over the window by its own
// reports (node_stats.background_load in run.json, and in the diagnosis), each at least minCarried of the
// cores asked, and the run judged by the 10% rule.
func backgroundLoadApplied(ctx context.Context, t *testing.T, s *Session) {
	stop, err := s.Nemesis().Inject(ctx, fault.Load(50))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := StormTopology("wordcount", "loaded", "--workers", "2", "--parallelism", "2", "--report-interval-secs", "2",
		"--worker-childopts", "-XX:TieredStopAtLevel=1")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(ctx, RunSpec{Topology: topo, WarmUp: 20 * time.Second, Measure: 30 * time.Second})
	if serr := stop(context.WithoutCancel(ctx)); serr != nil {
		t.Errorf("stop background load: %v", serr)
	}
	if err != nil {
		t.Fatalf("run: %v\n%s", err, logsOf(err))
	}
	for _, c := range r.Diagnosis.Cgroups {
		t.Logf("%s: used %.2f of %.2f core, throttled %s of periods, host idle %s", c.Host, c.Used/100, c.Quota/100, fig(c.ThrottledShare), fig(c.HostIdle))
	}
	if r.NodeStats == nil || len(r.NodeStats.Background) != 2 || len(r.Diagnosis.Applied) != 2 {
		t.Fatalf("background load applied %+v (diagnosis %+v): want one per supervisor", r.NodeStats.Background, r.Diagnosis.Applied)
	}
	for _, a := range r.NodeStats.Background {
		t.Logf("background load on %s: asked %.2f cores, used %s over %d reports", a.Host, a.Asked, fig(a.Used), a.Reports)
		if a.Asked < 0.249 || a.Asked > 0.251 {
			t.Errorf("%s: %.2f cores asked, want 0.25", a.Host, a.Asked)
		}
	}
	t.Logf("bottleneck: %s; validity %+v", r.Diagnosis.Bottleneck, r.Validity)
	checkCarried(t, r.NodeStats.Background, r.Validity)
}

// hostBurners is how many busy loops per host core hostStarved runs outside every
// container, each in its own session (the kernel's autogroups weigh each session as one task: loops of
// one session share one weight). Measured on this project's 2-core Docker host, the two 0.5-core
// supervisors saturated by WordCount: with 1 loop per core in its own session they still got 0.49 and
// 0.46 core (0.92 of their quota: not starved); 2 per core from the test's session left one at 0.43.
const hostBurners = 4

// hostStarved runs WordCount unpaced (it saturates both 0.5-core supervisors of homogeneous-2)
// once while busy loops on the host, outside every container, take most of its CPU, and asserts that
// the run names a host-starved supervisor as its bottleneck and is suspect for it, with the figures read
// from the supervisors' cgroups. The loops are killed when the run ends (and at the test's end in any
// case).
func hostStarved(ctx context.Context, t *testing.T, s *Session) {
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
	// The host's speed is sampled through the window on containers (every 2 s of the 30 s: about 15
	// samples; at least 5 even where the loops leave the probe little of a core).
	if d.HostSpeed == nil || d.HostSpeed.Samples < 5 || !(d.HostSpeed.NsPerStep > 0) {
		t.Errorf("host speed %+v: want the window's probe samples", d.HostSpeed)
	} else {
		t.Logf("host speed: %s", d.HostText())
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
