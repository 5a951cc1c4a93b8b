package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/stormlab/stormlab/harness/nemesis"
	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// ClusterSpec says which containerized cluster a run gets.
type ClusterSpec struct {
	Shape   string // infra/docker shape, e.g. "heterogeneous-2"
	DelayMs int    // emulated network delay between nodes (in Storm's messaging layer: docker.DelayTransport); 0 = none
	Seed    uint64 // scheduler seed passed to the service
	Mul     int    // K-PART balance multiplier passed to the service
	// SchedulerOptions is the scheduler's full configuration, sent to the service as --options JSON; its Seed
	// and Mul, when 0, come from Seed and Mul above.
	SchedulerOptions schedulers.Options
	Logf             func(format string, args ...any)
	// Extra options for infra/docker.Run (e.g. explicit supervisors).
	Options []docker.Option
	// RescheduleEvery is the period between a dynamic scheduler's Reschedule calls for a running
	// topology; 0 is the service's default (protocol.DefaultRescheduleEvery). Every run sends it to the
	// service with its scheduler (protocol.SchedulerChoice), so it holds on a target too.
	RescheduleEvery time.Duration
	// Where names the cluster: containers (the zero value, of Shape), or an existing cluster through
	// its target file (Where.Target; Shape, DelayMs and Options do not apply), or another kind of the
	// registry (Kinds).
	Where clusterref.Ref
}

// dockerCluster adapts infra/docker.Cluster to the Cluster the run loop needs.
type dockerCluster struct {
	c   *docker.Cluster
	ui  *stormui.Client
	svc *serviceClient
	nem *nemesis.Nemesis
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

// Cluster is a Storm cluster that runs go to: containers this process started (Session) or a user's
// cluster through its target file. Experiments and commands run the same code on both.
type Cluster interface {
	// Run runs spec under spec.Scheduler (the cluster's default when empty) and leaves the cluster
	// as it found it: the topology killed and gone, also on failure and interrupt.
	Run(ctx context.Context, spec RunSpec) (*RunResult, error)
	// Capacity maps each supervisor host to its CPU capacity (100 = one core).
	Capacity() map[string]float64
	// Nemesis is what disturbs the cluster on purpose (faults, background load); what it cannot do
	// on this cluster it refuses, naming what to add.
	Nemesis() Disturber
	// StartNodeCPUReports posts each supervisor's whole CPU use (background load included) to the
	// service every period, read through the control layer; stop ends it and gives the first error.
	// A target without control.ssh refuses, naming the key.
	StartNodeCPUReports(ctx context.Context, every time.Duration) (stop func() error, err error)
	// Close releases the cluster: containers are removed, a target's connections closed.
	Close(ctx context.Context) error
}

var (
	_ Cluster = (*Session)(nil)
	_ Cluster = (*targetSession)(nil)
)

// optionsJSON is the scheduler configuration every Go scheduler of the cluster gets: SchedulerOptions
// with Seed and Mul filled in.
func (cs ClusterSpec) optionsJSON() (string, error) {
	so := cs.SchedulerOptions
	if so.Seed == 0 {
		so.Seed = cs.Seed
	}
	if so.Mul == 0 {
		so.Mul = cs.Mul
	}
	return so.JSON()
}

// rescheduleEvery is the period every run sends to the service: the spec's, or the service's default
// (so a run after one that set another period gets the default back).
func (cs ClusterSpec) rescheduleEvery() time.Duration {
	if cs.RescheduleEvery > 0 {
		return cs.RescheduleEvery
	}
	return protocol.DefaultRescheduleEvery
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
	jar, err := stormJar()
	if err != nil {
		return TopologyRun{}, err
	}
	a := append([]string{"--name", topologyName}, m.DefaultArgs...)
	return TopologyRun{Name: topologyName, Jar: jar, MainClass: m.Class, Args: append(a, args...)}, nil
}

// stormJar is the path of the Java topologies' jar (topologies.StormJar under $STORMLAB_HOME or the
// checkout), checked to exist.
func stormJar() (string, error) {
	root, err := assets.Home()
	if err != nil {
		return "", err
	}
	jar := filepath.Join(root, topologies.StormJar)
	if _, err := os.Stat(jar); err != nil {
		return "", fmt.Errorf("topology jar %s is missing: build it with `mvn -q -f topologies/storm/pom.xml package` (make setup does)", jar)
	}
	return jar, nil
}

// nemesis acts on this cluster's own containers (control.Docker).
func (d *dockerCluster) nemesis() *nemesis.Nemesis { return d.nem }

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
