package experiments

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/infra/target"

	"github.com/stormlab/stormlab/harness"
)

// clusterMetrics are what every cluster run reports per scheduler.
var clusterMetrics = []Metric{
	{Name: "throughput", Label: "throughput (acked tuples/s)"},
	{Name: "latency_mean_ms", Label: "complete latency mean (ms)"},
	{Name: "latency_p99_ms", Label: "complete latency p99 (ms)"},
	{Name: "cut_rate", Label: "cut rate (inter-node tuples / all)"},
	{Name: "balance", Label: "node CPU std dev (% of capacity)"},
}

// clusterValues turns a measurement into row values for clusterMetrics.
func clusterValues(m harness.Measurement) map[string]float64 {
	return map[string]float64{
		"throughput":      m.Throughput,
		"latency_mean_ms": m.LatencyMean,
		"latency_p99_ms":  m.LatencyP99,
		"cut_rate":        m.CutRate,
		"balance":         m.Balance,
	}
}

// Smoke is the walking skeleton of a real-cluster run: ZooKeeper,
// Nimbus, UI and 2 heterogeneous supervisors; the Throughput chain; one run
// under Storm's native EvenScheduler and one under K-PART through the bridge;
// 30 s of measurement each (it carries no claim: a walking skeleton needs
// the whole path to work, not long windows; 20 s + 60 s cost ~80 s more in
// every profile, make test included). It fails if throughput is zero, an executor
// stays unassigned or the bridge fell back to EvenScheduler.
func Smoke() *Spec {
	scheds := []string{"storm-even", "kpart"}
	return &Spec{
		Name:        "smoke",
		Description: "real Storm cluster: Throughput chain under native EvenScheduler and K-PART via the bridge",
		Source:      "walking skeleton; the Throughput chain of " + Cite(paperKPart, "sec. 2.1"),
		Setup:       "profile heterogeneous-2 (supervisors of 0.5 and 1.0 cores), Throughput chain (4 workers, parallelism 1, spout every 5 ms), 10 s warm-up, 30 s measurement, one run per scheduler",
		SeriesLabel: "scheduler",
		XName:       "run",
		XLabel:      "run",
		Metrics:     clusterMetrics,
		// Cost: two runs of ~80 s save to save plus the cluster start (ci measured).
		Cost:  lab.Cost{CI: "~4 min", Quick: "~4 min", Full: "~4 min"},
		Needs: lab.Needs{Need: lab.NeedsCluster, Why: "it submits the Throughput chain under two schedulers to a Storm cluster: its own containers, or a target"},
		Run: func(ctx context.Context, env Env) (*Results, error) {
			res := &Results{Metrics: clusterMetrics}
			counter := newRunCounter(env, len(scheds))
			tg, err := target.FromEnv() // $STORMLAB_TARGET: an existing cluster instead of containers
			if err != nil {
				return nil, err
			}
			for i, s := range scheds {
				topo, err := harness.StormTopology("throughput", fmt.Sprintf("smoke-%d", i))
				if err != nil {
					return nil, err
				}
				spec := harness.RunSpec{Scheduler: s, Topology: topo, WarmUp: 10 * time.Second, Measure: 30 * time.Second}
				fmt.Fprintf(env.Log, "smoke: %s: starting cluster\n", s)
				counter.start(s+" (cluster up, submit, warm-up, measure, collect, teardown)", 0)
				r, err := harness.RunOnNewCluster(ctx, harness.ClusterSpec{Profile: "heterogeneous-2", Seed: 1, Target: tg,
					Logf: func(f string, a ...any) { fmt.Fprintf(env.Log, f+"\n", a...) }}, spec)
				if r != nil && env.RawDir != "" {
					if serr := harness.Save(filepath.Join(env.RawDir, s), r); serr != nil && err == nil {
						err = serr
					}
				}
				if err != nil {
					return nil, fmt.Errorf("%s: %w", s, err)
				}
				if err := r.Validity.Err(); err != nil {
					return nil, fmt.Errorf("%s: run does not count: %w", s, err)
				}
				fmt.Fprintf(env.Log, "smoke: %s: %.1f tuples/s, latency %.2f ms, cut rate %.3f, balance %.1f, bridge rounds %v\n",
					s, r.Measurement.Throughput, r.Measurement.LatencyMean, r.Measurement.CutRate, r.Measurement.Balance, r.RoundsMs)
				res.Add(Row{Series: s, X: 1, Offered: "paced: 1 tuple / 5 ms", Values: clusterValues(r.Measurement)})
			}
			return res, nil
		},
	}
}
