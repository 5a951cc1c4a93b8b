package measure

import (
	"fmt"
	"math"
	"sort"

	"github.com/stormlab/stormlab/infra/protocol"
)

// recoveryTolerance: throughput is back when an interval's throughput is at least (1 - tolerance)
// times the pre-fault level. A burst above the level (replays catching up) counts as back.
const recoveryTolerance = 0.10

// Recovery is how a topology came through one fault, from the worker reports of its window.
//
// Definitions (chosen here; no paper fixes them). Throughput is bucketed into intervals of StepS by
// each report's time (acked tuples / StepS). PreTput is the mean of the intervals that end before the
// fault starts; when it is 0 (nothing flowed before the fault) the recovery is not measured. The fault hurt throughput when some interval starting at or after the fault's start
// is below (1-recoveryTolerance)*PreTput (the dip); RecoveryS is then the time from the fault's start
// to the end of the first later interval back at that level, or Recovered is false if none is before
// the window closes. No dip: Recovered, RecoveryS = 0. LostTuples sums (PreTput - rate) * StepS over
// the intervals from the fault's start to the recovery (or the window's last whole interval) where the rate is below
// PreTput. FailedTuples sums the reports' failed tuples (timeouts, which a reliable spout replays) from
// the fault's start to the window's end; WorkerStarts counts worker incarnations (WorkerStartMs) first
// seen after the fault's start; ExecutorsMoved counts executors on another host at the window's end
// than at the fault's start.
type Recovery struct {
	StepS          float64 `json:"step_s"`
	PreTput        float64 `json:"pre_tuples_s"`
	Measured       bool    `json:"measured"` // false: no interval before the fault, or none of them had throughput
	Dip            bool    `json:"dip"`
	Recovered      bool    `json:"recovered"`
	RecoveryS      float64 `json:"recovery_s"`
	LostTuples     float64 `json:"lost_tuples"`
	FailedTuples   int64   `json:"failed_tuples"`
	WorkerStarts   int     `json:"worker_starts"`
	ExecutorsMoved int     `json:"executors_moved"`
	// PreLatencyMs and FaultLatencyMs are the mean sampled complete latencies of the reports timed in
	// the window before the fault's start and from its start to its end (0: no sample); what a delay
	// fault changes, see faultLatency.
	PreLatencyMs   float64 `json:"pre_latency_ms"`
	FaultLatencyMs float64 `json:"fault_latency_ms"`
}

// faultLatency is the mean of the complete-latency samples of the reports timed in (fromMs, startMs]
// (before the fault) and in (startMs, endMs] (during it); 0 where there is none. A report covers the
// interval before its time, so the first report after the start still holds some samples from before
// it: the during mean is diluted by at most one report interval, never inflated.
func faultLatency(reports []protocol.WorkerReport, fromMs, startMs, endMs int64) (pre, during float64) {
	var sp, sd float64
	var np, nd int
	for _, x := range reports {
		switch {
		case x.TimeMs > fromMs && x.TimeMs <= startMs:
			for _, l := range x.CompleteLatencyMs {
				sp += l
				np++
			}
		case x.TimeMs > startMs && x.TimeMs <= endMs:
			for _, l := range x.CompleteLatencyMs {
				sd += l
				nd++
			}
		}
	}
	if np > 0 {
		pre = sp / float64(np)
	}
	if nd > 0 {
		during = sd / float64(nd)
	}
	return pre, during
}

// Verdict is "recovered in N s", "not recovered" or "not measured", for tables.
func (r Recovery) Verdict() string {
	switch {
	case !r.Measured:
		return "not measured"
	case !r.Recovered:
		return "not recovered"
	}
	return "recovered"
}

// recoveryOf computes the Recovery of a fault that started at startMs, from the reports of the window
// [fromMs, toMs) in intervals of step ms.
func recoveryOf(reports []protocol.WorkerReport, fromMs, toMs, startMs, stepMs int64) Recovery {
	rec := Recovery{StepS: float64(stepMs) / 1000}
	if stepMs <= 0 || toMs <= fromMs {
		return rec
	}
	// Whole intervals only: a last, partial interval holds fewer acks (and the report after the window
	// is not read) and would read as a dip and as lost tuples.
	n := max(1, int((toMs-fromMs)/stepMs))
	acked := ackedPerInterval(reports, fromMs, stepMs, n)
	seen := map[string]bool{}
	for _, x := range reports {
		if x.TimeMs > startMs && x.TimeMs <= toMs {
			rec.FailedTuples += x.Failed
			inc := fmt.Sprintf("%s:%d@%d", x.Host, x.Port, x.WorkerStartMs)
			if x.WorkerStartMs >= startMs && !seen[inc] {
				seen[inc] = true
				rec.WorkerStarts++
			}
		}
	}
	stepS := float64(stepMs) / 1000
	var pre []float64
	first := -1 // first interval starting at or after the fault's start
	for i := range acked {
		s, e := fromMs+int64(i)*stepMs, fromMs+int64(i+1)*stepMs
		if e <= startMs {
			pre = append(pre, acked[i]/stepS)
		} else if s >= startMs && first < 0 {
			first = i
		}
	}
	if len(pre) == 0 || first < 0 {
		return rec
	}
	for _, x := range pre {
		rec.PreTput += x
	}
	rec.PreTput /= float64(len(pre))
	if rec.PreTput <= 0 {
		// Nothing flowed before the fault (e.g. workers restarting after a reschedule): there is
		// no level to recover to, and "no dip below 90% of zero" would read as recovered in 0 s.
		return rec
	}
	rec.Measured = true
	level := (1 - recoveryTolerance) * rec.PreTput
	last := n
	for i := first; i < n; i++ {
		rate := acked[i] / stepS
		if !rec.Dip {
			if rate < level {
				rec.Dip = true
			}
		} else if rate >= level {
			rec.Recovered = true
			rec.RecoveryS = float64(fromMs+int64(i+1)*stepMs-startMs) / 1000
			last = i
			break
		}
	}
	if !rec.Dip {
		rec.Recovered = true
		return rec
	}
	// The interval holding the fault's start counts from the fault's start on.
	if s := fromMs + int64(first-1)*stepMs; first > 0 && s < startMs {
		if rate := acked[first-1] / stepS; rate < rec.PreTput {
			rec.LostTuples += (rec.PreTput - rate) * float64(fromMs+int64(first)*stepMs-startMs) / 1000
		}
	}
	for i := first; i < last; i++ {
		if rate := acked[i] / stepS; rate < rec.PreTput {
			rec.LostTuples += (rec.PreTput - rate) * stepS
		}
	}
	rec.LostTuples = math.Round(rec.LostTuples)
	return rec
}

// movedExecutors counts executors (by component and task range) placed on another host in after than in
// before; executors missing from either are not counted.
func movedExecutors(before, after []ExecutorPlace) int {
	host := map[string]string{}
	for _, e := range before {
		host[e.key()] = e.Host
	}
	n := 0
	for _, e := range after {
		if h, ok := host[e.key()]; ok && h != "" && e.Host != "" && h != e.Host {
			n++
		}
	}
	return n
}

// RecoveryStepMs is the interval of the recovery series: the run's Step (5 s if none), but never
// shorter than the median report interval (a shorter one would see empty intervals as dips). The
// median, not the longest: a paused worker's first report after the pause covers the whole pause.
func RecoveryStepMs(step int64, reports []protocol.WorkerReport) int64 {
	if step <= 0 {
		step = 5000
	}
	if len(reports) == 0 {
		return step
	}
	iv := make([]float64, 0, len(reports))
	for _, x := range reports {
		iv = append(iv, x.IntervalS)
	}
	sort.Float64s(iv)
	if ms := int64(math.Ceil(iv[len(iv)/2] * 1000)); ms > step {
		step = ms
	}
	return step
}

// ackedPerInterval sums acked tuples into n intervals of stepMs from fromMs. A worker incarnation's
// acks between two of its reports are AckedTotal's difference (so a report lost on the way, e.g. while
// the service was down, loses no acks), spread evenly over the time between the two reports; its first
// report (or one without totals) counts Acked over its own interval.
func ackedPerInterval(reports []protocol.WorkerReport, fromMs, stepMs int64, n int) []float64 {
	acked := make([]float64, n)
	spread := func(a, b int64, count float64) {
		if b <= a || count <= 0 {
			return
		}
		for i := max(0, int((a-fromMs)/stepMs)); i < n; i++ {
			s, e := fromMs+int64(i)*stepMs, fromMs+int64(i+1)*stepMs
			if s >= b {
				break
			}
			if lo, hi := max(s, a), min(e, b); hi > lo {
				acked[i] += count * float64(hi-lo) / float64(b-a)
			}
		}
	}
	byInc := map[string][]protocol.WorkerReport{}
	for _, x := range reports {
		k := fmt.Sprintf("%s:%d@%d", x.Host, x.Port, x.WorkerStartMs)
		byInc[k] = append(byInc[k], x)
	}
	for _, reps := range byInc {
		sort.Slice(reps, func(i, j int) bool { return reps[i].TimeMs < reps[j].TimeMs })
		for i, x := range reps {
			if i > 0 && x.AckedTotal > 0 && x.AckedTotal >= reps[i-1].AckedTotal && x.WorkerStartMs > 0 {
				spread(reps[i-1].TimeMs, x.TimeMs, float64(x.AckedTotal-reps[i-1].AckedTotal))
				continue
			}
			spread(x.TimeMs-int64(x.IntervalS*1000), x.TimeMs, float64(x.Acked))
		}
	}
	return acked
}

// FaultRecovery is how the run came through a fault from startMs to endMs inside its window
// [fromMs, toMs] (see Recovery), with the executors moved between before (the placement at the fault's
// start) and after (at the window's end) and the mean complete latency before and during the fault.
func FaultRecovery(reports []protocol.WorkerReport, fromMs, toMs, startMs, endMs, stepMs int64, before, after []ExecutorPlace) Recovery {
	rec := recoveryOf(reports, fromMs, toMs, startMs, stepMs)
	rec.ExecutorsMoved = movedExecutors(before, after)
	rec.PreLatencyMs, rec.FaultLatencyMs = faultLatency(reports, fromMs, startMs, endMs)
	return rec
}
