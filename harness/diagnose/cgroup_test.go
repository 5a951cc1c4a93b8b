package diagnose

import (
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness/hostspeed"
)

// TestParseSample: the outputs of SampleCmd on a cgroup v1 container (read on this project's Docker
// host, a 0.5-core container burning two threads) and on a cgroup v2 node with cpu.pressure.
func TestParseSample(t *testing.T) {
	v1 := "usage_ns 73833481014\nperiods 1478\nthrottled 1476\nthrottled_ns 210521174011\nrun_delay_ns 221842304898\ncpu  922814 1832 338138 1002283 6180 0 16065 1858 0 0\n"
	s, err := ParseSample(v1, 5)
	if err != nil {
		t.Fatal(err)
	}
	// busy = 922814+1832+338138+0+16065+1858; total = busy + idle 1002283 + iowait 6180.
	if *s.UsageNs != 73833481014 || *s.Throttled != 1476 || *s.ThrottledNs != 210521174011 || s.PressureUs != nil ||
		*s.HostBusy != 1280707 || *s.HostTotal != 1280707+1008463 || s.TimeMs != 5 {
		t.Errorf("v1 sample %+v", s)
	}
	v2 := "usage_ns 5000\nperiods 10\nthrottled 0\nthrottled_ns 0\npressure_us 1234\nrun_delay_ns 9\ncpu 1 2 3 4 5 6 7 8 9 10\n"
	if s, err := ParseSample(v2, 0); err != nil || s.PressureUs == nil || *s.PressureUs != 1234 {
		t.Errorf("v2 sample %+v %v: want pressure 1234 us", s, err)
	}
	if s, err := ParseSample(v1+"tx_bytes 134391517\nrx_bytes 878627200\ntx_packets 1200\nrx_packets 3400\n", 0); err != nil ||
		*s.TxBytes != 134391517 || *s.RxBytes != 878627200 || *s.TxPackets != 1200 || *s.RxPackets != 3400 {
		t.Errorf("a sample with the interface counters %+v %v: want tx 134391517 bytes in 1200 frames, rx 878627200 in 3400", s, err)
	}
	if s.TxBytes != nil || s.RxBytes != nil || s.TxPackets != nil {
		t.Errorf("a sample without the interface counters: tx %v rx %v, want unknown", s.TxBytes, s.RxBytes)
	}
	if _, err := ParseSample("cpu 1 2 3 4 5 6 7 8\n", 0); err == nil || !strings.Contains(err.Error(), "no cgroup CPU time") {
		t.Errorf("a sample without the cgroup's CPU time: error %v", err)
	}
}

func i64(x int64) *int64 { return &x }

// sample builds a sample at t seconds: cgroup CPU used s, throttled periods thr of per, throttled
// seconds thrS, host busy/total jiffies, run-queue wait s (v1) or pressure s (v2, when pressure >= 0).
func sample(t, used float64, per, thr int64, thrS float64, busy, total int64, runDelay, pressure float64) Sample {
	s := Sample{TimeMs: int64(t * 1000), UsageNs: i64(int64(used * 1e9)), Periods: i64(per), Throttled: i64(thr),
		ThrottledNs: i64(int64(thrS * 1e9)), HostBusy: i64(busy), HostTotal: i64(total), RunDelayNs: i64(int64(runDelay * 1e9))}
	if pressure >= 0 {
		s.PressureUs = i64(int64(pressure * 1e6))
	}
	return s
}

// TestStarvation: the rule on 40 s windows of a 0.5-core node (quota 50). Figures by hand: used 20 s of
// CPU in 40 s = 50% of a core = 1.00 of the quota; 10 s = 0.50; 17 s = 0.85 (under 0.9).
func TestStarvation(t *testing.T) {
	at0 := sample(0, 0, 0, 0, 0, 0, 0, 0, -1)
	cases := []struct {
		name    string
		end     Sample
		starved bool
		waited  float64 // want, per second of the window
		from    string
	}{
		{"at its quota, throttled, busy host", sample(40, 20, 400, 300, 10, 7990, 8000, 12, -1), false, 0.05, "schedstat"},
		{"under, throttled, host 1% idle", sample(40, 17, 400, 40, 1, 7920, 8000, 1, -1), true, 0, "schedstat"},
		{"under, throttled, host 10% idle", sample(40, 17, 400, 40, 1, 7200, 8000, 1, -1), false, 0, "schedstat"},
		{"under, not throttled, threads waited 0.5 s/s, host 1% idle", sample(40, 10, 400, 0, 0, 7920, 8000, 20, -1), true, 0.5, "schedstat"},
		{"under, not throttled, threads waited 0.5 s/s, host 25% idle", sample(40, 10, 400, 0, 0, 6000, 8000, 20, -1), false, 0.5, "schedstat"},
		{"under, waited 0.05 s/s, host 1% idle", sample(40, 10, 400, 0, 0, 7920, 8000, 2, -1), false, 0.05, "schedstat"},
		{"under, cpu.pressure 0.2 of the window, host 25% idle", sample(40, 10, 400, 0, 0, 6000, 8000, 0, 8), true, 0.2, "cpu.pressure"},
		{"under, idle node on a busy host, no wait", sample(40, 2, 400, 0, 0, 7990, 8000, 0, -1), false, 0, "schedstat"},
	}
	for _, c := range cases {
		st := &NodeStats{Quota: map[string]float64{"sup1": 50}, From: map[string]Sample{"sup1": at0}, To: map[string]Sample{"sup1": c.end}}
		if c.end.PressureUs != nil {
			st.From["sup1"] = sample(0, 0, 0, 0, 0, 0, 0, 0, 0)
		}
		cs, unread := cgroups(st)
		if len(cs) != 1 || len(unread) != 0 {
			t.Fatalf("%s: cgroups %+v, unread %v", c.name, cs, unread)
		}
		g := cs[0]
		if g.Starved != c.starved || g.Waited == nil || math.Abs(*g.Waited-c.waited) > 1e-9 || g.WaitedFrom != c.from {
			t.Errorf("%s: starved %v waited %v from %q; want %v, %v, %q", c.name, g.Starved, deref(g.Waited), g.WaitedFrom, c.starved, c.waited, c.from)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return "unknown"
	}
	return *p
}

// TestStarvedBottleneck: a host-starved node comes after executors not running and before a full node;
// the run names it with its figures; a node without both samples is unknown, never 0.
func TestStarvedBottleneck(t *testing.T) {
	in := base()
	in.NodeCPU["sup2"] = 49 // a full node by the workers' CPU: the later step
	in.NodeStats = &NodeStats{Quota: map[string]float64{"sup1": 50, "sup2": 50, "sup3": 100},
		From: map[string]Sample{"sup1": sample(0, 0, 0, 0, 0, 0, 0, 0, -1), "sup2": sample(0, 0, 0, 0, 0, 0, 0, 0, -1)},
		To: map[string]Sample{"sup1": sample(40, 7.1, 400, 0, 0, 7990, 8000, 20, -1), // 7.1 s in 40 s: 0.18 core
			"sup2": sample(40, 19.6, 400, 300, 10, 7990, 8000, 10, -1)},
	}
	d := Run(in)
	if d.Rule != "host-starved" || !strings.HasPrefix(d.Bottleneck, "host-starved: sup1 got 0.18 of 0.50 core (host 0% idle, throttled in 0% of periods, waited 0.50 s/s") {
		t.Errorf("rule %q, bottleneck %q: want sup1 host-starved", d.Rule, d.Bottleneck)
	}
	if len(d.Cgroups) != 2 || d.Cgroups[1].ThrottledShare == nil || math.Abs(*d.Cgroups[1].ThrottledShare-0.75) > 1e-9 || math.Abs(*d.Cgroups[1].ThrottledS-10) > 1e-9 {
		t.Errorf("cgroups %+v: want sup2 throttled in 300 of 400 periods, 10 s", d.Cgroups)
	}
	if len(d.Unknown) == 0 || !strings.Contains(d.Unknown[0], "host starvation of [sup3]") {
		t.Errorf("unknown %v: want sup3 (no sample) named", d.Unknown)
	}
}

// TestWholeNodeAtQuota: where the cgroups were read, a node is at its quota by its whole use (here a
// straggler's burner beside the workers: 19.6 s in 40 s = 98% of 0.5 core) although its workers used
// 60% of it; without cgroups the workers' figure decides, marked so.
func TestWholeNodeAtQuota(t *testing.T) {
	in := base() // workers: sup1 30 of 50, sup2 20 of 50
	in.NodeStats = &NodeStats{Quota: map[string]float64{"sup1": 50, "sup2": 50},
		From: map[string]Sample{"sup1": sample(0, 0, 0, 0, 0, 0, 0, 0, -1), "sup2": sample(0, 0, 0, 0, 0, 0, 0, 0, -1)},
		To: map[string]Sample{"sup1": sample(40, 19.6, 400, 380, 20, 6000, 8000, 30, -1),
			"sup2": sample(40, 12, 400, 0, 0, 6000, 8000, 1, -1)},
	}
	if d := Run(in); d.Rule != "node at its quota" || d.Bottleneck != "sup1 CPU 98% of 0.50 core" {
		t.Errorf("rule %q, bottleneck %q: want sup1 at 98%% of its quota by its cgroup", d.Rule, d.Bottleneck)
	}
	in = base()
	in.NodeCPU["sup1"] = 49
	if d := Run(in); d.Rule != "node at its quota" || d.Bottleneck != "sup1 CPU 98% of 0.50 core (workers)" {
		t.Errorf("rule %q, bottleneck %q: want sup1 at 98%% by its workers' CPU", d.Rule, d.Bottleneck)
	}
}

// TestNodesText: the nodes' figures in one line, and host starvation named unknown without samples.
func TestNodesText(t *testing.T) {
	in := base()
	in.NodeStats = &NodeStats{Quota: map[string]float64{"sup1": 50},
		From: map[string]Sample{"sup1": sample(0, 0, 0, 0, 0, 0, 0, 0, -1)},
		To:   map[string]Sample{"sup1": sample(40, 17, 400, 40, 1, 7920, 8000, 1, -1)}}
	d := Run(in)
	if got, want := d.NodesText(), "sup1 0.42 of 0.50 core, throttled in 10% of periods, host 1% idle, host-starved"; got != want {
		t.Errorf("NodesText = %q, want %q", got, want)
	}
	d = Run(base())
	if got := d.NodesText(); !strings.HasPrefix(got, "unknown: host starvation") {
		t.Errorf("NodesText without samples = %q, want host starvation unknown", got)
	}
}

// TestHostText: the diagnosis carries the window's probe samples as sampled (figures worked by hand:
// the median and quartiles of the samples, as hostspeed.Summarize takes them).
func TestHostText(t *testing.T) {
	for _, c := range []struct {
		name    string
		samples []float64
		want    string
	}{
		{"not sampled", nil, ""},
		{"three", []float64{12, 12.5, 12.2}, "12.2 ns a probe step (median of 3, middle half 12.0-12.5)"},
		{"seven, one outlier", []float64{12, 12.5, 12.2, 12.1, 30, 12.3, 11.9}, "12.2 ns a probe step (median of 7, middle half 12.0-12.5)"},
	} {
		in := base()
		in.NodeStats = &NodeStats{HostSpeed: hostspeed.Summarize(c.samples)}
		d := Run(in)
		if got := d.HostText(); got != c.want {
			t.Errorf("%s: HostText = %q, want %q", c.name, got, c.want)
		}
	}
	if d := Run(base()); d.HostText() != "" {
		t.Errorf("no node stats: HostText = %q, want none", d.HostText())
	}
}
