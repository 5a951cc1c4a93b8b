package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/images"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/target"
	"github.com/stormlab/stormlab/schedulers"
)

// Session is one containerized cluster kept for several sequential runs of the same scheduler
// (cluster start-up is paid once). It only starts the cluster, waits until it is idle between runs,
// exposes the daemons' logs as data (logFiles) and closes; the run loop is Run, and whatever disturbs
// the cluster on purpose (background load, stragglers) is its Nemesis.
//
// Always Close a Session, also after an error: Close removes every container and the network.
type Session struct {
	Scheduler string
	logf      func(string, ...any)
	c         *docker.Cluster
	dc        *dockerCluster
	nemesis   *Nemesis
	runs      int
	startS    float64 // the cluster's start-up wall time (Phases.ClusterS of the first run)
}

// StartSession starts a cluster whose Nimbus uses scheduler (native, or the bridge to the Go service
// running it). On error the returned Session (possibly partial) must still be closed; it is nil only
// when nothing was started.
func StartSession(ctx context.Context, cs ClusterSpec, scheduler string) (*Session, error) {
	if cs.Target != nil {
		return nil, fmt.Errorf("this experiment needs clusters of its own (its supervisors, delays or faults): it cannot run on a target yet; leave out the target (%s)", target.Env)
	}
	class, bridged := StormSchedulerClass(scheduler)
	svcScheduler := "even" // the service only collects metrics for native schedulers
	if bridged {
		if _, err := schedulers.Lookup(scheduler); err != nil {
			return nil, err
		}
		svcScheduler = scheduler
	}
	so := cs.SchedulerOptions
	if so.Seed == 0 {
		so.Seed = cs.Seed
	}
	if so.Mul == 0 {
		so.Mul = cs.Mul
	}
	soJSON, err := so.JSON()
	if err != nil {
		return nil, err
	}
	opts := []docker.Option{
		docker.WithProfile(orDefault(cs.Profile, docker.DefaultProfile)),
		docker.WithScheduler(class),
		docker.WithService("", append([]string{"--scheduler", svcScheduler, "--options", soJSON}, cs.ServiceArgs...)...),
		docker.WithLogf(cs.Logf),
	}
	if bridged {
		// Topologies naming no scheduler (every run's here) go to the service, as before per-topology choice.
		opts = append(opts, docker.WithNimbusConf(map[string]any{protocol.DefaultSchedulerConf: scheduler}))
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
	s := &Session{Scheduler: scheduler, c: c, dc: &dockerCluster{c: c}, logf: cs.Logf, startS: time.Since(t0).Seconds()}
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	s.nemesis = &Nemesis{ctl: control.NewDocker(c), name: c.ID, cores: s.cores, logf: s.logf, before: s.waitIdleAfterRun}
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
func (s *Session) Nemesis() *Nemesis { return s.nemesis }

// Run runs spec on the session's cluster (spec.Scheduler must be the session's, or empty). Before
// submitting it waits until the previous run's topology and workers are gone. A failed run's
// *RunError carries the last lines of every daemon's log.
func (s *Session) Run(ctx context.Context, spec RunSpec) (*RunResult, error) {
	if spec.Scheduler == "" {
		spec.Scheduler = s.Scheduler
	}
	if spec.Scheduler != s.Scheduler {
		return nil, &RunError{Topology: spec.Topology.Name, Stage: stageSpec,
			Err: fmt.Errorf("session runs %s, not %s: start another session for another scheduler", s.Scheduler, spec.Scheduler)}
	}
	t0 := time.Now()
	if err := s.waitIdleAfterRun(ctx); err != nil {
		return nil, &RunError{Topology: spec.Topology.Name, Stage: stageIdle, Err: err, Logs: logTails(ctx, s.c, 20)}
	}
	idle := time.Since(t0).Seconds()
	s.runs++
	res, err := runOn(ctx, s.dc, spec)
	if res != nil {
		s.stamp(res)
		res.Phases.IdleS = idle
		if s.runs == 1 {
			res.Phases.ClusterS = s.startS
		}
		res.Phases.TotalS += res.Phases.IdleS + res.Phases.ClusterS
	}
	if re := (*RunError)(nil); errors.As(err, &re) {
		re.Logs = logTails(ctx, s.c, 20)
	}
	return res, err
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
// supervisor container. A worker JVM that outlives its topology by stragglerGrace is killed (the
// Nemesis's killStragglers). The error wraps errNotIdle and the last reason.
func (s *Session) WaitIdle(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
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
		// stragglerGrace we do, by pid, so the next run does not share the node with it.
		if errors.Is(why, errStragglers) {
			if lingering.IsZero() {
				lingering = time.Now()
			} else if time.Since(lingering) > stragglerGrace {
				_, killErr = s.nemesis.Inject(ctx, Fault{Kind: stragglerKill})
				lingering = time.Time{}
			}
		}
		if err := pause(ctx, pollEvery); err != nil {
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
	if len(tops) > 0 {
		return fmt.Errorf("topology %s still listed (%s)", tops[0].Name, tops[0].Status)
	}
	cl, err := s.dc.ui.Cluster(ctx)
	if err != nil {
		return err
	}
	if cl.SlotsUsed > 0 {
		return fmt.Errorf("%d slots still used", cl.SlotsUsed)
	}
	for _, h := range s.hosts() {
		pids, err := s.nemesis.workerPids(ctx, h)
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

// stamp records the cluster's profile, versions and images in a result.
func (s *Session) stamp(res *RunResult) {
	c := s.c
	res.Cluster, res.StormVersion, res.StartS = c.Profile, images.StormVersion, c.StartDuration().Seconds()
	res.Images = map[string]string{"zookeeper": c.Images.ZooKeeper, "storm": c.Images.Storm, "service": c.Images.Service}
}
