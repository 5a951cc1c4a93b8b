// Command stormlab-cleanup removes the containers and networks that stormlab clusters left behind when
// their process died (e.g. a test process killed with SIGKILL), and those without owner labels. A live
// owner's cluster is never touched. Images are kept.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/stormlab/stormlab/infra/docker"
)

func main() {
	ctx := context.Background()
	logf := func(f string, a ...any) { fmt.Printf(f+"\n", a...) }
	if _, err := docker.RemoveOrphans(ctx, logf); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := docker.RemoveLeftovers(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
