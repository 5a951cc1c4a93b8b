package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stormlab/stormlab/infra/protocol"
)

// Level is how far a run can be trusted. Levels merge as Jepsen's merge-valid: Invalid beats Suspect
// beats Valid, so a run is as bad as its worst reason.
type Level string

// ReasonKind says what a Reason is about, so that readers act on kinds, not on texts.
type ReasonKind string

// The levels of a Validity and the kinds of a Reason.
const (
	Valid   Level = "valid"   // the run counts
	Suspect Level = "suspect" // some figures are in doubt (see the reasons' kinds); it stays in tables
	Invalid Level = "invalid" // the run must not be reported

	ReasonScheduler    ReasonKind = "scheduler"     // another scheduler than asked placed the topology (invalid)
	ReasonUnassigned   ReasonKind = "unassigned"    // executors stayed unassigned (invalid)
	ReasonNoThroughput ReasonKind = "no-throughput" // no tuple acked in the window (invalid)
	ReasonStormUnread  ReasonKind = "storm-unread"  // Storm's counters, the yardstick, did not cover the window (invalid)
	ReasonStormCounts  ReasonKind = "storm-counts"  // acked or throughput disagree with Storm's (suspect)
	ReasonStormLatency ReasonKind = "storm-latency" // mean latency disagrees with Storm's, counts agree (suspect)
	ReasonUnsteady     ReasonKind = "unsteady"      // the window opened at the maximum warm-up, throughput not steady (suspect)
	ReasonUnknown      ReasonKind = "unknown"       // the run could not be judged (suspect: never valid)
)

// Reason is one cause of a run's Level.
type Reason struct {
	Kind  ReasonKind `json:"kind"`
	Level Level      `json:"level"`
	Text  string     `json:"text"`
}

// Validity is the one judgement of a run (judge), saved in run.json as "validity".
type Validity struct {
	Level   Level    `json:"level"`
	Reasons []Reason `json:"reasons,omitempty"`
}

// Err is nil unless the run is invalid; then it is the invalid reasons' texts, one a line (what keeps
// the run from counting). A suspect run counts: read its reasons with Text(Suspect).
func (v Validity) Err() error {
	if v.Level != Invalid {
		return nil
	}
	return errors.New(strings.Join(v.texts(Invalid), "\n"))
}

// Text joins the texts of the reasons at level l with "; " ("" when none).
func (v Validity) Text(l Level) string { return strings.Join(v.texts(l), "; ") }

func (v Validity) texts(l Level) []string {
	var out []string
	for _, r := range v.Reasons {
		if r.Level == l {
			out = append(out, r.Text)
		}
	}
	return out
}

// Doubts reports whether a suspect reason of v concerns metric (a Measurement field's JSON name or
// an experiment's metric): a storm-latency reason concerns the latency metrics only (the counts
// agreed with Storm's), every other suspect reason concerns every metric.
func (v Validity) Doubts(metric string) bool {
	for _, r := range v.Reasons {
		if rank(r.Level) == 1 && (r.Kind != ReasonStormLatency || slices.Contains(latencyMetrics, metric)) {
			return true
		}
	}
	return false
}

// Counts reports whether the run's figure for metric may feed a statistic or a claim: the run is not
// invalid and no suspect reason concerns metric. The zero Validity (a run never judged: the graph
// experiments') counts.
func (v Validity) Counts(metric string) bool { return v.Level != Invalid && !v.Doubts(metric) }

// latencyMetrics are the metrics computed from complete latency (Measurement's JSON names), the
// ones a storm-latency reason puts in doubt.
var latencyMetrics = []string{"latency_mean_ms", "latency_p99_ms"}

// Waive sets aside v's reasons of the given kinds: they stay, their text prefixed with why, at level
// Valid (so they still read in run.json and raw.csv but count against nothing), and the level is the
// worst of the others. For an experiment whose design breaks a check's premise (a killed supervisor
// takes Storm's counters, the cross-check's yardstick, with it).
func (v Validity) Waive(why string, kinds ...ReasonKind) Validity {
	rs := make([]Reason, len(v.Reasons))
	for i, r := range v.Reasons {
		if slices.Contains(kinds, r.Kind) {
			r.Level, r.Text = Valid, why+": "+r.Text
		}
		rs[i] = r
	}
	return Validity{Level: Valid}.merge(rs...)
}

// rank orders levels for merge; an unknown level ranks as Suspect (never as Valid).
func rank(l Level) int {
	switch l {
	case Valid, "":
		return 0
	case Invalid:
		return 2
	}
	return 1
}

// merge adds reasons to v; its level becomes the worst of all (merge-valid).
func (v Validity) merge(reasons ...Reason) Validity {
	out := Validity{Level: Valid, Reasons: append(append([]Reason(nil), v.Reasons...), reasons...)}
	for _, r := range out.Reasons {
		if rank(r.Level) > rank(out.Level) {
			out.Level = r.Level
			if rank(r.Level) == 1 {
				out.Level = Suspect
			}
		}
	}
	return out
}

// judge is the one place a run's validity is computed, from its records: the scheduler service's
// state (which scheduler ran, fallbacks, decisions), Nimbus's assignment, the measurement and the
// cross-check with Storm's statistics. A panic while judging becomes an "unknown" reason at Suspect
// (like Jepsen's check-safe): a run that could not be judged is never valid.
func judge(r *RunResult) (v Validity) {
	defer func() {
		if p := recover(); p != nil {
			v = Validity{Level: Valid}.merge(Reason{ReasonUnknown, Suspect, fmt.Sprintf("judging the run failed: %v", p)})
		}
	}()
	rs := schedulerReasons(r)
	if r.Unassigned > 0 {
		rs = append(rs, Reason{ReasonUnassigned, Invalid, fmt.Sprintf("%d executors stayed unassigned", r.Unassigned)})
	}
	rs = append(rs, throughputReasons(r)...)
	rs = append(rs, r.Storm.reasons()...)
	rs = append(rs, warmUpReasons(r)...)
	return Validity{Level: Valid}.merge(rs...)
}

// warmUpReasons: a timed run whose window opened at its maximum warm-up, before throughput was steady
// (open loop: before the start-up backlog drained), measured a transient; its figures are in doubt.
// A run that asked for no warm-up (WarmUp 0) measures from the start on purpose.
func warmUpReasons(r *RunResult) []Reason {
	w := r.WarmUp
	if r.EndKind != "timed" || w.Steady || w.MaxS == 0 {
		return nil
	}
	text := fmt.Sprintf("the window opened at the maximum warm-up (%.0f s) before throughput was steady (last intervals %s tuples/s)", w.MaxS, ratesText(w.Rates))
	if w.OfferedRate > 0 {
		text += fmt.Sprintf(", offered %.0f tuples/s", w.OfferedRate)
	}
	return []Reason{{ReasonUnsteady, Suspect, text}}
}

func ratesText(rates []float64) string {
	if len(rates) == 0 {
		return "none"
	}
	parts := make([]string, len(rates))
	for i, x := range rates {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(parts, ", ")
}

// schedulerReasons: a bridged run counts only if the service ran the scheduler asked, the bridge never
// fell back and a placement was applied. A run saved before the service's scheduler was recorded keeps
// the scheduler reasons it was saved with.
func schedulerReasons(r *RunResult) []Reason {
	if _, bridged := StormSchedulerClass(r.Spec.Scheduler); bridged && r.ServiceScheduler == "" {
		var kept []Reason
		for _, x := range r.Validity.Reasons {
			if x.Kind == ReasonScheduler {
				kept = append(kept, x)
			}
		}
		return kept
	}
	if why := invalid(r.Spec.Scheduler, r.ServiceScheduler, r.Fallbacks, r.Decisions); why != "" {
		return []Reason{{ReasonScheduler, Invalid, why}}
	}
	return nil
}

// throughputReasons: a run whose window saw no acked tuple (by its yardstick) does not count.
func throughputReasons(r *RunResult) []Reason {
	switch {
	case r.EndKind == kindStormCounted && !r.Storm.Compared && len(r.Storm.Spouts) == 0:
		// Storm's counters are this run's yardstick.
		return []Reason{{ReasonStormUnread, Invalid, "Storm's statistics did not cover the window: " + r.Storm.Note}}
	case r.EndKind == kindStormCounted && r.Storm.Throughput <= 0:
		return []Reason{{ReasonNoThroughput, Invalid, "throughput is zero: Storm counted no acked tuple in the measurement window"}}
	case r.EndKind != kindStormCounted && r.Measurement.Throughput <= 0:
		return []Reason{{ReasonNoThroughput, Invalid, "throughput is zero: no tuple was acked in the measurement window"}}
	}
	return nil
}

// UnmarshalJSON reads run.json of this version ("validity") and of earlier ones, whose "invalid" and
// "suspect" strings become reasons (kind scheduler, and storm-counts or storm-latency by the saved
// differences). Load judges a kept run again from its records in any case.
func (r *RunResult) UnmarshalJSON(b []byte) error {
	type plain RunResult
	aux := struct {
		*plain
		Invalid string `json:"invalid"`
		Suspect string `json:"suspect"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	if r.Validity.Level != "" || (aux.Invalid == "" && aux.Suspect == "") {
		if r.Validity.Level == "" {
			r.Validity.Level = Valid
		}
		return nil
	}
	var rs []Reason
	if aux.Invalid != "" {
		rs = append(rs, Reason{ReasonScheduler, Invalid, aux.Invalid})
	}
	if aux.Suspect != "" {
		kind := ReasonStormCounts
		if r.Storm.Diff <= r.Storm.countTolerance() {
			kind = ReasonStormLatency
		}
		rs = append(rs, Reason{kind, Suspect, aux.Suspect})
	}
	r.Validity = Validity{Level: Valid}.merge(rs...)
	return nil
}

// SteadySpan re-judges the warm-up doubt of a timed run whose figures an experiment takes over
// [fromMs, toMs] only, not over the whole window (kpart-cluster judges the second half, after the
// dynamic schedulers' first reschedule): then whether that span was steady matters, not how the window
// opened. A steady span drops the run's "unsteady" reason; an unsteady one replaces it with one that
// names what the span measured. Other reasons are kept. Open loop (the spouts reported a schedule in
// the span) it is judged by openSteady, closed loop by closedSteady.
func (r *RunResult) SteadySpan(capacity map[string]float64, fromMs, toMs int64) Validity {
	steadyNow, why := r.spanSteady(capacity, fromMs, toMs)
	var keep []Reason
	for _, x := range r.Validity.Reasons {
		if x.Kind != ReasonUnsteady {
			keep = append(keep, x)
		}
	}
	if !steadyNow {
		keep = append(keep, Reason{ReasonUnsteady, Suspect, fmt.Sprintf("the %.0f s judged were not steady (%s)", float64(toMs-fromMs)/1000, why)})
	}
	return Validity{Level: Valid}.merge(keep...)
}

// spanSteady judges [fromMs, toMs] by SteadySpan's rules and says what it measured.
func (r *RunResult) spanSteady(capacity map[string]float64, fromMs, toMs int64) (bool, string) {
	if m := r.MeasureWindow(capacity, fromMs, toMs); m.OpenLoop != nil && m.OpenLoop.OfferedRate > 0 {
		return r.openSteady(capacity, m, fromMs, toMs)
	}
	return r.closedSteady(capacity, fromMs, toMs)
}

// openSteady: the offered rate is fixed by construction, so the span is steady when no backlog built
// up or drained in it: its acked rate within 10% of its offered rate (the warm-up's drained rule), and
// its latency p50 from the intended send time flat (latencyFlat). The parts' acked rates are not
// compared: acks of a constant offered load land in report intervals with the jitter of their latency,
// so parts of a few report intervals swing by more than 10% with nothing unsteady (docs/results-log.md,
// kpart-cluster open loop). The acked rate alone lets a run through that drains a backlog a little
// faster than the offered rate (one online run acked 8% above it with seconds of latency). A backlog
// that builds or drains moves the latency by its size over the rate (5% of the rate over 7.5 s:
// 375 ms); the send lag alone, the capacity search's trend, misses a backlog queued past the spout.
func (r *RunResult) openSteady(capacity map[string]float64, m Measurement, fromMs, toMs int64) (bool, string) {
	offered := m.OpenLoop.OfferedRate
	rates := fmt.Sprintf("acked %.0f of the %.0f tuples/s offered", m.Throughput, offered)
	if !drained([]float64{m.Throughput}, offered, steadyTolerance) {
		return false, rates
	}
	mid := fromMs + (toMs-fromMs)/2
	flat, lat := latencyFlat(r.MeasureWindow(capacity, fromMs, mid).OpenLoop, r.MeasureWindow(capacity, mid, toMs).OpenLoop)
	return flat, rates + "; " + lat
}

// closedSteady: at saturation nothing fixes the rate, so the span is steady when
//   - no worker started in it (a restart or a migration, which need not make a linear trend),
//   - no part of it fell below 80% of the parts' mean (a dip or a collapse), and
//   - its acked rate has no trend: a line fitted over its parts changes by at most 10% of their mean
//     over the span, or its slope is not significant (trend).
//
// A range rule (max - min <= 10% of the mean, the warm-up's) is not used: the parts' acked rates swing
// with the acks' jitter, without a direction, and it read most kpart-cluster quick runs as unsteady
// (docs/results-log.md), while a ramp or a decline runs one way through every part.
func (r *RunResult) closedSteady(capacity map[string]float64, fromMs, toMs int64) (bool, string) {
	if at, ok := r.workerStarted(fromMs, toMs); ok {
		return false, fmt.Sprintf("a worker started %.0f s into it", float64(at-fromMs)/1000)
	}
	n := trendParts(r.Reports, toMs-fromMs)
	rates := make([]float64, n)
	for i := range n {
		rates[i] = r.MeasureWindow(capacity, fromMs+i*(toMs-fromMs)/n, fromMs+(i+1)*(toMs-fromMs)/n).Throughput
	}
	mean := stat.Mean(rates, nil)
	text := fmt.Sprintf("acked rates of its %d parts %s tuples/s", n, ratesText(rates))
	switch change, significant := trend(rates); {
	case mean <= 0:
		return false, text + ": nothing acked"
	case slices.Min(rates) < (1-2*steadyTolerance)*mean:
		return false, fmt.Sprintf("%s: a part below %.0f%% of their mean", text, 100*(1-2*steadyTolerance))
	case significant && math.Abs(change) > steadyTolerance:
		return false, fmt.Sprintf("%s: a significant trend of %+.0f%% over the span", text, 100*change)
	}
	return true, text
}

// workerStarted reports the first start of a worker incarnation inside [fromMs, toMs]: a restart or a
// migration, the transient the span must not hold.
func (r *RunResult) workerStarted(fromMs, toMs int64) (int64, bool) {
	first, ok := int64(0), false
	for _, rep := range r.Reports {
		if s := rep.WorkerStartMs; s > fromMs && s <= toMs && (!ok || s < first) {
			first, ok = s, true
		}
	}
	return first, ok
}

// Parts of a closed-loop span for its trend: two report intervals each (so that every worker has a
// whole interval in each), at least minTrendParts (fewer leave Student's t almost no power: with 3
// parts a 30% monotone decline is not significant) and at most maxTrendParts.
const (
	minTrendParts = 5
	maxTrendParts = 10
)

// trendParts is how many equal parts a closed-loop span of spanMs is cut into (see minTrendParts).
func trendParts(reports []protocol.WorkerReport, spanMs int64) int64 {
	interval := 0.0
	for _, rep := range reports {
		interval = max(interval, rep.IntervalS)
	}
	if interval <= 0 {
		return minTrendParts
	}
	return min(maxTrendParts, max(minTrendParts, int64(float64(spanMs)/1000/(2*interval))))
}

// trend fits the rates by least squares over their index and returns the fitted change over the whole
// span (n parts: slope times n) as a fraction of the mean, and whether the slope is significant
// (two-sided, 5%, Student's t with n-2 degrees of freedom). Fewer than 3 rates, or a mean <= 0, give no
// trend.
func trend(rates []float64) (change float64, significant bool) {
	n := len(rates)
	mean := stat.Mean(rates, nil)
	if n < 3 || !(mean > 0) {
		return 0, false
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	alpha, beta := stat.LinearRegression(xs, rates, nil, false)
	var ssr, sxx float64
	xm := float64(n-1) / 2
	for i, y := range rates {
		e := y - (alpha + beta*xs[i])
		ssr += e * e
		sxx += (xs[i] - xm) * (xs[i] - xm)
	}
	se := math.Sqrt(ssr / float64(n-2) / sxx)
	tCrit := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}.Quantile(0.975)
	return beta * float64(n) / mean, beta != 0 && math.Abs(beta) > tCrit*se
}

// latencyDriftMs and latencyDriftRel bound how far the latency p50 from the intended send time may move
// between the halves of an open-loop span: 100 ms, or 25% of the lower half's p50 when that is more (a cluster whose tuples
// take a second on throttled CPU quotas jitters by more than 100 ms with nothing building up).
const (
	latencyDriftMs  = 100
	latencyDriftRel = 0.25
)

// latencyFlat reports whether the p50 latency from the intended send time of b (a span's second half)
// is within latencyDriftMs (or latencyDriftRel) of a's (its first half), and says what it measured.
func latencyFlat(a, b *OpenLoop) (bool, string) {
	if a == nil || b == nil || a.IntendedCount == 0 || b.IntendedCount == 0 {
		return false, "no latency from the intended send time in one of its halves"
	}
	bound := max(latencyDriftMs, latencyDriftRel*min(a.IntendedP50, b.IntendedP50))
	text := fmt.Sprintf("latency p50 from the intended send time %.0f then %.0f ms", a.IntendedP50, b.IntendedP50)
	return math.Abs(b.IntendedP50-a.IntendedP50) <= bound, text
}
