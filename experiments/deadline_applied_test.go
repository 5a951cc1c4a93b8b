package experiments

import (
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/reports"
)

// TestAppliedLoad: a run's carried background load is in the unit of its level: at 80%, burners that
// used 0.20 of 0.20 cores (sup1) and 0.60 of 0.80 (sup4) carried 80% and 60%, mean 70%; a node
// without a report is left out of the mean; a run without background load has none.
func TestAppliedLoad(t *testing.T) {
	u1, u4 := 0.20, 0.60
	r := &harness.RunResult{NodeStats: &diagnose.NodeStats{Background: []diagnose.Applied{{Host: "sup1", Asked: 0.20, Used: &u1}, {Host: "sup2", Asked: 0.40}, {Host: "sup4", Asked: 0.80, Used: &u4}}}}
	if got, ok := appliedLoad(r, 80); !ok || math.Abs(got-70) > 1e-9 {
		t.Errorf("appliedLoad = %v, %v; want 70 (mean of 80 and 60)", got, ok)
	}
	if _, ok := appliedLoad(&harness.RunResult{}, 80); ok {
		t.Error("a run without background load has an applied load")
	}
}

// TestDeadlineLoadJudgedApplied: the load claims say the levels the burners carried (mean of the runs
// that count, and of the short ones apart), and a run whose load fell short (load-short) is left out
// and named with its figure; with one of three 80% runs short the cell has 2 runs and the claims are
// inconclusive.
func TestDeadlineLoadJudgedApplied(t *testing.T) {
	n := newNoise(7)
	r := &lab.Results{Experiment: "deadline", Metrics: deadlineMetrics}
	short := "cpu-load on sup1 applied 0.08 of 0.20 cores asked (40%)"
	for rep := 0; rep < 3; rep++ {
		for _, c := range []struct{ x, ds, carried float64 }{{20, 10, 19.5}, {80, 14, 76}} {
			row := clusterRow(loadSeries("kmeans"), c.x, rep, map[string]float64{"dataset_s": n.rel(c.ds, 0.01), "proc_ms": 100, "qos_pct": 50,
				"qos_node_max_pct": 80, "misses": 0, "throughput": 100, "migrations": 0, "load_applied_pct": c.carried})
			if c.x == 80 && rep == 2 {
				row.Values["load_applied_pct"] = 40
				row.Validity = suspectOf(measure.ReasonLoadShort, short)
			}
			r.Add(row)
		}
	}
	_, a := agg(t, r)
	cs := judged(deadlineLoadClaims(r, a, deadlineMissTally(r)), "")
	for _, c := range cs {
		if !strings.Contains(strings.Join(c.Screen.Excluded, "\n"), short) {
			t.Errorf("%q: excluded %q, want the short run named with its figure", c.Statement, c.Screen.Excluded)
		}
		if v, _, _ := verdictOf(cs, c.Statement); v != reports.Inconclusive {
			t.Errorf("%q is %s with 2 valid runs at 80%%, want inconclusive", c.Statement, v)
		}
	}
	grow := cs[1]
	for _, want := range []string{"20% asked: 19.5% carried (3 run(s) that count)", "80% asked: 76.0% carried (2 run(s) that count), 1 run(s) short at 40.0% left out (load-short)"} {
		if !strings.Contains(grow.Evidence, want) {
			t.Errorf("evidence %q lacks %q", grow.Evidence, want)
		}
	}
}

// TestDeadlineLoadClaimsStandWhenAllShort: when every run under load is left out (the ci run of
// 2026-12-05: both load runs suspect, host-starved and load-short), the load claims still stand,
// inconclusive, naming the runs left out and why, rather than leaving the notes silent.
func TestDeadlineLoadClaimsStandWhenAllShort(t *testing.T) {
	r := &lab.Results{Experiment: "deadline", Metrics: deadlineMetrics}
	short := "cpu-load on sup4 applied 0.52 of 0.80 cores asked (64%)"
	for _, x := range []float64{20, 80} {
		row := clusterRow(loadSeries("kmeans"), x, 0, map[string]float64{"dataset_s": 30, "proc_ms": 100, "qos_pct": 50,
			"qos_node_max_pct": 80, "misses": 0, "throughput": 100, "migrations": 0, "load_applied_pct": 64})
		row.Validity = suspectOf(measure.ReasonLoadShort, short)
		r.Add(row)
	}
	_, a := agg(t, r)
	cs := judged(deadlineClaims(r, a), "")
	for _, prefix := range []string{"under 20-80%", "processing time grows"} {
		v, why, ok := verdictOf(cs, prefix)
		if !ok || v != reports.Inconclusive {
			t.Errorf("%q: %q (%s), want inconclusive", prefix, v, why)
		}
	}
	for _, c := range cs {
		if !strings.HasPrefix(c.Statement, "processing time grows") {
			continue
		}
		if !strings.Contains(strings.Join(c.Screen.Excluded, "\n"), short) {
			t.Errorf("excluded %q: want the short runs named with their figure", c.Screen.Excluded)
		}
		if want := "80% asked: 0 run(s) that count, 1 run(s) short at 64.0% left out (load-short)"; !strings.Contains(c.Evidence, want) {
			t.Errorf("evidence %q lacks %q", c.Evidence, want)
		}
	}
}
