package simcluster

import (
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
)

// TestMeasureCostsFromARecordedRun reads one recorded WordCount run (testdata/wordcount-even: one
// report interval of each of its 8 workers, cut from a 60 s run under even on heterogeneous-2) and
// checks each component's CPU per tuple against the figure computed by hand (a Python script over the
// same file) as a capture defines it: the component's thread CPU rate over the rate of tuples it
// executed (received, for the bolts; emitted, for the spout), each report's counts divided by its
// worker's covered span. Tolerance 0.1%: the model file keeps 4 significant digits. The sentences carry 5 to 15
// words (uniform, WordCountTopology's generator), so split emits 10 per sentence, within 3% over the
// window's ~2,500 sentences.
func TestMeasureCostsFromARecordedRun(t *testing.T) {
	r, err := harness.Load("testdata/wordcount-even")
	if err != nil {
		t.Fatal(err)
	}
	m, err := MeasureCosts("test", []*harness.RunResult{r}, sim.CostProvenance{})
	if err != nil {
		t.Fatal(err)
	}
	tc, err := m.Topology(r.Spec.Topology.MainClass)
	if err != nil {
		t.Fatal(err)
	}
	for comp, want := range map[string]float64{"sentence": 52.325, "split": 208.004, "count": 27.165, "report": 23.229} {
		if got := tc.Components[comp].CPUMicros; math.Abs(got-want)/want > 0.001 {
			t.Errorf("%s: %.3f µs per tuple, want %.3f", comp, got, want)
		}
	}
	split := tc.Components["split"]
	if len(split.Streams) != 1 || split.Streams[0].To != "count" || math.Abs(split.Streams[0].PerTuple-10)/10 > 0.03 {
		t.Errorf("split's streams %+v, want 10 words per sentence to count", split.Streams)
	}
	if o := m.Transfer.WorkerOverheadCores; !(o > 0 && o < 0.5) {
		t.Errorf("worker overhead %v cores: want the workers' process CPU less their threads', between 0 and their node's 0.5", o)
	}
	if len(m.Provenance.Runs) != 1 || !strings.Contains(m.Provenance.Runs[0], "wordcount under even") {
		t.Errorf("provenance runs %v, want the one run named", m.Provenance.Runs)
	}
}

// TestMeasureCostsRefusals: no valid run, or one topology at two work settings, is refused.
func TestMeasureCostsRefusals(t *testing.T) {
	r, err := harness.Load("testdata/wordcount-even")
	if err != nil {
		t.Fatal(err)
	}
	bad := *r
	bad.Validity = harness.Validity{Level: harness.Invalid}
	if _, err := MeasureCosts("x", []*harness.RunResult{&bad}, sim.CostProvenance{}); err == nil || !strings.Contains(err.Error(), "no valid run") {
		t.Errorf("only invalid runs: %v", err)
	}
}

// TestShippedCostModel: the cost model that ships reads, and has all three of the project's
// topologies with their provenance.
func TestShippedCostModel(t *testing.T) {
	m, err := ContainersCosts()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Topologies) != 3 || m.Provenance.Commit == "" || len(m.Provenance.Runs) == 0 {
		t.Errorf("shipped model: %d topologies, commit %q, %d runs", len(m.Topologies), m.Provenance.Commit, len(m.Provenance.Runs))
	}
}
