package simcluster

import (
	"math"

	"github.com/stormlab/stormlab/infra/sim"
)

// Runs of one configuration on one cluster differ in more than each component's own spread: on this
// project's containers, with the placement, cluster and host the same, every component of a run can
// cost a quarter less per tuple than in the run after it (the results log has the measurement). The
// model draws each component's cost apart, so drawn alone their differences average out over a
// topology's components and its simulated runs vary less than real ones. runSpeedSD measures the part
// of a run's costs that all its components share, so that a twin draws it once per run (a node speed).

// runSpeedSD is the standard deviation between runs of a run's log CPU per tuple relative to its
// topology's pooled figures, averaged over its components (each run's common factor), pooled over
// topologies (deviations from each topology's mean, df the runs less one per topology); 0 when no
// topology has two runs.
func runSpeedSD(per map[string][]runCosts, tops map[string]sim.TopologyCosts) float64 {
	ss, df := 0.0, 0
	for class, rs := range per {
		pooled := tops[class].Components
		var logs []float64
		for _, rc := range rs {
			sum, n := 0.0, 0
			for name, c := range rc.comps {
				if p := pooled[name].CPUMicros; p > 0 && c.CPUMicros > 0 {
					sum, n = sum+math.Log(c.CPUMicros/p), n+1
				}
			}
			if n > 0 {
				logs = append(logs, sum/float64(n))
			}
		}
		if len(logs) < 2 {
			continue
		}
		mean := 0.0
		for _, l := range logs {
			mean += l / float64(len(logs))
		}
		for _, l := range logs {
			ss += (l - mean) * (l - mean)
		}
		df += len(logs) - 1
	}
	if df == 0 {
		return 0
	}
	return math.Sqrt(ss / float64(df))
}

// commonSD is the part of a component cost's spread between runs (sd, about mean) that is not the
// runs' common factor (speedSD, relative): what a twin draws per component beside the run's speed.
func commonSD(mean, sd, speedSD float64) float64 {
	return math.Sqrt(max(0, sd*sd-mean*mean*speedSD*speedSD))
}
