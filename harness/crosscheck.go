package harness

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/stormlab/stormlab/infra/stormui"
)

// StormTolerance is the largest relative difference between the harness's figures and Storm's own
// statistics (throughput and mean complete latency) that leaves a run's figures unsuspected.
const StormTolerance = 0.05

// stormSnapshot is Storm's all-time executor statistics (from Nimbus's TopologyInfo over Thrift, read
// through the UI) at one instant.
type stormSnapshot struct {
	TimeMs    int64              `json:"time_ms"`
	Executors []stormui.Executor `json:"executors"`
	Err       string             `json:"error,omitempty"`
}

func takeSnapshot(ctx context.Context, ui *stormui.Client, id string) *stormSnapshot {
	s := &stormSnapshot{TimeMs: time.Now().UnixMilli()}
	top, err := ui.Topology(ctx, id)
	if err != nil {
		s.Err = err.Error()
		return s
	}
	s.Executors = top.Executors
	return s
}

// freshSnapshot returns the first reading of Storm's statistics taken after the one it starts with
// in which a spout executor's uptime moved, i.e. the first statistics a worker sent after this call
// (they cover up to a moment after it), or the last reading after maxWait. Readings at both ends of a
// window taken this way cover spans shifted alike (by less than the reporting period), so Storm's
// span matches the harness's window instead of starting up to a period earlier.
func freshSnapshot(ctx context.Context, ui *stormui.Client, id string, maxWait time.Duration) *stormSnapshot {
	first := takeSnapshot(ctx, ui, id)
	deadline := time.Now().Add(maxWait)
	last := first
	for first.Err == "" && time.Now().Before(deadline) {
		if pause(ctx, 500*time.Millisecond) != nil {
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
func spoutUptimes(s *stormSnapshot) string {
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

// StormCheck compares a run's figures with Storm's own statistics (Nimbus's TopologyInfo over
// Thrift, read through the UI), per spout and over all spouts:
//
//   - Timed run: throughput. Storm's executor counters are all-time; a worker sends them with its
//     uptime every few seconds (infra/docker.ExecutorStatsSecs), so Storm's rate over the window is,
//     per spout executor, the difference of acked between the readings at the window's ends over the
//     difference of their uptimes (the counters' own clock, so the reporting lag cancels), summed over
//     executors; compared with the harness's acked tuples per second in the window.
//   - Dataset run: the window starts before the submit, so Storm's count at the end is the whole
//     dataset's; compared with the harness's acked count.
//   - Both: mean complete latency, the difference of latency x count over the difference of counts.
//
// A spout executor that restarted in the window (a migration: its counters start again) or had no
// statistics yet at the window start leaves the run not compared (Compared false, Note says why).
// The harness's reports do not tell spouts apart, so the comparison is over the sum of the spouts.
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
	OurLatencyMs      float64      `json:"our_latency_ms"`
	// |ours - Storm's| / Storm's (1 if Storm's is 0 and ours not) of Quantity and of the latency.
	Diff        float64 `json:"diff"`
	LatencyDiff float64 `json:"latency_diff"`

	From, To *stormSnapshot `json:"-"` // raw readings, saved in storm-stats.json
}

// Suspect says why the run's figures disagree with Storm's beyond StormTolerance, or "".
func (c StormCheck) Suspect() string {
	if !c.Compared {
		return ""
	}
	var why []string
	if c.Diff > StormTolerance {
		if c.Quantity == "acked" {
			why = append(why, fmt.Sprintf("acked %d vs Storm's %d (%.1f%% apart)", c.OurAcked, c.Acked, 100*c.Diff))
		} else {
			why = append(why, fmt.Sprintf("throughput %.1f/s vs Storm's %.1f/s (%.1f%% apart)", c.OurThroughput, c.Throughput, 100*c.Diff))
		}
	}
	if c.LatencyDiff > StormTolerance {
		why = append(why, fmt.Sprintf("mean complete latency %.2f ms vs Storm's %.2f ms (%.1f%% apart)", c.OurLatencyMs, c.CompleteLatencyMs, 100*c.LatencyDiff))
	}
	if len(why) == 0 {
		return ""
	}
	return "disagrees with Storm's statistics beyond 5%: " + strings.Join(why, "; ")
}

type execKey struct {
	comp  string
	start int
}

// crossCheck compares m with Storm's readings at the window's ends. A from reading without executors
// marks a Dataset run (the window opens before the submit, when Storm has counted nothing).
func crossCheck(from, to *stormSnapshot, m Measurement) StormCheck {
	c := StormCheck{From: from, To: to, OurAcked: m.Acked, OurThroughput: m.Throughput, OurLatencyMs: m.LatencyMean}
	switch {
	case from == nil || to == nil:
		c.Note = "no reading of Storm's statistics"
		return c
	case from.Err != "":
		c.Note = "reading Storm's statistics at the window start failed: " + from.Err
		return c
	case to.Err != "":
		c.Note = "reading Storm's statistics at the window end failed: " + to.Err
		return c
	}
	if why, no := m.NotMeasured[MetricThroughput]; no {
		c.Note = "the harness did not measure throughput: " + why
		return c
	}
	dataset := len(from.Executors) == 0
	c.Quantity = "throughput"
	if dataset {
		c.Quantity = "acked"
	}
	before := map[execKey]stormui.Executor{}
	for _, e := range from.Executors {
		before[execKey{e.Component, e.TaskStart}] = e
	}
	type acc struct {
		n, acked, failed int64
		latSum, rate     float64
	}
	spouts := map[string]*acc{}
	for _, e := range to.Executors {
		if e.Type != "spout" {
			continue
		}
		b := before[execKey{e.Component, e.TaskStart}]
		if !dataset {
			switch {
			case b.Type != "spout":
				c.Note = fmt.Sprintf("Storm had no statistics of spout executor %s [%d-%d] at the window start", e.Component, e.TaskStart, e.TaskEnd)
				return c
			case e.UptimeSeconds < b.UptimeSeconds || e.Acked < b.Acked:
				c.Note = fmt.Sprintf("spout executor %s [%d-%d] restarted in the window (Storm's counters started again)", e.Component, e.TaskStart, e.TaskEnd)
				return c
			case e.UptimeSeconds == b.UptimeSeconds:
				c.Note = fmt.Sprintf("Storm's statistics of spout executor %s [%d-%d] did not change in the window", e.Component, e.TaskStart, e.TaskEnd)
				return c
			}
		}
		a := spouts[e.Component]
		if a == nil {
			a = &acc{}
			spouts[e.Component] = a
		}
		a.n++
		a.acked += e.Acked - b.Acked
		a.failed += e.Failed - b.Failed
		a.latSum += e.CompleteLatency*float64(e.Acked) - b.CompleteLatency*float64(b.Acked)
		if !dataset {
			a.rate += float64(e.Acked-b.Acked) / float64(e.UptimeSeconds-b.UptimeSeconds)
		}
	}
	if len(spouts) == 0 {
		c.Note = "Storm reported no spout statistics"
		return c
	}
	var latSum float64
	for comp, a := range spouts {
		s := SpoutStats{Component: comp, Executors: int(a.n), Acked: a.acked, Failed: a.failed, Throughput: a.rate}
		if a.acked > 0 {
			s.CompleteLatencyMs = a.latSum / float64(a.acked)
		}
		c.Spouts = append(c.Spouts, s)
		c.Acked += a.acked
		c.Throughput += a.rate
		latSum += a.latSum
	}
	sort.Slice(c.Spouts, func(i, j int) bool { return c.Spouts[i].Component < c.Spouts[j].Component })
	if c.Acked > 0 {
		c.CompleteLatencyMs = latSum / float64(c.Acked)
	}
	if dataset {
		c.Diff = relDiff(float64(c.OurAcked), float64(c.Acked))
	} else {
		c.Diff = relDiff(c.OurThroughput, c.Throughput)
	}
	if why, no := m.NotMeasured[MetricLatency]; no {
		// Nothing to compare: a metric not measured is not a disagreement (the run says so itself).
		c.Note = "latency not compared: the harness did not measure it: " + why
	} else {
		c.LatencyDiff = relDiff(c.OurLatencyMs, c.CompleteLatencyMs)
	}
	c.Compared = true
	return c
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
