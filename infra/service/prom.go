package service

import (
	"net/http"
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// PathPrometheus serves the service's metrics in the Prometheus exposition
// format (GET). Like every path but /v1/health it needs the bearer token
// when the service has one: the metrics name topologies and hosts, and
// Prometheus sends a token with a scrape_config's authorization block.
const PathPrometheus = "/metrics"

// latencyBoundsMs are the upper bounds (ms) of the complete-latency
// histogram's buckets, exposed in seconds. Up to 2047 ms the workers'
// HdrHistograms hold every integer ms value exactly, so those buckets are
// exact; above, an HdrHistogram bucket straddling a bound is counted by
// its lowest value, so a value less than 1 part in 1024 above the bound
// may be counted below it.
var latencyBoundsMs = []int64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000}

// roundBoundsS are the buckets (s) of the scheduling round's duration.
var roundBoundsS = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Metric descriptors. Counters are cumulative since the service started
// or was last reset (POST /v1/reset), which Prometheus's rate() takes as a
// counter reset.
var (
	descInfo = prometheus.NewDesc("stormlab_service_info",
		"The scheduler the service runs (value 1).", []string{"scheduler"}, nil)
	descRounds = prometheus.NewDesc("stormlab_scheduling_rounds_total",
		"Scheduling rounds answered (POST /v1/schedule).", nil, nil)
	descRoundSeconds = prometheus.NewDesc("stormlab_scheduling_round_duration_seconds",
		"Time the service took to answer a scheduling round.", nil, nil)
	descReports = prometheus.NewDesc("stormlab_worker_reports_total",
		"Worker reports received.", nil, nil)
	descUnauthorized = prometheus.NewDesc("stormlab_unauthorized_requests_total",
		"Requests refused for a missing or wrong token.", nil, nil)
	descAcked = prometheus.NewDesc("stormlab_topology_tuples_acked_total",
		"Spout tuples acked, summed over the workers' reports; rate() is the throughput.", []string{"topology"}, nil)
	descFailed = prometheus.NewDesc("stormlab_topology_tuples_failed_total",
		"Spout tuples failed, summed over the workers' reports.", []string{"topology"}, nil)
	descLatency = prometheus.NewDesc("stormlab_topology_complete_latency_seconds",
		"Complete latency of acked spout tuples, from the merged worker HdrHistograms (absent until a worker sends one).", []string{"topology"}, nil)
	descLatencyBad = prometheus.NewDesc("stormlab_topology_latency_histograms_unmerged_total",
		"Worker latency histograms that could not be merged (malformed or another layout).", []string{"topology"}, nil)
	descDecisions = prometheus.NewDesc("stormlab_topology_decisions_total",
		"Decisions the scheduler took (kind schedule: first placement; reschedule), applied or not.", []string{"topology", "kind"}, nil)
	descApplied = prometheus.NewDesc("stormlab_topology_decisions_applied_total",
		"Decisions sent to the bridge as a new placement.", []string{"topology", "kind"}, nil)
	descDecisionErrors = prometheus.NewDesc("stormlab_topology_decision_errors_total",
		"Decisions that failed (scheduler error or invalid assignment).", []string{"topology"}, nil)
	descFallbacks = prometheus.NewDesc("stormlab_fallbacks_total",
		"Times the bridge fell back to Storm's EvenScheduler (topology empty: the whole round).", []string{"topology"}, nil)
	descNodeCPU = prometheus.NewDesc("stormlab_node_cpu_used_cores",
		"Whole-node CPU use over the node's last report interval, in cores (1 = one core busy).", []string{"node"}, nil)
	descNodeTime = prometheus.NewDesc("stormlab_node_cpu_report_timestamp_seconds",
		"When the node's last CPU report was taken (Unix seconds): tells a stale gauge.", []string{"node"}, nil)
)

// newRegistry is the service's own registry (never the global default, so
// several services can run in one process): the service collector, and the
// Go runtime and process collectors every Prometheus target carries.
func newRegistry(s *Service) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{s}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// promHandler serves the registry in the format the scraper asks for.
func (s *Service) promHandler() http.Handler {
	return promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{})
}

// collector reads the service's state at scrape time: it keeps no
// counters of its own.
type collector struct{ s *Service }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descInfo, descRounds, descRoundSeconds, descReports, descUnauthorized,
		descAcked, descFailed, descLatency, descLatencyBad, descDecisions, descApplied, descDecisionErrors,
		descFallbacks, descNodeCPU, descNodeTime} {
		ch <- d
	}
}

// Collect builds the metrics under s.mu and sends them after releasing it,
// so a slow scrape never holds up reports or rounds.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	for _, m := range c.s.promMetrics() {
		ch <- m
	}
}

// metrics collects const metrics; a label value Prometheus refuses (not
// UTF-8) becomes an invalid metric, which the registry reports.
type metrics []prometheus.Metric

func (ms *metrics) add(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	m, err := prometheus.NewConstMetric(d, t, v, labels...)
	if err != nil {
		m = prometheus.NewInvalidMetric(d, err)
	}
	*ms = append(*ms, m)
}

func (ms *metrics) histogram(d *prometheus.Desc, count uint64, sum float64, buckets map[float64]uint64, labels ...string) {
	m, err := prometheus.NewConstHistogram(d, count, sum, buckets, labels...)
	if err != nil {
		m = prometheus.NewInvalidMetric(d, err)
	}
	*ms = append(*ms, m)
}

func (s *Service) promMetrics() metrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ms metrics
	ms.add(descInfo, prometheus.GaugeValue, 1, s.name)
	ms.add(descRounds, prometheus.CounterValue, float64(s.rounds))
	ms.add(descReports, prometheus.CounterValue, float64(int64(len(s.m.reports))+s.m.dropped))
	ms.add(descUnauthorized, prometheus.CounterValue, float64(s.auth.refused.Load()))
	s.roundMetrics(&ms)
	s.topologyMetrics(&ms)
	s.decisionMetrics(&ms)
	for _, host := range sortedKeys(s.nodeCPU) {
		r := s.nodeCPU[host]
		ms.add(descNodeCPU, prometheus.GaugeValue, r.CPUPercent/100, host)
		ms.add(descNodeTime, prometheus.GaugeValue, float64(r.TimeMs)/1000, host)
	}
	return ms
}

// roundMetrics is the histogram of the kept round times; call with s.mu held.
func (s *Service) roundMetrics(ms *metrics) {
	buckets := make(map[float64]uint64, len(roundBoundsS))
	for _, b := range roundBoundsS {
		buckets[b] = 0 // every bucket from the first scrape on: a series appearing later breaks rate()
	}
	var sum float64
	for _, rt := range s.roundTimes {
		sec := rt.ServiceMs / 1000
		sum += sec
		for _, b := range roundBoundsS {
			if sec <= b {
				buckets[b]++
			}
		}
	}
	ms.histogram(descRoundSeconds, uint64(len(s.roundTimes)), sum, buckets)
}

// topologyMetrics are the per-topology counts and latency; call with s.mu held.
func (s *Service) topologyMetrics(ms *metrics) {
	for _, id := range sortedKeys(s.m.topos) {
		t := s.m.topos[id]
		ms.add(descAcked, prometheus.CounterValue, float64(t.acked), id)
		ms.add(descFailed, prometheus.CounterValue, float64(t.failed), id)
		ms.add(descLatencyBad, prometheus.CounterValue, float64(t.latencyBad), id)
		if t.latencyHist != nil {
			count, sum, buckets := promBuckets(t.latencyHist, latencyBoundsMs)
			ms.histogram(descLatency, count, sum, buckets, id)
		}
	}
}

// decisionMetrics counts the decision log and the fallbacks; call with s.mu held.
func (s *Service) decisionMetrics(ms *metrics) {
	type key struct{ topology, kind string }
	taken, applied, failed := map[key]int{}, map[key]int{}, map[string]int{}
	for _, r := range s.decisions {
		k := key{r.Topology, r.Kind}
		taken[k]++
		if r.Applied {
			applied[k]++
		}
		if r.Error != "" {
			failed[r.Topology]++
		}
	}
	keys := make([]key, 0, len(taken))
	for k := range taken {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].topology != keys[j].topology {
			return keys[i].topology < keys[j].topology
		}
		return keys[i].kind < keys[j].kind
	})
	for _, k := range keys {
		ms.add(descDecisions, prometheus.CounterValue, float64(taken[k]), k.topology, k.kind)
		ms.add(descApplied, prometheus.CounterValue, float64(applied[k]), k.topology, k.kind)
	}
	for _, id := range sortedKeys(failed) {
		ms.add(descDecisionErrors, prometheus.CounterValue, float64(failed[id]), id)
	}
	fallbacks := map[string]int{}
	for _, f := range s.fallbacks {
		fallbacks[f.Topology]++
	}
	for _, id := range sortedKeys(fallbacks) {
		ms.add(descFallbacks, prometheus.CounterValue, float64(fallbacks[id]), id)
	}
}

// promBuckets maps an HdrHistogram of milliseconds onto cumulative
// Prometheus buckets with the given bounds, in seconds. The sum counts
// each value at the middle of its HdrHistogram bucket (as the
// HdrHistogram's own Mean does): exact up to 2047 ms.
func promBuckets(h *hdrhistogram.Histogram, boundsMs []int64) (count uint64, sumS float64, buckets map[float64]uint64) {
	bars := h.Distribution()
	var sumMs int64
	for _, b := range bars {
		sumMs += b.Count * (b.From + (b.To-b.From+1)/2)
	}
	buckets = make(map[float64]uint64, len(boundsMs))
	var cum uint64
	i := 0
	for _, b := range boundsMs {
		for ; i < len(bars) && bars[i].From <= b; i++ {
			cum += uint64(bars[i].Count)
		}
		buckets[float64(b)/1000] = cum
	}
	return uint64(h.TotalCount()), float64(sumMs) / 1000, buckets
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
