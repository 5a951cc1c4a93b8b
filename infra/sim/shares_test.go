package sim

import (
	"math"
	"strings"
	"testing"
)

// fieldsPair is an open-loop spout on n0 sending each tuple by a fields grouping to one of two
// executors of b, on n1 and n2, with shares.
func fieldsPair(shares []float64) Config {
	return Config{
		Nodes: []Node{{Name: "n0", Cores: 1}, {Name: "n1", Cores: 1}, {Name: "n2", Cores: 1}},
		Topology: Topology{
			Components: []Component{
				{Name: "s", Spout: true, Service: tiny, Streams: []Stream{{To: "b", PerTuple: 1, Grouping: Fields, Shares: shares}}, Bytes: 100},
				{Name: "b", Service: Dist{Mean: 100e-6}},
			},
			Executors: []Executor{{Component: "s", Worker: 0}, {Component: "b", Worker: 1}, {Component: "b", Worker: 2}},
			Workers:   []int{0, 1, 2},
			Rate:      1000,
		},
		Seed: 1, WarmUp: 10, Measure: 200,
	}
}

// TestFieldsShares: a fields stream with measured shares loads its receivers as the shares say, in
// task order; without shares, evenly. Tolerance 0.01 on a receiver's share of the CPU: 200,000 tuples
// give a binomial standard error of 0.001.
func TestFieldsShares(t *testing.T) {
	for _, c := range []struct {
		shares []float64
		want   float64 // the first receiver's share
	}{{[]float64{0.75, 0.25}, 0.75}, {[]float64{0.1, 0.9}, 0.1}, {nil, 0.5}} {
		r, err := Run(fieldsPair(c.shares))
		if err != nil {
			t.Fatal(err)
		}
		got := r.NodeCores[1] / (r.NodeCores[1] + r.NodeCores[2])
		if math.Abs(got-c.want) > 0.01 {
			t.Errorf("shares %v: the first receiver took %.3f of the work, want %.2f +- 0.01", c.shares, got, c.want)
		}
	}
}

// TestFieldsSharesRefused: shares on a grouping other than fields, of another length than the
// receivers, or not summing to 1 are refused naming the stream.
func TestFieldsSharesRefused(t *testing.T) {
	for _, mend := range []func(*Stream){
		func(s *Stream) { s.Grouping = Shuffle },
		func(s *Stream) { s.Shares = []float64{1} },
		func(s *Stream) { s.Shares = []float64{0.5, 0.3} },
		func(s *Stream) { s.Shares = []float64{1.5, -0.5} },
	} {
		cfg := fieldsPair([]float64{0.5, 0.5})
		mend(&cfg.Topology.Components[0].Streams[0])
		if _, err := Run(cfg); err == nil || !strings.Contains(err.Error(), "stream to b has shares") {
			t.Errorf("%+v: err = %v, want the shares refused", cfg.Topology.Components[0].Streams[0], err)
		}
	}
}
