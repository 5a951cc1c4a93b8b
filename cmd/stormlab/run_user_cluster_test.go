package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/topologies"
)

// A Flux topology built only from Storm's own classes (testdata/flux/wordcount-one-acker.yaml:
// TestWordSpout -> TestWordCounter -> TestGlobalCount, two workers, one acker) runs through `stormlab run
// --topology-file` under kpart on the package's standing cluster, through its target
// file from a process that cannot reach Docker. TestWordSpout emits unanchored tuples, so nothing is ever
// acked: the throughput must be measured at the sink (TestGlobalCount) and latency reported as not
// measured, with a reason, never as 0. kpart keeps the three connected executors together and leaves the
// one acker alone on the other worker, which never moves a tuple: the run must still start measuring (a
// worker with nothing to do does not hold readiness back). Each run is valid, and the cluster has no
// topology left afterwards. Then a compiled topology runs through --topology-jar under storm-even, and one
// whose main submits under another name than --name fails with its topology killed.
//
// Reference for the throughput bounds: TestWordSpout sleeps 100 ms in every nextTuple (storm-client's
// org.apache.storm.testing.TestWordSpout), so the one spout task emits at most 10 tuples/s and the one
// sink executes one tuple per spout tuple: at most 10 tuples/s. The lower bound 5 allows the executors'
// own overhead (measured: see the test log) and a window edge.
// Cluster time: two runs of at most 10 s warm-up and 20 s measured on the package's shared standing
// cluster (a Flux run under storm-even is left out: it is the same path with Nimbus placing, which the
// compiled topology's run takes).
func TestFluxTopologyTarget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute) // mostly waiting for the cluster lock
	defer cancel()
	t0 := time.Now()
	defer func() { t.Logf("wall time: %s", time.Since(t0).Round(time.Second)) }()
	file, tg := sharedTarget(t)
	yaml, err := filepath.Abs(filepath.Join("testdata", "flux", "wordcount-one-acker.yaml")) // the CLI runs outside the checkout
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"kpart"} {
		start := time.Now()
		dir := filepath.Join(t.TempDir(), s)
		code, out, errs := cliNoDocker(t, "run", "--cluster", "target:"+file, "--scheduler", s, "--topology-file", yaml,
			"--warmup", "10s", "--measure", "20s", "--format", "json", "--out", dir)
		t.Logf("%s (%s): stdout %s\nstderr (last lines) %s", s, time.Since(start).Round(time.Second), out, lastN(errs, 12))
		if code != exitOK {
			t.Errorf("%s: exit %d, want 0", s, code)
			continue
		}
		var flux runRow
		if err := json.Unmarshal([]byte(out), &flux); err != nil {
			t.Errorf("%s: row does not parse: %v", s, err)
			continue
		}
		checkFluxRow(t, s, flux)
		idle := idleWorkers(t, filepath.Join(dir, "run.json"))
		t.Logf("%s: workers holding only Storm's own executors: %v", s, idle)
		if s == "kpart" && len(idle) != 1 {
			t.Errorf("kpart: workers holding only Storm's own executors %v, want the acker's one (the case this test is for)", idle)
		}
	}
	// A compiled topology through --topology-jar: stormlab's own Throughput chain, its jar taken as a
	// user's jar. Its spout anchors, so throughput is acked tuples and latency is measured.
	root, err := assets.Home()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := cliNoDocker(t, "run", "--cluster", "target:"+file, "--scheduler", "storm-even",
		"--topology-jar", filepath.Join(root, topologies.StormJar), "--class", "org.stormlab.topologies.ThroughputTopology",
		"--name", "stormlab-jar-throughput", "--warmup", "10s", "--measure", "20s", "--format", "json",
		"--", "--name", "stormlab-jar-throughput", "--workers", "2", "--interval-ms", "20")
	t.Logf("compiled topology: stdout %s\nstderr (last lines) %s", out, lastN(errs, 12))
	var row runRow
	if code != exitOK || json.Unmarshal([]byte(out), &row) != nil {
		t.Fatalf("compiled topology: exit %d, want 0 and a JSON row", code)
	}
	if !row.Valid || row.ThroughputBasis != "" || row.Throughput == nil || *row.Throughput <= 0 || row.LatencyMeanMs == nil || *row.LatencyMeanMs <= 0 {
		t.Errorf("compiled topology: valid %v (%s), throughput %v (basis %q), latency %v: want a valid run with acked throughput and latency measured",
			row.Valid, row.Invalid, row.Throughput, row.ThroughputBasis, row.LatencyMeanMs)
	}
	// A main that submits under another name than --name: the submission fails naming both, and what
	// it submitted is killed.
	code, _, errs = cliNoDocker(t, "run", "--cluster", "target:"+file, "--scheduler", "storm-even",
		"--topology-jar", filepath.Join(root, topologies.StormJar), "--class", "org.stormlab.topologies.ThroughputTopology",
		"--name", "stormlab-jar-other", "--", "--name", "stormlab-jar-throughput", "--workers", "1")
	if code == exitOK || !strings.Contains(errs, `not \"stormlab-jar-other\"`) && !strings.Contains(errs, `not "stormlab-jar-other"`) {
		t.Errorf("main submitting under another name: exit %d stderr %s: want a failure naming --name stormlab-jar-other", code, lastN(errs, 12))
	}
	ui := stormui.New(tg.UI)
	deadline := time.Now().Add(90 * time.Second)
	for {
		tops, err := ui.Topologies(ctx)
		if err == nil && len(tops) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the runs: topologies %v (%v), want none", tops, err)
		}
		time.Sleep(time.Second) // polling the UI (a killed topology goes after its kill completes), bounded by deadline
	}
}

// checkFluxRow checks one run of the Flux word count with one acker (see TestFluxTopologyTarget for the
// bounds).
func checkFluxRow(t *testing.T, s string, row runRow) {
	t.Helper()
	if !row.Valid || row.Topology != "stormlab-flux-one-acker" {
		t.Errorf("%s: valid %v (%s), topology %q: want a valid run of stormlab-flux-one-acker", s, row.Valid, row.Invalid, row.Topology)
	}
	if row.Throughput == nil || *row.Throughput < 5 || *row.Throughput > 10.5 || row.ThroughputBasis != harness.BasisSinkExecuted {
		t.Errorf("%s: throughput %v (basis %q): want 5..10.5 tuples/s measured at the sink", s, row.Throughput, row.ThroughputBasis)
	}
	// The spouts do not anchor: latency is not measured, with the reason, never a bare 0.
	if why := row.NotMeasured[harness.MetricLatency]; row.LatencyMeanMs != nil || row.LatencyP99Ms != nil || !strings.Contains(why, "anchor") {
		t.Errorf("%s: latency mean %v p99 %v, not measured %q: want not measured, naming the spouts' missing anchoring", s, row.LatencyMeanMs, row.LatencyP99Ms, why)
	}
	if row.CutRate == nil || *row.CutRate < 0 || *row.CutRate > 1 || row.Balance == nil {
		t.Errorf("%s: cut rate %v balance %v: want both measured, cut rate in [0, 1]", s, row.CutRate, row.Balance)
	}
}

// idleWorkers returns the worker slots ("host:port") of a saved run (run.json) whose executors are all
// Storm's own (__acker, __system, ...).
func idleWorkers(t *testing.T, runJSON string) []string {
	t.Helper()
	b, err := os.ReadFile(runJSON)
	if err != nil {
		t.Fatal(err)
	}
	var run struct{ Executors []harness.ExecutorPlace }
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatalf("%s: %v", runJSON, err)
	}
	system := map[string]bool{}
	for _, e := range run.Executors {
		k := fmt.Sprintf("%s:%d", e.Host, e.Port)
		sys, seen := system[k]
		system[k] = strings.HasPrefix(e.Component, "__") && (sys || !seen)
	}
	var out []string
	for k, sys := range system {
		if sys {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
