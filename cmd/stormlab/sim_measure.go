package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/stormlab/stormlab/experiments"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/clusters"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/target"
	"github.com/stormlab/stormlab/topologies"
)

// costRuns is how `stormlab sim costs --cluster` measures: each of the project's topologies, reps
// times, under EvenScheduler (the scheduler the costs do not depend on: any would do; Even is the
// baseline every experiment has), with the workers' JVM flags the runs use, unpaced (--interval-ms
// 0; the Throughput chain's default is a tuple per 5 ms a spout): a component's CPU per tuple is its
// service time only where its executor does not idle, since an idle executor's wait strategy spins
// on its thread's CPU too (at 100 tuples/s the chain's bolts read ~0.7 ms a tuple, nearly all of it
// waiting).
type costRuns struct {
	where           clusterref.Ref
	reps            int
	warmup, measure time.Duration
	jvmFlags        string
	conf            []string // --topology-conf: Storm settings every run gets (as --conf)
	keep            string   // where the runs are written (they are the cost model's provenance)
	// transfer adds the transfer design's runs (simcluster.TransferDesign) at transferRate tuples/s.
	transfer     bool
	transferRate float64
	// resume reads back the runs already kept under keep instead of running them again.
	resume bool
}

// transferScheduler places the transfer runs: Storm's own EvenScheduler, which the bridge holds to
// the nodes a topology names (protocol.NodesConf); the Go schedulers ignore them.
const transferScheduler = "storm-even"

// transferWarmUp and transferMeasure are each transfer run's maximum warm-up and window: a paced
// chain is steady within seconds, and 7 runs per repetition must stay short.
const (
	transferWarmUp  = 20 * time.Second
	transferMeasure = 15 * time.Second
)

// record runs them on one cluster and returns the runs, each also written under keep.
func (o costRuns) record(ctx context.Context, logf func(string, ...any)) ([]*harness.RunResult, error) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cs := harness.ClusterSpec{Shape: o.where.Shape, Where: o.where, Seed: 1, Logf: logf}
	c, err := clusters.Kinds().Open(ctx, cs, "even")
	if c != nil {
		defer func() {
			if cerr := c.Close(context.WithoutCancel(ctx)); cerr != nil {
				logf("release the cluster: %v", cerr)
			}
		}()
	}
	if err != nil {
		return nil, err
	}
	var runs []*harness.RunResult
	for rep := 1; rep <= o.reps; rep++ {
		for _, m := range topologies.StormMains() {
			name := fmt.Sprintf("stormlab-costs-%s-r%d", m.Name, rep)
			logf("%s, repetition %d of %d", m.Name, rep, o.reps)
			res, err := o.run(ctx, c, "even", m.Name, name, o.warmup, o.measure, "--seed", fmt.Sprint(rep), "--interval-ms", "0")
			if err != nil {
				return nil, err
			}
			runs = append(runs, res)
		}
		if !o.transfer {
			continue
		}
		xfer, err := o.recordTransfer(ctx, c, rep, logf)
		if err != nil {
			return nil, err
		}
		runs = append(runs, xfer...)
	}
	return runs, nil
}

// recordTransfer runs one repetition of the transfer design on c: each placement's workers held to
// the nodes with the most CPU (protocol.NodesConf, chosen as the comm-cost experiment chooses them)
// by Storm's own EvenScheduler (transferScheduler).
func (o costRuns) recordTransfer(ctx context.Context, c harness.Cluster, rep int, logf func(string, ...any)) ([]*harness.RunResult, error) {
	capacity := c.Capacity()
	var runs []*harness.RunResult
	for _, t := range simcluster.TransferDesign(len(capacity)) {
		hosts, _ := experiments.CommNodes(capacity, t.Placement.Nodes) // TransferDesign keeps to the cluster's nodes
		name := fmt.Sprintf("stormlab-costs-xfer-%s-%db-%g-r%d", t.Placement.Name, t.Payload, o.transferRate*t.RateShare, rep)
		logf("transfer: %d workers on %s, %d bytes, %g tuples/s, repetition %d of %d", t.Placement.Workers, strings.Join(hosts, ", "), t.Payload, o.transferRate*t.RateShare, rep, o.reps)
		args := append(t.Args(o.transferRate, hosts, protocol.NodesConf), "--seed", fmt.Sprint(rep))
		res, err := o.run(ctx, c, transferScheduler, "throughput", name, transferWarmUp, transferMeasure, args...)
		if err != nil {
			return nil, err
		}
		runs = append(runs, res)
	}
	return runs, nil
}

// run runs topology main as name under scheduler with the JVM flags, and keeps it.
func (o costRuns) run(ctx context.Context, c harness.Cluster, scheduler, main, name string, warmup, measure time.Duration, args ...string) (*harness.RunResult, error) {
	dir := filepath.Join(o.keep, name)
	if o.resume {
		if _, err := os.Stat(filepath.Join(dir, "run.json")); err == nil {
			return harness.Load(dir)
		}
	}
	args = append(args, "--worker-childopts", o.jvmFlags)
	for _, kv := range o.conf {
		args = append(args, "--conf", kv)
	}
	topo, err := harness.StormTopology(main, name, args...)
	if err != nil {
		return nil, err
	}
	res, err := c.Run(ctx, harness.RunSpec{Scheduler: scheduler, Topology: topo, WarmUp: warmup, Measure: measure})
	if res != nil {
		if serr := harness.Save(dir, res); serr != nil {
			err = errors.Join(err, serr)
		}
	}
	return res, err
}

// costCluster resolves --cluster for sim costs: a real cluster (containers of a shape, or a target).
func costCluster(s string) (clusterref.Ref, error) {
	ref, err := clusterFlags(s, "", "")
	if err != nil {
		return ref, err
	}
	if ref.Kind != clusterref.Containers && !ref.IsTarget() {
		return ref, fmt.Errorf("--cluster %s: costs are measured on a real cluster: containers:SHAPE or target:FILE", s)
	}
	if ref.IsTarget() {
		if ref.Target, err = target.Load(ref.File); err != nil {
			return ref, err
		}
	}
	return ref, nil
}
