package sim

import (
	"math"
	"strings"
	"testing"
)

// chain is a spout on node 0 feeding one bolt on node 1 (two workers, one per node), with transfer
// costs zero unless the test sets them: the bolt is then a single server with the spout's arrivals.
func chain(spout, bolt Dist, rate float64, pending int) Config {
	return Config{
		Nodes: []Node{{Name: "n0", Cores: 1}, {Name: "n1", Cores: 1}},
		Topology: Topology{
			Components: []Component{
				{Name: "s", Spout: true, Service: spout, Streams: []Stream{{To: "b", PerTuple: 1}}, Bytes: 100},
				{Name: "b", Service: bolt},
			},
			Executors:       []Executor{{Component: "s", Worker: 0}, {Component: "b", Worker: 1}},
			Workers:         []int{0, 1},
			Rate:            rate,
			MaxSpoutPending: pending,
		},
		Seed: 1, WarmUp: 10, Measure: 200,
	}
}

var tiny = Dist{Mean: 1e-9} // a spout that costs (almost) nothing

// TestMM1: Poisson arrivals at rate lambda into one bolt with exponential service of mean 1/mu on a core
// of its own is an M/M/1 queue: mean sojourn 1/(mu - lambda), utilization lambda/mu (Kleinrock,
// "Queueing Systems, Vol. 1", 1975, sec. 3.2). Tolerance: 4 standard errors of the mean over the
// window's n tuples, from the asymptotic variance of M/M/1's mean waiting time,
// rho (2 + 5 rho - 4 rho^2 + rho^3) / (mu^2 (1 - rho)^4) / n (Whitt, "Planning queueing simulations",
// Management Science 35(11), 1989), plus the service time's own 1/(mu^2 n).
func TestMM1(t *testing.T) {
	const mu = 1000.0
	for _, lambda := range []float64{500, 800} {
		cfg := chain(tiny, Dist{Mean: 1 / mu, CV: 1, Kind: Exponential}, lambda, 0)
		cfg.Topology.Poisson = true
		r, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rho := lambda / mu
		n := lambda * cfg.Measure
		se := math.Sqrt((rho*(2+5*rho-4*rho*rho+rho*rho*rho)/math.Pow(1-rho, 4) + 1) / (mu * mu * n))
		want := 1 / (mu - lambda)
		if d := math.Abs(r.LatencyMean - want); d > 4*se {
			t.Errorf("lambda %v: mean sojourn %.4g s, want %.4g s +- %.2g (4 s.e.)", lambda, r.LatencyMean, want, 4*se)
		}
		if u := r.NodeCores[1]; math.Abs(u-rho) > 0.02 {
			t.Errorf("lambda %v: bolt node busy %.3f cores, want rho %.2f +- 0.02", lambda, u, rho)
		}
		if tp := r.Throughput; math.Abs(tp-lambda)/lambda > 0.02 {
			t.Errorf("lambda %v: throughput %.1f/s, want the arrival rate +- 2%%", lambda, tp)
		}
	}
}

// TestProcessorSharing: saturated bolts on one node share its cores: two on 1 core get half each
// (500 tuples/s of 1 ms each), two on 2 cores a whole one each, and one alone on 2 cores no more than
// one core (a thread runs on one core). Exact in the model: the tolerance (0.5%) covers the window's
// edges only.
func TestProcessorSharing(t *testing.T) {
	for _, c := range []struct{ cores, bolts float64 }{{1, 2}, {2, 2}, {2, 1}} {
		cores := c.cores
		cfg := Config{
			Nodes: []Node{{Name: "spouts", Cores: 4}, {Name: "bolts", Cores: cores}},
			Topology: Topology{
				Components: []Component{
					{Name: "s1", Spout: true, Service: tiny, Streams: []Stream{{To: "b1", PerTuple: 1}}},
					{Name: "s2", Spout: true, Service: tiny, Streams: []Stream{{To: "b2", PerTuple: 1}}},
					{Name: "b1", Service: Dist{Mean: 1e-3}},
					{Name: "b2", Service: Dist{Mean: 1e-3}},
				},
				Executors:       []Executor{{"s1", 0}, {"s2", 0}, {"b1", 1}, {"b2", 1}},
				Workers:         []int{0, 1},
				MaxSpoutPending: 10,
			},
			Seed: 1, WarmUp: 1, Measure: 20,
		}
		if c.bolts == 1 {
			cfg.Topology.Components = cfg.Topology.Components[:3:3]
			cfg.Topology.Components[1].Streams = []Stream{{To: "b1", PerTuple: 1}}
			cfg.Topology.Executors = cfg.Topology.Executors[:3]
		}
		r, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		used := math.Min(cores, c.bolts)
		want := 1000 * used
		if math.Abs(r.Throughput-want)/want > 0.005 || math.Abs(r.NodeCores[1]-used) > 0.005*used {
			t.Errorf("%v bolts on %v cores: %.1f trees/s and %.3f cores busy, want %.0f/s and %v", c.bolts, cores, r.Throughput, r.NodeCores[1], want, used)
		}
	}
}

// TestClosedLoop: a closed loop of N = 10 trees through a deterministic 1 ms bolt keeps the bolt busy:
// throughput 1/s = 1,000/s and, by Little's law (N = throughput x latency), latency N x s = 10 ms.
func TestClosedLoop(t *testing.T) {
	cfg := chain(tiny, Dist{Mean: 1e-3}, 0, 10)
	cfg.Measure = 20
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Throughput-1000)/1000 > 0.005 || math.Abs(r.LatencyMean-0.010)/0.010 > 0.005 {
		t.Errorf("%.1f trees/s, latency %.4g s: want 1000/s and 0.010 s", r.Throughput, r.LatencyMean)
	}
	if got := r.Throughput * r.LatencyMean; math.Abs(got-10) > 0.05 {
		t.Errorf("Little's law: throughput x latency = %.3f trees in flight, want 10", got)
	}
}

// TestTransferCosts: with no queueing (10 tuples/s through a 1 ms bolt, deterministic), a tuple's
// latency is the sum of its prices: between nodes the spout's and bolt's CPU (plus serialization and
// deserialization) and the link latency plus its bytes over the NIC; within a worker only the CPU.
func TestTransferCosts(t *testing.T) {
	costs := Costs{SerMsg: 20e-6, SerByte: 1e-8, DeserMsg: 30e-6, DeserByte: 2e-8, LinkLatency: 5e-3, LocalLatency: 1e-4}
	cases := []struct {
		name    string
		workers []int
		nic     float64
		want    float64
	}{
		// 1e-3 bolt + 1e-4 spout + 20e-6 + 100 x 1e-8 (ser) + 30e-6 + 100 x 2e-8 (deser) + 5e-3 link + 100/1e5 NIC
		{"between nodes", []int{0, 1}, 1e5, 1e-3 + 1e-4 + 21e-6 + 32e-6 + 5e-3 + 1e-3},
		{"between workers of a node", []int{0, 0}, 0, 1e-3 + 1e-4 + 21e-6 + 32e-6 + 1e-4},
	}
	for _, c := range cases {
		cfg := chain(Dist{Mean: 1e-4}, Dist{Mean: 1e-3}, 10, 0)
		cfg.Costs, cfg.Topology.Workers, cfg.Nodes[0].NICBytesPerS, cfg.Measure = costs, c.workers, c.nic, 20
		r, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.LatencyMean-c.want) > 1e-9 {
			t.Errorf("%s: latency %.6g s, want %.6g s", c.name, r.LatencyMean, c.want)
		}
	}
}

// TestCutRate: a shuffle from 2 spouts to 4 bolts spread over 2 nodes (one worker each) crosses nodes
// for half of its tuples; local-or-shuffle keeps every tuple in its worker.
func TestCutRate(t *testing.T) {
	for _, c := range []struct {
		g    Grouping
		want float64
		tol  float64
	}{{Shuffle, 0.5, 0.01}, {LocalOrShuffle, 0, 0}} {
		cfg := Config{
			Nodes: []Node{{Name: "a", Cores: 2}, {Name: "b", Cores: 2}},
			Topology: Topology{
				Components: []Component{
					{Name: "s", Spout: true, Service: tiny, Streams: []Stream{{To: "b", PerTuple: 1, Grouping: c.g}}},
					{Name: "b", Service: Dist{Mean: 1e-4}},
				},
				Executors: []Executor{{"s", 0}, {"s", 1}, {"b", 0}, {"b", 0}, {"b", 1}, {"b", 1}},
				Workers:   []int{0, 1}, Rate: 1000,
			},
			Seed: 3, WarmUp: 1, Measure: 20,
		}
		r, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.CutRate-c.want) > c.tol {
			t.Errorf("grouping %d: cut rate %.3f, want %.2f +- %.2f", c.g, r.CutRate, c.want, c.tol)
		}
	}
}

// TestBackpressure: an open-loop spout offering twice what its bolt can do is paused by the bolt's
// full queue: the bolt runs at its capacity (1,000/s), the queue stays bounded, and the latency from
// the intended send time grows with the backlog the spout keeps.
func TestBackpressure(t *testing.T) {
	cfg := chain(tiny, Dist{Mean: 1e-3}, 2000, 0)
	cfg.QueueCap, cfg.Measure = 100, 20
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Throughput-1000)/1000 > 0.01 {
		t.Errorf("throughput %.1f/s, want the bolt's 1000/s", r.Throughput)
	}
	if r.LatencyMean < 5 { // after 10 s of warm-up the backlog alone is ~10 s of arrivals
		t.Errorf("latency %.3g s: the backlog of intended sends should show", r.LatencyMean)
	}
}

// TestSeeds: one seed gives one result; another seed another (repetitions vary as real ones do).
func TestSeeds(t *testing.T) {
	cfg := chain(tiny, Dist{Mean: 1e-3, CV: 1, Kind: Exponential}, 500, 0)
	cfg.Measure = 5
	a, _ := Run(cfg)
	b, _ := Run(cfg)
	cfg.Seed = 2
	c, _ := Run(cfg)
	if a.LatencyMean != b.LatencyMean || a.Acked != b.Acked {
		t.Errorf("same seed: %v and %v", a.LatencyMean, b.LatencyMean)
	}
	if a.LatencyMean == c.LatencyMean {
		t.Errorf("seeds 1 and 2 gave the same latency %v", a.LatencyMean)
	}
}

// TestLogNormal: drawn service times have the mean and CV asked for (200,000 draws: the sample mean's
// s.e. is CV / sqrt(n) = 0.3%, tolerance 1.5%; the CV's s.e. is larger, tolerance 5%).
func TestLogNormal(t *testing.T) {
	s := newSim(&Config{Seed: 9})
	d := Dist{Mean: 2e-3, CV: 1.5, Kind: LogNormal}
	var sum, sq float64
	const n = 200000
	for range n {
		x := d.draw(s.rng)
		sum += x
		sq += x * x
	}
	mean := sum / n
	cv := math.Sqrt(sq/n-mean*mean) / mean
	if math.Abs(mean-2e-3)/2e-3 > 0.015 || math.Abs(cv-1.5)/1.5 > 0.05 {
		t.Errorf("lognormal: mean %.4g, CV %.3f; want 2e-3 and 1.5", mean, cv)
	}
}

func TestBadConfig(t *testing.T) {
	good := chain(tiny, Dist{Mean: 1e-3}, 10, 0)
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no nodes", func(c *Config) { c.Nodes = nil }, "no nodes"},
		{"zero cores", func(c *Config) { c.Nodes[0].Cores = 0 }, "give cores > 0"},
		{"no window", func(c *Config) { c.Measure = 0 }, "measure > 0"},
		{"unknown stream target", func(c *Config) { c.Topology.Components[0].Streams[0].To = "x" }, `stream to "x"`},
		{"worker off the cluster", func(c *Config) { c.Topology.Workers[1] = 7 }, "worker 1 is on node 7"},
		{"executor of no component", func(c *Config) { c.Topology.Executors[0].Component = "zz" }, "executor 0 (zz"},
		{"no spout", func(c *Config) { c.Topology.Components[0].Spout = false }, "no spout"},
		{"neither open nor closed loop", func(c *Config) { c.Topology.Rate = 0 }, "give a rate > 0"},
		{"zero service", func(c *Config) { c.Topology.Components[1].Service.Mean = 0 }, "give mean > 0"},
		{"negative idle spin", func(c *Config) { c.IdleSpin = -0.1 }, "idle spin -0.1"},
		{"acker off the workers", func(c *Config) { c.Topology.Ackers, c.Topology.AckerWorkers = true, []int{0, 2} }, "acker 1 on worker 2"},
		{"ackers placed without ackers", func(c *Config) { c.Topology.AckerWorkers = []int{0} }, "acker 0 on worker 0"},
	}
	for _, c := range cases {
		cfg := good
		cfg.Nodes = append([]Node(nil), good.Nodes...)
		cfg.Topology.Components = append([]Component(nil), good.Topology.Components...)
		cfg.Topology.Components[0].Streams = append([]Stream(nil), good.Topology.Components[0].Streams...)
		cfg.Topology.Executors = append([]Executor(nil), good.Topology.Executors...)
		cfg.Topology.Workers = append([]int(nil), good.Topology.Workers...)
		c.edit(&cfg)
		if _, err := Run(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// TestAckers: with Storm's ackers as executors (one per worker), every tree costs its acker two
// messages (the spout's ack-init and the bolt's ack). Open loop at 200 trees/s: the ackers execute
// 400 messages/s and the CPU is 200 x (0.1 + 1 + 2 x 0.2) ms = 0.3 cores (+-1%: the window's edges).
// Closed loop with a 1 ms ack: node 1 holds the bolt (0.1 ms a tree) and the acker of half the trees
// (2 x 1 ms each), so it saturates at x (0.1 + 1) ms = 1 core, x = 909 trees/s (+-2%).
func TestAckers(t *testing.T) {
	cfg := chain(Dist{Mean: 1e-4}, Dist{Mean: 1e-3}, 200, 0)
	cfg.Topology.Ackers, cfg.Costs.AckCPU, cfg.Measure = true, 2e-4, 20
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cores := r.NodeCores[0] + r.NodeCores[1]
	if a := r.Executed[AckerName]; math.Abs(a-400)/400 > 0.01 || math.Abs(cores-0.3)/0.3 > 0.01 || math.Abs(r.Throughput-200)/200 > 0.01 {
		t.Errorf("open loop: %.1f acks/s, %.3f cores, %.1f trees/s; want 400, 0.300, 200", a, cores, r.Throughput)
	}
	cfg = chain(tiny, Dist{Mean: 1e-4}, 0, 100)
	cfg.Topology.Ackers, cfg.Costs.AckCPU, cfg.Measure = true, 1e-3, 20
	if r, err = Run(cfg); err != nil {
		t.Fatal(err)
	}
	if want := 1 / 1.1e-3; math.Abs(r.Throughput-want)/want > 0.02 {
		t.Errorf("closed loop: %.1f trees/s, want %.0f (node 1 saturated by the bolt and its acker)", r.Throughput, want)
	}
}

// TestAckersWhereScheduled: the ackers run where the scheduler put them. With both ackers on worker 0
// (node 0) the ack work is node 0's, as Storm runs every ack there; one per worker splits it. The
// open-loop case of TestAckers (200 trees/s, the spout 0.1 ms, the bolt 1 ms, 2 acks of 0.2 ms a tree):
// node 0 busy 200 x (0.1 + 0.4) ms = 0.10 cores with both ackers, 200 x (0.1 + 0.2) ms = 0.06 with one
// per worker (+-2%: the window's edges and the draw of each tree's acker). The analytic model puts
// the same demand there.
func TestAckersWhereScheduled(t *testing.T) {
	for _, tc := range []struct {
		workers []int
		node0   float64
	}{{nil, 0.06}, {[]int{0, 0}, 0.10}} {
		cfg := chain(Dist{Mean: 1e-4}, Dist{Mean: 1e-3}, 200, 0)
		cfg.Topology.Ackers, cfg.Topology.AckerWorkers, cfg.Costs.AckCPU, cfg.Measure = true, tc.workers, 2e-4, 20
		r, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.NodeCores[0]-tc.node0)/tc.node0 > 0.02 || math.Abs(r.Throughput-200)/200 > 0.01 {
			t.Errorf("ackers on %v: node 0 busy %.4f cores at %.1f trees/s, want %.2f at 200", tc.workers, r.NodeCores[0], r.Throughput, tc.node0)
		}
		a, err := Jackson(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(a.NodeCores[0]-tc.node0) > 1e-9 {
			t.Errorf("ackers on %v: analytic node 0 %.4f cores, want %.2f", tc.workers, a.NodeCores[0], tc.node0)
		}
	}
}

// TestStormLatency: the complete latency a spout reports is its acker's, from the first message of the
// tree the acker executes, not the tree's residence from the emit. The chain's acker on the bolt's node
// (worker 1), a 10 ms link, deterministic costs, 10 trees/s (no queueing): a tree emitted at 0 sends its
// tuple and its ack init across the link (both there at 10 ms); the acker executes the init by 10.1 ms,
// the bolt its tuple by 11 ms, the acker its ack by 11.1 ms: Storm's latency 1.0 ms; the ack then
// crosses back, so the tree's residence is 21.1 ms (Result.LatencyMean). By hand; tolerance 0.5 ms (the
// reports' histograms hold whole ms).
func TestStormLatency(t *testing.T) {
	cfg := chain(tiny, Dist{Mean: 1e-3}, 10, 0)
	cfg.Topology.Ackers, cfg.Topology.AckerWorkers, cfg.Costs.AckCPU, cfg.Costs.LinkLatency = true, []int{1}, 1e-4, 0.01
	x, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	x.Advance(20)
	spout := x.Take()[0]
	if spout.Latency == nil || spout.Acked < 150 {
		t.Fatalf("spout acked %d trees, latency %v: want about 200 and their latencies", spout.Acked, spout.Latency)
	}
	if got := spout.Latency.Mean(); math.Abs(got-1.0) > 0.5 {
		t.Errorf("Storm's complete latency %.2f ms, want 1.0 (the acker's span of the tree)", got)
	}
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.LatencyMean-0.0211) > 0.0005 {
		t.Errorf("residence %.2f ms, want 21.1 (from the emit to the ack at the spout)", 1e3*r.LatencyMean)
	}
}
