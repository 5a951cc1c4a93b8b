package simcluster

import (
	"math"
	"testing"

	"github.com/stormlab/stormlab/infra/sim"
)

// TestFieldsSharesMeasured: the cost model's fields streams carry the share of tuples each receiving
// task got, in task order, as the shipped model's runs (testdata/containers-runs.tar.gz) hashed their
// keys. Reference: the quick validation's real runs (docs/data), which the model did not read, at the
// same parallelism 4 under three schedulers: k-means' update tasks 0.123-0.127, 0.374-0.385,
// 0.123-0.127, 0.365-0.377; WordCount's count tasks 0.350-0.369, 0.152-0.163, 0.341-0.362, 0.129-0.137
// (one online run excepted). Tolerance 0.03.
func TestFieldsSharesMeasured(t *testing.T) {
	runs := recordedRuns(t, "testdata/containers-runs.tar.gz")
	m, err := MeasureCosts("containers", runs, sim.CostProvenance{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		class, from, to string
		want            []float64
	}{
		{"org.stormlab.topologies.KMeansTopology", "assign", "update", []float64{0.125, 0.38, 0.125, 0.37}},
		{"org.stormlab.topologies.WordCountTopology", "split", "count", []float64{0.36, 0.157, 0.35, 0.133}},
	} {
		var got []float64
		for _, st := range m.Topologies[c.class].Components[c.from].Streams {
			if st.To == c.to {
				got = st.Shares
			}
		}
		if len(got) != len(c.want) {
			t.Fatalf("%s %s -> %s: shares %v, want %d", c.class, c.from, c.to, got, len(c.want))
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 0.03 {
				t.Errorf("%s %s -> %s: shares %v, want %v +- 0.03", c.class, c.from, c.to, got, c.want)
				break
			}
		}
	}
}

// TestFieldsSharesAtTheirParallelism: the twin charges a fields stream's shares where the receiver has
// as many executors as the runs measured them at, and spreads evenly at another parallelism (the keys
// would hash otherwise).
func TestFieldsSharesAtTheirParallelism(t *testing.T) {
	shares := []float64{0.6, 0.4}
	rt := &runTopology{par: map[string]int{"s": 1, "b": 2}, costs: sim.TopologyCosts{Components: map[string]sim.ComponentCost{
		"s": {Spout: true, CPUMicros: 5, Streams: []sim.StreamCost{{To: "b", PerTuple: 1, Grouping: "fields", Shares: shares}}},
		"b": {CPUMicros: 10},
	}}}
	for _, c := range []struct {
		par  int
		want []float64
	}{{2, shares}, {3, nil}} {
		rt.par["b"] = c.par
		var got []float64
		for _, comp := range rt.components(func(x, _ float64) float64 { return x }) {
			if comp.Name == "s" {
				got = comp.Streams[0].Shares
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("b at parallelism %d: shares %v, want %v", c.par, got, c.want)
		}
	}
}
