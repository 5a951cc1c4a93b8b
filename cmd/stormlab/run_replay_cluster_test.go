package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/topologies"
)

// replayTputTol and replayCPUTol are TestReplayRuns' tolerances, relative to the captured file's figures.
// Throughput: the open-loop spouts offer the file's 200 tuples/s on a fixed schedule, so the acked rate in
// the window differs from it only by the tuples in flight at the window's edges and report-interval
// rounding. CPU per tuple: the replay's components spin until their executor thread's CPU time reaches
// the file's figure per tuple in all (CpuBudget's total mode), so the measured figure differs by the
// spin's last round, by CPU the thread spends beyond the target on a tuple (a GC, a JIT compilation) and
// by the sampling of the reports (CPU and counts are read at slightly different moments of each
// interval); 15% covers that on the 0.5- and 1-core supervisors of heterogeneous-2.
//
// Storm's own cost of a bolt executor: with Storm 2.8's default bolt wait strategy (WaitStrategyProgressive:
// park for 1 ns up to 1000 times, then sleep 1 ms) a bolt that gets a tuple every 5-10 ms never gets to
// sleep, which measured about 9% of a core per bolt executor (work 900 µs, sink 383 µs per tuple with
// nothing spun), above the fixture's 300 µs; a replay cannot go below it, nor could a capture of such a
// bolt. The test runs the replay with topology.bolt.wait.progressive.level2.count=0 (an idle bolt sleeps
// 1 ms at once), which brings that cost, the ackers' included, far below 300 µs per tuple and keeps the
// whole topology light enough for heterogeneous-2 on a shared 2-core machine: with the default and bolt
// figures above it (1300 and 650 µs) one run kept up and one fell behind (92 of 200 tuples/s acked).
const (
	replayTputTol = 0.10
	replayCPUTol  = 0.15
)

// TestReplayRuns replays the hand-written capture topologies/testdata/replay-small.json (source x2 ->
// work x2 -(fields)-> sink x1, 200 tuples/s, 300 µs of CPU per tuple in every component) on a standing
// heterogeneous-2 cluster under kpart, through its target file from a process that cannot reach Docker, and
// checks that the run is valid, its throughput is within replayTputTol of the file's offered rate, and each
// component's CPU per tuple, folded from the run's worker reports over the window (executor thread CPU time
// over tuples executed, or emitted for the spout, as a capture measures it), is within replayCPUTol of the
// file's. The warm-up may last up to 60 s: the spouts' schedule starts when they open, before every worker
// takes tuples, and the replay drains that start-up backlog at the little headroom the cluster has above
// 200 tuples/s (a run with at most 30 s opened its window while it still drained: 242 tuples/s acked, 2.3 s
// latency). Cluster time: up to 60 s of warm-up and 30 s measured, on the package's shared standing cluster.
func TestReplayRuns(t *testing.T) {
	t0 := time.Now()
	defer func() { t.Logf("wall time: %s", time.Since(t0).Round(time.Second)) }()
	want, err := topologies.ReadCapturedFile(replaySmall)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file, _ := sharedTarget(t)
	out := filepath.Join(dir, "run")
	start := time.Now()
	code, stdout, errs := cliNoDocker(t, "run", "--target", file, "--scheduler", "kpart", "--topology", "replay:"+replaySmall,
		"--warmup", "60s", "--measure", "30s", "--format", "json", "--out", out,
		"--", "--conf", "topology.bolt.wait.progressive.level2.count=0")
	t.Logf("replay (%s): stdout %s\nstderr (last lines) %s", time.Since(start).Round(time.Second), stdout, lastN(errs, 12))
	var row runRow
	if code != exitOK || json.Unmarshal([]byte(stdout), &row) != nil {
		t.Fatalf("replay: exit %d, want 0 and a JSON row", code)
	}
	offered := want.Components[0].EmitPerS // the one spout's rate: 200 tuples/s
	if !row.Valid || row.Throughput == nil || math.Abs(*row.Throughput-offered) > replayTputTol*offered {
		t.Errorf("replay: valid %v (%s), throughput %v: want a valid run within %.0f%% of %.0f tuples/s", row.Valid, row.Invalid, row.Throughput, 100*replayTputTol, offered)
	}
	if row.LatencyMeanMs == nil || row.OfferedRate == nil {
		t.Errorf("replay: latency %v, offered rate %v: want complete latency measured and an open-loop run", row.LatencyMeanMs, row.OfferedRate)
	}
	got := cpuPerTuple(t, out)
	for _, k := range want.Components {
		g, ok := got[k.Name]
		t.Logf("%s: CPU per tuple %.1f µs (file %.1f µs)", k.Name, g, k.CPUMicrosPerTuple)
		if !ok || math.Abs(g-k.CPUMicrosPerTuple) > replayCPUTol*k.CPUMicrosPerTuple {
			t.Errorf("%s: CPU per tuple %.1f µs (measured: %v), want within %.0f%% of the file's %.1f µs", k.Name, g, ok, 100*replayCPUTol, k.CPUMicrosPerTuple)
		}
	}
}

// cpuPerTuple folds a saved run's worker reports whose whole interval lies in the window into each
// component's executor thread CPU per tuple, µs: over the tuples its tasks executed (bolts) or the tuples
// executed downstream from its tasks (a spout with one shuffle-grouped subscriber: its emitted tuples).
// Storm's own tasks (acker, system) and the traffic to and from them (a spout's ack init, a bolt's acks)
// are left out, as a capture leaves them out.
func cpuPerTuple(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Executors []struct {
			Component  string
			Start, End int
		} `json:"executors"`
		From int64 `json:"measure_from_ms"`
		To   int64 `json:"measure_to_ms"`
	}
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	comp := map[int]string{}
	for _, e := range run.Executors {
		for task := e.Start; task <= e.End; task++ {
			comp[task] = e.Component
		}
	}
	f, err := os.Open(filepath.Join(dir, "reports.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cpuNs, executed, emitted := map[string]float64{}, map[string]float64{}, map[string]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r protocol.WorkerReport
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if float64(r.TimeMs)-1000*r.IntervalS < float64(run.From) || r.TimeMs > run.To {
			continue
		}
		for _, c := range r.CPU {
			cpuNs[comp[c.Task]] += float64(c.CPUNs)
		}
		for _, tr := range r.Traffic {
			if from, to := comp[tr.Src], comp[tr.Dst]; from != "" && to != "" && !strings.HasPrefix(from, "__") && !strings.HasPrefix(to, "__") {
				executed[to] += float64(tr.Count)
				emitted[from] += float64(tr.Count)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for name, ns := range cpuNs {
		n := executed[name]
		if name == "source" {
			n = emitted[name]
		}
		if n > 0 {
			out[name] = ns / 1000 / n
		}
		t.Logf("window: %s CPU %.3f s, %.0f tuples executed, %.0f emitted", name, ns/1e9, executed[name], emitted[name])
	}
	return out
}
