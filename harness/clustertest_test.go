package harness

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"testing"

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
