package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/infra/target"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// ClusterSpec says which containerized cluster a run gets.
type ClusterSpec struct {
	Profile string // infra/docker profile, e.g. "heterogeneous-2"
	DelayMs int    // emulated network delay between nodes (in Storm's messaging layer: docker.DelayTransport); 0 = none
	Seed    uint64 // scheduler seed passed to the service
	Mul     int    // K-PART balance multiplier passed to the service
	// SchedulerOptions is the scheduler's full configuration, sent to the
	// service as --options JSON; its Seed and Mul, when 0, come from Seed
	// and Mul above.
	SchedulerOptions schedulers.Options
	Logf             func(format string, args ...any)
	// Extra options for infra/docker.Run (e.g. explicit supervisors).
	Options []docker.Option
	// ServiceArgs are extra scheduler-service flags (e.g.
	// "--reschedule-every", "20s"), after --scheduler, --seed and --mul.
	ServiceArgs []string
	// Target, when set, is an existing cluster to run on instead of containers (RunOnNewCluster runs
	// there through its endpoints only; Profile, DelayMs, Options and ServiceArgs do not apply).
	Target *target.Target
}

// dockerCluster adapts infra/docker.Cluster to the Cluster the run loop needs.
type dockerCluster struct {
	c   *docker.Cluster
	ui  *stormui.Client
	svc *serviceClient
	nem *Nemesis
}

func (d *dockerCluster) UI() *stormui.Client     { return d.ui }
func (d *dockerCluster) Service() *serviceClient { return d.svc }

func (d *dockerCluster) Capacity() map[string]float64 {
	m := map[string]float64{}
	for _, s := range d.c.Supervisors() {
		m[s.Host()] = s.Spec.CapacityCPU()
	}
	return m
}

func (d *dockerCluster) Hosts() []string {
	var out []string
	for _, sup := range d.c.Supervisors() {
		out = append(out, sup.Host())
	}
	return out
}

func (d *dockerCluster) Submit(ctx context.Context, jar, mainClass string, args ...string) error {
	return d.c.Submit(ctx, jar, mainClass, args...)
}

func (d *dockerCluster) Exec(ctx context.Context, host string, cmd ...string) (int, string, error) {
	return d.c.Exec(ctx, host, cmd...)
}

// RunOnNewCluster starts a cluster whose Nimbus uses spec.Scheduler (native, or the bridge to the Go
// service running that scheduler), runs spec on it and always removes every container and network it
// made, also when the run fails or ctx is cancelled (interrupt).
func RunOnNewCluster(ctx context.Context, cs ClusterSpec, spec RunSpec) (res *RunResult, err error) {
	if cs.Target != nil {
		return runOnTargetSpec(ctx, cs, spec)
	}
	s, err := StartSession(ctx, cs, spec.Scheduler)
	defer func() {
		if cerr := s.Close(ctx); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	if err != nil {
		return nil, err
	}
	return s.Run(ctx, spec)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// StormTopology builds the TopologyRun of one of the Java topologies (topologies.StormMains) with the
// jar found from the repository root.
func StormTopology(name, topologyName string, args ...string) (TopologyRun, error) {
	m, err := topologies.LookupStormMain(name)
	if err != nil {
		return TopologyRun{}, err
	}
	root, err := assets.Home()
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

// nemesis acts on this cluster's own containers (control.Docker).
func (d *dockerCluster) nemesis() *Nemesis { return d.nem }

// refresh reads the service's and UI's host ports again: a container started again after a fault gets
// new ephemeral host ports.
func (d *dockerCluster) refresh(ctx context.Context) error {
	svc, err := d.c.ServiceURL(ctx)
	if err != nil {
		return err
	}
	d.svc.BaseURL = svc
	return nil
}
