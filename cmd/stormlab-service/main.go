// Command stormlab-service is the Go scheduler service that Storm's Nimbus
// calls through the bridge (see package harness/service). It runs one
// scheduler from the registry and keeps the workers' load reports.
//
//	stormlab-service --scheduler kpart --addr :7070 --seed 1
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/stormlab/stormlab/harness/service"
	"github.com/stormlab/stormlab/schedulers"
)

func main() {
	addr := flag.String("addr", ":7070", "listen address")
	name := flag.String("scheduler", "", "scheduler name (see `stormlab schedulers`)")
	seed := flag.Uint64("seed", 1, "random seed for the scheduler")
	mul := flag.Int("mul", 0, "K-PART balance-adjustment iteration multiplier (0: the paper's default)")
	every := flag.Duration("reschedule-every", service.DefaultRescheduleEvery, "period between Reschedule calls of a dynamic scheduler for a running topology")
	flag.Parse()

	if *name == "" {
		fmt.Fprintf(os.Stderr, "stormlab-service: --scheduler is required: choose one of %v\n", schedulers.Names())
		os.Exit(2)
	}
	if _, err := schedulers.Lookup(*name); err != nil {
		fmt.Fprintf(os.Stderr, "stormlab-service: %v\n", err)
		os.Exit(2)
	}
	svc, err := service.New(*name, schedulers.Options{Seed: *seed, Mul: *mul},
		service.WithRescheduleEvery(*every), service.WithLog(os.Stdout))
	if err != nil {
		fmt.Fprintf(os.Stderr, "stormlab-service: %v\n", err)
		os.Exit(2)
	}
	if err := run(*addr, svc); err != nil {
		fmt.Fprintf(os.Stderr, "stormlab-service: %v\n", err)
		os.Exit(1)
	}
}

// run serves until SIGINT/SIGTERM, then shuts down gracefully.
func run(addr string, svc *service.Service) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Addr: addr, Handler: svc.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	fmt.Fprintf(os.Stderr, "stormlab-service: scheduler %s listening on %s\n", svc.Name(), addr)
	select {
	case err := <-errc:
		return fmt.Errorf("listen on %s: %w", addr, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shut down: %w", err)
	}
	return nil
}
