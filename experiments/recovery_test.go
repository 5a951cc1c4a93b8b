package experiments

import (
	"testing"

	"github.com/stormlab/stormlab/reports"
)

// TestRecoveryClaimVerdicts: synthetic rows with a known answer. Dynamic schedulers back in 10 s with
// 20% lost against storm-even's 40 s and 60% (2% noise): every claim holds; the reverse: none does;
// one run per scheduler: inconclusive.
func TestRecoveryClaimVerdicts(t *testing.T) {
	build := func(reps int, dyn, even float64) func() (*Results, *Aggregate) {
		return func() (*Results, *Aggregate) {
			n := newNoise(11)
			r := &Results{Experiment: "recovery", Metrics: recoveryMetrics}
			for _, s := range recoverySchedulers {
				rec := dyn
				if s == "storm-even" || s == "storm-ras" {
					rec = even
				}
				for rep := 0; rep < reps; rep++ {
					r.Add(clusterRow(s, 30, rep, map[string]float64{"recovery_s": n.rel(rec, 0.02), "recovered": 1, "lost_pct": n.rel(rec*1.5, 0.02),
						"lost_tuples": 100, "failed_tuples": 10, "executors_moved": 2, "pre_tput": 100}))
				}
			}
			return agg(t, r)
		}
	}
	runClaimCases(t, recoveryClaims, []claimCase{
		{"dynamic faster", build(3, 10, 40), reports.Holds},
		{"dynamic slower", build(3, 40, 10), reports.DoesNotHold},
		{"one run each", build(1, 10, 40), reports.Inconclusive},
	})
}
