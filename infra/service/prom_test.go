package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/stormlab/stormlab/infra/protocol"
)

// scrapeMetrics GETs /metrics from base (with token unless "") and parses
// it with Prometheus's own text parser.
func scrapeMetrics(t *testing.T, base, token string) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+PathPrometheus, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", PathPrometheus, resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("content type %q, want the text exposition format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// series finds the metric of family name whose labels are exactly the
// given name, value pairs (a label with an empty value counts as absent,
// as in Prometheus); nil when there is none.
func series(fams map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		if labels[i+1] != "" {
			want[labels[i]] = labels[i+1]
		}
	}
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			if l.GetValue() != "" {
				got[l.GetName()] = l.GetValue()
			}
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return m
		}
	}
	return nil
}

// value is the counter or gauge value of a series, NaN when absent.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	m := series(fams, name, labels...)
	switch {
	case m == nil:
		return math.NaN()
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	}
	return math.NaN()
}

// latencyHist encodes a worker's complete-latency histogram holding
// values (ms) with the given counts, as the Java workers send it.
func latencyHist(t *testing.T, counts map[int64]int64) string {
	t.Helper()
	h := protocol.NewHistogram(protocol.LatencyHistHighest)
	for v, n := range counts {
		if err := h.RecordValues(v, n); err != nil {
			t.Fatal(err)
		}
	}
	s, err := protocol.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPrometheusMetrics feeds worker reports, node reports, two rounds and
// fallbacks over HTTP, scrapes /metrics and checks every value against
// what was fed (hand-summed below).
func TestPrometheusMetrics(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	mv := &mover{} // reschedules without applying
	s := NewWithScheduler("mover", mv, WithClock(clk.now), WithRescheduleEvery(0))
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	post := func(path string, body any) {
		t.Helper()
		b, _ := json.Marshal(body)
		resp, err := http.Post(srv.URL+path, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			msg, _ := io.ReadAll(resp.Body)
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, msg)
		}
	}

	// Round 1 places t1 (applied); round 2, settleMax later (settled with
	// no reports), offers it to Reschedule, which keeps it (not applied).
	post(protocol.PathSchedule, chain())
	clk.t = clk.t.Add(settleMax)
	post(protocol.PathSchedule, placed())
	post(protocol.PathFallback, protocol.Fallback{Topology: "t1", Reason: "service timeout"})
	post(protocol.PathFallback, protocol.Fallback{Topology: "t1", Reason: "service timeout"})
	post(protocol.PathFallback, protocol.Fallback{Reason: "service down"})
	post(protocol.PathNodes, protocol.NodeReport{Host: "h1", TimeMs: 999_000, IntervalS: 2, CPUPercent: 150})
	post(protocol.PathNodes, protocol.NodeReport{Host: "h2", TimeMs: 999_500, IntervalS: 2, CPUPercent: 40})
	ms := clk.t.UnixMilli()
	for _, r := range []protocol.WorkerReport{
		{Topology: "t1", Host: "h1", Port: 6700, TimeMs: ms, IntervalS: 10, Acked: 100, Failed: 3,
			LatencyHist: latencyHist(t, map[int64]int64{3: 10, 40: 5})},
		{Topology: "t1", Host: "h2", Port: 6700, TimeMs: ms, IntervalS: 10, Acked: 50, Failed: 2,
			LatencyHist: latencyHist(t, map[int64]int64{3: 2, 700: 1, 7000: 1})},
		{Topology: "t1", Host: "h1", Port: 6700, TimeMs: ms + 10_000, IntervalS: 10, Acked: 7, LatencyHist: "not a histogram"},
		{Topology: "t2", Host: "h1", Port: 6701, TimeMs: ms, IntervalS: 10, Acked: 20, Failed: 1},
	} {
		post(protocol.PathMetrics, r)
	}

	fams := scrapeMetrics(t, srv.URL, "")
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"stormlab_service_info", []string{"scheduler", "mover"}, 1},
		{"stormlab_scheduling_rounds_total", nil, 2},
		{"stormlab_worker_reports_total", nil, 4},
		{"stormlab_unauthorized_requests_total", nil, 0},
		{"stormlab_topology_tuples_acked_total", []string{"topology", "t1"}, 157}, // 100 + 50 + 7
		{"stormlab_topology_tuples_failed_total", []string{"topology", "t1"}, 5},  // 3 + 2
		{"stormlab_topology_tuples_acked_total", []string{"topology", "t2"}, 20},
		{"stormlab_topology_tuples_failed_total", []string{"topology", "t2"}, 1},
		{"stormlab_topology_latency_histograms_unmerged_total", []string{"topology", "t1"}, 1}, // "not a histogram"
		{"stormlab_topology_latency_histograms_unmerged_total", []string{"topology", "t2"}, 0},
		{"stormlab_topology_decisions_total", []string{"topology", "t1", "kind", "schedule"}, 1},
		{"stormlab_topology_decisions_applied_total", []string{"topology", "t1", "kind", "schedule"}, 1},
		{"stormlab_topology_decisions_total", []string{"topology", "t1", "kind", "reschedule"}, 1},
		{"stormlab_topology_decisions_applied_total", []string{"topology", "t1", "kind", "reschedule"}, 0},
		{"stormlab_fallbacks_total", []string{"topology", "t1"}, 2},
		{"stormlab_fallbacks_total", []string{"topology", ""}, 1}, // the whole round
		{"stormlab_node_cpu_used_cores", []string{"node", "h1"}, 1.5},
		{"stormlab_node_cpu_used_cores", []string{"node", "h2"}, 0.4},
		{"stormlab_node_cpu_report_timestamp_seconds", []string{"node", "h1"}, 999},
		{"stormlab_node_cpu_report_timestamp_seconds", []string{"node", "h2"}, 999.5},
	} {
		if got := value(fams, c.name, c.labels...); math.Abs(got-c.want) > 1e-12 || math.IsNaN(got) {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if m := series(fams, "stormlab_topology_decision_errors_total", "topology", "t1"); m != nil {
		t.Errorf("decision errors for t1 = %v, want no series (no decision failed)", m)
	}
	if m := series(fams, "stormlab_topology_complete_latency_seconds", "topology", "t2"); m != nil {
		t.Errorf("t2 sent no latency histogram but has a latency series %v: absent is not measured, not zero", m)
	}
	checkLatency(t, fams)
	// The fake clock stands still during a round: both rounds took 0 s.
	h := series(fams, "stormlab_scheduling_round_duration_seconds").GetHistogram()
	if h.GetSampleCount() != 2 || h.GetSampleSum() != 0 || len(h.GetBucket()) < len(roundBoundsS) || h.GetBucket()[0].GetCumulativeCount() != 2 {
		t.Errorf("round durations: count %d sum %v buckets %v, want 2, 0 and every bucket at 2", h.GetSampleCount(), h.GetSampleSum(), h.GetBucket())
	}
	if fams["go_goroutines"] == nil || fams["process_cpu_seconds_total"] == nil {
		t.Errorf("Go runtime and process collectors missing: %d families", len(fams))
	}

	// Reset forgets the measurements: their counters start again (a counter
	// reset to Prometheus), the node gauges stay.
	post(protocol.PathReset, nil)
	fams = scrapeMetrics(t, srv.URL, "")
	if v := value(fams, "stormlab_topology_tuples_acked_total", "topology", "t1"); !math.IsNaN(v) {
		t.Errorf("after reset t1 acked = %v, want no series", v)
	}
	if v := value(fams, "stormlab_node_cpu_used_cores", "node", "h1"); v != 1.5 {
		t.Errorf("after reset node h1 = %v, want 1.5", v)
	}
}

// checkLatency: t1's merged histogram. Values (ms): 3 x 12, 40 x 5, 700,
// 7000. Up to 2047 ms the HdrHistogram (3 digits) holds values exactly;
// 7000 lies in its bucket [7000, 7003] (width 4 in 4096-8191), counted at
// its middle 7002. Sum 36 + 200 + 700 + 7002 = 7938 ms.
func checkLatency(t *testing.T, fams map[string]*dto.MetricFamily) {
	t.Helper()
	m := series(fams, "stormlab_topology_complete_latency_seconds", "topology", "t1")
	if m == nil || m.Histogram == nil {
		t.Fatalf("no latency histogram for t1 in %v", fams["stormlab_topology_complete_latency_seconds"])
	}
	h := m.GetHistogram()
	if h.GetSampleCount() != 19 || math.Abs(h.GetSampleSum()-7.938) > 1e-9 {
		t.Errorf("latency count %d sum %v s, want 19 and 7.938", h.GetSampleCount(), h.GetSampleSum())
	}
	want := map[float64]uint64{0.001: 0, 0.002: 0, 0.005: 12, 0.01: 12, 0.02: 12, 0.05: 17, 0.1: 17, 0.2: 17,
		0.5: 17, 1: 18, 2: 18, 5: 18, 10: 19, 30: 19, 60: 19}
	got := map[float64]uint64{}
	for _, b := range h.GetBucket() {
		if !math.IsInf(b.GetUpperBound(), 1) { // the parser may add +Inf
			got[b.GetUpperBound()] = b.GetCumulativeCount()
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("latency buckets (le s: cumulative count)\n got %v\nwant %v", got, want)
	}
}

// A decision that fails is counted as taken, not applied, and as an error.
func TestPrometheusDecisionErrors(t *testing.T) {
	s := NewWithScheduler("rr", &roundRobin{err: errors.New("no placement")})
	if _, err := s.Schedule(context.Background(), chain()); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	fams := scrapeMetrics(t, srv.URL, "")
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"stormlab_topology_decisions_total", []string{"topology", "t1", "kind", "schedule"}, 1},
		{"stormlab_topology_decisions_applied_total", []string{"topology", "t1", "kind", "schedule"}, 0},
		{"stormlab_topology_decision_errors_total", []string{"topology", "t1"}, 1},
	} {
		if got := value(fams, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

// /metrics is behind the token like every path but health; a wrong method
// gets the JSON 405 of every served path.
func TestPrometheusAuth(t *testing.T) {
	const token = "s3cret-token"
	s := NewWithScheduler("rr", &roundRobin{}, WithToken(token))
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for _, c := range []struct {
		method, auth string
		want         int
	}{
		{http.MethodGet, "", http.StatusUnauthorized},
		{http.MethodGet, "Bearer wrong", http.StatusUnauthorized},
		{http.MethodGet, "Bearer " + token, http.StatusOK},
		{http.MethodPost, "Bearer " + token, http.StatusMethodNotAllowed},
	} {
		if got := statusOf(t, c.method, srv.URL+PathPrometheus, c.auth); got != c.want {
			t.Errorf("%s %s with %q: status %d, want %d", c.method, PathPrometheus, c.auth, got, c.want)
		}
	}
	fams := scrapeMetrics(t, srv.URL, token)
	if v := value(fams, "stormlab_unauthorized_requests_total"); v != 2 {
		t.Errorf("unauthorized = %v, want 2 (the two refused scrapes)", v)
	}
}

// Each service has its own registry: two in one process neither clash nor
// see each other's topologies.
func TestPrometheusRegistryPerService(t *testing.T) {
	a := NewWithScheduler("rr", &roundRobin{})
	b := NewWithScheduler("rr", &roundRobin{})
	if err := a.Report(&protocol.WorkerReport{Topology: "ta", Host: "h1", Port: 6700, IntervalS: 10, Acked: 9}); err != nil {
		t.Fatal(err)
	}
	sa, sb := httptest.NewServer(a.Handler()), httptest.NewServer(b.Handler())
	defer sa.Close()
	defer sb.Close()
	if v := value(scrapeMetrics(t, sa.URL, ""), "stormlab_topology_tuples_acked_total", "topology", "ta"); v != 9 {
		t.Errorf("service a: ta acked = %v, want 9", v)
	}
	fb := scrapeMetrics(t, sb.URL, "")
	if m := series(fb, "stormlab_topology_tuples_acked_total", "topology", "ta"); m != nil {
		t.Errorf("service b shows service a's topology: %v", m)
	}
	// Before any round every bucket is there (at 0), so rate() has a series from the first scrape.
	if h := series(fb, "stormlab_scheduling_round_duration_seconds").GetHistogram(); len(h.GetBucket()) < len(roundBoundsS) {
		t.Errorf("round duration buckets before any round: %v, want all %d bounds", h.GetBucket(), len(roundBoundsS))
	}
}
