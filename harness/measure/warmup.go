package measure

import (
	"math"
	"sort"
	"strconv"

	"github.com/stormlab/stormlab/infra/protocol"
)

// Steady state: the window of a Timed run opens once the topology's throughput was stable over
// SteadyIntervals consecutive report intervals, i.e. (max - min) <= steadyTolerance * mean of their
// throughputs (and the mean > 0), or when the maximum warm-up (RunSpec.WarmUp) has passed, whichever
// comes first; in an open-loop run steady also needs the acked rate within steadyTolerance of the
// spouts' offered rate (drained). An interval's throughput sums over the workers each one's acked tuples divided by the
// length of its own report interval, so report times need not be aligned across workers.
const (
	SteadyIntervals = 3
	steadyTolerance = 0.10
)

// WarmUp records how a run's warm-up ended.
type WarmUp struct {
	MaxS   float64   `json:"max_s"`           // the stated maximum (RunSpec.WarmUp)
	S      float64   `json:"s"`               // waited: every worker ready (see unready) -> window open
	Steady bool      `json:"steady"`          // the window opened on steady throughput, not on the maximum
	Rates  []float64 `json:"rates,omitempty"` // the last interval throughputs seen (tuples/s), oldest first
	// OfferedRate is the open-loop spouts' offered rate over those intervals (tuples/s); in an open-loop
	// run steady also needs the acked rate within steadyTolerance of it (the start-up backlog drained).
	OfferedRate float64 `json:"offered_rate,omitempty"`
	// Settle: the run asked for a settled placement too (RunSpec.Settle); Settled: it had one when the
	// window opened (false with Settle: the maximum came first, the scheduler was still moving).
	Settle  bool `json:"settle,omitempty"`
	Settled bool `json:"settled,omitempty"`
}

// atMaximum: the window of a timed run opened at its stated maximum warm-up, throughput not yet steady
// (a run that asked for no warm-up, MaxS 0, measures from the start on purpose).
func (w WarmUp) atMaximum(timed bool) bool { return timed && !w.Steady && w.MaxS > 0 }

// intervalRates returns the throughput (acked tuples/s) of the n newest report intervals, oldest
// first: interval k sums, over the workers, the k-th newest report's Acked / IntervalS. ok is false
// while some worker has fewer than n reports. When no report acked or failed a tuple (spouts that do
// not anchor), the tuples executed by the sink tasks count instead, as in measureSinks.
func intervalRates(reports []protocol.WorkerReport, n int) (rates []float64, ok bool) {
	count := func(r *protocol.WorkerReport) int64 { return r.Acked }
	if !anyAcks(reports) {
		sinks := sinkTasks(reports)
		count = func(r *protocol.WorkerReport) int64 {
			var c int64
			for _, t := range r.Traffic {
				if sinks[t.Dst] && t.Src != t.Dst {
					c += t.Count
				}
			}
			return c
		}
	}
	byWorker := map[string][]protocol.WorkerReport{}
	for _, x := range reports {
		k := x.Host + ":" + strconv.Itoa(x.Port)
		byWorker[k] = append(byWorker[k], x)
	}
	if len(byWorker) == 0 || n <= 0 {
		return nil, false
	}
	rates = make([]float64, n)
	for _, reps := range byWorker {
		if len(reps) < n {
			return nil, false
		}
		sort.Slice(reps, func(i, j int) bool { return reps[i].TimeMs < reps[j].TimeMs })
		for k, x := range reps[len(reps)-n:] {
			if x.IntervalS > 0 {
				rates[k] += float64(count(&x)) / x.IntervalS
			}
		}
	}
	return rates, true
}

// offeredRate is the open-loop spouts' offered rate (tuples/s) over the n newest report intervals:
// per worker, the growth of its spout tasks' offered totals between its (n+1)-th newest and newest
// report, over the time between them, summed over workers. open is false when no report has spout
// load (a closed-loop run) or no worker with spout load has n+1 reports yet.
func offeredRate(reports []protocol.WorkerReport, n int) (rate float64, open bool) {
	byWorker := map[string][]protocol.WorkerReport{}
	for _, x := range reports {
		if len(x.SpoutLoad) > 0 {
			k := x.Host + ":" + strconv.Itoa(x.Port)
			byWorker[k] = append(byWorker[k], x)
		}
	}
	for _, reps := range byWorker {
		if len(reps) < n+1 {
			return 0, false
		}
		sort.Slice(reps, func(i, j int) bool { return reps[i].TimeMs < reps[j].TimeMs })
		first, last := reps[len(reps)-n-1], reps[len(reps)-1]
		if dt := float64(last.TimeMs-first.TimeMs) / 1000; dt > 0 && offeredTotal(last) >= offeredTotal(first) {
			rate += float64(offeredTotal(last)-offeredTotal(first)) / dt
		}
	}
	return rate, len(byWorker) > 0
}

func offeredTotal(r protocol.WorkerReport) int64 {
	var n int64
	for _, l := range r.SpoutLoad {
		n += l.OfferedTotal
	}
	return n
}

// drained reports whether the mean acked rate is within tol of the offered rate: below it the cluster
// is not keeping up; above it, it is still working off the backlog that built up while the workers
// started (the spouts offer from the moment their own worker runs).
func drained(rates []float64, offered, tol float64) bool {
	if offered <= 0 || len(rates) == 0 {
		return false
	}
	sum := 0.0
	for _, x := range rates {
		sum += x
	}
	return math.Abs(sum/float64(len(rates))-offered) <= tol*offered
}

// steady reports whether (max - min) <= tol * mean over rates, with a positive mean.
func steady(rates []float64, tol float64) bool {
	if len(rates) == 0 {
		return false
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, x := range rates {
		lo, hi, sum = math.Min(lo, x), math.Max(hi, x), sum+x
	}
	mean := sum / float64(len(rates))
	return mean > 0 && hi-lo <= tol*mean
}

// sinkTasks are the tasks that executed tuples from other tasks and sent none, over the reports.
func sinkTasks(reports []protocol.WorkerReport) map[int]bool {
	recv, sent := map[int]bool{}, map[int]bool{}
	for i := range reports {
		for _, t := range reports[i].Traffic {
			if t.Src != t.Dst {
				recv[t.Dst], sent[t.Src] = true, true
			}
		}
	}
	sinks := map[int]bool{}
	for task := range recv {
		if !sent[task] {
			sinks[task] = true
		}
	}
	return sinks
}

// Steadiness is how steady a run's newest report intervals were: the warm-up's test.
type Steadiness struct {
	Rates       []float64 // acked rate of the SteadyIntervals newest intervals, oldest first (tuples/s)
	Steady      bool      // steady by steadyTolerance, and drained when open loop
	Open        bool      // the spouts reported an offered rate (open loop)
	OfferedRate float64   // their offered rate over those intervals (tuples/s)
}

// SteadyNow judges the newest SteadyIntervals report intervals; ok is false while some worker has
// fewer reports than that.
func SteadyNow(reports []protocol.WorkerReport) (s Steadiness, ok bool) {
	rates, ok := intervalRates(reports, SteadyIntervals)
	if !ok {
		return s, false
	}
	s.Rates, s.Steady = rates, steady(rates, steadyTolerance)
	if offered, open := offeredRate(reports, SteadyIntervals); open {
		// Open loop: steady also means the start-up backlog has drained (acked ~ offered).
		s.Open, s.OfferedRate = true, offered
		s.Steady = s.Steady && drained(rates, offered, steadyTolerance)
	}
	return s, true
}

// Latest is what the newest reports say, for a live progress line.
type Latest struct {
	AckedRate    float64 // over each worker's newest report interval (tuples/s)
	LatencyP99Ms float64 // complete latency of those intervals (0 when not measured)
	OfferedRate  float64 // open-loop spouts' offered rate over the newest interval (0 in closed loop)
}

// LatestOf reads reports (a run's so far) for a live line.
func LatestOf(reports []protocol.WorkerReport) Latest {
	var l Latest
	newest := newestPerWorker(reports)
	if rates, ok := intervalRates(newest, 1); ok {
		l.AckedRate = rates[0]
	}
	g := newMerger(protocol.LatencyHistHighest, protocol.FieldLatencyHist)
	for _, x := range newest {
		g.add(workerKey{x.Topology, x.Host, x.Port}, &x, x.LatencyHist)
	}
	if h, why := g.result(); why == "" {
		l.LatencyP99Ms = float64(h.ValueAtQuantile(99))
	}
	if off, open := offeredRate(reports, 1); open {
		l.OfferedRate = off
	}
	return l
}

// newestPerWorker keeps each worker's newest report.
func newestPerWorker(reps []protocol.WorkerReport) []protocol.WorkerReport {
	byWorker := map[workerKey]protocol.WorkerReport{}
	for _, x := range reps {
		k := workerKey{x.Topology, x.Host, x.Port}
		if old, ok := byWorker[k]; !ok || x.TimeMs > old.TimeMs {
			byWorker[k] = x
		}
	}
	out := make([]protocol.WorkerReport, 0, len(byWorker))
	for _, x := range byWorker {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].TimeMs < out[j].TimeMs })
	return out
}
