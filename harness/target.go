package harness

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/harness/nemesis"
	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/infra/tail"
	"github.com/stormlab/stormlab/infra/target"
)

// targetCluster is an existing Storm cluster reached only through its endpoints (a target file): the
// topology is submitted by Storm's own submitter (the topology's main class, run with the local java
// against Nimbus's Thrift port), placement and supervisors come from the UI's REST API, decisions and
// fallbacks from the scheduler service. It never calls Docker. Without a control section in the target
// file it never touches the cluster's hosts; with one (control.ssh) its Nemesis injects faults over
// SSH. Exec stays unavailable either way: dataset runs, which count finished spouts in worker logs,
// cannot run on a target yet.
type targetCluster struct {
	T        *target.Target
	ui       *stormui.Client
	svc      *serviceClient
	hosts    []string
	capacity map[string]float64
	logf     func(string, ...any)
	nem      *nemesis.Nemesis // its control is nil without a control section
}

// nemesis acts on the target's hosts over SSH (control.ssh) and submits burner topologies; without
// a control section it can only do the latter (background load).
func (tc *targetCluster) nemesis() *nemesis.Nemesis { return tc.nem }

// Close releases the control layer's connections.
func (tc *targetCluster) Close() error {
	if tc.nem == nil || tc.nem.Control() == nil {
		return nil
	}
	return tc.nem.Control().Close()
}

// openControl makes the target's nemesis with the control layer of its control section (none without
// one). It connects to nothing yet: the first fault does.
func (tc *targetCluster) openControl() error {
	var ctl control.Control
	if tc.T.Control != nil && tc.T.Control.SSH != nil {
		c, err := control.NewSSH(tc.T.Control.SSH)
		if err != nil {
			return err
		}
		ctl = c
	}
	cores := func() map[string]float64 {
		m := map[string]float64{}
		for h, c := range tc.capacity {
			m[h] = c / 100
		}
		return m
	}
	tc.nem = nemesis.New(nemesis.Config{Control: ctl, Storm: stormOf(tc), Name: orDefault(tc.T.Name, "target"), Cores: cores, Logf: tc.logf})
	return nil
}

// openTarget reads the target's supervisors and capacities through the UI and checks that the service
// answers. It changes nothing on the cluster.
func openTarget(ctx context.Context, t *target.Target, logf func(string, ...any)) (*targetCluster, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	tc := &targetCluster{T: t, ui: stormui.New(t.UI), svc: &serviceClient{BaseURL: target.Trim(t.Service.Harness), Token: t.Token}, logf: logf}
	var err error
	if tc.hosts, tc.capacity, err = readCapacity(ctx, tc.ui, t); err != nil {
		return nil, err
	}
	if _, err := tc.svc.State(ctx, time.Now().UnixMilli()); err != nil {
		return nil, fmt.Errorf("target scheduler service %s does not answer: %w (check service.harness in the target file and that stormlab-service runs)", t.Service.Harness, err)
	}
	if err := tc.openControl(); err != nil {
		return nil, fmt.Errorf("target control: %w", err)
	}
	return tc, nil
}

// readCapacity lists the target's supervisors (sorted) and their CPU capacity (100 = one core): the
// target file's capacity entry, else what Nimbus reports (supervisor.cpu.capacity).
func readCapacity(ctx context.Context, ui *stormui.Client, t *target.Target) ([]string, map[string]float64, error) {
	sups, err := ui.Supervisors(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("target UI %s does not answer: %w (check ui in the target file and that the Storm UI runs)", t.UI, err)
	}
	if len(sups) == 0 {
		return nil, nil, fmt.Errorf("target UI %s lists no supervisor: start the supervisors (or wait until they registered)", t.UI)
	}
	var hosts []string
	capacity := map[string]float64{}
	for _, s := range sups {
		hosts = append(hosts, s.Host)
		c := s.TotalCPU
		if o, ok := t.Capacity[s.Host]; ok {
			c = o
		}
		if c <= 0 {
			return nil, nil, fmt.Errorf("supervisor %s reports no CPU capacity: set supervisor.cpu.capacity in its storm.yaml or capacity.%s in the target file", s.Host, s.Host)
		}
		capacity[s.Host] = c
	}
	for h := range t.Capacity {
		if !slices.Contains(hosts, h) {
			return nil, nil, fmt.Errorf("target capacity names supervisor %q, which Nimbus does not list (it lists %s): fix the host name", h, strings.Join(hosts, ", "))
		}
	}
	slices.Sort(hosts)
	return hosts, capacity, nil
}

// TargetCapacity reads, through target t's UI only, its supervisors' CPU capacities as runs on it use
// them (100 = one core, by supervisor host): the target file's capacity entries over what Nimbus
// reports. It reaches nothing else and changes nothing.
func TargetCapacity(ctx context.Context, t *target.Target) (map[string]float64, error) {
	_, c, err := readCapacity(ctx, stormui.New(t.UI), t)
	return c, err
}

func (tc *targetCluster) UI() *stormui.Client          { return tc.ui }
func (tc *targetCluster) Service() *serviceClient      { return tc.svc }
func (tc *targetCluster) Hosts() []string              { return append([]string(nil), tc.hosts...) }
func (tc *targetCluster) Capacity() map[string]float64 { return maps(tc.capacity) }

func maps(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// errNoExec is Exec's error on a target: the harness does not touch a target's hosts.
var errNoExec = errors.New("not available on a target cluster: the harness does not run commands on its hosts")

// Exec is not available on a target (see errNoExec).
func (tc *targetCluster) Exec(ctx context.Context, host string, cmd ...string) (int, string, error) {
	return -1, "", fmt.Errorf("exec on %s: %w", host, errNoExec)
}

// NimbusConf is Nimbus's configuration as the UI serves it (/api/v1/cluster/configuration).
func (tc *targetCluster) NimbusConf(ctx context.Context) (map[string]any, error) {
	return tc.ui.NimbusConf(ctx)
}

// Submit runs the topology's main class with the local java, the way `storm jar` does: storm-client
// and its dependencies from the Maven build on the classpath, a storm.yaml naming the target's Nimbus
// first on it, -Dstorm.jar the topology jar. The workers' reports go to the service as the cluster
// reaches it (--metrics-url, unless args set it).
func (tc *targetCluster) Submit(ctx context.Context, jar, mainClass string, args ...string) error {
	cp, err := assets.SubmitClasspath(ctx, jar)
	if err != nil {
		return fmt.Errorf("submit topology: %w", err)
	}
	dir, err := os.MkdirTemp("", "stormlab-submit-")
	if err != nil {
		return fmt.Errorf("submit topology: %w", err)
	}
	defer os.RemoveAll(dir)
	conf := fmt.Sprintf("nimbus.seeds: [%s]\nnimbus.thrift.port: %d\n", quoteAll(tc.T.Nimbus.Seeds), tc.T.Nimbus.Port)
	if err := os.WriteFile(filepath.Join(dir, "storm.yaml"), []byte(conf), 0o644); err != nil {
		return fmt.Errorf("submit topology: %w", err)
	}
	jvm := []string{"-Xmx256m", "-XX:+UseSerialGC", "-Dstorm.jar=" + jar}
	if len(tc.T.Nimbus.Resolve) > 0 {
		// Nimbus's client reconnects to the leader under the name the leader advertises; a name this
		// machine cannot resolve is mapped here (the JVM then resolves through this file only).
		var hosts strings.Builder
		hosts.WriteString("127.0.0.1 localhost\n")
		for name, addr := range tc.T.Nimbus.Resolve {
			fmt.Fprintf(&hosts, "%s %s\n", addr, name)
		}
		hf := filepath.Join(dir, "hosts")
		if err := os.WriteFile(hf, []byte(hosts.String()), 0o644); err != nil {
			return fmt.Errorf("submit topology: %w", err)
		}
		jvm = append(jvm, "-Djdk.net.hosts.file="+hf)
	}
	a := append([]string(nil), args...)
	if !hasFlag(a, "--metrics-url") {
		a = append(a, "--metrics-url", target.Trim(tc.T.Service.Cluster)+protocol.PathMetrics)
	}
	cmdArgs := append(jvm, "-cp", dir+string(os.PathListSeparator)+cp+string(os.PathListSeparator)+jar, mainClass)
	cmd := exec.CommandContext(ctx, "java", append(cmdArgs, a...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("submit topology %s to Nimbus %s:%d: %w\n--- last lines of its output ---\n%s", mainClass,
			strings.Join(tc.T.Nimbus.Seeds, ","), tc.T.Nimbus.Port, err, tail.Lines(out.String(), 30))
	}
	tc.logf("submitted %s to Nimbus %s:%d", mainClass, strings.Join(tc.T.Nimbus.Seeds, ","), tc.T.Nimbus.Port)
	return nil
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// serviceChoice is what every run of a cluster tells the service with its scheduler.
type serviceChoice struct {
	options string        // scheduler options (JSON of schedulers.Options)
	every   time.Duration // rescheduling period of a dynamic scheduler
}

// setServiceScheduler makes the service run scheduler with c's options and rescheduling period from
// the next scheduling round on.
func setServiceScheduler(ctx context.Context, svc *serviceClient, scheduler string, c serviceChoice) error {
	return svc.post(ctx, protocol.PathScheduler, protocol.SchedulerChoice{Scheduler: scheduler,
		Options: json.RawMessage(orDefault(c.options, "{}")), RescheduleEveryMs: c.every.Milliseconds()})
}

// stormSchedulerConf is the Nimbus storm.yaml key naming its scheduler; Nimbus without it uses
// DefaultScheduler.
const stormSchedulerConf = "storm.scheduler"

// NimbusScheduler is the storm.scheduler class of a Nimbus configuration.
func NimbusScheduler(conf map[string]any) string {
	if s, ok := conf[stormSchedulerConf].(string); ok && s != "" {
		return s
	}
	return nativeSchedulers["storm-default"]
}

// runOnTarget runs spec on a target cluster. A Nimbus running the bridge runs every scheduler: the
// topology names spec.Scheduler in its conf (protocol.TopologySchedulerConf), and the bridge places it with
// Storm's own scheduler in Nimbus or asks the service (switched to spec.Scheduler first). A Nimbus
// running a native storm.scheduler runs only that one. No topology of the same name may run; after
// the run it waits until the submitted topology is gone again, so the cluster is left as it was
// found. The topology is killed also on failure and interrupt (Run does).
func runOnTarget(ctx context.Context, tc *targetCluster, choice serviceChoice, spec RunSpec) (*RunResult, error) {
	fail := func(stage string, err error) (*RunResult, error) {
		return nil, &RunError{Topology: spec.Topology.Name, Stage: stage, Err: err}
	}
	conf, err := tc.NimbusConf(ctx)
	if err != nil {
		return fail(stageSpec, fmt.Errorf("read Nimbus's configuration through the UI: %w", err))
	}
	want, bridged := StormSchedulerClass(spec.Scheduler)
	have := NimbusScheduler(conf)
	if have != protocol.BridgeClass && have != want {
		return fail(stageSpec, fmt.Errorf("the target's Nimbus runs storm.scheduler %s, which runs only itself, but %s needs %s: install the bridge (storm.scheduler: %s), which runs every scheduler, or run a scheduler that fits this Nimbus", have, spec.Scheduler, want, protocol.BridgeClass))
	}
	if bridged {
		if err := setServiceScheduler(ctx, tc.svc, spec.Scheduler, choice); err != nil {
			return fail(stageSpec, err)
		}
	}
	spec.Topology.Args = withSchedulerConf(spec.Topology.Args, spec.Scheduler)
	if sc, ok := spec.End.(StormCounted); ok && sc.Beside != nil {
		// The topology beside the run is placed by the same scheduler (on containers, Nimbus's default).
		b := *sc.Beside
		b.Args = withSchedulerConf(b.Args, spec.Scheduler)
		sc.Beside, spec.End = &b, sc
	}
	tops, err := tc.ui.Topologies(ctx)
	if err != nil {
		return fail(stageSpec, err)
	}
	for _, t := range tops {
		if t.Name == spec.Topology.Name {
			return fail(stageSpec, fmt.Errorf("a topology named %s already runs on the target (%s): kill it or choose another name", t.Name, t.Status))
		}
	}
	before, err := tc.ui.Cluster(ctx)
	if err != nil {
		return fail(stageSpec, err)
	}
	res, err := runOn(ctx, tc, spec)
	if res != nil {
		res.Cluster = orDefault(tc.T.Name, "target")
	}
	// Run killed the topology; wait (bounded) until Nimbus has removed it and its workers have left
	// their slots, so the next run starts from the cluster as it was.
	gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 90*time.Second)
	defer cancel()
	t0 := time.Now()
	if gerr := waitGone(gctx, tc.ui, spec.Topology.Name); gerr != nil {
		err = errors.Join(err, gerr)
	} else {
		waitSlots(gctx, tc.ui, before.SlotsUsed, tc.logf)
	}
	if res != nil {
		res.Phases.GoneS = time.Since(t0).Seconds()
		res.Phases.TotalS += res.Phases.GoneS
	}
	return res, err
}

// withSchedulerConf adds `--conf stormlab.scheduler=NAME` to a topology's arguments (the Java
// topologies put --conf entries into the topology conf), unless they name a scheduler already.
func withSchedulerConf(args []string, scheduler string) []string {
	for i, a := range args {
		if a == "--conf" && i+1 < len(args) && strings.HasPrefix(args[i+1], protocol.TopologySchedulerConf+"=") {
			return args
		}
	}
	return append(append([]string(nil), args...), "--conf", protocol.TopologySchedulerConf+"="+scheduler)
}

// waitGone waits until Nimbus no longer lists a topology named name.
func waitGone(ctx context.Context, ui *stormui.Client, name string) error {
	for {
		tops, err := ui.Topologies(ctx)
		if err == nil && !slices.ContainsFunc(tops, func(t stormui.TopologySummary) bool { return t.Name == name }) {
			return nil
		}
		if perr := pause(ctx, time.Second); perr != nil {
			return fmt.Errorf("topology %s still listed on the target after the kill: %w", name, errors.Join(err, perr))
		}
	}
}

// waitSlots waits until no more worker slots are used than before a run: Nimbus forgets a killed
// topology before its supervisors have stopped its workers, and a worker JVM still running would share
// its node with the next run. A user's cluster may start topologies of its own meanwhile, so running
// out of time is said (logf), not an error.
func waitSlots(ctx context.Context, ui *stormui.Client, before int, logf func(string, ...any)) {
	for {
		cl, err := ui.Cluster(ctx)
		if err == nil && cl.SlotsUsed <= before {
			return
		}
		if perr := pause(ctx, pollEvery); perr != nil {
			logf("target: %d worker slots still used after the run's topology was gone (%d before it; %v): the next run may share nodes with them", cl.SlotsUsed, before, err)
			return
		}
	}
}

// targetSession is a user's cluster opened through its target file (Open): every run goes through
// runOnTarget, so the target is left as it was found.
type targetSession struct {
	tc        *targetCluster
	scheduler string // of runs that name none
	choice    serviceChoice
}

func (t *targetSession) Run(ctx context.Context, spec RunSpec) (*RunResult, error) {
	spec.Scheduler = cmp.Or(spec.Scheduler, t.scheduler)
	if err := CheckTargetFaults(t.tc.T, spec.Faults); err != nil {
		return nil, &RunError{Topology: spec.Topology.Name, Stage: stageSpec, Err: err}
	}
	return runOnTarget(ctx, t.tc, t.choice, spec)
}

func (t *targetSession) Capacity() map[string]float64    { return t.tc.Capacity() }
func (t *targetSession) Nemesis() Disturber              { return t.tc.nemesis() }
func (t *targetSession) Close(ctx context.Context) error { return t.tc.Close() }

// ProbeTarget opens target t (reading only) and probes its workers -> service path (see probeReports),
// returning the reporting worker's host:port.
func ProbeTarget(ctx context.Context, t *target.Target, name string, timeout time.Duration) (worker string, err error) {
	tc, err := openTarget(ctx, t, nil)
	if err != nil {
		return "", err
	}
	defer tc.Close()
	return probeReports(ctx, tc, name, timeout)
}

// probeReports checks the workers -> service path of a target: it submits a one-worker Throughput
// topology named name (placed by storm-default on a bridged Nimbus, so the service's scheduler does
// not matter), waits until the service holds a report of it, and always kills it and waits until it
// is gone. It returns the reporting worker's host:port.
func probeReports(ctx context.Context, tc *targetCluster, name string, timeout time.Duration) (worker string, err error) {
	topo, err := StormTopology("throughput", name, "--workers", "1", "--interval-ms", "50", "--report-interval-secs", "2")
	if err != nil {
		return "", err
	}
	start := time.Now().UnixMilli()
	args := withSchedulerConf(topo.Args, "storm-default")
	if err := tc.Submit(ctx, topo.Jar, topo.MainClass, args...); err != nil {
		return "", err
	}
	defer func() {
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 90*time.Second)
		defer cancel()
		if kerr := tc.ui.Kill(kctx, name, 0); kerr != nil {
			err = errors.Join(err, fmt.Errorf("kill the probe topology %s: %w", name, kerr))
			return
		}
		err = errors.Join(err, waitGone(kctx, tc.ui, name))
	}()
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		reps, rerr := tc.svc.reports(wctx, start)
		for _, r := range reps {
			if strings.HasPrefix(r.Topology, name) {
				return fmt.Sprintf("%s:%d", r.Host, r.Port), nil
			}
		}
		if perr := pause(wctx, time.Second); perr != nil {
			return "", fmt.Errorf("no report of the probe topology reached the service within %s (last error: %v): check that the workers reach service.cluster (stormlab.metrics.url) and, with a token, that the supervisors' storm.yaml has stormlab.scheduler.token", timeout, rerr)
		}
	}
}

// CheckTargetFaults refuses, before anything is reached or submitted, faults that target t's control
// cannot perform: no control section, an operation it does not offer (naming the target-file key to
// add) or a host without an SSH address. It reads the key and known_hosts files but connects to
// nothing; whether the hosts are the cluster's supervisors is checked when the run opens the target.
func CheckTargetFaults(t *target.Target, faults []fault.Fault) error {
	if len(faults) == 0 {
		return nil
	}
	tc := &targetCluster{T: t, logf: func(string, ...any) {}}
	if err := tc.openControl(); err != nil {
		return fmt.Errorf("target control: %w", err)
	}
	defer tc.Close()
	return tc.nem.CheckControl(faults)
}
