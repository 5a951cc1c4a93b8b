package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

// TestFromCaptured: a captured topology replayed on a cluster that is not saturated runs at the rates
// and CPU it was captured with (cmd/stormlab/testdata/captured-small.json: sentence 200 tuples/s at
// 500 µs each, split 200 executed/s at 1,500 µs each, so 0.1 + 0.3 = 0.4 cores). With free transfers
// the only error is the window's sampling: 2% on rates (4,000 trees in 20 s: Poisson s.e. 1.6%, a
// constant-rate spout less) and 3% on CPU (its log-normal draws, CV 0.25, over 8,000 tuples: 0.3%,
// plus the rates').
func TestFromCaptured(t *testing.T) {
	c, err := topologies.ReadCapturedFile("../../cmd/stormlab/testdata/captured-small.json")
	if err != nil {
		t.Fatal(err)
	}
	place := map[int]int{3: 0, 4: 1, 5: 0, 6: 1, 7: 1} // as captured: sup1 and sup2
	top, err := FromCaptured(c, 2, place)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(Config{Nodes: []Node{{Name: "sup1", Cores: 1}, {Name: "sup2", Cores: 1}}, Topology: top, Seed: 1, WarmUp: 2, Measure: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("executed %v, cores %.3f + %.3f, cut rate %.2f, latency %.4g s", r.Executed, r.NodeCores[0], r.NodeCores[1], r.CutRate, r.LatencyMean)
	for name, want := range map[string]float64{"sentence": 200, "split": 200} {
		if got := r.Executed[name]; math.Abs(got-want)/want > 0.02 {
			t.Errorf("%s: %.1f executed/s, want the captured %v +- 2%%", name, got, want)
		}
	}
	if cores := r.NodeCores[0] + r.NodeCores[1]; math.Abs(cores-0.4)/0.4 > 0.03 {
		t.Errorf("CPU %.3f cores, want the captured 0.4 +- 3%%", cores)
	}
	if r.CutRate < 0.2 || r.CutRate > 0.8 {
		t.Errorf("cut rate %.2f: a shuffle over tasks on both nodes crosses nodes for about half", r.CutRate)
	}
}

func TestFromCapturedBadInput(t *testing.T) {
	c, err := topologies.ReadCapturedFile("../../cmd/stormlab/testdata/captured-small.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FromCaptured(c, 2, map[int]int{3: 0, 4: 1, 5: 0, 6: 1}); err == nil || !strings.Contains(err.Error(), "task 7 (split) is placed on no node") {
		t.Errorf("a task without a node: %v", err)
	}
	c.Components[1].CPUMicrosPerTuple = 0
	if _, err := FromCaptured(c, 2, map[int]int{3: 0, 4: 1, 5: 0, 6: 1, 7: 1}); err == nil || !strings.Contains(err.Error(), "capture it again") {
		t.Errorf("a component without CPU: %v", err)
	}
}
