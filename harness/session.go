package harness

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/images"
	"github.com/stormlab/stormlab/schedulers"
)

// Session is one containerized cluster kept for several sequential runs of
// the same scheduler (cluster start-up is paid once). Between runs the
// previous topology is killed and Session.Run waits until Nimbus has
// forgotten it and no worker JVM is left on any supervisor, so one run
// never measures the next one's start-up or the last one's tail.
//
// Always Close a Session, also after an error: Close removes every
// container and the network.
type Session struct {
	Scheduler string
	logf      func(string, ...any)
	c         *docker.Cluster
	dc        *dockerCluster
	runs      int
}

// StartSession starts a cluster whose Nimbus uses scheduler (native, or
// the bridge to the Go service running it). On error the returned Session
// (possibly partial) must still be closed; it is nil only when nothing was
// started.
func StartSession(ctx context.Context, cs ClusterSpec, scheduler string) (*Session, error) {
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
	if cs.DelayMs > 0 {
		opts = append(opts, docker.WithNetworkDelay(cs.DelayMs))
	}
	opts = append(opts, cs.Options...)
	c, err := docker.Run(ctx, opts...)
	if c == nil {
		return nil, err
	}
	s := &Session{Scheduler: scheduler, c: c, dc: &dockerCluster{c: c}, logf: cs.Logf}
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	if err != nil {
		return s, err
	}
	if s.dc.ui, err = c.UIURL(ctx); err != nil {
		return s, err
	}
	if s.dc.svc, err = c.ServiceURL(ctx); err != nil {
		return s, err
	}
	return s, nil
}

// Cluster is the underlying docker cluster (for Exec into supervisors).
func (s *Session) Cluster() *docker.Cluster { return s.c }

// Capacity maps each supervisor host to its CPU capacity (100 = one core).
func (s *Session) Capacity() map[string]float64 { return s.dc.Capacity() }

// Hosts lists the supervisor hostnames in spec order.
func (s *Session) Hosts() []string {
	var out []string
	for _, sup := range s.c.Supervisors() {
		out = append(out, sup.Host())
	}
	return out
}

// Run runs spec on the session's cluster (spec.Scheduler must be the
// session's, or empty). Before submitting it waits until the previous run's
// topology and workers are gone.
func (s *Session) Run(ctx context.Context, spec RunSpec) (*RunResult, error) {
	if spec.Scheduler == "" {
		spec.Scheduler = s.Scheduler
	}
	if spec.Scheduler != s.Scheduler {
		return nil, fmt.Errorf("session runs %s, not %s: start another session for another scheduler", s.Scheduler, spec.Scheduler)
	}
	if s.runs > 0 {
		if err := s.WaitIdle(ctx, 2*time.Minute); err != nil {
			return nil, fmt.Errorf("before run %d: %w", s.runs+1, err)
		}
	}
	s.runs++
	res, err := Run(ctx, s.dc, spec)
	if res != nil {
		s.stamp(res)
	}
	if err != nil {
		err = fmt.Errorf("%w\n--- last log lines ---\n%s", err, s.c.LastLogLines(context.WithoutCancel(ctx), 20))
	}
	return res, err
}

// WaitIdle waits until Nimbus lists no topology, no slot is used and no
// worker JVM runs in any supervisor container.
func (s *Session) WaitIdle(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ui := &UI{BaseURL: s.dc.ui}
	var last string
	var lingering time.Time
	for {
		idle, why := s.idle(ctx, ui)
		if idle {
			return nil
		}
		last = why
		// Nimbus has forgotten the topology but a worker JVM is still up
		// (seen on a 0.25-core supervisor after a migration): the
		// supervisor should have killed it; after StragglerGrace we do,
		// by pid, so the next run does not share the node with it.
		if strings.HasPrefix(why, "worker JVMs still running") {
			if lingering.IsZero() {
				lingering = time.Now()
			} else if time.Since(lingering) > StragglerGrace {
				s.killStragglers(ctx)
				lingering = time.Time{}
			}
		}
		if err := pause(ctx, time.Second); err != nil {
			return fmt.Errorf("cluster not idle after %s: %s", timeout, last)
		}
	}
}

// workerProbe prints the pids of Storm worker JVMs (pgrep from procps:
// one process, cheap even on a 0.25-core container under background
// load). The bracket keeps the probe's own shell, whose command line holds
// the pattern, from matching.
const workerProbe = `pgrep -f '[o]rg.apache.storm.daemon.worker.Worker'; true`

// StragglerGrace is how long WaitIdle lets a worker JVM outlive its
// topology before killing it.
const StragglerGrace = 30 * time.Second

// killStragglers kills (SIGKILL, by pid) the worker JVMs left on any
// supervisor after their topology is gone.
func (s *Session) killStragglers(ctx context.Context) {
	for _, h := range s.Hosts() {
		_, out, err := s.c.Exec(ctx, h, "sh", "-c", workerProbe)
		pids := strings.Fields(out)
		if err != nil || len(pids) == 0 {
			continue
		}
		s.logf("cluster %s: killing worker JVMs left on %s after their topology ended: pids %s", s.c.ID, h, strings.Join(pids, ","))
		s.c.Exec(ctx, h, append([]string{"kill", "-9"}, pids...)...)
	}
}

func (s *Session) idle(ctx context.Context, ui *UI) (bool, string) {
	var sum struct {
		Topologies []struct{ ID, Name, Status string } `json:"topologies"`
	}
	if err := ui.get(ctx, "/api/v1/topology/summary", &sum); err != nil {
		return false, err.Error()
	}
	if len(sum.Topologies) > 0 {
		return false, fmt.Sprintf("topology %s still listed (%s)", sum.Topologies[0].Name, sum.Topologies[0].Status)
	}
	var cl struct {
		SlotsUsed int `json:"slotsUsed"`
	}
	if err := ui.get(ctx, "/api/v1/cluster/summary", &cl); err != nil {
		return false, err.Error()
	}
	if cl.SlotsUsed > 0 {
		return false, fmt.Sprintf("%d slots still used", cl.SlotsUsed)
	}
	for _, h := range s.Hosts() {
		_, out, err := s.c.Exec(ctx, h, "sh", "-c", workerProbe)
		if err != nil {
			return false, err.Error()
		}
		if strings.TrimSpace(out) != "" {
			return false, fmt.Sprintf("worker JVMs still running on %s (pids %s)", h, strings.Join(strings.Fields(out), ","))
		}
	}
	return true, ""
}

// Close removes the cluster (with a fresh context, so it also runs after
// cancel or timeout).
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
