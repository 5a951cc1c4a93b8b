// Command stormlab-cleanup removes every container and network that stormlab clusters left behind
// (anything labelled stormlab=true), e.g. after a test process was killed. Images are kept.
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/stormlab/stormlab/infra/docker"
)

func main() {
	ctx := context.Background()
	left, err := docker.Leftovers(ctx, docker.LabelAll+"=true")
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range left {
		fmt.Println("removing", l)
	}
	if err := docker.RemoveLeftovers(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
