package experiments

import (
	"context"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/sim"
)

// TestWork: on a model measured from one recorded WordCount run, its idle spinning at the shipped
// model's 0.12 cores, Work takes the twins' spinning out of
// every figure (each ends at most at its ratio and at least at the floor, 1 µs; for the ackers 1 µs a message), says
// how each round went, and stops at a settled round or after WorkRounds; a set without the model's own
// runs is refused.
func TestWork(t *testing.T) {
	r, err := harness.Load("../harness/simcluster/testdata/wordcount-even")
	if err != nil {
		t.Fatal(err)
	}
	runs := []*harness.RunResult{r}
	model, err := simcluster.MeasureCosts("own", runs, sim.CostProvenance{})
	if err != nil {
		t.Fatal(err)
	}
	model.Transfer.IdleSpinCores = 0.12 // the shipped model's figure: the twins spin while idle
	ratio := cloneCosts(model)
	rounds, err := Work(context.Background(), runs, model)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rounds %+v", rounds)
	if n := len(rounds); n == 0 || rounds[0].Moved == 0 || n > WorkRounds || n < WorkRounds && rounds[n-1].Moved >= workSettled {
		t.Errorf("rounds %+v: want up to %d, the first moving a figure, the last settled (below %.2f) unless there are %d", rounds, WorkRounds, workSettled, WorkRounds)
	}
	for class, tc := range model.Topologies {
		for name, c := range tc.Components {
			was := ratio.Topologies[class].Components[name].CPUMicros
			if c.CPUMicros > was || c.CPUMicros < 1 {
				t.Errorf("%s: %.3g µs a tuple, ratio %.3g: want between 1 µs and the ratio", name, c.CPUMicros, was)
			}
		}
		if was := ratio.Topologies[class].AckCPUS; tc.AckCPUS > was || tc.AckCPUS < min(1e-6, was) {
			t.Errorf("ackers: %.3g s a message, ratio %.3g: want between 1 µs and the ratio", tc.AckCPUS, was)
		}
	}
	other := *r
	other.StartedAt = r.StartedAt.Add(1e9)
	if _, err := Work(context.Background(), []*harness.RunResult{&other}, model); err == nil || !strings.Contains(err.Error(), "twin") {
		t.Errorf("no run of the model's own: %v, want it refused", err)
	}
}
