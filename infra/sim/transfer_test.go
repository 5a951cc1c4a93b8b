package sim

import (
	"math"
	"slices"
	"testing"
)

// TestTransferCPU: the model charges what sim costs measures. The chain's spout and bolt in two
// workers of one node use more CPU than in one worker by the rate times the sender's serialization and
// the receiver's deserialization of each tuple (SerMsg + SerByte x 100 + DeserMsg + DeserByte x 100:
// 20 + 1 + 30 + 2 µs), and between two nodes by the same (the latency differs, not the CPU). Reference:
// the costs put in, times 10 tuples/s. Tolerance: 1% of the difference (constant arrivals and service
// times: the window's tuple count varies by one at most, 1/2,000 of them).
func TestTransferCPU(t *testing.T) {
	costs := Costs{SerMsg: 20e-6, SerByte: 1e-8, DeserMsg: 30e-6, DeserByte: 2e-8, LocalLatency: 1e-4, LinkLatency: 1e-3}
	const rate = 10.0
	want := rate * (20e-6 + 100*1e-8 + 30e-6 + 100*2e-8)
	cores := func(workers []int, execWorkers [2]int, c Costs) float64 {
		cfg := chain(Dist{Mean: 1e-4}, Dist{Mean: 1e-3}, rate, 0)
		cfg.Costs, cfg.Topology.Workers = c, workers
		cfg.Topology.Executors[0].Worker, cfg.Topology.Executors[1].Worker = execWorkers[0], execWorkers[1]
		r, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, x := range r.NodeCores {
			sum += x
		}
		return sum
	}
	one := cores([]int{0}, [2]int{0, 0}, costs)
	for _, c := range []struct {
		name    string
		workers []int
		costs   Costs
		want    float64
	}{
		{"two workers of a node", []int{0, 0}, costs, want},
		{"two nodes", []int{0, 1}, costs, want},
		{"two workers, no transfer costs", []int{0, 0}, Costs{}, 0},
	} {
		base := one
		if c.costs == (Costs{}) {
			base = cores([]int{0}, [2]int{0, 0}, Costs{})
		}
		got := cores(c.workers, [2]int{0, 1}, c.costs) - base
		if math.Abs(got-c.want) > 0.01*want {
			t.Errorf("%s: %.4g cores more than one worker, want %.4g", c.name, got, c.want)
		}
	}
}

// TestNodeBytes: the bytes between nodes are counted at the sender and the receiver. The chain's spout
// on n0 sends each of its dataset's 100 tuples of 100 bytes to the bolt on n1, which sends nothing on:
// 10,000 bytes from n0 to n1, none back (no ackers); with Costs.MsgBytes of 20, 12,000, also in batches.
// By hand.
func TestNodeBytes(t *testing.T) {
	cfg := chain(Dist{Mean: 1e-3}, Dist{Mean: 2e-3}, 0, 1)
	cfg.Topology.Components[0].Dataset = 100
	x, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	x.Advance(10)
	sent, recv := x.NodeBytes()
	if !slices.Equal(sent, []float64{10_000, 0}) || !slices.Equal(recv, []float64{0, 10_000}) {
		t.Errorf("sent %v, received %v: want n0 10,000 to n1, nothing back", sent, recv)
	}
	// With 20 bytes of framing a message between nodes: 100 x 20 more each way.
	cfg.Costs.MsgBytes = 20
	if x, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	x.Advance(10)
	if sent, recv = x.NodeBytes(); !slices.Equal(sent, []float64{12_000, 0}) || !slices.Equal(recv, []float64{0, 12_000}) {
		t.Errorf("with msg bytes: sent %v, received %v: want n0 12,000 to n1", sent, recv)
	}
	// In batches of 10: 10 messages of 10 tuples, each 10 x (100 + 20) bytes, the same 12,000.
	cfg.Batch = 10
	if x, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	x.Advance(10)
	if sent, _ = x.NodeBytes(); !slices.Equal(sent, []float64{12_000, 0}) {
		t.Errorf("in batches of 10: sent %v, want n0 12,000", sent)
	}
}
