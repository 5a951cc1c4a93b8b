// Command build-images builds the stormlab container images (see package images) on the local Docker
// engine, skipping those that are up to date. Used by `make images`.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/stormlab/stormlab/infra/images"
)

func main() {
	prune := flag.Bool("prune", false, "remove older stormlab images (other tags than the ones just built)")
	flag.Parse()
	log.SetFlags(log.Ltime)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	b, err := images.New(ctx, images.WithLogf(log.Printf))
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	set, err := b.BuildAll(ctx)
	if err != nil {
		b.Close()
		log.Fatal(err)
	}
	for _, line := range [][2]string{{"base", set.Base}, {"java", set.Java}, {"zookeeper", set.ZooKeeper},
		{"storm", set.Storm}, {"service", set.Service}} {
		if line[1] == "" {
			line[1] = "(not built: sources missing)"
		}
		fmt.Printf("%-10s %s\n", line[0], line[1])
	}
	if *prune {
		removed, err := b.Prune(ctx, set)
		for _, r := range removed {
			fmt.Println("removed", r)
		}
		if err != nil {
			b.Close()
			log.Fatal(err)
		}
	}
	fmt.Printf("images ready in %s (built: %d)\n", time.Since(start).Round(time.Millisecond), len(b.Built))
}
