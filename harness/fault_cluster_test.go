package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/images"
)

// TestClusterFaults injects each fault kind once into one timed run on one small cluster
// (heterogeneous-2: sup1 0.5 core, sup2 1 core; native storm-even, so placement does not depend on
// the service that one fault restarts) and asserts that the run finished, that every fault started
// and ended without error and is in the saved timeline, that its recovery was measured (a time or
// "not recovered", never "not measured": every fault starts after some intervals of the window) and
// that nothing is left behind. Cluster time: about 4 minutes.
func TestClusterFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster test: skipped with -short")
	}
	cli, err := images.NewClient(context.Background())
	if errors.Is(err, images.ErrNoEngine) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	cli.Close()
	t0 := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := StartSession(ctx, ClusterSpec{Profile: "heterogeneous-2", Seed: 1, Logf: t.Logf}, "storm-even")
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
	var faults []Fault
	for _, f := range []string{
		"pause-worker@10s+8s:sup2",
		"restart-zookeeper@25s+10s",
		"restart-service@45s+8s",
		"kill-supervisor@62s+15s:sup1",
	} {
		x, err := ParseFault(f)
		if err != nil {
			t.Fatal(err)
		}
		faults = append(faults, x)
	}
	topo, err := StormTopology("throughput", "faults", "--workers", "2", "--interval-ms", "10", "--report-interval-secs", "2",
		"--worker-childopts", "-XX:TieredStopAtLevel=1")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(ctx, RunSpec{Topology: topo, WarmUp: 30 * time.Second, Measure: 95 * time.Second, Step: 4 * time.Second, Faults: faults})
	if err != nil {
		t.Fatalf("run with faults: %v\n%s", err, logsOf(err))
	}
	dir := t.TempDir()
	if err := Save(dir, r); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "timeline.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inTimeline := map[string]int{}
	events := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e TimelineEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("timeline line %q: %v", sc.Text(), err)
		}
		events[e.Event]++
		if e.Fault != "" {
			inTimeline[e.Fault+" "+e.Event]++
		}
	}
	t.Logf("timeline events: %v; throughput %.1f tuples/s; invalid %q", events, r.Measurement.Throughput, r.Invalid)
	if events["throughput"] == 0 || events["worker-start"] == 0 {
		t.Errorf("timeline without throughput series or worker starts: %v", events)
	}
	// Which worker reported until when: a worker whose reports stop reads as lost throughput.
	last, count := map[string]int64{}, map[string]int{}
	for _, x := range r.Reports {
		k := x.Host + ":" + strconv.Itoa(x.Port)
		last[k], count[k] = max(last[k], x.TimeMs), count[k]+1
	}
	for k := range last {
		t.Logf("worker %s: %d reports, last %.0f s before the window's end", k, count[k], float64(r.MeasureTo-last[k])/1000)
	}
	if len(r.Faults) != len(faults) {
		t.Fatalf("%d fault records, want %d", len(r.Faults), len(faults))
	}
	for _, fr := range r.Faults {
		rc := fr.Recovery
		t.Logf("%s: %s, recovery %.0f s, pre %.1f/s, lost %.0f, failed %d, worker starts %d, moved %d", fr.Fault, rc.Verdict(), rc.RecoveryS, rc.PreTput, rc.LostTuples, rc.FailedTuples, rc.WorkerStarts, rc.ExecutorsMoved)
		if fr.Error != "" || fr.StartMs <= 0 || fr.EndMs < fr.StartMs+fr.Duration.Milliseconds() {
			t.Errorf("%s: start %d end %d error %q; want it started, lasting at least %s, without error", fr.Fault, fr.StartMs, fr.EndMs, fr.Error, fr.Duration)
		}
		if !rc.Measured {
			t.Errorf("%s: recovery not measured", fr.Fault)
		}
		for _, ev := range []string{"fault-start", "fault-end"} {
			if inTimeline[fr.Fault.String()+" "+ev] != 1 {
				t.Errorf("%s: %d %s events in the timeline, want 1", fr.Fault, inTimeline[fr.Fault.String()+" "+ev], ev)
			}
		}
	}
}
