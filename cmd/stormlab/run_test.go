package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/harness/hostspeed"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/internal/golden"
)

// Every bad request is refused with exit 2 and one line before anything
// touches Docker: DOCKER_HOST points nowhere, so reaching the engine check
// would give exit 1 instead.
func TestRunBadInput(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	base := func(extra ...string) []string {
		return append([]string{"run", "--scheduler", "kpart", "--topology", "throughput"}, extra...)
	}
	noControl := filepath.Join(t.TempDir(), "target.yaml")
	tf := "nimbus: {seeds: [nimbus1], port: 6627}\nui: http://ui:8080\nservice: {cluster: http://svc:7070, harness: http://127.0.0.1:7070}\n"
	if err := os.WriteFile(noControl, []byte(tf), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"scheduler missing", []string{"run", "--topology", "throughput"}, "--scheduler is required"},
		{"unknown scheduler", []string{"run", "--scheduler", "nope", "--topology", "throughput"}, `unknown scheduler "nope"`},
		{"topology missing", []string{"run", "--scheduler", "storm-even"}, "--topology is required"},
		{"unknown topology", []string{"run", "--scheduler", "kpart", "--topology", "pi"}, `unknown storm topology "pi"`},
		{"unknown shape", base("--cluster", "huge-9"), `unknown cluster shape "huge-9"`},
		{"malformed duration", base("--warmup", "20"), `invalid argument "20" for "--warmup"`},
		{"zero measure", base("--measure", "0s"), "--measure 0s must be positive"},
		{"negative warmup", base("--warmup", "-1s"), "--warmup -1s is negative"},
		{"negative delay", base("--delay-ms", "-5"), "--delay-ms -5 is negative"},
		{"negative mul", base("--mul", "-1"), "--mul -1 is negative"},
		{"bad seed", base("--seed", "x"), `invalid argument "x" for "--seed"`},
		{"bad format", base("--format", "xml"), `unknown --format "xml"`},
		{"stray argument", base("now"), "run takes no arguments"},
		{"unknown fault kind", base("--fault", "reboot@10s+5s"), `unknown kind "reboot"`},
		{"fault on an unknown node", base("--fault", "kill-supervisor@10s+5s:sup9"), `node "sup9" is not a supervisor`},
		{"fault after the window", base("--measure", "30s", "--fault", "restart-service@25s+10s"), "after the 30s measurement window"},
		{"last supervisor killed", base("--fault", "kill-supervisor@10s+20s:sup1", "--fault", "kill-supervisor@15s+5s:sup2"), "kills the last running supervisor"},
		// Delay faults (the default shape's supervisors are sup1 and sup2).
		{"delay on an unknown node", base("--fault", "delay@10s+10s:sup1-sup9=50ms"), `"sup1-sup9" is not two supervisors`},
		{"delay not a duration", base("--fault", "delay@10s+10s:sup1-sup2=fast"), `DELAY "fast" is not a duration`},
		{"delay after the window", base("--measure", "30s", "--fault", "delay@25s+10s:sup1-sup2=50ms"), "after the 30s measurement window"},
		{"delay on one node", base("--fault", "delay@10s+10s:sup1-sup1=50ms"), "both nodes are sup1"},
		{"two delays on one node", base("--fault", "delay@10s+10s:sup1-sup2=50ms", "--fault", "delay@15s+10s:sup2-sup1=5ms"), "one delay per node at a time"},
		{"fault on a target without control", base("--cluster", "target:"+noControl, "--fault", "restart-service@10s+5s"), "add control.ssh (user, key, hosts) to the target file"},
		{"name in topology flags", base("--", "--name", "x"), "--name is set by stormlab run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli(t, c.args...)
			if code != exitBadInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d stdout %q stderr %q: want exit 2 and one line containing %q", code, out, errs, c.want)
			}
		})
	}
}

// Without a Docker engine run, images and cleanup fail (exit 1) with the
// message that says how to start one.
func TestNoDockerEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	for _, args := range [][]string{
		{"run", "--scheduler", "storm-even", "--topology", "throughput", "--measure", "1s"},
		{"run", "--scheduler", "kpart", "--topology", "wordcount", "--", "--parallelism", "2"},
		{"images"},
		{"cleanup"},
	} {
		t.Run(args[0], func(t *testing.T) {
			start := time.Now()
			code, _, errs := cli(t, args...)
			if code != exitFailed || strings.Count(errs, "\n") != 1 ||
				!strings.Contains(errs, "no Docker engine reachable") || !strings.Contains(errs, "start one with") {
				t.Errorf("exit %d stderr %q: want exit 1 and one line saying how to start an engine", code, errs)
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("took %s to notice there is no engine", d)
			}
		})
	}
}

func TestRunRow(t *testing.T) {
	res := &harness.RunResult{
		Measurement: harness.Measurement{Throughput: 812.5, LatencyMean: 4.25, LatencyP99: 19, CutRate: 0.375, Balance: 12.5},
		RoundsMs:    []float64{10, 30},
	}
	o := runOptions{scheduler: "kpart", topology: "throughput", shape: "heterogeneous-2"}
	row := newRunRow(o, res)
	if !row.Valid || row.QoSRate != nil {
		t.Errorf("row %+v: want valid and no QoS (no deadline tuples)", row)
	}
	var b strings.Builder
	if err := row.write(&b, "table"); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/run-row.golden", []byte(b.String()))

	// Deadlines give a QoS rate; zero throughput makes the row invalid.
	res.Measurement = harness.Measurement{Deadlines: 10, QoSRate: 0.5}
	res.Validity = harness.Validity{Level: harness.Invalid, Reasons: []harness.Reason{
		{Kind: harness.ReasonScheduler, Level: harness.Invalid, Text: "bridge fell back to EvenScheduler: service unreachable"},
		{Kind: harness.ReasonNoThroughput, Level: harness.Invalid, Text: "throughput is zero: no tuple was acked in the measurement window"}}}
	row = newRunRow(o, res)
	if row.Valid || row.QoSRate == nil || *row.QoSRate != 0.5 ||
		!strings.Contains(row.Invalid, "fell back") || !strings.Contains(row.Invalid, "throughput is zero") {
		t.Errorf("row %+v: want invalid (fallback, zero throughput) with QoS 0.5", row)
	}
	b.Reset()
	if err := row.write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatalf("json row does not parse: %v\n%s", err, b.String())
	}
	if back["valid"] != false || back["qos_rate"] != 0.5 || back["scheduler"] != "kpart" {
		t.Errorf("json row %v", back)
	}
}

func TestRoundsText(t *testing.T) {
	// 3 rounds: mean (1 + 2 + 6) / 3 = 3, max 6.
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{nil, "none"},
		{[]float64{1, 2, 6}, "3, mean 3.0 ms, max 6.0 ms"},
	} {
		if got := roundsText(c.in); got != c.want {
			t.Errorf("roundsText(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// clusterRunning sees a lock held through another open file (flock locks
// belong to the open file, so this process can play the other owner), and
// leaves a free lock free.
func TestClusterRunning(t *testing.T) {
	old := clusterLockPath
	t.Cleanup(func() { clusterLockPath = old })
	clusterLockPath = filepath.Join(t.TempDir(), "lock")
	if clusterRunning() {
		t.Error("no lock file: want no cluster")
	}
	f, err := os.OpenFile(clusterLockPath, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if clusterRunning() {
		t.Error("free lock: want no cluster")
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("clusterRunning left the lock taken: %v", err)
	}
	if !clusterRunning() {
		t.Error("held lock: want a running cluster")
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if clusterRunning() {
		t.Error("released lock: want no cluster")
	}
}

// TestFaultFigure draws a run's throughput with one fault window shaded (the file is looked at by a
// person; here: it is a PNG and a window after the last interval is refused by the plot).
func TestFaultFigure(t *testing.T) {
	start := time.UnixMilli(100_000)
	r := &harness.RunResult{StartedAt: start, MeasureFrom: 100_000, MeasureTo: 130_000,
		Faults: []harness.FaultRecord{{Fault: fault.Fault{Kind: fault.RestartService, At: 10 * time.Second, Duration: 5 * time.Second}, StartMs: 110_000, EndMs: 115_000}}}
	for ts := int64(105_000); ts <= 130_000; ts += 5000 {
		r.Reports = append(r.Reports, protocol.WorkerReport{Host: "s1", Port: 6700, TimeMs: ts, IntervalS: 5, Acked: 500})
	}
	path := filepath.Join(t.TempDir(), "timeline.png")
	if err := writeFaultFigure(path, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("timeline.png: %d bytes, %v; want a PNG", len(b), err)
	}
	if c, err := os.ReadFile(filepath.Join(filepath.Dir(path), "timeline.txt")); err != nil || !bytes.Contains(c, []byte("fault windows")) {
		t.Errorf("timeline.txt: %q, %v; want the caption beside the figure", c, err)
	}
}

// TestRunRowBottleneck: the run's diagnosis reaches its row: a line under the table (and its links',
// its CPU by thread and the host's speed), and the JSON's "diagnosis".
func TestRunRowBottleneck(t *testing.T) {
	used := 0.98
	r := &harness.RunResult{Measurement: harness.Measurement{Throughput: 10}, Diagnosis: &harness.Diagnosis{Bottleneck: "sup1 CPU 99% of 0.50 core", Rule: "node at its quota",
		Links:     []diagnose.Link{{Host: "sup1", SentMbit: 1.96, RecvMbit: 0.2, LimitMbit: 2, UsedOfLimit: &used}},
		Threads:   []diagnose.Threads{{Host: "sup1", Workers: 2, Executors: 0.2, Spin: 0.02, Messaging: 0.17, Storm: 0.03, JVM: 0.03}},
		HostSpeed: hostspeed.Summarize([]float64{10.9, 10.0, 11.5, 10.4, 11.2})}}
	row := newRunRow(runOptions{scheduler: "kpart", topology: "throughput", shape: "heterogeneous-2"}, r)
	var table, js strings.Builder
	if err := row.write(&table, "table"); err != nil {
		t.Fatal(err)
	}
	if err := row.write(&js, "json"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "bottleneck: sup1 CPU 99% of 0.50 core") || !strings.Contains(js.String(), `"rule": "node at its quota"`) {
		t.Errorf("table:\n%s\njson:\n%s\nwant the bottleneck in both", table.String(), js.String())
	}
	if !strings.Contains(table.String(), "links: sup1 sent 1.96 of 2 Mbit/s (98%), received 0.20") || !strings.Contains(js.String(), `"sent_mbit": 1.96`) {
		t.Errorf("table:\n%s\njson:\n%s\nwant sup1's link in both", table.String(), js.String())
	}
	if !strings.Contains(table.String(), "cpu by thread: sup1 executors 0.22 (0.02 spinning), messaging 0.17, Storm 0.03, JVM 0.03 cores") ||
		!strings.Contains(js.String(), `"messaging": 0.17`) {
		t.Errorf("table:\n%s\njson:\n%s\nwant sup1's CPU by thread in both", table.String(), js.String())
	}
	// Quartiles of the five samples (medians of the lower and upper two): 10.2 and 11.35.
	if !strings.Contains(table.String(), "host speed: 10.9 ns a probe step (median of 5, middle half 10.2-11.3)") ||
		!strings.Contains(js.String(), `"ns_per_step": 10.9`) {
		t.Errorf("table:\n%s\njson:\n%s\nwant the host's speed in both", table.String(), js.String())
	}
}
