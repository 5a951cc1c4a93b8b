package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/tail"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/harness/nemesis"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/images"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers"
)

// Session is one containerized cluster kept for several sequential runs (cluster start-up is paid
// once). Its Nimbus runs the bridge, so every run names its own scheduler: Storm's own schedulers run
// inside Nimbus on the run's topology (the bridge's per-topology choice), Go schedulers in the service,
// switched before each run, exactly as on a user's cluster with the bridge installed (runOnTarget).
// Between runs it waits until the cluster is idle. It exposes the daemons' logs as data (logFiles)
// and closes; the run loop is Run, and whatever disturbs the cluster on purpose (background load,
// stragglers) is its Nemesis.
//
// Always Close a Session, also after an error: Close removes every container and the network.
type Session struct {
	// Scheduler runs the topologies that name none (a run with an empty RunSpec.Scheduler, or a
	// topology submitted through Cluster().Submit).
	Scheduler string
	logf      func(string, ...any)
	c         *docker.Cluster
	dc        *dockerCluster
	nemesis   *nemesis.Nemesis
	runs      int
	startS    float64       // the cluster's start-up wall time (Phases.ClusterS of the first run)
	choice    serviceChoice // what the service gets with every Go scheduler of this session: options, rescheduling period
	serving   string        // the Go scheduler the service runs now
}

// StartSession starts a cluster for runs of any scheduler; scheduler is the one of topologies that name
// none (native, or a Go scheduler in the service). On error the returned Session (possibly partial)
// must still be closed; it is nil only when nothing was started.
//
// Storm's own schedulers run under the bridge here, not as Nimbus's storm.scheduler: the one
// difference that shows (the bridge's Delegates doc) is that a storm-ras topology gets Nimbus's
// default acker count instead of RAS's estimate.
func StartSession(ctx context.Context, cs ClusterSpec, scheduler string) (*Session, error) {
	if k := cs.Where.Kind; k != "" && k != clusterref.Containers {
		return nil, fmt.Errorf("this experiment needs clusters of its own (its supervisors, delays or faults): it cannot run on a target yet; run it on containers (--cluster containers)")
	}
	if _, bridged := StormSchedulerClass(scheduler); bridged {
		if _, err := schedulers.Lookup(scheduler); err != nil {
			return nil, err
		}
	}
	svcScheduler := "even" // until a run of a Go scheduler switches it
	if _, bridged := StormSchedulerClass(scheduler); bridged {
		svcScheduler = scheduler
	}
	soJSON, err := cs.optionsJSON()
	if err != nil {
		return nil, err
	}
	opts := []docker.Option{
		docker.WithShape(orDefault(cs.Shape, docker.DefaultShape)),
		docker.WithScheduler(protocol.BridgeClass),
		docker.WithService("", "--scheduler", svcScheduler, "--options", soJSON, "--reschedule-every", cs.rescheduleEvery().String()),
		docker.WithLogf(cs.Logf),
		// Topologies naming no scheduler go to the session's default.
		docker.WithNimbusConf(map[string]any{protocol.DefaultSchedulerConf: scheduler}),
	}
	if cs.DelayMs > 0 {
		opts = append(opts, docker.WithNetworkDelay(cs.DelayMs))
	}
	opts = append(opts, cs.Options...)
	t0 := time.Now()
	c, err := docker.Run(ctx, opts...)
	if c == nil {
		return nil, err
	}
	s := &Session{Scheduler: scheduler, c: c, dc: &dockerCluster{c: c}, logf: cs.Logf, startS: time.Since(t0).Seconds(),
		choice: serviceChoice{options: soJSON, every: cs.rescheduleEvery()}, serving: svcScheduler}
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	s.nemesis = nemesis.New(nemesis.Config{Control: control.NewDocker(c), Storm: stormOf(s.dc), Name: c.ID, Cores: s.cores, Logf: s.logf, Before: s.waitIdleAfterRun})
	s.dc.nem = s.nemesis
	if err != nil {
		return s, err
	}
	ui, uerr := c.UI(ctx)
	svc, serr := c.ServiceURL(ctx)
	if err := errors.Join(uerr, serr); err != nil {
		return s, err
	}
	s.dc.ui, s.dc.svc = ui, &serviceClient{BaseURL: svc}
	return s, nil
}

// Cluster is the underlying docker cluster (submit, kill, exec into supervisors: cluster tests).
func (s *Session) Cluster() *docker.Cluster { return s.c }

// Capacity maps each supervisor host to its CPU capacity (100 = one core).
func (s *Session) Capacity() map[string]float64 { return s.dc.Capacity() }

// cores maps each supervisor host to its CPU cores (the container's quota).
func (s *Session) cores() map[string]float64 {
	m := map[string]float64{}
	for _, sup := range s.c.Supervisors() {
		m[sup.Host()] = sup.Spec.CPUs
	}
	return m
}

// hosts lists the supervisor hostnames in spec order.
func (s *Session) hosts() []string { return s.dc.Hosts() }

// logs is the cluster's daemon logs, as data.
func (s *Session) logs() logFiles { return s.c }

// Nemesis is what disturbs this session's cluster on purpose.
func (s *Session) Nemesis() Disturber { return s.nemesis }

// Run runs spec on the session's cluster under spec.Scheduler (the session's default when empty).
// Before submitting it waits until the previous run's topology and workers are gone, so runs are
// independent units (Phases.IdleS records the wait, ClusterRun the run's place on this cluster). A
// failed run's *RunError carries the last lines of every daemon's log.
func (s *Session) Run(ctx context.Context, spec RunSpec) (*RunResult, error) {
	spec.Scheduler = cmp.Or(spec.Scheduler, s.Scheduler)
	t0 := time.Now()
	if err := s.waitIdleAfterRun(ctx); err != nil {
		return nil, &RunError{Topology: spec.Topology.Name, Stage: stageIdle, Err: err, Logs: tail.Of(ctx, s.c, 20)}
	}
	idle := time.Since(t0).Seconds()
	if err := s.serve(ctx, spec.Scheduler); err != nil {
		return nil, &RunError{Topology: spec.Topology.Name, Stage: stageSpec, Err: err}
	}
	spec.Topology.Args = withSchedulerConf(spec.Topology.Args, spec.Scheduler)
	s.runs++
	res, err := runOn(ctx, s.dc, spec)
	if res != nil {
		s.stamp(res)
		res.ClusterRun = s.runs
		res.Phases.IdleS = idle
		if s.runs == 1 {
			res.Phases.ClusterS = s.startS
		}
		res.Phases.TotalS += res.Phases.IdleS + res.Phases.ClusterS
		// Diagnosed again with the link limits and ClusterRun the links' step reads; the validity reads no link.
		if res.Diagnosis != nil {
			res.Diagnosis = diagnosis(res)
		}
	}
	if re := (*RunError)(nil); errors.As(err, &re) {
		re.Logs = tail.Of(ctx, s.c, 20)
	}
	return res, err
}

// serve switches the service to a Go scheduler (a fresh instance with the session's options); Storm's
// own schedulers need nothing, the topology's conf names them.
func (s *Session) serve(ctx context.Context, scheduler string) error {
	if _, bridged := StormSchedulerClass(scheduler); !bridged || scheduler == s.serving && s.runs == 0 {
		return nil
	}
	if err := setServiceScheduler(ctx, s.dc.svc, scheduler, s.choice); err != nil {
		return err
	}
	s.serving = scheduler
	return nil
}

// waitIdleAfterRun waits for idleness if a run came before.
func (s *Session) waitIdleAfterRun(ctx context.Context) error {
	if s.runs == 0 {
		return nil
	}
	if err := s.WaitIdle(ctx, 2*time.Minute); err != nil {
		return fmt.Errorf("after run %d: %w", s.runs, err)
	}
	return nil
}

// waitIdle waits until Nimbus lists no topology, no slot is used and no worker JVM runs in any
// supervisor container, background load's burner topologies (package nemesis) aside. A worker JVM that
// outlives its topology by nemesis.StragglerGrace is killed (the nemesis kills stragglers). The error wraps errNotIdle and the last reason.
func (s *Session) WaitIdle(parent context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	var lingering time.Time
	var killErr error
	for {
		why := s.idle(ctx)
		if why == nil {
			return nil
		}
		// Nimbus has forgotten the topology but a worker JVM is still up (seen on a 0.25-core
		// supervisor after a migration): the supervisor should have killed it; after
		// nemesis.StragglerGrace we do, by pid, so the next run does not share the node with it.
		if errors.Is(why, errStragglers) {
			if lingering.IsZero() {
				lingering = time.Now()
			} else if time.Since(lingering) > nemesis.StragglerGrace {
				_, killErr = s.nemesis.Inject(ctx, fault.Fault{Kind: fault.KillStragglers})
				lingering = time.Time{}
			}
		}
		if err := pause(ctx, pollEvery); err != nil {
			if perr := parent.Err(); perr != nil { // cancelled (Ctrl-C), not timed out
				return fmt.Errorf("waiting for an idle cluster (%v): %w", why, perr)
			}
			return errors.Join(fmt.Errorf("%w after %s: %w", errNotIdle, timeout, why), killErr)
		}
	}
}

var errStragglers = errors.New("worker JVMs still running")

// idle returns nil when the cluster is idle, else why not.
func (s *Session) idle(ctx context.Context) error {
	tops, err := s.dc.ui.Topologies(ctx)
	if err != nil {
		return err
	}
	burners := 0 // slots the background load's burner topologies hold; they are not leftovers
	for _, t := range tops {
		if !nemesis.IsBurner(t.Name) {
			return fmt.Errorf("topology %s still listed (%s)", t.Name, t.Status)
		}
		burners += t.WorkersTotal
	}
	cl, err := s.dc.ui.Cluster(ctx)
	if err != nil {
		return err
	}
	if cl.SlotsUsed > burners {
		return fmt.Errorf("%d slots still used (%d by background load)", cl.SlotsUsed, burners)
	}
	for _, h := range s.hosts() {
		pids, err := s.nemesis.WorkerPids(ctx, h)
		if err != nil {
			return err
		}
		if len(pids) > 0 {
			return fmt.Errorf("%w on %s (pids %s)", errStragglers, h, strings.Join(pids, ","))
		}
	}
	return nil
}

// Close removes the cluster (with a fresh context, so it also runs after cancel or timeout).
func (s *Session) Close(ctx context.Context) error {
	if s == nil || s.c == nil {
		return nil
	}
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	if err := s.c.Terminate(tctx); err != nil {
		return fmt.Errorf("tear down cluster %s: %w", s.c.ID, err)
	}
	return nil
}

// stamp records the cluster's shape, versions and images in a result.
func (s *Session) stamp(res *RunResult) {
	c := s.c
	res.Cluster, res.StormVersion, res.StartS, res.LinkMbit = c.Shape, images.StormVersion, c.StartDuration().Seconds(), c.Links()
	res.Images = map[string]string{"zookeeper": c.Images.ZooKeeper, "storm": c.Images.Storm, "service": c.Images.Service}
}
