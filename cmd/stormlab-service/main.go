// Command stormlab-service is the Go scheduler service that Storm's Nimbus
// calls through the bridge (see package infra/service). It runs one
// scheduler from the registry and keeps the workers' load reports.
//
//	stormlab-service --scheduler kpart --addr 127.0.0.1:7070 --options '{"seed":1,"mul":5}'
//	stormlab-service --scheduler kpart --addr :7070 --token "$(cat token)"
//
// A non-loopback --addr needs --token (or $STORMLAB_SERVICE_TOKEN): every request but /v1/health
// must then carry "Authorization: Bearer TOKEN"; refused ones are answered 401 and counted in
// /v1/state (unauthorized). GET /metrics serves Prometheus metrics (throughput, latency histogram, decisions,
// fallbacks, node CPU; see docs/own-cluster.md) behind the same token.
//
// --options is the scheduler configuration (schedulers.Options as JSON, the
// same fields and meanings as `stormlab partition --options`); --seed and
// --mul are shorthands for its seed and mul fields.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/stormlab/stormlab/infra/service"
	"github.com/stormlab/stormlab/schedulers"
)

func main() {
	addr := flag.String("addr", ":7070", "listen address")
	name := flag.String("scheduler", "", "scheduler name (see `stormlab schedulers`)")
	options := flag.String("options", "", `scheduler options as JSON, e.g. '{"seed":1,"mul":5,"theta":0.8}' (fields of schedulers.Options)`)
	seed := flag.Uint64("seed", 1, "random seed for the scheduler (the seed field of --options)")
	mul := flag.Int("mul", 0, "K-PART balance-adjustment multiplier: Mul·|V| moves, 0 = no adjustment (the mul field of --options)")
	every := flag.Duration("reschedule-every", service.DefaultRescheduleEvery, "period between Reschedule calls of a dynamic scheduler for a running topology")
	token := flag.String("token", "", "token every request but /v1/health must carry (Authorization: Bearer TOKEN); required for a non-loopback --addr (default $"+service.TokenEnv+")")
	private := flag.Bool("private-network", false, "allow a non-loopback --addr without a token: only for a network no one else reaches (the harness's own containers, published on 127.0.0.1)")
	flag.Parse()
	if *token == "" {
		*token = os.Getenv(service.TokenEnv)
	}
	if err := checkBind(*addr, *token, *private); err != nil {
		fmt.Fprintf(os.Stderr, "stormlab-service: %v\n", err)
		os.Exit(2)
	}

	if *name == "" {
		fmt.Fprintf(os.Stderr, "stormlab-service: --scheduler is required: choose one of %v\n", schedulers.Names())
		os.Exit(2)
	}
	if _, err := schedulers.Lookup(*name); err != nil {
		fmt.Fprintf(os.Stderr, "stormlab-service: %v\n", err)
		os.Exit(2)
	}
	opts, err := serviceOptions(*options, *seed, *mul, flagSet())
	if err != nil {
		fmt.Fprintf(os.Stderr, "stormlab-service: %v\n", err)
		os.Exit(2)
	}
	svc, err := service.New(*name, opts, service.WithRescheduleEvery(*every), service.WithLog(os.Stdout), service.WithToken(*token))
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

// checkBind refuses a listen address other hosts can reach without a token: the service places
// topologies and takes reports, so on a real network an unauthenticated one could be steered by
// anyone who reaches it.
func checkBind(addr, token string, private bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w: give host:port, e.g. 127.0.0.1:7070", addr, err)
	}
	if token != "" || private || loopback(host) {
		return nil
	}
	return fmt.Errorf("--addr %s is reachable from other hosts and no token is set: give --token (or $%s; the bridge sends it from stormlab.scheduler.token, the workers from the same key, the harness from the target file's token), or bind 127.0.0.1", addr, service.TokenEnv)
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// flagSet names the flags given on the command line.
func flagSet() map[string]bool {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// serviceOptions builds the scheduler options from --options and the
// --seed/--mul shorthands. Without --options the shorthands (or their
// defaults) are the options; with it, a shorthand given on the command line
// must agree with the JSON field when both are set, so one run never has
// two meanings of the same option.
func serviceOptions(js string, seed uint64, mul int, set map[string]bool) (schedulers.Options, error) {
	o, err := schedulers.ParseOptions(js)
	if err != nil {
		return o, fmt.Errorf("--options: %w", err)
	}
	if js == "" {
		o.Seed, o.Mul = seed, mul
		return o, nil
	}
	if set["seed"] {
		if o.Seed != 0 && o.Seed != seed {
			return o, fmt.Errorf("--seed %d and --options seed %d disagree: give the seed once", seed, o.Seed)
		}
		o.Seed = seed
	}
	if set["mul"] {
		if o.Mul != 0 && o.Mul != mul {
			return o, fmt.Errorf("--mul %d and --options mul %d disagree: give mul once", mul, o.Mul)
		}
		o.Mul = mul
	}
	return o, nil
}
