package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/clusters"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/target"
	"github.com/stormlab/stormlab/topologies"
)

// costRuns is how `stormlab sim costs --cluster` measures: each of the project's topologies, reps
// times, under EvenScheduler (the scheduler the costs do not depend on: any would do; Even is the
// baseline every experiment has), with the workers' JVM flags the runs use.
type costRuns struct {
	where           clusterref.Ref
	reps            int
	warmup, measure time.Duration
	jvmFlags        string
	keep            string // where the runs are written (they are the cost model's provenance)
}

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
			topo, err := harness.StormTopology(m.Name, name, "--seed", fmt.Sprint(rep), "--worker-childopts", o.jvmFlags)
			if err != nil {
				return nil, err
			}
			logf("%s, repetition %d of %d", m.Name, rep, o.reps)
			res, err := c.Run(ctx, harness.RunSpec{Scheduler: "even", Topology: topo, WarmUp: o.warmup, Measure: o.measure})
			if res != nil {
				if serr := harness.Save(filepath.Join(o.keep, name), res); serr != nil {
					err = errors.Join(err, serr)
				}
			}
			if err != nil {
				return nil, err
			}
			runs = append(runs, res)
		}
	}
	return runs, nil
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
