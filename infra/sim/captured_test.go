package sim

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/schedulers"
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
	top, err := FromCaptured(c, 2, OneWorkerPerNode(place))
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
	if _, err := FromCaptured(c, 2, OneWorkerPerNode(map[int]int{3: 0, 4: 1, 5: 0, 6: 1})); err == nil || !strings.Contains(err.Error(), "task 7 (split) is placed on no worker") {
		t.Errorf("a task without a node: %v", err)
	}
	c.Components[1].CPUMicrosPerTuple = 0
	if _, err := FromCaptured(c, 2, OneWorkerPerNode(map[int]int{3: 0, 4: 1, 5: 0, 6: 1, 7: 1})); err == nil || !strings.Contains(err.Error(), "capture it again") {
		t.Errorf("a component without CPU: %v", err)
	}
}

// TestSchedulersPlacementsSimulated: the real Go schedulers place the captured graph on a 2-node cluster
// of two slots each, and the model runs each placement: the share of its traffic between nodes is the
// placement's cut rate computed on the captured graph (schedulers.Measure; the captured edges are
// uniform, as the model's shuffle), within the window's sampling (4,000 tuples: 2 points).
func TestSchedulersPlacementsSimulated(t *testing.T) {
	c, err := topologies.ReadCapturedFile("../../cmd/stormlab/testdata/captured-small.json")
	if err != nil {
		t.Fatal(err)
	}
	cluster := schedulers.Cluster{Nodes: []schedulers.Node{{ID: "sup1", CPU: 100, MemoryMB: 4096, Ports: []int{6700, 6701}}, {ID: "sup2", CPU: 100, MemoryMB: 4096, Ports: []int{6700, 6701}}}}
	for _, name := range []string{"kpart", "even", "rstorm"} {
		s, err := schedulers.New(name, schedulers.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		g := c.Graph()
		a, err := s.Schedule(context.Background(), &schedulers.Problem{Topology: "wc", Graph: g, Cluster: cluster, Workers: 2})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p, err := PlacementOf(c, a, []string{"sup1", "sup2"})
		if err != nil {
			t.Fatal(err)
		}
		top, err := FromCaptured(c, 2, p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(Config{Nodes: []Node{{Name: "sup1", Cores: 1}, {Name: "sup2", Cores: 1}}, Topology: top, Seed: 1, WarmUp: 2, Measure: 20})
		if err != nil {
			t.Fatal(err)
		}
		parts, _ := a.NodeParts()
		want := schedulers.Measure(g, parts, 2).CutRate
		t.Logf("%s: cut rate %.3f on the graph, %.3f simulated; %.1f trees/s, latency %.3g s", name, want, r.CutRate, r.Throughput, r.LatencyMean)
		if math.Abs(r.CutRate-want) > 0.02 {
			t.Errorf("%s: simulated cut rate %.3f, the placement's %.3f", name, r.CutRate, want)
		}
	}
}
