package nemesis

import (
	"context"
	"time"

	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
)

// Storm is what the nemesis needs of a cluster's Storm and scheduler service to run its burner
// topologies (background load, stragglers); the run loop's clusters provide it, so this package
// knows nothing of how a cluster was opened.
type Storm interface {
	UI() *stormui.Client
	Submit(ctx context.Context, jar, mainClass string, args ...string) error
	// Jar is the path of the Java topologies' jar, which holds the burner.
	Jar() (string, error)
	// WaitRunning waits until every executor of topology name runs (its id and placement).
	WaitRunning(ctx context.Context, name string, timeout time.Duration) (string, []measure.ExecutorPlace, error)
	// WaitReports waits until every worker of execs sent a report since sinceMs that ok accepts.
	WaitReports(ctx context.Context, id string, sinceMs int64, execs []measure.ExecutorPlace, timeout time.Duration, ok func(protocol.WorkerReport) bool, what string) error
	// WaitGone waits until Nimbus no longer lists a topology named name.
	WaitGone(ctx context.Context, name string) error
	// State is the scheduler service's state since sinceMs; Post sends it v at path.
	State(ctx context.Context, sinceMs int64) (*protocol.State, error)
	Post(ctx context.Context, path string, v any) error
}

// Config is what a Nemesis acts with.
type Config struct {
	Control control.Control // nil: no control layer (a target without control.ssh)
	Storm   Storm           // nil: no burner topologies (background load and stragglers refused)
	Name    string          // the cluster, for log lines
	// Cores gives each supervisor's CPU cores (for fault.CPULoad); its keys are the supervisors.
	Cores func() map[string]float64
	Logf  func(string, ...any)
	// Before, if set, is waited for before background load starts (until the previous run is gone).
	Before func(context.Context) error
}

// New is the nemesis of a cluster.
func New(c Config) *Nemesis {
	return &Nemesis{ctl: c.Control, storm: c.Storm, name: c.Name, cores: c.Cores, logf: c.Logf, before: c.Before}
}

// Control is the nemesis's control layer (nil without one): whole-node CPU is read through it too.
func (n *Nemesis) Control() control.Control { return n.ctl }

// Hosts lists the supervisors, sorted.
func (n *Nemesis) Hosts() []string { return n.hosts() }

// retry calls read until it succeeds or within has passed (then its last error). Only for reads.
func retry(ctx context.Context, within time.Duration, read func(context.Context) error) error {
	deadline := time.Now().Add(within)
	for {
		err := read(ctx)
		if err == nil || !time.Now().Before(deadline) {
			return err
		}
		t := time.NewTimer(2 * time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}
