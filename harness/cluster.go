package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/images"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// ClusterSpec says which containerized cluster a run gets.
type ClusterSpec struct {
	Profile string // infra/docker profile, e.g. "heterogeneous-2"
	DelayMs int    // emulated network delay between nodes (tc netem); 0 = none
	Seed    uint64 // scheduler seed passed to the service
	Mul     int    // K-PART balance multiplier passed to the service
	Logf    func(format string, args ...any)
	// Extra options for infra/docker.Run (e.g. explicit supervisors).
	Options []docker.Option
	// ServiceArgs are extra scheduler-service flags (e.g.
	// "--reschedule-every", "20s"), after --scheduler, --seed and --mul.
	ServiceArgs []string
}

// dockerCluster adapts infra/docker.Cluster to the Cluster the run loop needs.
type dockerCluster struct {
	c       *docker.Cluster
	ui, svc string
}

func (d *dockerCluster) UIURL() string      { return d.ui }
func (d *dockerCluster) ServiceURL() string { return d.svc }

func (d *dockerCluster) Capacity() map[string]float64 {
	m := map[string]float64{}
	for _, s := range d.c.Supervisors() {
		m[s.Host()] = s.Spec.CapacityCPU()
	}
	return m
}

func (d *dockerCluster) Submit(ctx context.Context, jar, mainClass string, args ...string) error {
	return d.c.Submit(ctx, jar, mainClass, args...)
}

// Kill resolves the topology name to its id (the UI kills by id).
func (d *dockerCluster) Kill(ctx context.Context, name string) error {
	id, err := (&UI{BaseURL: d.ui}).TopologyID(ctx, name)
	if err != nil {
		return err
	}
	return d.c.Kill(ctx, id)
}

func (d *dockerCluster) NimbusLog(ctx context.Context) (string, error) {
	return d.c.Logs(ctx, docker.RoleNimbus)
}

// RunOnNewCluster starts a cluster whose Nimbus uses spec.Scheduler (native,
// or the bridge to the Go service running that scheduler), runs spec on it
// and always removes every container and network it made, also when the run
// fails or ctx is cancelled (interrupt).
func RunOnNewCluster(ctx context.Context, cs ClusterSpec, spec RunSpec) (res *RunResult, err error) {
	class, bridged := StormSchedulerClass(spec.Scheduler)
	svcScheduler := "even" // the service only collects metrics for native schedulers
	if bridged {
		if _, err := schedulers.Lookup(spec.Scheduler); err != nil {
			return nil, err
		}
		svcScheduler = spec.Scheduler
	}
	opts := []docker.Option{
		docker.WithProfile(orDefault(cs.Profile, docker.DefaultProfile)),
		docker.WithScheduler(class),
		docker.WithService("", append([]string{"--scheduler", svcScheduler, "--seed", strconv.FormatUint(cs.Seed, 10), "--mul", strconv.Itoa(cs.Mul)}, cs.ServiceArgs...)...),
		docker.WithLogf(cs.Logf),
	}
	if cs.DelayMs > 0 {
		opts = append(opts, docker.WithNetworkDelay(cs.DelayMs))
	}
	opts = append(opts, cs.Options...)
	c, err := docker.Run(ctx, opts...)
	defer func() {
		if c == nil {
			return
		}
		// A fresh context: teardown must run after cancel or timeout too.
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		if terr := c.Terminate(tctx); terr != nil {
			err = errors.Join(err, fmt.Errorf("tear down cluster %s: %w", c.ID, terr))
		}
	}()
	if err != nil {
		return nil, err
	}
	dc := &dockerCluster{c: c}
	if dc.ui, err = c.UIURL(ctx); err != nil {
		return nil, err
	}
	if dc.svc, err = c.ServiceURL(ctx); err != nil {
		return nil, err
	}
	res, err = Run(ctx, dc, spec)
	if res != nil {
		res.Cluster, res.StormVersion, res.StartS = c.Profile, images.StormVersion, c.StartDuration().Seconds()
		res.Images = map[string]string{"zookeeper": c.Images.ZooKeeper, "storm": c.Images.Storm, "service": c.Images.Service}
	}
	if err != nil {
		err = fmt.Errorf("%w\n--- last log lines ---\n%s", err, c.LastLogLines(context.WithoutCancel(ctx), 20))
	}
	return res, err
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// StormTopology builds the TopologyRun of one of the Java topologies
// (topologies.StormMains) with the jar found from the repository root.
func StormTopology(name, topologyName string, args ...string) (TopologyRun, error) {
	m, err := topologies.LookupStormMain(name)
	if err != nil {
		return TopologyRun{}, err
	}
	root, err := RepoRoot()
	if err != nil {
		return TopologyRun{}, err
	}
	jar := filepath.Join(root, topologies.StormJar)
	if _, err := os.Stat(jar); err != nil {
		return TopologyRun{}, fmt.Errorf("topology jar %s is missing: build it with `mvn -q -f topologies/storm/pom.xml package` (make setup does)", jar)
	}
	a := append([]string{"--name", topologyName}, m.DefaultArgs...)
	return TopologyRun{Name: topologyName, Jar: jar, MainClass: m.Class, Args: append(a, args...)}, nil
}

// RepoRoot finds the module root (the folder holding go.mod) from the
// working directory, so tests in any package find the built jars.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find the stormlab module root (go.mod) above the working directory")
		}
		dir = parent
	}
}
