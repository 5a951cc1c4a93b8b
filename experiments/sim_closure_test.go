package experiments

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/sim"
)

// TestClosure: a model measured from a recorded run simulates that run again and no other (a run of
// the same configuration an hour later is not the model's own).
func TestClosure(t *testing.T) {
	r, err := harness.Load("../harness/simcluster/testdata/wordcount-even")
	if err != nil {
		t.Fatal(err)
	}
	model, err := simcluster.MeasureCosts("own", []*harness.RunResult{r}, sim.CostProvenance{})
	if err != nil {
		t.Fatal(err)
	}
	other := *r
	other.StartedAt = r.StartedAt.Add(time.Hour)
	target := *r // one of the model's runs, on a cluster without a twin
	target.Cluster = "standing-x"
	model.Provenance.Runs = append(model.Provenance.Runs, "wordcount under even on standing-x at "+r.StartedAt.UTC().Format(time.RFC3339))
	got, err := Closure(context.Background(), []*harness.RunResult{&other, r, &target}, model)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != r.Spec.Topology.Name || got[0].Real != r.Measurement.Throughput || !(got[0].Simulated > 0) || got[0].Err != "" {
		t.Fatalf("closure %+v: want only the model's own run %s (real %v tuples/s) simulated", got, r.Spec.Topology.Name, r.Measurement.Throughput)
	}
	t.Logf("%s: real %.0f, simulated %.0f tuples/s (%+.0f%%)", got[0].Name, got[0].Real, got[0].Simulated, 100*got[0].Error())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := Closure(ctx, []*harness.RunResult{r}, model); err == nil || len(got) != 0 {
		t.Errorf("cancelled: %+v, %v; want the context's error and nothing simulated", got, err)
	}
}

// TestClosureError: the mean absolute relative error, by hand: |110-100|/100 = 0.1 and |150-200|/200 =
// 0.25 give 0.175; a run not simulated again counts for nothing.
func TestClosureError(t *testing.T) {
	for _, c := range []struct {
		runs []ClosureRun
		want float64
	}{
		{[]ClosureRun{{Real: 100, Simulated: 110}, {Real: 200, Simulated: 150}}, 0.175},
		{[]ClosureRun{{Real: 50, Simulated: 50}, {Real: 10, Err: "no twin"}}, 0},
		{nil, math.NaN()},
	} {
		got, _ := ClosureError(c.runs)
		if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-c.want) > 1e-12) {
			t.Errorf("ClosureError(%v) = %v, want %v", c.runs, got, c.want)
		}
	}
}
