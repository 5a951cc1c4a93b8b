package measure

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
)

// stormTolerance is the largest relative difference between the harness's figures and Storm's own
// statistics that leaves a run's figures unsuspected: counts (plus Storm's own resolution for a
// throughput), and the mean complete latency only where the run's reports cannot bound it
// (LatencyTolerance).
const stormTolerance = 0.05

// Snapshot is Storm's all-time executor statistics (from Nimbus's TopologyInfo over Thrift, read
// through the UI) at one instant.
type Snapshot struct {
	TimeMs    int64              `json:"time_ms"`
	Executors []stormui.Executor `json:"executors"`
	Err       string             `json:"error,omitempty"`
}

func takeSnapshot(ctx context.Context, ui *stormui.Client, id string) *Snapshot {
	s := &Snapshot{TimeMs: time.Now().UnixMilli()}
	top, err := ui.Topology(ctx, id)
	if err != nil {
		s.Err = err.Error()
		return s
	}
	s.Executors = top.Executors
	return s
}

// FreshSnapshot returns the first reading of Storm's statistics taken after the one it starts with
// in which a spout executor's uptime moved, i.e. the first statistics a worker sent after this call
// (they cover up to a moment after it), or the last reading after maxWait. Readings at both ends of a
// window taken this way cover spans shifted alike (by less than the reporting period), so Storm's
// span matches the harness's window instead of starting up to a period earlier.
func FreshSnapshot(ctx context.Context, ui *stormui.Client, id string, maxWait time.Duration) *Snapshot {
	first := takeSnapshot(ctx, ui, id)
	deadline := time.Now().Add(maxWait)
	last := first
	for first.Err == "" && time.Now().Before(deadline) {
		if wait(ctx, 500*time.Millisecond) != nil {
			break
		}
		last = takeSnapshot(ctx, ui, id)
		if last.Err == "" && spoutUptimes(last) != spoutUptimes(first) {
			break
		}
	}
	return last
}

// spoutUptimes is a fingerprint of the spout executors' uptimes in a reading.
func spoutUptimes(s *Snapshot) string {
	var b strings.Builder
	for _, e := range s.Executors {
		if e.Type == "spout" {
			fmt.Fprintf(&b, "%s/%d:%d ", e.Component, e.TaskStart, e.UptimeSeconds)
		}
	}
	return b.String()
}

// SpoutStats is what Storm counted for one spout component over a run's window.
type SpoutStats struct {
	Component         string  `json:"component"`
	Executors         int     `json:"executors"`
	Acked             int64   `json:"acked"`
	Failed            int64   `json:"failed"`
	Throughput        float64 `json:"throughput,omitempty"` // acked/s over the counters' uptimes (timed runs)
	CompleteLatencyMs float64 `json:"complete_latency_ms"`  // mean over the window's acked tuples
}

// StormCheck compares a run's figures with Storm's own statistics (Nimbus's TopologyInfo, read
// through the UI), per spout and over all spouts, so that a measurement error of the harness shows
// up as a suspect run instead of a result:
//
//   - Timed run: throughput, per spout executor the difference of acked between the readings at the
//     window's ends over the difference of their uptimes (the counters' own clock, so the reporting
//     lag cancels), summed over executors.
//   - Dataset run: Storm's count at the end is the whole dataset's; compared with our acked count.
//   - Both: mean complete latency, the difference of latency x count over the difference of counts.
//
// Per tuple both sides hold the same number (Storm 2.8 hands the acker's time delta to the task hooks
// and to its statistics alike), so the check compares like with like. Only the spans differ: in a
// timed run our latency is taken over the worker reports that match Storm's span (stormSpan), not the
// window, else short windows at a low rate disagree by chance. A run suspect on latency alone is
// suspect for its latency figures only (start-up latency still decaying in a paced window).
//
// A spout executor that restarted in the window (Storm's counters start again with it), had no
// statistics at the window start, or, in a dataset run, any worker restart or executor moved by the
// scheduler (MovedInDataset) leaves the run not compared (Compared false, Note says why). Storm's
// figures are filled in whenever its readings allow. The harness's reports do not tell spouts apart,
// so the comparison is over the sum of the spouts. The measurements behind these rules are in
// docs/results-log.md ("Cross-check against Storm's statistics").
type StormCheck struct {
	Compared          bool         `json:"compared"`
	Note              string       `json:"note,omitempty"` // why not compared (or what was not)
	Quantity          string       `json:"quantity"`       // "throughput" (timed) or "acked" (dataset)
	Spouts            []SpoutStats `json:"spouts,omitempty"`
	Acked             int64        `json:"acked"`               // Storm: acked over its readings' span
	Throughput        float64      `json:"throughput"`          // Storm: acked tuples/s (timed runs)
	CompleteLatencyMs float64      `json:"complete_latency_ms"` // Storm: mean complete latency
	OurAcked          int64        `json:"our_acked"`
	OurThroughput     float64      `json:"our_throughput"`
	OurLatencyMs      float64      `json:"our_latency_ms"` // over OurLatencySpanMs when set, else the window
	// OurLatencySpanMs is the span of worker reports the harness's latency was taken over to match
	// Storm's (timed runs), and OurLatencyCount the tuples in it.
	OurLatencySpanMs []int64 `json:"our_latency_span_ms,omitempty"`
	OurLatencyCount  int64   `json:"our_latency_count,omitempty"`
	// |ours - Storm's| / Storm's (1 if Storm's is 0 and ours not) of Quantity and of the latency.
	Diff        float64 `json:"diff"`
	LatencyDiff float64 `json:"latency_diff"`
	// Resolution is how far Storm's own throughput can be off, relative (timed runs): an executor's
	// uptime is whole seconds, so its rate over an uptime growth of U s holds up to 1/U of error;
	// weighted by the executors' rates. (Measured: a comm-cost run's 806 tuples over 16.1 s read
	// 47.4/s, over an uptime growth of 17 s; the harness's 804 over the same span agreed to 0.25%.)
	Resolution float64 `json:"resolution,omitempty"`
	// LatencyTolerance is how far apart, relative to Storm's, the two mean latencies may be with
	// neither wrong (timed runs with reports over Storm's span; crosscheck_latency.go): the window's
	// edges and the histograms' resolution. 0: the fixed stormTolerance applies.
	LatencyTolerance float64 `json:"latency_tolerance,omitempty"`

	From, To *Snapshot `json:"-"` // raw readings, saved in storm-stats.json
}

// reasons are the run's disagreements with Storm's statistics beyond their tolerance (suspect): the
// quantity (storm-counts) and the mean latency (storm-latency); none when not compared.
func (c StormCheck) reasons() []Reason {
	if !c.Compared {
		return nil
	}
	const lead = "disagrees with Storm's statistics beyond 5%%: "
	var out []Reason
	if c.Diff > c.countTolerance() {
		if c.Quantity == "acked" {
			out = append(out, Reason{ReasonStormCounts, Suspect, fmt.Sprintf(lead+"acked %d vs Storm's %d (%.1f%% apart)", c.OurAcked, c.Acked, 100*c.Diff)})
		} else {
			out = append(out, Reason{ReasonStormCounts, Suspect, fmt.Sprintf("disagrees with Storm's statistics beyond 5%% and Storm's own %.1f%% (whole-second uptimes): throughput %.1f/s vs Storm's %.1f/s (%.1f%% apart)",
				100*c.Resolution, c.OurThroughput, c.Throughput, 100*c.Diff)})
		}
	}
	if c.LatencyDiff > c.latencyLimit() {
		out = append(out, Reason{ReasonStormLatency, Suspect, c.latencyReason()})
	}
	return out
}

// countTolerance is the largest difference of the quantity that leaves the run unsuspected:
// stormTolerance, plus Storm's own resolution for a throughput. If the harness is within 5% of the truth
// and Storm within its resolution, the two differ by at most the sum.
func (c StormCheck) countTolerance() float64 {
	if c.Quantity == "throughput" {
		return stormTolerance + c.Resolution
	}
	return stormTolerance
}

// suspectText joins the reasons' texts ("" when none).
func (c StormCheck) suspectText() string {
	var texts []string
	for _, r := range c.reasons() {
		texts = append(texts, r.Text)
	}
	return strings.Join(texts, "; ")
}

// UptimeSlackS is how much less than the wall clock between two readings an executor's uptime may grow
// without a restart: each reading holds statistics a worker sent up to one reporting period before
// it (3 s at most on the clusters this was tuned for; infra/docker.ExecutorStatsSecs is 1 s), plus 1 s
// of whole-second uptimes and 1 s of reading.
const UptimeSlackS = 2*3 + 2

type execKey struct {
	comp  string
	start int
}

// CrossCheck compares m with Storm's readings at the window's ends. A from reading without executors
// marks a Dataset run (the window opens before the submit, when Storm has counted nothing). reports
// are the run's worker reports, for the latency over Storm's span (nil: the window's, m's).
func CrossCheck(from, to *Snapshot, m Measurement, reports []protocol.WorkerReport) StormCheck {
	c := StormCheck{From: from, To: to, OurAcked: m.Acked, OurThroughput: m.Throughput, OurLatencyMs: m.LatencyMean}
	if c.Note = readingsNote(from, to); c.Note != "" {
		return c
	}
	dataset := len(from.Executors) == 0
	c.Quantity = "throughput"
	if dataset {
		c.Quantity = "acked"
		if m.Restarts > 0 {
			// Storm keeps an executor's statistics in its worker: a restarted
			// (migrated) spout executor starts its all-time counters again, so
			// Storm's totals at the end cover only its last incarnation, while
			// the harness counts every incarnation (measured: a k-means run
			// whose spout moved read 3,908 acked here, 1,954 in Storm). A
			// dataset run has no reading at the start to tell which executors
			// restarted, so any restart leaves the run not compared.
			c.Note = fmt.Sprintf("%d worker restart(s) in the window: Storm's all-time statistics of a restarted executor start again, so they do not cover the same tuples", m.Restarts)
			return c
		}
	}
	spouts, note := spoutTotals(from, to, dataset)
	if note != "" {
		c.Note = note
		return c
	}
	if len(spouts) == 0 {
		c.Note = "Storm reported no spout statistics"
		return c
	}
	c.addSpouts(spouts)
	if m.ThroughputBasis == BasisSinkExecuted {
		c.Note = "not compared: the spouts acked no tuple (Storm counts acked spout tuples); the harness counted tuples executed by the sinks"
		return c
	}
	if why, no := m.NotMeasured[metricThroughput]; no {
		// Storm's figures stay (an uninstrumented run is measured by them alone); nothing to compare.
		c.Note = "the harness did not measure throughput: " + why
		return c
	}
	c.compare(m, from, to, reports, dataset)
	return c
}

// readingsNote says why Storm's readings at the window's ends cannot be compared, or "".
func readingsNote(from, to *Snapshot) string {
	switch {
	case from == nil || to == nil:
		return "no reading of Storm's statistics"
	case from.Err != "":
		return "reading Storm's statistics at the window start failed: " + from.Err
	case to.Err != "":
		return "reading Storm's statistics at the window end failed: " + to.Err
	}
	return ""
}

// spoutAcc sums Storm's counters of one spout component's executors over the window.
type spoutAcc struct {
	n, acked, failed int64
	latSum, rate     float64
	rateErr          float64 // sum over executors of rate / uptime growth (Resolution)
}

// spoutTotals sums, per spout component, the change of Storm's counters between the readings (a
// dataset run: the counters at the end). A note says why an executor's counters do not compare.
func spoutTotals(from, to *Snapshot, dataset bool) (map[string]*spoutAcc, string) {
	wallS := float64(to.TimeMs-from.TimeMs) / 1000
	before := map[execKey]stormui.Executor{}
	for _, e := range from.Executors {
		before[execKey{e.Component, e.TaskStart}] = e
	}
	spouts := map[string]*spoutAcc{}
	for _, e := range to.Executors {
		if e.Type != "spout" {
			continue
		}
		b := before[execKey{e.Component, e.TaskStart}]
		if !dataset {
			if note := spoutChanged(e, b, wallS); note != "" {
				return nil, note
			}
		}
		a := spouts[e.Component]
		if a == nil {
			a = &spoutAcc{}
			spouts[e.Component] = a
		}
		a.n++
		a.acked += e.Acked - b.Acked
		a.failed += e.Failed - b.Failed
		a.latSum += e.CompleteLatency*float64(e.Acked) - b.CompleteLatency*float64(b.Acked)
		if !dataset {
			up := float64(e.UptimeSeconds - b.UptimeSeconds)
			a.rate += float64(e.Acked-b.Acked) / up
			a.rateErr += float64(e.Acked-b.Acked) / up / up
		}
	}
	return spouts, ""
}

// spoutChanged says why spout executor e's counters (b at the window start) do not cover the window
// of a timed run wallS seconds long, or "".
func spoutChanged(e, b stormui.Executor, wallS float64) string {
	switch {
	case b.Type != "spout":
		return fmt.Sprintf("Storm had no statistics of spout executor %s [%d-%d] at the window start", e.Component, e.TaskStart, e.TaskEnd)
	case e.UptimeSeconds < b.UptimeSeconds || e.Acked < b.Acked:
		return fmt.Sprintf("spout executor %s [%d-%d] restarted in the window (Storm's counters started again)", e.Component, e.TaskStart, e.TaskEnd)
	case e.UptimeSeconds == b.UptimeSeconds:
		return fmt.Sprintf("Storm's statistics of spout executor %s [%d-%d] did not change in the window", e.Component, e.TaskStart, e.TaskEnd)
	case wallS-float64(e.UptimeSeconds-b.UptimeSeconds) > UptimeSlackS:
		// Restarted in the window and already past its old uptime and
		// acked count: its uptime grew less than the clock did.
		return fmt.Sprintf("spout executor %s [%d-%d] restarted in the window: its uptime grew %d s in %.0f s (Storm's counters started again)",
			e.Component, e.TaskStart, e.TaskEnd, e.UptimeSeconds-b.UptimeSeconds, wallS)
	}
	return ""
}

// addSpouts fills Storm's per-spout figures and their totals.
func (c *StormCheck) addSpouts(spouts map[string]*spoutAcc) {
	var latSum, rateErr float64
	for comp, a := range spouts {
		s := SpoutStats{Component: comp, Executors: int(a.n), Acked: a.acked, Failed: a.failed, Throughput: a.rate}
		if a.acked > 0 {
			s.CompleteLatencyMs = a.latSum / float64(a.acked)
		}
		c.Spouts = append(c.Spouts, s)
		c.Acked += a.acked
		c.Throughput += a.rate
		rateErr += a.rateErr
		latSum += a.latSum
	}
	if c.Throughput > 0 {
		c.Resolution = rateErr / c.Throughput
	}
	sort.Slice(c.Spouts, func(i, j int) bool { return c.Spouts[i].Component < c.Spouts[j].Component })
	if c.Acked > 0 {
		c.CompleteLatencyMs = latSum / float64(c.Acked)
	}
}

// compare sets the differences of the quantity and of the latency and marks the run compared. In a
// timed run our latency is taken over the worker reports matching Storm's span (stormSpan).
func (c *StormCheck) compare(m Measurement, from, to *Snapshot, reports []protocol.WorkerReport, dataset bool) {
	if dataset {
		c.Diff = relDiff(float64(c.OurAcked), float64(c.Acked))
	} else {
		c.Diff = relDiff(c.OurThroughput, c.Throughput)
	}
	if why, no := m.NotMeasured[metricLatency]; no {
		// Nothing to compare: a metric not measured is not a disagreement (the run says so itself).
		c.Note = "latency not compared: the harness did not measure it: " + why
	} else {
		if !dataset {
			if fromMs, toMs, ok := stormSpan(from, to, reports); ok {
				var sm Measurement
				measureAcks(&sm, reports, fromMs, toMs)
				if sm.LatencyCount > 0 {
					c.OurLatencyMs, c.OurLatencyCount, c.OurLatencySpanMs = sm.LatencyMean, sm.LatencyCount, []int64{fromMs, toMs}
					if tol, ok := latencyToleranceMs(reports, fromMs, toMs, [2]int64{from.TimeMs - stormLagMs, to.TimeMs - stormLagMs}, sm.LatencyMean, sm.LatencyCount); ok && c.CompleteLatencyMs > 0 {
						c.LatencyTolerance = tol / c.CompleteLatencyMs
					}
				}
			}
		}
		c.LatencyDiff = relDiff(c.OurLatencyMs, c.CompleteLatencyMs)
	}
	c.Compared = true
}

// stormLagMs is how long before a fresh reading (FreshSnapshot) the statistics it holds were sent, on
// average: half its polling period.
const stormLagMs = 250

// stormSpan is the window over which the harness's reports hold the tuples Storm's two readings
// count: their send times (each reading's time less stormLagMs) widened by half the median report
// interval, so that measureAcks, which takes the reports whose whole interval lies inside, takes those
// whose interval's middle falls inside Storm's span. ok is false without reports.
func stormSpan(from, to *Snapshot, reports []protocol.WorkerReport) (fromMs, toMs int64, ok bool) {
	if len(reports) == 0 {
		return 0, 0, false
	}
	iv := make([]float64, len(reports))
	for i, r := range reports {
		iv[i] = r.IntervalS
	}
	sort.Float64s(iv)
	half := int64(iv[len(iv)/2] * 1000 / 2)
	return from.TimeMs - stormLagMs - half, to.TimeMs - stormLagMs + half, true
}

// relDiff is |a - b| / |b|: 0 when both are 0, 1 when only b is (JSON has no infinity).
func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	if b == 0 {
		return 1
	}
	return math.Abs(a-b) / math.Abs(b)
}

// MovedInDataset leaves a compared dataset run not compared when a scheduler decision applied before
// toMs moved executors: a moved spout executor starts again in Storm (its new incarnation's counters
// from zero) without a worker restart the harness would see, when it lands in a worker that then has
// no more work to report (seen in k-means runs of the deadline and adaptive schedulers: half the
// count in Storm). A timed run needs no such rule: the spouts' uptimes show a restart (crossCheck).
func MovedInDataset(c StormCheck, decisions []protocol.DecisionRecord, toMs int64) StormCheck {
	if !c.Compared || c.Quantity != "acked" {
		return c
	}
	moved := 0
	for _, d := range decisions {
		if d.Applied && d.Kind == "reschedule" && d.Decision != nil && (toMs == 0 || d.TimeMs <= toMs) {
			moved += d.Decision.Moved
		}
	}
	if moved == 0 {
		return c
	}
	c.Compared, c.Diff, c.LatencyDiff = false, 0, 0
	c.Note = fmt.Sprintf("the scheduler moved %d executor(s) during the run: Storm's all-time statistics of a moved executor start again, so they do not cover the same tuples", moved)
	return c
}

// wait waits d or until ctx ends (between two readings of Storm's statistics).
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
