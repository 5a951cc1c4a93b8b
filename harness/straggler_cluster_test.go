package harness

import (
	"context"
	"github.com/stormlab/stormlab/harness/measure"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/docker"
)

// TestClusterStragglerApplied runs WordCount unpaced on homogeneous-2 (two supervisors of 0.5 core)
// with a straggler of 80% on sup1 (0.40 cores asked) for 20 s of a 30 s window, and asserts that the
// run records the load its burner carried, from the burner's own reports, and judges it by the rule:
// suspect (load-short) exactly when the burner used less than 0.9 of the cores asked. It logs the
// figures: what a straggler's burner gets beside saturated workers on a container. Cluster time: about
// 2.5 minutes.
func TestClusterStragglerApplied(t *testing.T) {
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
	if short := a.Used != nil && *a.Used < 0.9*a.Asked; short != hasKind(r.Validity, measure.ReasonLoadShort) {
		t.Errorf("applied %s of %.2f cores; validity %+v: load-short must be a reason exactly when under 0.9 of the asked", fig(a.Used), a.Asked, r.Validity)
	}
}
