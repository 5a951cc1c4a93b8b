package sim

import (
	"math"
	"testing"
	"time"
)

// midCluster is a WordCount-shaped topology on 8 nodes of 4 cores (8 spouts, 32 split, 32 count
// executors; load-aware shuffle, then fields), open loop at rate per spout (0: closed, 200 pending;
// 1,000 is about 60% of the cluster's capacity).
func midCluster(rate float64) Config {
	cfg := Config{Seed: 3, WarmUp: 2, Measure: 6, WorkerOverhead: 0.07}
	cfg.Costs = Costs{LinkLatency: 100e-6, LocalLatency: 20e-6, AckCPU: 13e-6}
	for i := range 8 {
		cfg.Nodes = append(cfg.Nodes, Node{Name: "n", Cores: 4})
		cfg.Topology.Workers = append(cfg.Topology.Workers, i)
	}
	cfg.Topology.Components = []Component{
		{Name: "sentence", Spout: true, Service: Dist{Mean: 50e-6, CV: 0.25, Kind: LogNormal}, Streams: []Stream{{To: "split", PerTuple: 1}}, Bytes: 56},
		{Name: "split", Service: Dist{Mean: 200e-6, CV: 0.25, Kind: LogNormal}, Streams: []Stream{{To: "count", PerTuple: 10, Grouping: Fields}}, Bytes: 17},
		{Name: "count", Service: Dist{Mean: 27e-6, CV: 0.25, Kind: LogNormal}},
	}
	for comp, n := range map[string]int{"sentence": 8, "split": 32, "count": 32} {
		for i := range n {
			cfg.Topology.Executors = append(cfg.Topology.Executors, Executor{Component: comp, Worker: i % 8})
		}
	}
	cfg.Topology.Rate, cfg.Topology.Ackers, cfg.Topology.LoadAware = rate, true, true
	if rate == 0 {
		cfg.Topology.MaxSpoutPending = 200
	}
	return cfg
}

// TestBatchKeepsThroughput: batching 10 tuples into one keeps what a run measures in tuples: an open
// loop's throughput is its offered rate (within 1%), a saturated closed loop's within 5% of the
// unbatched run's, and its counts come out in tuples. The price, latency, is measured by
// BenchmarkBatchError and stated in docs/simulator.md.
func TestBatchKeepsThroughput(t *testing.T) {
	for _, rate := range []float64{1000, 0} {
		one, ten := midCluster(rate), midCluster(rate)
		ten.Batch = 10
		a, err := Run(one)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(ten)
		if err != nil {
			t.Fatal(err)
		}
		if rate > 0 && math.Abs(b.Throughput-8*rate)/(8*rate) > 0.01 {
			t.Errorf("open loop, batch 10: %.0f trees/s, want the offered %.0f", b.Throughput, 8*rate)
		}
		if math.Abs(b.Throughput-a.Throughput)/a.Throughput > 0.05 {
			t.Errorf("rate %v: batch 10 gives %.0f trees/s, unbatched %.0f: want within 5%%", rate, b.Throughput, a.Throughput)
		}
		if r := b.Executed["count"] / b.Throughput; math.Abs(r-10)/10 > 0.05 {
			t.Errorf("rate %v, batch 10: count executes %.2f tuples per tree, want 10 (counts in tuples)", rate, r)
		}
	}
}

// BenchmarkBatchError reports, for batches of 10, the relative error of throughput and of mean and
// p99 latency against the unbatched model (open loop at about 60% of the cluster's capacity, and
// saturated), and the speed-up in wall time. Batching keeps throughput and, where queueing dominates
// (saturation), latency; at moderate load a batch's service time dominates and latency grows.
func BenchmarkBatchError(b *testing.B) {
	for b.Loop() {
		for _, c := range []struct {
			name string
			rate float64
		}{{"open", 1000}, {"closed", 0}} {
			one, ten := midCluster(c.rate), midCluster(c.rate)
			ten.Batch = 10
			t0 := time.Now()
			x, _ := Run(one)
			t1 := time.Now()
			y, _ := Run(ten)
			t2 := time.Now()
			rel := func(a, b float64) float64 { return (b - a) / a }
			b.ReportMetric(rel(x.Throughput, y.Throughput), c.name+"-tput-err")
			b.ReportMetric(rel(x.LatencyMean, y.LatencyMean), c.name+"-lat-mean-err")
			b.ReportMetric(rel(x.LatencyP99, y.LatencyP99), c.name+"-lat-p99-err")
			b.ReportMetric(t1.Sub(t0).Seconds()/t2.Sub(t1).Seconds(), c.name+"-speedup")
		}
	}
}
