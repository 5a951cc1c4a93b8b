package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/stormlab/stormlab/experiments"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/infra/target"
)

// helperCLI makes this test binary act as the stormlab CLI (arguments as JSON), so that a test can run
// the CLI in a process of its own, with its own environment.
const helperCLI = "STORMLAB_TEST_CLI_ARGS"

func TestMain(m *testing.M) {
	if a := os.Getenv(helperCLI); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			fmt.Fprintln(os.Stderr, "helper CLI:", err)
			os.Exit(3)
		}
		// As main: an interrupt cancels the command (cliInterruptible's cancel sends one).
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := execute(ctx, args, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Setenv("COLUMNS", "120") // the goldens are for a 120-column terminal, whatever the shell exports
	downOnSignal()
	code := m.Run()
	if err := downStanding(); err != nil {
		fmt.Fprintln(os.Stderr, "shared standing cluster:", err)
		code = 1
	}
	os.Exit(code)
}

// standing is the one standing cluster the target tests of this package share, as a user's cluster is
// shared by their runs: started by the first test that needs it (sharedTarget), removed after the last
// by `cluster down` (downStanding, from TestMain). Each test leaves it without a topology, and checks so.
var standing struct {
	once    sync.Once
	started atomic.Bool // set as the cluster starts: from then on a signal removes it (downOnSignal)
	down    sync.Mutex  // one removal at a time: downStanding's, or downOnSignal's
	c       *docker.Cluster
	dir     string
	file    string
	err     error
}

// sharedTarget is the target file of the shared standing cluster, started on first use.
func sharedTarget(t *testing.T) (file string, tg *target.Target) {
	t.Helper()
	if testing.Short() {
		t.Skip("cluster test: skipped with -short (it runs on the package's standing cluster)")
	}
	standing.once.Do(func() {
		// Not the test's context: the cluster outlives the test that started it. Mostly waiting for
		// the machine's cluster lock.
		ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
		defer cancel()
		if standing.dir, standing.err = os.MkdirTemp("", "stormlab-standing-"); standing.err != nil {
			return
		}
		standing.file = filepath.Join(standing.dir, "target.yaml")
		// From here a signal removes it; not where another standing cluster runs (standUp refuses then).
		left, err := docker.Leftovers(ctx, docker.LabelStanding+"=true")
		standing.started.Store(err == nil && len(left) == 0)
		t0 := time.Now()
		standing.c, standing.err = standUp(ctx, docker.DefaultShape, "kpart", standing.file, t.Logf)
		t.Logf("shared standing cluster up in %s", time.Since(t0).Round(time.Second))
	})
	if standing.err != nil {
		t.Fatalf("cluster up: %v", standing.err)
	}
	tg, err := target.Load(standing.file)
	if err != nil {
		t.Fatal(err)
	}
	return standing.file, tg
}

// downOnSignal removes the shared standing cluster when the test binary is stopped by an interrupt or
// SIGTERM (Ctrl-C, a CI job's limit): TestMain's downStanding never runs then, Ryuk is off in CI, and
// the next run's target tests would find a standing cluster already running. A `go test -timeout`
// panic sends no signal and still leaves it behind.
// The CLI children running then get the interrupt first, as cliInterruptible's cancel sends it, and
// up to 30 s to kill their topologies and exit, so that none outlives the test binary; a second signal
// cuts that wait short.
func downOnSignal() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	// The engine as the binary started: a signal may come while a test has pointed DOCKER_HOST nowhere
	// (t.Setenv, to check the errors without an engine), and the removal must not read that.
	host, hadHost := os.LookupEnv("DOCKER_HOST")
	go func() {
		s := <-sigs
		interruptChildren(sigs)
		standing.down.Lock() // held to the exit: TestMain's downStanding, once the tests end, waits
		if hadHost {
			os.Setenv("DOCKER_HOST", host)
		} else {
			os.Unsetenv("DOCKER_HOST")
		}
		if standing.started.Load() {
			n, err := docker.RemoveStanding(context.Background()) // bounded by its own cleanup timeout
			fmt.Fprintf(os.Stderr, "%v: removed the shared standing cluster (%d containers and networks; %v)\n", s, n, err)
		}
		os.Exit(2)
	}()
}

// interruptChildren sends the CLI children an interrupt and waits until they have exited, 30 s pass or
// another signal comes.
func interruptChildren(sigs <-chan os.Signal) {
	children.Range(func(p, _ any) bool {
		p.(*os.Process).Signal(os.Interrupt)
		return true
	})
	deadline := time.After(30 * time.Second)
	for hasChildren() {
		select {
		case <-sigs:
			return
		case <-deadline:
			return
		case <-time.After(100 * time.Millisecond): // polling the children's exits
		}
	}
}

// children are the CLI child processes running (cliInterruptible), as *os.Process keys.
var children sync.Map

func hasChildren() bool {
	found := false
	children.Range(func(_, _ any) bool { found = true; return false })
	return found
}

// downStanding removes the shared standing cluster the way a user does, with `cluster down`, and
// checks that nothing is left.
func downStanding() error {
	standing.down.Lock()
	defer standing.down.Unlock()
	if standing.dir != "" {
		defer os.RemoveAll(standing.dir)
	}
	if standing.c == nil {
		return nil
	}
	standing.c.Release() // from here on only `cluster down` removes it, as after `cluster up --detach`
	var out, errb bytes.Buffer
	if code := execute(context.Background(), []string{"cluster", "down"}, &out, &errb); code != exitOK || !strings.Contains(out.String(), "removed the standing cluster") {
		return fmt.Errorf("cluster down: exit %d stdout %q stderr %q", code, out.String(), errb.String())
	}
	if left, err := docker.Leftovers(context.Background(), docker.LabelStanding+"=true"); err != nil || len(left) > 0 {
		return fmt.Errorf("after cluster down: left %v (%v)", left, err)
	}
	return nil
}

// cliNoDocker runs the CLI in a child process that cannot reach a Docker engine (DOCKER_HOST points to
// a socket that does not exist).
func cliNoDocker(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliInterruptible(context.Background(), t, args...)
}

// cliInterruptible is cliNoDocker whose child gets an interrupt (as from Ctrl-C) when ctx ends.
func cliInterruptible(ctx context.Context, t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	a, _ := json.Marshal(args)
	root, err := filepath.Abs("../..") // the checkout: the user's $STORMLAB_HOME here
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	// After an interrupt the run kills its topology, then exits; WaitDelay bounds that.
	cmd.WaitDelay = 2 * time.Minute
	cmd.Dir = t.TempDir() // outside the checkout, as a user's working folder
	cmd.Env = append(os.Environ(), helperCLI+"="+string(a), "DOCKER_HOST=unix:///nonexistent/docker.sock", assets.Env+"="+root)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err = cmd.Start(); err == nil {
		children.Store(cmd.Process, nil)
		err = cmd.Wait()
		children.Delete(cmd.Process)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatalf("run the CLI: %v", err)
	}
	return 0, out.String(), errb.String()
}

// A standing cluster used through its target file only: target check, then kpart-cluster at ci
// (storm-even, run by Storm's EvenScheduler inside Nimbus, and dynamic K-PART and online through the
// service, chosen per topology on one bridged Nimbus) through --cluster target:FILE from a process that
// cannot reach Docker (checkKPartCluster); the same metrics as the container path; nothing of the target's endpoints in the result files; the cluster
// healthy and without a topology afterwards. (`cluster down` removes it after the package's last test:
// downStanding.)
func TestStandingClusterTarget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute) // mostly waiting for the cluster lock
	defer cancel()
	dir := t.TempDir()
	file, tg := sharedTarget(t)

	// --probe: a worker's report reaches the service (the probe topology is killed again).
	probeStart := time.Now()
	code, out, errs := cliNoDocker(t, "target", "check", "--probe", file)
	t.Logf("target check --probe (%s):\n%s%s", time.Since(probeStart).Round(time.Second), out, errs)
	if code != exitOK || !strings.Contains(out, "target ready") || !strings.Contains(out, "ok    reports") {
		t.Fatalf("target check --probe: exit %d, want 0, a worker's report and target ready", code)
	}
	// cluster up's control section: both supervisors reached over SSH, host keys checked.
	for _, h := range []string{"sup1", "sup2"} {
		if !strings.Contains(out, "ok    ssh "+h) {
			t.Errorf("target check: no ssh line for %s passed", h)
		}
	}
	// A service the harness cannot reach: refused before anything is submitted.
	bad := *tg
	bad.Service.Harness = "http://127.0.0.1:1"
	badFile := filepath.Join(dir, "bad-service.yaml")
	if err := bad.Write(badFile); err != nil {
		t.Fatal(err)
	}
	code, _, errs = cliNoDocker(t, "run", "--cluster", "target:"+badFile, "--scheduler", "kpart", "--topology", "throughput")
	if code != exitBadInput || !strings.Contains(errs, "service.harness") {
		t.Errorf("unreachable service: exit %d stderr %q, want exit 2 naming service.harness", code, errs)
	}

	// kpart-cluster through the target: dynamic K-PART and online placed by the service, EvenScheduler
	// inside Nimbus, chosen per topology on the one standing Nimbus.
	results := filepath.Join(dir, "results")
	start := time.Now()
	code, out, errs = cliNoDocker(t, "experiment", "kpart-cluster", "--cluster", "target:"+file, "--scale", "ci", "--out", results)
	t.Logf("experiment kpart-cluster --cluster target:FILE (%s):\nstdout %s\nstderr (last lines) %s", time.Since(start).Round(time.Second), out, lastN(errs, 20))
	if code != exitOK {
		t.Fatalf("experiment kpart-cluster --cluster target:FILE: exit %d", code)
	}
	checkKPartCluster(t, filepath.Join(results, "kpart-cluster"), tg)
	// Nothing of the target's endpoints is written into the results.
	filepath.WalkDir(results, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, secret := range []string{tg.UI, tg.Service.Harness, tg.Token} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds the target's endpoint %s", p, secret)
			}
		}
		return nil
	})

	// The service wants the token (the bridge and the workers sent it: the runs were placed and
	// measured); a request without it is refused and counted.
	resp, err := http.Get(target.Trim(tg.Service.Harness) + protocol.PathState)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	st, err := harness.ServiceState(ctx, tg, 0)
	if tg.Token == "" || resp.StatusCode != http.StatusUnauthorized || err != nil || st.Unauthorized < 1 {
		t.Errorf("token %q: state without it answered %d, with it: %v, unauthorized %v; want a token, 401, and the refusal counted", tg.Token, resp.StatusCode, err, st)
	}

	// The cluster as it was found: no topology, every supervisor, no slot used.
	checkIdle(ctx, t, tg)
}

// checkKPartCluster checks kpart-cluster's folder at ci (dynamic K-PART, online and EvenScheduler on
// WordCount, one run each) as run through the standing cluster's target file: the container path's files
// and columns, every run on the target, the dynamic schedulers' decisions made by the service, a
// diagnosis per run and the claims' why lines. At the ci scale this is the experiment's test
// (experiments' TestExperiment/kpart-cluster runs it on containers at quick and full, and at ci with
// STORMLAB_CONTAINERS=kpart-cluster): the same code, one harness.Cluster path.
func checkKPartCluster(t *testing.T, dir string, tg *target.Target) {
	t.Helper()
	checkRaw(t, dir, "kpart-cluster", []string{"kpart-dynamic", "online", "storm-even"}, "throughput", "latency_mean_ms")
	for _, s := range []string{"kpart-dynamic", "online", "storm-even"} {
		checkRunOnTarget(t, filepath.Join(dir, "runs", "kpc-"+s+"-i0-r0", "run.json"), tg, s != "storm-even")
		checkDiagnosed(t, filepath.Join(dir, "runs", "kpc-"+s+"-i0-r0", "run.json"))
	}
	checkWhy(t, dir)
}

// checkDiagnosed checks that a live run says what limited it: a bottleneck named by a step of the
// precedence (docs/statistics.md), "unknown" where it could not be read, never empty.
func checkDiagnosed(t *testing.T, path string) {
	t.Helper()
	var r struct {
		Diagnosis *struct {
			Bottleneck string `json:"bottleneck"`
			Rule       string `json:"rule"`
		} `json:"diagnosis"`
	}
	readJSON(t, path, &r)
	if r.Diagnosis == nil || r.Diagnosis.Bottleneck == "" || r.Diagnosis.Rule == "" {
		t.Errorf("%s: diagnosis %+v: want a bottleneck and the rule that named it", path, r.Diagnosis)
	}
}

// checkWhy checks that a live experiment's claims carry their why lines, the same in claims.json and
// notes.md.
func checkWhy(t *testing.T, dir string) {
	t.Helper()
	var cf struct {
		Claims []struct {
			Statement string `json:"statement"`
			Why       string `json:"why"`
		} `json:"claims"`
	}
	readJSON(t, filepath.Join(dir, "claims.json"), &cf)
	notes, err := os.ReadFile(filepath.Join(dir, "notes.md"))
	if err != nil {
		t.Fatal(err)
	}
	with := 0
	for _, c := range cf.Claims {
		if c.Why != "" {
			with++
		}
	}
	// A claim whose compared series ran alike in every diagnosis has nothing to say why.
	if n := strings.Count(string(notes), "   - Why: "); with == 0 || n != with {
		t.Errorf("notes.md has %d why lines; claims.json %d of %d claims with one: want them alike and at least one", n, with, len(cf.Claims))
	}
}

// sim-validation (ci: WordCount under EvenScheduler saturated and open loop at half that, one run each)
// through the standing cluster's target file: each configuration runs on the target and then in the
// simulator on the target's twin (its supervisors' capacities), and validation.csv compares them.
// At the ci scale this is the experiment's test (experiments' TestSimValidationWalks runs its logic on
// a simulated stand-in without Docker).
func TestSimValidationTarget(t *testing.T) {
	ctx, tg, dir := standingExperiment(t, "sim-validation")
	// A real and a simulated run per configuration; the analytic baseline where it has a steady state
	// (none where the offered load exceeds the model's capacity).
	count := map[string]int{}
	for _, r := range rawRows(t, filepath.Join(dir, "raw.csv")) {
		count[r["series"]]++
	}
	if count["storm-even real"] != 2 || count["storm-even sim"] != 2 || count["storm-even analytic"] > 2 || len(count) > 3 {
		t.Errorf("raw.csv series %v: want two real, two simulated and at most two analytic rows", count)
	}
	for _, run := range []string{"sv-c01-storm-even-r0", "sv-c02-storm-even-r0"} {
		checkRunOnTarget(t, filepath.Join(dir, "runs", run, "run.json"), tg, false)
		var real, sim struct {
			Simulated *struct {
				Cluster string `json:"cluster"`
			} `json:"simulated"`
			Supervisors map[string]string `json:"supervisors"`
		}
		readJSON(t, filepath.Join(dir, "runs", run, "run.json"), &real)
		readJSON(t, filepath.Join(dir, "runs", run+"-sim", "run.json"), &sim)
		if sim.Simulated == nil || !strings.Contains(sim.Simulated.Cluster, tg.Name) {
			t.Errorf("%s-sim: simulated %+v, want the twin of %s", run, sim.Simulated, tg.Name)
		}
		// The twin takes the real cluster's supervisor ids, which order the nodes for Storm's schedulers.
		if len(real.Supervisors) == 0 || !maps.Equal(real.Supervisors, sim.Supervisors) {
			t.Errorf("%s: supervisor ids %v, its twin's %v: want the real cluster's, the same in both", run, real.Supervisors, sim.Supervisors)
		}
	}
	checkValidationCells(t, dir, 2)
	// validation.json, or the manifest's reason there is none (every real run suspect: a busy host).
	var manifest struct {
		Knobs map[string]any `json:"knobs"`
	}
	readJSON(t, filepath.Join(dir, "manifest.json"), &manifest)
	if _, err := os.Stat(filepath.Join(dir, "validation.json")); err != nil && manifest.Knobs["sv_validation_file"] == nil {
		t.Errorf("validation.json: %v, and the manifest says nothing of it", err)
	}
	checkIdle(ctx, t, tg)
}

// checkValidationCells checks validation.csv's lines: 6 metrics for each of the configurations
// 1..configs, or fewer for a configuration none of whose runs (real and simulated) raw.csv marks valid:
// a suspect run feeds no goal on the metrics its reasons doubt, and a saturated run on a busy host is
// often unsteady through its warm-up.
func checkValidationCells(t *testing.T, dir string, configs int) {
	t.Helper()
	lines := map[string]int{}
	for _, r := range rawRows(t, filepath.Join(dir, "validation.csv")) {
		lines[r["configuration"]]++
	}
	raw := rawRows(t, filepath.Join(dir, "raw.csv"))
	for c := 1; c <= configs; c++ {
		x := strconv.Itoa(c)
		var runs []string
		counted := false
		for _, r := range raw {
			if r["x"] == x {
				runs = append(runs, fmt.Sprintf("%s: %s %s", r["series"], r["validity"], r["reasons"]))
				counted = counted || r["validity"] == "valid"
			}
		}
		if n := lines[x]; n != 6 && (n > 6 || counted || len(runs) == 0) {
			t.Errorf("validation.csv: configuration %s has %d lines: want 6 metrics, or fewer where no run is valid (a suspect reason doubts some metrics or all); its runs in raw.csv:\n%s",
				x, n, strings.Join(runs, "\n"))
		}
	}
	if len(lines) > configs {
		t.Errorf("validation.csv: configurations %v, want at most %d", lines, configs)
	}
}

// comm-cost (ci: the chain's 4 workers on 1 and 2 nodes, without and with a 2 ms delay, one run each)
// through the standing cluster's target file from a process that cannot reach Docker. The bridge holds
// each run to its nodes (stormlab.nodes: n1 on sup2, the node with the most CPU), and the delaying
// transport comes with the topology jar, as on a user's cluster where nothing of it is installed. At
// the ci scale this is the experiment's test (experiments' TestExperiment/comm-cost runs it on
// containers at quick and full, and at ci with STORMLAB_CONTAINERS=comm-cost).
func TestCommCostTarget(t *testing.T) {
	ctx, tg, dir := standingExperiment(t, "comm-cost")
	checkRaw(t, dir, "comm-cost", []string{"no delay", "no delay", "delay 2 ms", "delay 2 ms"}, "throughput", "latency_mean_ms", "nodes_used")
	for _, run := range []string{"comm-n1-d0-r0", "comm-n1-d2-r0", "comm-n2-d0-r0", "comm-n2-d2-r0"} {
		checkRunOnTarget(t, filepath.Join(dir, "runs", run, "run.json"), tg, false)
	}
	// The delay is real: every hop of the chain on 2 nodes crosses them (EvenScheduler interleaves the
	// nodes), so 2 ms per message adds at least 6 ms to the mean; 2 ms is the margin for noise.
	lat := map[string]float64{}
	for _, r := range rawRows(t, filepath.Join(dir, "raw.csv")) {
		lat[r["series"]+" n"+r["x"]], _ = strconv.ParseFloat(r["latency_mean_ms"], 64)
	}
	if d, n := lat["delay 2 ms n2"], lat["no delay n2"]; d < n+2 {
		t.Errorf("2 nodes: mean latency %.2f ms with a 2 ms delay, %.2f ms without: the delaying transport did not act (raw %v)", d, n, lat)
	}
	checkIdle(ctx, t, tg)
}

// recovery (ci: storm-even and kpart-dynamic, one run each) through the standing cluster's target file
// from a process that cannot reach Docker: in each run the supervisor with the most CPU (sup2) is
// stopped and started again over SSH by the target file's commands. A run whose recovery could not be
// measured (nothing flowed before the fault) has no row but is named in the manifest, so rows and such
// names together cover both runs. Afterwards the cluster is back to its two supervisors, idle. At the
// ci scale this is the experiment's test (experiments' TestExperiment/recovery runs it on containers at
// quick and full, and at ci with STORMLAB_CONTAINERS=recovery).
func TestRecoveryTarget(t *testing.T) {
	ctx, tg, dir := standingExperiment(t, "recovery")
	var manifest struct {
		Knobs map[string]any `json:"knobs"`
	}
	readJSON(t, filepath.Join(dir, "manifest.json"), &manifest)
	notMeasured, _ := manifest.Knobs["recovery_not_measured"].([]any)
	rows := rawRows(t, filepath.Join(dir, "raw.csv"))
	if len(rows)+len(notMeasured) != 2 {
		t.Errorf("recovery: %d rows and %d runs not measured (%v), want 2 runs in all", len(rows), len(notMeasured), notMeasured)
	}
	for _, s := range []string{"storm-even", "kpart-dynamic"} {
		name := "rec-" + s + "-r0"
		path := filepath.Join(dir, "runs", name, "run.json")
		var r struct {
			Cluster   string                `json:"cluster"`
			Invalid   string                `json:"invalid"`
			Decisions []json.RawMessage     `json:"decisions"`
			Faults    []harness.FaultRecord `json:"faults"`
		}
		readJSON(t, path, &r)
		// A run in which nothing was acked is invalid; the manifest then names it as not measured.
		unmeasured := slices.ContainsFunc(notMeasured, func(x any) bool { return strings.HasPrefix(fmt.Sprint(x), name+":") })
		if r.Cluster != tg.Name || (r.Invalid != "" && !unmeasured) || (s == "kpart-dynamic") != (len(r.Decisions) > 0) {
			t.Errorf("%s: cluster %q, invalid %q (not measured: %v), %d decisions: want the target's run, valid unless not measured, decisions only for kpart-dynamic",
				path, r.Cluster, r.Invalid, unmeasured, len(r.Decisions))
		}
		if len(r.Faults) != 1 || r.Faults[0].Error != "" || r.Faults[0].Fault.Arg != "sup2" {
			t.Errorf("%s: faults %+v, want one kill-supervisor of sup2 (the most CPU) without error", path, r.Faults)
		}
	}
	checkIdle(ctx, t, tg)
}

// observer (ci: one pair) through the standing cluster's target file from a process that cannot reach
// Docker: both arms read by Storm's own counters, the container path's files and columns, the cluster
// left idle. At the ci scale this is the experiment's test (experiments' TestExperiment/observer runs
// it on containers at quick and full, and at ci with STORMLAB_CONTAINERS=observer).
func TestObserverTarget(t *testing.T) {
	ctx, tg, dir := standingExperiment(t, "observer")
	checkRaw(t, dir, "observer", []string{"on", "off"}, "throughput", "latency_mean_ms")
	checkIdle(ctx, t, tg)
}

// readJSON reads path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// rawRows reads a raw.csv into one map per row (column -> value).
func rawRows(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// checkRaw checks an experiment's output folder against what the container path writes: the fixed
// files, and a raw.csv with one row per run of the named series, a column for each of the spec's
// metrics holding a finite number >= 0 (> 0 for the positive ones).
func checkRaw(t *testing.T, dir, experiment string, series []string, positive ...string) {
	t.Helper()
	spec, err := experiments.Lookup(experiment)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"raw.csv", "table.md", "table.csv", "table.tex", "refs.bib", "notes.md", "claims.json", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s through the target: %v", experiment, err)
		}
	}
	path := filepath.Join(dir, "raw.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 1+len(series) {
		t.Fatalf("%s: %d rows (%v), want a header and %d runs", path, len(rows), err, len(series))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var seen []string
	for _, r := range rows[1:] {
		s := r[col["series"]]
		seen = append(seen, s)
		var vals []string
		for _, m := range spec.Metrics {
			i, ok := col[m.Name]
			if !ok {
				t.Fatalf("%s: no column %s (header %v)", path, m.Name, rows[0])
			}
			if m.Optional && r[i] == "" {
				continue // a cell that does not measure it (kpart-cluster's offered rate on unpaced runs)
			}
			v, err := strconv.ParseFloat(r[i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (slices.Contains(positive, m.Name) && v <= 0) {
				t.Errorf("%s %s = %q: want a finite number >= 0 (> 0 for %v)", s, m.Name, r[i], positive)
			}
			vals = append(vals, m.Name+"="+r[i])
		}
		t.Logf("%s through the target, %s: %s", experiment, s, strings.Join(vals, " "))
	}
	slices.Sort(seen)
	want := slices.Sorted(slices.Values(series))
	if !slices.Equal(seen, want) {
		t.Errorf("%s: series %v, want %v", path, seen, want)
	}
}

// standingExperiment runs experiment (ci scale) through the shared standing cluster's target file
// (experimentOnTarget) and gives a context for the checks after it, the target and the experiment's
// results folder.
func standingExperiment(t *testing.T, experiment string) (ctx context.Context, tg *target.Target, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute) // mostly waiting for the cluster lock
	t.Cleanup(cancel)
	file, tg := sharedTarget(t)
	results, _ := experimentOnTarget(t, experiment, file)
	return ctx, tg, filepath.Join(results, experiment)
}

// experimentOnTarget runs experiment (ci scale) through target file from a process that cannot reach
// Docker, fails the test unless it exits 0, and returns the results folder and the run's stderr.
func experimentOnTarget(t *testing.T, experiment, file string) (results, stderr string) {
	t.Helper()
	results = filepath.Join(t.TempDir(), "results")
	start := time.Now()
	code, out, errs := cliNoDocker(t, "experiment", experiment, "--cluster", "target:"+file, "--scale", "ci", "--out", results)
	t.Logf("experiment %s --cluster target:FILE (%s):\nstdout %s\nstderr (last lines) %s", experiment, time.Since(start).Round(time.Second), out, lastN(errs, 20))
	if code != exitOK {
		t.Fatalf("experiment %s --cluster target:FILE: exit %d", experiment, code)
	}
	return results, errs
}

// checkRunOnTarget checks a run.json written by a run on target tg: the target's name as its cluster,
// valid, and decisions of the service exactly when the scheduler runs there (not inside Nimbus).
func checkRunOnTarget(t *testing.T, path string, tg *target.Target, inService bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Cluster   string            `json:"cluster"`
		Invalid   string            `json:"invalid"`
		Decisions []json.RawMessage `json:"decisions"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if r.Cluster != tg.Name || r.Invalid != "" || inService != (len(r.Decisions) > 0) {
		t.Errorf("%s: cluster %q invalid %q, %d decisions: want cluster %q, valid, decisions only for the service's schedulers", path, r.Cluster, r.Invalid, len(r.Decisions), tg.Name)
	}
}

// checkIdle waits (bounded) until the standing cluster is as it was found: no topology, every
// supervisor, no slot used.
func checkIdle(ctx context.Context, t *testing.T, tg *target.Target) {
	t.Helper()
	ui := stormui.New(tg.UI)
	deadline := time.Now().Add(90 * time.Second)
	for {
		tops, terr := ui.Topologies(ctx)
		cl, cerr := ui.Cluster(ctx)
		if terr == nil && cerr == nil && len(tops) == 0 && cl.Supervisors == 2 && cl.SlotsUsed == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("standing cluster after the runs: topologies %v (%v), summary %+v (%v): want none, 2 supervisors, no slot used", tops, terr, cl, cerr)
		}
		time.Sleep(time.Second) // polling the UI, bounded by deadline
	}
}

func lastN(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// deadline (ci) through a copy of the standing cluster's target file without its control section, from
// a process that cannot reach Docker: a user's cluster with the bridge and nothing else. Background
// load is burner topologies there: exit 0, the container path's files and columns, every run on the
// target, the loaded runs' load started and undone with one burner per supervisor whose worker reported
// its own CPU, the manifest saying node CPU came from the workers' reports, and the cluster left idle
// (no burner left). At the ci scale this is the experiment's test (experiments' TestExperiment/deadline
// runs it on containers, with whole-node CPU through the control layer, at quick and full, and at ci
// with STORMLAB_CONTAINERS=deadline).
func TestDeadlineTarget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute) // mostly waiting for the cluster lock
	defer cancel()
	_, tg := sharedTarget(t)
	file := withoutControl(t, tg)
	results, errs := experimentOnTarget(t, "deadline", file)
	for _, load := range []string{"cpu-load:20: started", "cpu-load:20: undone", "cpu-load:80: started", "cpu-load:80: undone"} {
		if !strings.Contains(errs, "fault "+load) {
			t.Errorf("deadline's log lacks %q: background load not run", load)
		}
	}
	for _, h := range []string{"sup1", "sup2"} {
		if n := strings.Count(errs, "burner "+harness.BurnerPrefix+h+": offered"); n != 2 {
			t.Errorf("deadline's log has %d burner reports of %s, want 2 (loads 20 and 80%%)", n, h)
		}
	}
	if strings.Contains(errs, "its worker used no report") {
		t.Errorf("a burner's worker sent no report of its own CPU")
	}
	dir := filepath.Join(results, "deadline")
	checkRaw(t, dir, "deadline", []string{"adaptive kmeans", "adaptive wordcount", "deadline kmeans", "deadline kmeans under load",
		"deadline kmeans under load", "deadline wordcount", "storm-ras kmeans", "storm-ras wordcount"}, "dataset_s", "proc_ms")
	manifest, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), `"node_cpu": "workers"`) {
		t.Errorf("manifest.json does not say node CPU came from the workers' reports")
	}
	checkIdle(ctx, t, tg)
}

// withoutControl writes a copy of tg without its control section: a user's cluster with the bridge and
// nothing else.
func withoutControl(t *testing.T, tg *target.Target) string {
	t.Helper()
	bare := *tg
	bare.Control = nil
	data, err := yaml.Marshal(&bare)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "no-control.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// Faults on a real Storm cluster through its target file, from a process that cannot reach Docker: one
// run pauses sup2's worker JVMs over SSH, delays the messages between sup1 and sup2 (the delay file
// written over SSH, read by the delaying transport that comes with the topology jar) and makes sup1
// (0.5 cores) a straggler (a burner of 80% of its CPU, 0.40 cores, pinned there by the bridge and
// running idle from before the run: no SSH). Each is recorded without error, undone and measured; the
// straggler begins at its AT and its burner's worker reports its own CPU; the cluster is left idle (no
// burner left). Stopping a
// supervisor over SSH (the target file's commands) is TestRecoveryTarget's: it does so in each run.
func TestFaultsOverSSH(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute) // mostly waiting for the cluster lock
	defer cancel()
	file, tg := sharedTarget(t)
	start := time.Now()
	code, out, errs := cliNoDocker(t, "run", "--cluster", "target:"+file, "--scheduler", "storm-even", "--topology", "throughput",
		"--warmup", "10s", "--measure", "40s", "--fault", "pause-worker@10s+2s:sup2", "--fault", "delay@18s+8s:sup1-sup2=20ms",
		"--fault", "straggler@28s+10s:sup1=80", "--format", "json")
	t.Logf("run --fault through the target (%s): stderr (last lines) %s", time.Since(start).Round(time.Second), lastN(errs, 15))
	if code != exitOK {
		t.Fatalf("run --fault: exit %d", code)
	}
	var r struct {
		Faults []harness.FaultRecord `json:"faults"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("run's JSON: %v\n%s", err, out)
	}
	if len(r.Faults) != 3 {
		t.Fatalf("faults %+v: want 3 records", r.Faults)
	}
	// The window's opening, from the faults recorded as they began (a straggler begins later: once its
	// burner runs).
	open := int64(math.MaxInt64)
	for _, f := range r.Faults {
		if f.Kind != fault.Straggler {
			open = min(open, f.StartMs-f.At.Milliseconds())
		}
	}
	for _, f := range r.Faults {
		t.Logf("fault %s: error %q, %d..%d ms after the window opened, recovery %+v", f.Fault, f.Error, f.StartMs-open, f.EndMs-open, f.Recovery)
		if f.Error != "" || f.EndMs-f.StartMs < f.Duration.Milliseconds() || !f.Recovery.Measured {
			t.Errorf("fault %s: error %q, %d..%d ms, measured %v: want lasting its duration, undone without error and measured", f.Fault, f.Error, f.StartMs, f.EndMs, f.Recovery.Measured)
		}
		// Its burner ran, idle, from before the run: the fault is one request to the service. 5 s is far
		// above that; more means the burner was started at AT after all.
		if f.Kind == fault.Straggler && f.StartMs-open > f.At.Milliseconds()+5000 {
			t.Errorf("straggler began %d ms after the window opened, %s after its AT: its burner was not switched but started", f.StartMs-open, time.Duration(f.StartMs-open)*time.Millisecond-f.At)
		}
	}
	for _, w := range []string{"fault pause-worker@10s+2s:sup2: undone", "fault delay@18s+8s:sup1-sup2=20ms: undone",
		"fault straggler@28s+10s:sup1=80: undone", "burner " + harness.BurnerPrefix + "straggler-sup1: offered 0.40 cores, its worker used"} {
		if !strings.Contains(errs, w) {
			t.Errorf("the run's log lacks %q", w)
		}
	}
	if strings.Contains(errs, "its worker used no report") {
		t.Error("the burner's worker sent no report of its own CPU")
	}
	checkIdle(ctx, t, tg)
}

// TestSimCostsTarget measures a simulator cost model on the standing cluster through its target file
// (one short run of each topology): the model has the three topologies with a CPU per tuple for every
// component, the worker overhead and start, and names the cluster and the runs it came from, which
// are kept beside it.
func TestSimCostsTarget(t *testing.T) {
	file, tg := sharedTarget(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "costs.json")
	code, stdout, stderr := cli(t, "sim", "costs", "--cluster", "target:"+file, "--reps", "1", "--warmup", "10s", "--measure", "15s", "--transfer=false", "--out", out)
	if code != exitOK {
		t.Fatalf("sim costs: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := sim.ReadCostModel(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Topologies) != 3 || len(m.Provenance.Runs) != 3 || !strings.Contains(m.Provenance.Cluster, tg.Name) {
		t.Errorf("cost model: %d topologies, runs %v, cluster %q; want the 3 topologies from 3 runs on %s", len(m.Topologies), m.Provenance.Runs, m.Provenance.Cluster, tg.Name)
	}
	if !(m.Transfer.WorkerOverheadCores > 0) || !(m.Transfer.WorkerStartS > 0) {
		t.Errorf("worker overhead %v cores, start %v s: want both measured", m.Transfer.WorkerOverheadCores, m.Transfer.WorkerStartS)
	}
	runs, _ := filepath.Glob(filepath.Join(out+".runs", "*", "run.json"))
	if len(runs) != 3 {
		t.Errorf("%d runs kept beside the model, want 3", len(runs))
	}
	checkIdle(context.Background(), t, tg)
}
