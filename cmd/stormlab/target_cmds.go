package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/infra/target"
)

// newTargetCmd groups the commands about a target file (an existing Storm cluster).
func newTargetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "target",
		Short: "Check a target file: an existing Storm cluster that runs use instead of containers",
	}
	var probe bool
	check := &cobra.Command{
		Use:   "check FILE [--probe]",
		Short: "Report, item by item, what of the target is reachable and installed, and what to fix",
		Long: "check reads the target file and checks, in order: the Storm UI, Nimbus's Thrift port, the\n" +
			"supervisors and their CPU capacities, the bridge scheduler in Nimbus's configuration (and where\n" +
			"it sends its snapshots), the scheduler service (and its token), the workers' reports, and the\n" +
			"control section's hosts (unknown host, unreachable, unknown or changed host key, refused key). It\n" +
			"changes nothing on the cluster, except with --probe: then it submits a one-worker topology,\n" +
			"waits until its first report reaches the service and kills it. Exit 2 with the fix when an\n" +
			"item fails.",
		Args: exactArgs(1, "check takes the target file: stormlab target check FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := target.Load(args[0])
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
			defer cancel()
			return checkTarget(ctx, t, probe, cmd.OutOrStdout())
		},
	}
	check.Flags().BoolVar(&probe, "probe", false, "also submit a one-worker topology and wait until a worker's report reaches the service (then kill it)")
	cmd.AddCommand(check)
	return cmd
}

func exactArgs(n int, usage string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return errors.New(usage)
		}
		return nil
	}
}

// checkTarget prints one line per item; the first failing item's fix is the error (exit 2).
func checkTarget(ctx context.Context, t *target.Target, probe bool, w io.Writer) error {
	c := &checker{w: w}
	ui := stormui.New(t.UI)
	c.ui(ctx, ui, t)
	c.nimbus(ctx, t)
	sups := c.supervisors(ctx, ui, t)
	c.bridge(ctx, ui, t)
	if st, err := c.service(ctx, t, probe); err == nil {
		checkLeftovers(ctx, st, ui, w)
	}
	checkControl(ctx, t, sups, c.item, w)
	if len(c.failures) > 0 {
		return fmt.Errorf("target check: %d item(s) failed; first: %s", len(c.failures), c.failures[0])
	}
	fmt.Fprintln(w, "target ready")
	return nil
}

// checker prints target check's items and keeps the fixes of the failed ones.
type checker struct {
	w        io.Writer
	failures []string
}

// item prints one item: ok with its detail, or FAIL with its fix.
func (c *checker) item(ok bool, name, detail, fix string) {
	mark := "ok  "
	if !ok {
		mark = "FAIL"
		c.failures = append(c.failures, name+": "+fix)
		detail = fix
	}
	fmt.Fprintf(c.w, "%s  %-12s %s\n", mark, name, detail)
}

func (c *checker) ui(ctx context.Context, ui *stormui.Client, t *target.Target) {
	cl, err := ui.Cluster(ctx)
	c.item(err == nil, "ui", fmt.Sprintf("%s answers: %d supervisors, %d topologies, %d of %d slots used", t.UI, cl.Supervisors, cl.Topologies, cl.SlotsUsed, cl.SlotsTotal),
		fmt.Sprintf("the Storm UI at %s does not answer (%v): start it (storm ui) or fix ui in the target file", t.UI, err))
}

func (c *checker) nimbus(ctx context.Context, t *target.Target) {
	var reached []string
	var lastErr error
	for _, s := range t.Nimbus.Seeds {
		host := s
		if a, ok := t.Nimbus.Resolve[s]; ok {
			host = a
		}
		addr := net.JoinHostPort(host, strconv.Itoa(t.Nimbus.Port))
		conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", addr)
		if err != nil {
			lastErr = err
			continue
		}
		conn.Close()
		reached = append(reached, addr)
	}
	c.item(len(reached) > 0, "nimbus", "Thrift port open at "+strings.Join(reached, ", "),
		fmt.Sprintf("no Nimbus seed answers on port %d (%v): start Nimbus or fix nimbus.seeds/nimbus.port (and nimbus.resolve for names this machine cannot resolve)", t.Nimbus.Port, lastErr))
}

// supervisors checks that supervisors registered with a CPU capacity, and that the target file's
// capacity overrides name supervisors Nimbus lists; it returns them.
func (c *checker) supervisors(ctx context.Context, ui *stormui.Client, t *target.Target) []stormui.Supervisor {
	sups, err := ui.Supervisors(ctx)
	switch {
	case err != nil:
		c.item(false, "supervisors", "", fmt.Sprintf("cannot list them through the UI (%v)", err))
		return sups
	case len(sups) == 0:
		c.item(false, "supervisors", "none registered", "start the supervisors, which register through ZooKeeper")
		return sups
	}
	var parts []string
	bad := ""
	listed := map[string]bool{}
	for _, s := range sups {
		listed[s.Host] = true
		cpu, src := s.TotalCPU, "reported"
		if o, ok := t.Capacity[s.Host]; ok {
			cpu, src = o, "target override"
		}
		if cpu <= 0 && bad == "" {
			bad = fmt.Sprintf("supervisor %s reports no CPU capacity: set supervisor.cpu.capacity in its storm.yaml or capacity.%s in the target file", s.Host, s.Host)
		}
		parts = append(parts, fmt.Sprintf("%s (%d slots, CPU %g %s)", s.Host, s.SlotsTotal, cpu, src))
	}
	for h := range t.Capacity {
		if !listed[h] && bad == "" {
			bad = fmt.Sprintf("capacity names supervisor %q, which Nimbus does not list: fix the host name in the target file", h)
		}
	}
	c.item(bad == "", "supervisors", strings.Join(parts, ", "), bad)
	return sups
}

// bridge checks that Nimbus runs the bridge and that it posts to the target's service.
func (c *checker) bridge(ctx context.Context, ui *stormui.Client, t *target.Target) {
	conf, err := ui.NimbusConf(ctx)
	if err != nil {
		c.item(false, "bridge", "", fmt.Sprintf("cannot read Nimbus's configuration through the UI (%v)", err))
		return
	}
	sched := harness.NimbusScheduler(conf)
	url, _ := conf[docker.ServiceURLConf].(string)
	switch {
	case sched != protocol.BridgeClass:
		c.item(false, "bridge", "Nimbus runs storm.scheduler "+sched,
			fmt.Sprintf("the bridge is not installed: copy the bridge jar to Nimbus's extlib, set storm.scheduler: %s and %s: %s%s in Nimbus's storm.yaml, restart Nimbus (stormlab's docs/own-cluster.md)",
				protocol.BridgeClass, docker.ServiceURLConf, target.Trim(t.Service.Cluster), protocol.PathSchedule))
	case url != "" && !strings.HasPrefix(url, target.Trim(t.Service.Cluster)):
		c.item(false, "bridge", "installed, but it posts to "+url,
			fmt.Sprintf("set %s: %s%s in Nimbus's storm.yaml, or service.cluster in the target file to where the bridge posts", docker.ServiceURLConf, target.Trim(t.Service.Cluster), protocol.PathSchedule))
	default:
		c.item(true, "bridge", fmt.Sprintf("installed (storm.scheduler %s, posting to %s)", sched, orDash(url)), "")
	}
}

// service checks the scheduler service and the workers' reports (with probe: a probe topology's); it
// returns the service's state, or the error that it could not be read.
func (c *checker) service(ctx context.Context, t *target.Target, probe bool) (*protocol.State, error) {
	st, err := harness.ServiceState(ctx, t, time.Now().UnixMilli())
	if err != nil {
		c.item(false, "service", "", fmt.Sprintf("the scheduler service at %s does not answer (%v): start stormlab-service where the cluster and this machine reach it, or fix service.harness", t.Service.Harness, err))
		return nil, err
	}
	seen := "no scheduling round yet (the bridge asks only while topologies run)"
	if st.Rounds > 0 {
		seen = fmt.Sprintf("%d scheduling rounds answered: the bridge reaches it", st.Rounds)
	}
	refused := ""
	if st.Unauthorized > 0 {
		refused = fmt.Sprintf("; it refused %d requests for a missing or wrong token (a bridge or worker without stormlab.scheduler.token?)", st.Unauthorized)
	}
	c.item(true, "service", fmt.Sprintf("%s answers, runs %s; %s%s", t.Service.Harness, st.Scheduler, seen, refused), "")
	switch {
	case probe && len(c.failures) == 0:
		worker, perr := probeReports(ctx, t)
		c.item(perr == nil, "reports", "a worker's report reached the service (from "+worker+"; the probe topology is killed)",
			fmt.Sprintf("%v", perr))
	case probe:
		fmt.Fprintf(c.w, "skip  %-12s --probe needs every item above\n", "reports")
	case st.Reports > 0:
		c.item(true, "reports", fmt.Sprintf("%d worker reports reached the service so far", st.Reports), "")
	default:
		fmt.Fprintf(c.w, "--    %-12s no worker report yet (none runs): --probe submits a one-worker topology and waits for its first report\n", "reports")
	}
	return st, nil
}

// checkLeftovers lists the running topologies whose workers have reported to the service (Storm's ids
// are unique per submission), i.e. that run stormlab's instrumentation: a run or experiment that was cut
// short leaves one behind, and the next run would share the cluster with it. A note, not a failure: a
// topology may run on purpose (one to capture). Nothing is printed when the UI cannot be read (its item
// said so). st is the service's state (its topologies: every one that ever reported).
func checkLeftovers(ctx context.Context, st *protocol.State, ui *stormui.Client, w io.Writer) {
	tops, err := ui.Topologies(ctx)
	if err != nil {
		return
	}
	reporting := map[string]bool{}
	for _, x := range st.Topologies {
		reporting[x.ID] = true
	}
	var ours []string
	for _, x := range tops {
		if reporting[x.ID] {
			ours = append(ours, fmt.Sprintf("%s (%s, up %ds)", x.Name, x.Status, x.UptimeSeconds))
		}
	}
	if len(ours) == 0 {
		fmt.Fprintf(w, "ok    %-12s no topology with stormlab's instrumentation runs\n", "leftovers")
		return
	}
	fmt.Fprintf(w, "note  %-12s %d topologies with stormlab's instrumentation run: %s; unless you meant them to (one to capture), kill them (storm kill NAME): the next run would share the cluster with them\n",
		"leftovers", len(ours), strings.Join(ours, ", "))
}

// probeReports runs harness.ProbeTarget on the target.
func probeReports(ctx context.Context, t *target.Target) (string, error) {
	return harness.ProbeTarget(ctx, t, fmt.Sprintf("stormlab-check-%d", time.Now().Unix()), 3*time.Minute)
}

func orDash(s string) string {
	if s == "" {
		return "the default URL"
	}
	return s
}

// newClusterCmd groups `cluster up` and `cluster down`: a standing local cluster used through a target file.
func newClusterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "A standing containerized Storm cluster on this machine, used through a target file",
	}
	var shape, oldProfile, scheduler, out string
	var detach bool
	up := &cobra.Command{
		Use:   "up [--shape SHAPE] [--scheduler NAME] [--out FILE] --detach",
		Short: "Start a standing cluster and write its target file",
		Long: "up starts ZooKeeper, the scheduler service, Nimbus with the bridge (so every run chooses its\n" +
			"scheduler, Go or Storm's own, without a restart), the UI and the supervisors of --shape, writes\n" +
			"the target file (--out) and,\n" +
			"with --detach, leaves them running: `stormlab run --cluster target:FILE` and `stormlab experiment\n" +
			"NAME --cluster target:FILE` then use it, `stormlab cluster down` removes it. Without --detach the cluster is\n" +
			"removed on Ctrl-C. A standing cluster is never removed as a dead run's leftovers. Its supervisors\n" +
			"run an sshd on 127.0.0.1: the target file gets a control section, with the SSH key and known_hosts\n" +
			"written beside it (NAME.ssh-key, NAME.known_hosts), so the harness reaches those hosts as yours.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if oldProfile != "" {
				shape = oldProfile
			}
			if _, err := docker.Shape(shape); err != nil {
				return err
			}
			if !validScheduler(scheduler) {
				return fmt.Errorf("unknown scheduler %q: choose one of %s", scheduler, strings.Join(runSchedulerNames(), ", "))
			}
			if err := checkOutFolder(out); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			logf := func(f string, a ...any) { fmt.Fprintf(cmd.ErrOrStderr(), "cluster: "+f+"\n", a...) }
			c, err := standUp(ctx, shape, scheduler, out, logf)
			if err != nil {
				return failed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "standing cluster %s up; target file %s\n", c.ID, out)
			if detach {
				c.Release()
				fmt.Fprintln(cmd.OutOrStdout(), "left running: stormlab cluster down removes it")
				return nil
			}
			fmt.Fprintln(cmd.OutOrStdout(), "Ctrl-C removes it")
			<-ctx.Done()
			return failedIf(c.Terminate(context.WithoutCancel(ctx)))
		},
	}
	f := up.Flags()
	f.StringVar(&shape, "shape", docker.DefaultShape, "the cluster's shape: "+strings.Join(docker.Shapes(), ", "))
	f.StringVar(&oldProfile, "profile", "", "the cluster's shape (deprecated: use --shape)")
	deprecate(up, "profile", "--shape")
	f.StringVar(&scheduler, "scheduler", "kpart", "a Go scheduler: the service's first (runs switch it to theirs); or storm-even, storm-default, storm-ras: the scheduler of topologies that name none (default storm-default)")
	f.StringVar(&out, "out", "stormlab-target.yaml", "where to write the target file")
	f.BoolVar(&detach, "detach", false, "leave the cluster running after this command exits")
	down := &cobra.Command{
		Use:   "down",
		Short: "Remove the standing cluster's containers and network",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			n, err := docker.RemoveStanding(cmd.Context())
			if err != nil {
				return failed(err)
			}
			if n == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no standing cluster: nothing to remove")
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed the standing cluster (%d containers and networks)\n", n)
			return nil
		},
	}
	cmd.AddCommand(up, down)
	return cmd
}

// checkOutFolder refuses a target file whose folder does not exist, before any container starts (the
// key files go beside it).
func checkOutFolder(out string) error {
	dir := filepath.Dir(out)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("--out %s: folder %s does not exist: create it first, or give a file in an existing folder", out, dir)
	}
	return nil
}

// newToken is a random service token (128 bits, hex).
func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("service token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func failedIf(err error) error {
	if err != nil {
		return failed(err)
	}
	return nil
}

func validScheduler(name string) bool {
	for _, n := range runSchedulerNames() {
		if n == name {
			return true
		}
	}
	return false
}

// standUp starts a standing cluster and writes its target file. On error the partial cluster is removed.
func standUp(ctx context.Context, shape, scheduler, out string, logf func(string, ...any)) (*docker.Cluster, error) {
	if left, err := docker.ListLeftovers(ctx, docker.LabelStanding+"=true"); err != nil {
		return nil, err
	} else if len(left) > 0 {
		return nil, fmt.Errorf("a standing cluster already runs (%s): use its target file, or `stormlab cluster down` first", left[0])
	}
	// Nimbus always runs the bridge, as on a real cluster it is installed: every run names its scheduler
	// in its topology conf. scheduler is the service's first Go scheduler, or (a native name) what
	// topologies naming none get.
	_, bridged := harness.StormSchedulerClass(scheduler)
	svcScheduler, dflt := "kpart", "storm-default"
	if bridged {
		svcScheduler = scheduler
	} else {
		dflt = scheduler
	}
	// A token as on a real network: the bridge (Nimbus's storm.yaml), the workers (the supervisors')
	// and the harness (the target file) send it; the service refuses requests without it.
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	c, err := docker.Run(ctx, docker.WithStanding(), docker.WithShape(shape), docker.WithScheduler(protocol.BridgeClass),
		docker.WithNimbusConf(map[string]any{protocol.DefaultSchedulerConf: dflt, protocol.TokenConf: token}),
		docker.WithSupervisorConf(map[string]any{protocol.TokenConf: token}),
		docker.WithService("", "--scheduler", svcScheduler, "--token", token), docker.WithSSH(), docker.WithLogf(logf))
	if err != nil {
		return nil, errors.Join(err, c.Terminate(ctx))
	}
	ui, uerr := c.UIURL(ctx)
	svc, serr := c.ServiceURL(ctx)
	if err := errors.Join(uerr, serr); err != nil {
		return nil, errors.Join(err, c.Terminate(ctx))
	}
	t := &target.Target{
		Name:    "standing-" + shape,
		Nimbus:  target.Nimbus{Seeds: []string{docker.NimbusAlias}, Port: docker.StandingNimbusPort, Resolve: map[string]string{docker.NimbusAlias: "127.0.0.1"}},
		UI:      ui,
		Service: target.Service{Cluster: fmt.Sprintf("http://%s:%d", docker.ServiceAlias, docker.ServicePort), Harness: svc},
		Token:   token,
	}
	if t.Control, err = writeSSHFiles(ctx, c, out); err != nil {
		return nil, errors.Join(err, c.Terminate(ctx))
	}
	if err := t.Write(out); err != nil {
		return nil, errors.Join(fmt.Errorf("write target file: %w", err), c.Terminate(ctx))
	}
	return c, nil
}

// writeSSHFiles writes the standing cluster's SSH client key and known_hosts beside its target file
// (mode 0600, named after it) and returns the target file's control section: the harness reaches the
// supervisors over SSH, as a user's hosts, for whole-node CPU, worker pauses, delays and
// stopping and starting a supervisor.
func writeSSHFiles(ctx context.Context, c *docker.Cluster, targetFile string) (*target.Control, error) {
	a, err := c.SSH(ctx)
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(filepath.Base(targetFile), filepath.Ext(targetFile))
	key, known := base+".ssh-key", base+".known_hosts"
	dir := filepath.Dir(targetFile)
	if err := os.WriteFile(filepath.Join(dir, key), a.Key, 0o600); err != nil {
		return nil, fmt.Errorf("write the SSH key: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, known), a.KnownHosts, 0o600); err != nil {
		return nil, fmt.Errorf("write known_hosts: %w", err)
	}
	// Paths relative to the target file (target.Load resolves them), so the folder can move.
	return &target.Control{SSH: &target.SSH{User: a.User, Key: key, KnownHosts: known, Hosts: a.Addrs,
		Commands: target.Commands{Supervisor: &target.DaemonCommands{Stop: docker.SSHSupervisorStop, Start: docker.SSHSupervisorStart}}}}, nil
}
