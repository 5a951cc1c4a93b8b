package harness

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/infra/docker"
)

// linkSample is a supervisor's transmitted bytes at a moment (epoch ms).
type linkSample struct {
	atMs    int64
	txBytes int64
}

// sampleLink reads host's egress counter every second until stop is called; stop returns the samples
// and the first error.
func sampleLink(ctx context.Context, c *docker.Cluster, host string) (stop func() ([]linkSample, error)) {
	ctx, cancel := context.WithCancel(ctx)
	var (
		mu      sync.Mutex
		samples []linkSample
		first   error
		wg      sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			lc, err := c.LinkCounters(ctx, host)
			mu.Lock()
			if err != nil && first == nil && ctx.Err() == nil {
				first = err
			}
			if err == nil {
				samples = append(samples, linkSample{time.Now().UnixMilli(), lc.TxBytes})
			}
			mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() ([]linkSample, error) {
		cancel()
		wg.Wait()
		return samples, first
	}
}

// windowRate is the bytes per second sent between the first sample at or after fromMs and the last
// at or before toMs.
func windowRate(samples []linkSample, fromMs, toMs int64) (float64, error) {
	var a, b *linkSample
	for i := range samples {
		s := &samples[i]
		if s.atMs >= fromMs && a == nil {
			a = s
		}
		if s.atMs <= toMs {
			b = s
		}
	}
	if a == nil || b == nil || b.atMs-a.atMs < 5000 {
		return 0, fmt.Errorf("fewer than 5 s of link samples inside the window [%d, %d] (%d samples)", fromMs, toMs, len(samples))
	}
	return float64(b.txBytes-a.txBytes) / (float64(b.atMs-a.atMs) / 1000), nil
}

// TestClusterLinkRateBinds runs the Throughput chain with 4,000-byte tuples on two supervisors, one
// worker each, under storm-even, twice on one cluster: with sup1's egress limited to 2 Mbit/s (a
// supervisor spec's LinkMbit), then with the limit removed (SetLinkRate 0). The bytes sup1 sends per
// second in the window (its eth0 counter, read from the host) are the limit's within 15% in the first
// run and more than 1.3 times it in the second.
//
// Why it binds: storm-even deals the executors round-robin over the two workers in task order
// (__acker, bolt1, bolt2, bolt3, spout: one worker gets bolt1 and bolt3, the other bolt2 and the spout),
// so every hop of the chain crosses nodes and sup1 sends one or two 4 KB tuples per spout tuple: at the
// spout's 200 tuples/s (--interval-ms 5) 0.8 or 1.6 MB/s unlimited, beyond the limit's 250 kB/s. The
// 15% covers frame and TCP headers (4% of a full frame), acks and the daemons' heartbeats.
// --max-spout-pending 50 keeps the link-bound run's latency (50 tuples over about 40 tuples/s) far
// below the 30 s message timeout, so no tuple is replayed. Each run's diagnosis reads sup1's egress from
// its node samples as the host side does, and names the link as the bottleneck in the limited run only
// (checkLinkDiagnosis). Cluster time: about 3 minutes.
func TestClusterLinkRateBinds(t *testing.T) {
	ctx := clusterTest(t)
	t0 := time.Now()
	defer func() { t.Logf("wall time: %s", time.Since(t0).Round(time.Second)) }()
	const limitMbit = 2.0
	limit := limitMbit * 1e6 / 8 // bytes per second
	sup := func(host string, mbit float64) docker.SupervisorSpec {
		return docker.SupervisorSpec{Host: host, CPUs: 0.5, MemoryMB: docker.SupervisorReserveMB + 420, Slots: 1, LinkMbit: mbit}
	}
	s, err := StartSession(ctx, ClusterSpec{Seed: 1, Logf: t.Logf, Options: []docker.Option{
		docker.WithSupervisors(sup("sup1", limitMbit), sup("sup2", 0))}}, "storm-even")
	if s != nil {
		defer s.Close(ctx)
	}
	if err != nil {
		t.Fatalf("start a cluster with sup1 limited to %g Mbit/s: %v", limitMbit, err)
	}
	limited := linkRun(ctx, t, s, "linklimited")
	if got := limited.res.LinkMbit["sup1"]; got != limitMbit || len(limited.res.LinkMbit) != 1 {
		t.Errorf("run.json link_mbit %v, want map[sup1:%g]", limited.res.LinkMbit, limitMbit)
	}
	if err := s.Cluster().SetLinkRate(ctx, "sup1", 0); err != nil {
		t.Fatal(err)
	}
	free := linkRun(ctx, t, s, "linkfree")
	if free.res.LinkMbit != nil {
		t.Errorf("run.json link_mbit %v after the limit was removed, want none", free.res.LinkMbit)
	}
	if math.Abs(limited.rate-limit) > 0.15*limit {
		t.Errorf("limited: sup1 sent %.0f B/s in the window, want %.0f B/s (%g Mbit/s) within 15%%", limited.rate, limit, limitMbit)
	}
	if free.rate < 1.3*limit {
		t.Errorf("unlimited: sup1 sent %.0f B/s, want more than 1.3 x %.0f B/s (else the limit did not bind)", free.rate, limit)
	}
	checkLinkDiagnosis(t, limited, limitMbit)
	checkLinkDiagnosis(t, free, 0)
	if limited.res.Measurement.Throughput >= free.res.Measurement.Throughput {
		t.Errorf("throughput limited %.1f/s, unlimited %.1f/s: want the limited one lower", limited.res.Measurement.Throughput, free.res.Measurement.Throughput)
	}
}

// checkLinkDiagnosis checks run lr's diagnosis: sup1's egress from the node samples (its interface's
// counter read inside the container at the window's ends) within 10% of the rate read from the host
// side, against the limit when it has one, and the link named the bottleneck exactly when limited.
func checkLinkDiagnosis(t *testing.T, lr linkResult, limitMbit float64) {
	t.Helper()
	d := lr.res.Diagnosis
	if d == nil {
		t.Fatalf("limit %g Mbit/s: the run has no diagnosis", limitMbit)
	}
	i := slices.IndexFunc(d.Links, func(l diagnose.Link) bool { return l.Host == "sup1" })
	if i < 0 {
		t.Fatalf("limit %g Mbit/s: diagnosis links %+v (unknown %v): want sup1's", limitMbit, d.Links, d.Unknown)
	}
	l, hostMbit := d.Links[i], lr.rate*8/1e6
	t.Logf("limit %g Mbit/s: diagnosis %q (%s); sup1's link %.3f Mbit/s sent, %.3f received (host side %.3f)", limitMbit, d.Bottleneck, d.Rule, l.SentMbit, l.RecvMbit, hostMbit)
	if math.Abs(l.SentMbit-hostMbit) > 0.1*hostMbit || l.LimitMbit != limitMbit || (limitMbit > 0) != (l.UsedOfLimit != nil) {
		t.Errorf("limit %g Mbit/s: sup1's link in the diagnosis %+v: want %.2f Mbit/s sent (read from the host) within 10%% and the limit", limitMbit, l, hostMbit)
	}
	if limited := d.Rule == "link at its limit"; limited != (limitMbit > 0) || limited && !strings.HasPrefix(d.Bottleneck, "sup1 link ") {
		t.Errorf("limit %g Mbit/s: bottleneck %q (rule %q): want sup1's link exactly when limited", limitMbit, d.Bottleneck, d.Rule)
	}
}

// linkResult is one run of TestClusterLinkRateBinds and sup1's egress in its window.
type linkResult struct {
	res  *RunResult
	rate float64 // bytes per second
}

func linkRun(ctx context.Context, t *testing.T, s *Session, name string) linkResult {
	t.Helper()
	topo, err := StormTopology("throughput", name, "--workers", "2", "--payload-bytes", "4000", "--max-spout-pending", "50",
		"--report-interval-secs", "1", "--worker-childopts", "-XX:TieredStopAtLevel=1")
	if err != nil {
		t.Fatal(err)
	}
	stop := sampleLink(ctx, s.Cluster(), "sup1")
	res, err := s.Run(ctx, RunSpec{Scheduler: "storm-even", Topology: topo, WarmUp: 20 * time.Second, Measure: 15 * time.Second})
	samples, serr := stop()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, logsOf(err))
	}
	if serr != nil {
		t.Fatalf("%s: read sup1's link counters: %v", name, serr)
	}
	rate, err := windowRate(samples, res.MeasureFrom, res.MeasureTo)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	m := res.Measurement
	var places []string
	for _, e := range res.Executors {
		places = append(places, fmt.Sprintf("%s@%s:%d", e.Component, e.Host, e.Port))
	}
	t.Logf("%s: link %v Mbit/s; sup1 sent %.0f B/s (%.2f Mbit/s); throughput %.1f tuples/s, latency mean %.0f ms p99 %.0f ms; %.0f B per acked tuple; placement %v; validity %v",
		name, res.LinkMbit, rate, rate*8/1e6, m.Throughput, m.LatencyMean, m.LatencyP99, rate/max(m.Throughput, 1e-9), places, res.Validity)
	return linkResult{res: res, rate: rate}
}
