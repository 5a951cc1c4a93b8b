package sim

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// papersScale is a WordCount-shaped topology at the scale of the scheduler papers' clusters (Fischer
// and Bernstein ran up to 80 machines): 80 nodes of 4 cores, one worker each, 80 sentence spouts, 320
// split and 320 count executors placed round-robin, shuffle then a uniform fields grouping, 1 Gbit/s
// links, closed loop at 100 pending trees per spout. The costs are illustrative, not calibrated.
func papersScale(measure float64) Config {
	const nodes = 80
	cfg := Config{Seed: 1, WarmUp: 1, Measure: measure, QueueCap: 1024}
	cfg.Costs = Costs{SerMsg: 5e-6, SerByte: 2e-9, DeserMsg: 5e-6, DeserByte: 2e-9, LocalLatency: 50e-6, LinkLatency: 200e-6, AckCPU: 2e-6}
	for i := range nodes {
		cfg.Nodes = append(cfg.Nodes, Node{Name: "n", Cores: 4, NICBytesPerS: 125e6})
		cfg.Topology.Workers = append(cfg.Topology.Workers, i)
	}
	cfg.Topology.Components = []Component{
		{Name: "sentence", Spout: true, Service: Dist{Mean: 20e-6, CV: 0.5, Kind: LogNormal}, Streams: []Stream{{To: "split", PerTuple: 1}}, Bytes: 120},
		{Name: "split", Service: Dist{Mean: 40e-6, CV: 0.5, Kind: LogNormal}, Streams: []Stream{{To: "count", PerTuple: 7.2}}, Bytes: 30},
		{Name: "count", Service: Dist{Mean: 15e-6, CV: 0.5, Kind: LogNormal}},
	}
	add := func(comp string, n int) {
		for i := range n {
			cfg.Topology.Executors = append(cfg.Topology.Executors, Executor{Component: comp, Worker: i % nodes})
		}
	}
	add("sentence", 80)
	add("split", 320)
	add("count", 320)
	cfg.Topology.MaxSpoutPending = 100
	return cfg
}

// BenchmarkPapersScale simulates 2 s of the papers' scale per iteration and reports the engine's
// events per wall second and simulated seconds per wall second.
func BenchmarkPapersScale(b *testing.B) {
	benchRuns(b, papersScale(1))
}

// benchRuns runs cfg once per iteration and reports the engine's events and simulated seconds per
// wall second, and per CPU second of the process (user and system, garbage collection included): on
// a machine shared with other work the wall figures move with the others' load, the CPU ones much less.
func benchRuns(b *testing.B, cfg Config) {
	var events uint64
	start, cpu0 := time.Now(), cpuSeconds(b)
	for b.Loop() {
		r, err := Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		events += r.Events
	}
	wall, cpu := time.Since(start).Seconds(), cpuSeconds(b)-cpu0
	simulated := float64(b.N) * (cfg.WarmUp + cfg.Measure)
	b.ReportMetric(float64(events)/wall, "events/s")
	b.ReportMetric(simulated/wall, "sim-s/s")
	b.ReportMetric(float64(events)/cpu, "events/cpu-s")
	b.ReportMetric(simulated/cpu, "sim-s/cpu-s")
}

// cpuSeconds is the CPU time the process has used, user and system.
func cpuSeconds(b *testing.B) float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}

// hundredNodes is the speed goal's cluster: 100 nodes of 4 cores with one worker each, 1,000
// executors (100 spouts, then three bolts of 300 executors, load-aware shuffle), 100,000 tuples/s
// offered open loop (1,000 per spout), Storm's ackers, the shipped model's order of costs (tens of µs).
func hundredNodes(measure float64) Config {
	const nodes = 100
	cfg := Config{Seed: 1, WarmUp: 1, Measure: measure, WorkerOverhead: 0.07}
	cfg.Costs = Costs{LinkLatency: 100e-6, LocalLatency: 20e-6, AckCPU: 13e-6}
	for i := range nodes {
		cfg.Nodes = append(cfg.Nodes, Node{Name: "n", Cores: 4, NICBytesPerS: 125e6})
		cfg.Topology.Workers = append(cfg.Topology.Workers, i)
	}
	cfg.Topology.Components = []Component{
		{Name: "spout", Spout: true, Service: Dist{Mean: 20e-6, CV: 0.25, Kind: LogNormal}, Streams: []Stream{{To: "a", PerTuple: 1}}, Bytes: 100},
		{Name: "a", Service: Dist{Mean: 30e-6, CV: 0.25, Kind: LogNormal}, Streams: []Stream{{To: "b", PerTuple: 1}}, Bytes: 100},
		{Name: "b", Service: Dist{Mean: 30e-6, CV: 0.25, Kind: LogNormal}, Streams: []Stream{{To: "c", PerTuple: 1, Grouping: Fields}}, Bytes: 100},
		{Name: "c", Service: Dist{Mean: 30e-6, CV: 0.25, Kind: LogNormal}},
	}
	add := func(comp string, n int) {
		for i := range n {
			cfg.Topology.Executors = append(cfg.Topology.Executors, Executor{Component: comp, Worker: i % nodes})
		}
	}
	add("spout", 100)
	add("a", 300)
	add("b", 300)
	add("c", 300)
	cfg.Topology.Rate, cfg.Topology.Ackers, cfg.Topology.LoadAware = 1000, true, true
	return cfg
}

// BenchmarkHundredNodes simulates 1 s (plus 1 s of warm-up) of hundredNodes per iteration and reports
// simulated seconds per wall second on one core: the goal is at least 10 (ten times real time),
// unbatched and with batches of 10 tuples (Config.Batch; its error: BenchmarkBatchError). The wait
// variants add the idle bolts' wait strategy as the container twins charge it (spinning at the shipped
// model's 0.12 cores, then with its end in sleep), whose spinners change with nearly every tuple. The
// messaging variant runs the workers' transfer and Netty threads (Config.Messaging) at frame costs of
// the size measured on the containers.
func BenchmarkHundredNodes(b *testing.B) {
	for _, v := range []struct {
		name      string
		batch     int
		spin      float64
		sleep     bool
		messaging bool
	}{{"batch=1", 1, 0, false, false}, {"batch=10", 10, 0, false, false}, {"batch=1/wait=spin", 1, 0.12, false, false},
		{"batch=1/wait=spin+sleep", 1, 0.12, true, false}, {"batch=1/messaging", 1, 0, false, true}} {
		b.Run(v.name, func(b *testing.B) {
			cfg := hundredNodes(1)
			cfg.Batch, cfg.IdleSpin = v.batch, v.spin
			if v.sleep {
				cfg.IdleSpinFor, cfg.IdleSleep = DefaultIdleSpinFor, DefaultIdleSleep
			}
			if v.messaging {
				cfg.Messaging, cfg.Costs.SendFrame, cfg.Costs.RecvFrame = true, 30e-6, 30e-6
			}
			benchRuns(b, cfg)
		})
	}
}

// BenchmarkThousandNodes builds and runs 1,000 nodes with 10,000 executors (the hundredNodes layout
// times ten, 1,000,000 tuples/s offered) for 0.1 s of simulated time and reports the heap in use at
// its end and the total allocated: the memory goal is 2 GB.
func BenchmarkThousandNodes(b *testing.B) {
	cfg := hundredNodes(0.1)
	cfg.WarmUp = 0.1
	const nodes = 1000
	cfg.Nodes, cfg.Topology.Workers, cfg.Topology.Executors = nil, nil, nil
	for i := range nodes {
		cfg.Nodes = append(cfg.Nodes, Node{Name: "n", Cores: 4, NICBytesPerS: 125e6})
		cfg.Topology.Workers = append(cfg.Topology.Workers, i)
	}
	for comp, n := range map[string]int{"spout": 1000, "a": 3000, "b": 3000, "c": 3000} {
		for i := range n {
			cfg.Topology.Executors = append(cfg.Topology.Executors, Executor{Component: comp, Worker: i % nodes})
		}
	}
	var peak uint64
	for b.Loop() {
		x, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		x.Advance(0.2)
		x.Take()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-MB")
}
