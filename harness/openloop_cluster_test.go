package harness

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/docker"
)

// TestClusterOpenLoopPause runs the Throughput chain open loop at a modest constant rate (200 tuples/s)
// on one supervisor of 1 core under storm-even (2 workers) and stops both worker JVMs for 2 s inside the
// window. The tuples due during the pause are sent late: their latency from the intended send time shows
// the pause, their latency from the actual emit does not.
//
// Why these assertions hold by construction: the latency from the intended time is Storm's complete
// latency plus the send lag, and the tuples due in the pause's first 0.5 s (100 of them, over 4% of the
// window's 2,400) are sent >= 1.5 s late, so the send lag's max and the intended latency's p99 and max are
// >= 1.5 s. Latency from the emit may reach 2 s too, but only for the few tuples in flight when the pause
// began (rate x latency, a handful): its p99 stays below 1.5 s. Without the correction the intended
// latency equals the emit latency and the send lag is near 0, so the test fails.
// Cluster time: about 2 minutes (cluster start, a steady window, 12 s measured).
func TestClusterOpenLoopPause(t *testing.T) {
	ctx := clusterTest(t)
	t0 := time.Now()
	defer func() { t.Logf("wall time: %s", time.Since(t0).Round(time.Second)) }()
	const rate = 200.0
	var faults []fault.Fault
	// One supervisor holds both workers, so one SIGSTOP (one command) stops the spout and the bolts
	// together: paused by two commands on two nodes, the one that stops first stalls the tuples the
	// other still emits, and under machine load that skew (>= 120 ms: 1% of the window's tuples)
	// made the emit latency's p99 show the pause too.
	for _, f := range []string{"pause-worker@4s+2s:sup1"} {
		x, err := fault.Parse(f)
		if err != nil {
			t.Fatal(err)
		}
		faults = append(faults, x)
	}
	topo, err := StormTopology("throughput", "openloop", "--workers", "2", "--rate", "200", "--arrivals", "constant",
		"--report-interval-secs", "1", "--worker-childopts", "-XX:TieredStopAtLevel=1")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []Live
	live := func(l Live) { mu.Lock(); lines = append(lines, l); mu.Unlock() }
	one := docker.WithSupervisors(docker.SupervisorSpec{Host: "sup1", CPUs: 1, MemoryMB: docker.SupervisorReserveMB + 420*2, Slots: 2})
	r, err := Kinds{clusterref.Containers: Containers()}.RunOnNew(ctx, ClusterSpec{Seed: 1, Logf: t.Logf, Options: []docker.Option{one}},
		RunSpec{Scheduler: "storm-even", Topology: topo, WarmUp: 20 * time.Second, Measure: 12 * time.Second, Faults: faults, Live: live})
	if err != nil {
		t.Fatalf("open-loop run with a pause: %v\n%s", err, logsOf(err))
	}
	// The live line: every 2 s from the topology's start to its collection (>= 12 s of window alone),
	// so some line saw acks and the spouts' offered rate.
	mu.Lock()
	sawLoad := slices.ContainsFunc(lines, func(l Live) bool { return l.AckedRate > 0 && l.OfferedRate > 0 })
	t.Logf("%d live lines, e.g. %v", len(lines), lines[len(lines)/2])
	mu.Unlock()
	if !sawLoad {
		t.Errorf("no live line with acks and an offered rate: %v", lines)
	}
	for _, fr := range r.Faults {
		if fr.Error != "" {
			t.Fatalf("%s: %s", fr.Fault, fr.Error)
		}
	}
	m := r.Measurement
	ol := m.OpenLoop
	if ol == nil {
		t.Fatalf("no open-loop measurement: %v", m.NotMeasured)
	}
	t.Logf("from emit: p50 %.0f p99 %.0f max %.0f ms; from intended: p50 %.0f p99 %.0f max %.0f ms; send lag p50 %.0f p99 %.0f max %.0f ms; offered %.1f/s achieved %.1f/s",
		m.LatencyP50, m.LatencyP99, m.LatencyMax, ol.IntendedP50, ol.IntendedP99, ol.IntendedMax,
		ol.SendLagP50, ol.SendLagP99, ol.SendLagMax, ol.OfferedRate, ol.EmittedRate)
	const stall = 1500.0 // ms: 3/4 of the 2 s pause
	if ol.IntendedP99 < stall || ol.IntendedMax < stall {
		t.Errorf("latency from the intended time p99 %.0f, max %.0f ms: want both >= %.0f ms (the pause)", ol.IntendedP99, ol.IntendedMax, stall)
	}
	if ol.SendLagMax < stall {
		t.Errorf("send lag max %.0f ms: want >= %.0f ms (tuples due in the pause sent after it)", ol.SendLagMax, stall)
	}
	if m.LatencyP99 >= stall {
		t.Errorf("latency from the emit p99 %.0f ms: want < %.0f ms (only tuples in flight at the pause stall)", m.LatencyP99, stall)
	}
	// The offered load is the schedule's, whatever the pause did: 200/s within 15% (report edges).
	if ol.OfferedRate < 0.85*rate || ol.OfferedRate > 1.15*rate || ol.EmittedRate < 0.85*rate {
		t.Errorf("offered %.1f/s, achieved %.1f/s: want both about %.0f/s", ol.OfferedRate, ol.EmittedRate, rate)
	}
}
