package harness

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/images"
)

// clusterTest is the preamble of every cluster test of this package: skipped with -short or without
// a Docker engine, failed when the engine cannot be asked, and a context that Ctrl-C cancels so the
// test still tears its cluster down.
func clusterTest(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("cluster test: skipped with -short")
	}
	cli, err := images.NewClient(context.Background())
	if errors.Is(err, images.ErrNoEngine) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	cli.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	t.Cleanup(stop)
	return ctx
}

// stormEvenSession starts a session of shape under native storm-even (seed 1), fails the test if it
// cannot, and at the test's end closes it, checks that nothing of it is left and logs the wall time.
func stormEvenSession(ctx context.Context, t *testing.T, shape string) *Session {
	t.Helper()
	t0 := time.Now()
	s, err := StartSession(ctx, ClusterSpec{Shape: shape, Seed: 1, Logf: t.Logf}, "storm-even")
	t.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
		if s == nil {
			return
		}
		left, err := docker.Leftovers(context.Background(), docker.LabelRun+"="+s.Cluster().ID)
		if err != nil || len(left) > 0 {
			t.Errorf("left after Close: %v %v", left, err)
		}
		t.Logf("wall time: %s", time.Since(t0).Round(time.Second))
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
