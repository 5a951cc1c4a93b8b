package experiments

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/stormlab/stormlab/experiments/lab"

	"github.com/stormlab/stormlab/harness"
)

// clusterMetrics are what every cluster run reports per scheduler.
var clusterMetrics = []lab.Metric{
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
// every scale, make test included). It fails if throughput is zero, an executor
// stays unassigned or the bridge fell back to EvenScheduler.
func Smoke() *lab.Spec {
	scheds := []string{"storm-even", "kpart"}
	return &lab.Spec{
		Name:        "smoke",
		Description: "real Storm cluster: Throughput chain under EvenScheduler (in Nimbus) and K-PART (in the service), on one cluster",
		Source:      "walking skeleton; the Throughput chain of " + lab.Cite(paperKPart, "sec. 2.1"),
		Setup: "shape heterogeneous-2 (supervisors of 0.5 and 1.0 cores), Throughput chain (4 workers, " +
			"parallelism 1, spout every 5 ms), 10 s warm-up, 30 s measurement, one run per scheduler",
		SeriesLabel: "scheduler",
		XName:       "run",
		XLabel:      "run",
		Metrics:     clusterMetrics,
		// Cost: two runs of ~80 s save to save plus the cluster start (ci measured).
		Cost:  lab.Cost{CI: "~4 min", Quick: "~4 min", Full: "~4 min"},
		Needs: lab.Needs{Need: lab.NeedsCluster, Why: "it submits the Throughput chain under two schedulers to a Storm cluster: its own containers, or a target"},
		Run: func(ctx context.Context, env lab.Env) (*lab.Results, error) {
			res := &lab.Results{Metrics: clusterMetrics}
			sr := &smokeRunner{runBase{env: env, res: res, counter: newRunCounter(env, len(scheds))}}
			// One cluster for both schedulers: containers, or a user's cluster (--cluster target:FILE).
			cs := harness.ClusterSpec{Shape: "heterogeneous-2", Seed: 1}
			err := withCluster(ctx, env, cs, scheds[0], func(all *clusterView) error {
				for i, s := range scheds {
					if err := sr.run(ctx, all.as(s), i); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			return res, nil
		},
	}
}

// smokeRunner runs smoke's runs.
type smokeRunner struct{ runBase }

// run runs the Throughput chain under s's scheduler, keeps the run and adds its row; a run that does
// not count fails the experiment.
func (sr *smokeRunner) run(ctx context.Context, s *clusterView, i int) error {
	topo, err := harness.StormTopology("throughput", fmt.Sprintf("smoke-%d", i))
	if err != nil {
		return err
	}
	sr.counter.start(s.scheduler+" (submit, warm-up, measure, collect)", 0)
	r, err := s.Run(ctx, harness.RunSpec{Topology: topo, WarmUp: 10 * time.Second, Measure: 30 * time.Second})
	if r != nil && sr.env.RawDir != "" {
		if serr := harness.Save(filepath.Join(sr.env.RawDir, s.scheduler), r); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", s.scheduler, err)
	}
	if err := r.Validity.Err(); err != nil {
		return fmt.Errorf("%s: run does not count: %w", s.scheduler, err)
	}
	fmt.Fprintf(sr.env.Log, "smoke: %s: %.1f tuples/s, latency %.2f ms, cut rate %.3f, balance %.1f, bridge rounds %v\n",
		s.scheduler, r.Measurement.Throughput, r.Measurement.LatencyMean, r.Measurement.CutRate, r.Measurement.Balance, r.RoundsMs)
	sr.res.Add(diagnosed(lab.Row{Series: s.scheduler, X: 1, Offered: "paced: 1 tuple / 5 ms", Values: clusterValues(r.Measurement)}, r))
	return nil
}
