package harness

import (
	"context"
	"time"

	"github.com/stormlab/stormlab/harness/nemesis"
	"github.com/stormlab/stormlab/infra/protocol"
)

// BurnerPrefix starts the name of every burner topology of background load (nemesis.BurnerPrefix):
// callers that list a cluster's topologies leave those alone.
const BurnerPrefix = nemesis.BurnerPrefix

// ErrNoControl is the refusal of a fault on a cluster without a control layer (nemesis.ErrNoControl),
// for callers that tell it apart.
var ErrNoControl = nemesis.ErrNoControl

// burnerStorm is a run cluster as the nemesis sees it (nemesis.Storm): where its burner topologies go.
type burnerStorm struct{ runCluster }

// stormOf is cl for the nemesis.
func stormOf(cl runCluster) nemesis.Storm { return burnerStorm{cl} }

func (b burnerStorm) Jar() (string, error) { return stormJar() }

func (b burnerStorm) WaitRunning(ctx context.Context, name string, timeout time.Duration) (string, []ExecutorPlace, error) {
	return waitRunning(ctx, b.UI(), name, timeout)
}

func (b burnerStorm) WaitReports(ctx context.Context, id string, sinceMs int64, execs []ExecutorPlace, timeout time.Duration, ok func(protocol.WorkerReport) bool, what string) error {
	return b.Service().waitReports(ctx, id, sinceMs, workerSlots(execs), timeout, ok, what)
}

func (b burnerStorm) WaitGone(ctx context.Context, name string) error {
	return waitGone(ctx, b.UI(), name)
}

func (b burnerStorm) State(ctx context.Context, sinceMs int64) (*protocol.State, error) {
	return b.Service().State(ctx, sinceMs)
}

func (b burnerStorm) Post(ctx context.Context, path string, v any) error {
	return b.Service().post(ctx, path, v)
}
