package measure

import (
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
)

// edgeRun is a paced run at 50 tuples/s with 2 s reports, built so that its figures are those of the
// comm-cost quick run left out of both claims under the fixed 5% rule: the harness's mean over the
// matched span 5.42 ms, Storm's 5.15 ms (5.2% apart; the experiment's runs spread from 4.5 to 7.1 ms).
// The reports are constructed (the run's own were not kept): one worker, 100 tuples per report, at
// 100 s, 102 s, ..., 118 s with means 7.0, 7.1, then seven of 5.18, then 4.94 ms. Storm's readings at
// 100 s and 116 s count 800 tuples averaging stormMean: with 5.15 ms they are the reports of 104-118 s,
// while the matched span [98.75 s, 116.75 s] holds those of 102-116 s: one report interval apart.
func edgeRun(t *testing.T, stormMean float64) (reports []protocol.WorkerReport, from, to *Snapshot) {
	t.Helper()
	block := func(pairs ...int64) []int64 { // value, count, value, count, ...
		var v []int64
		for i := 0; i < len(pairs); i += 2 {
			for range pairs[i+1] {
				v = append(v, pairs[i])
			}
		}
		return v
	}
	blocks := [][]int64{block(7, 100), block(7, 90, 8, 10)}
	for range 7 {
		blocks = append(blocks, block(5, 82, 6, 18))
	}
	blocks = append(blocks, block(5, 94, 4, 6))
	for i, vals := range blocks {
		reports = append(reports, protocol.WorkerReport{Host: "w", Port: 6700, TimeMs: int64(100_000 + 2_000*i), IntervalS: 2,
			WorkerStartMs: 50_000, Acked: 100, AckedTotal: int64(10_000 + 100*i), LatencyHist: hist(t, protocol.LatencyHistHighest, vals...)})
	}
	from = &Snapshot{TimeMs: 100_000, Executors: []stormui.Executor{spout("s", 1, 60, 10_000, 6)}}
	to = &Snapshot{TimeMs: 116_000, Executors: []stormui.Executor{spout("s", 1, 76, 10_800, (60_000+800*stormMean)/10_800)}}
	return reports, from, to
}

// The latency cross-check's tolerance comes from the run's own edges and resolution, so the recorded
// disagreement (5.42 against 5.15 ms, 5.2%) is not suspect, while a gross one (Storm's mean half
// ours) still is. Hand computation for edgeRun (ours 5.42 ms over 800 tuples, span [98,750, 116,750]):
//
//   - edges: Storm's readings were sent at 99,750 and 115,750 ms; the reports whose middle lies within
//     2 s of them are those of 100 and 102 s (pulls 100 x |7.0 - 5.42| = 158 and 100 x 1.68 = 168:
//     168) and of 116 and 118 s (100 x 0.24 = 24 and 100 x 0.48 = 48: 48); (168 + 48) / 800 = 0.27 ms;
//   - the sliver's chance: per-tuple spread over the span sqrt((9 + 282.24 + 7 x (14.76 + 5.76)) / 800)
//     = 0.73729 ms, 3 x 0.73729 x sqrt(200) / 800 = 0.039102 ms;
//   - the histograms' resolution: 5.42 / 2048 = 0.0026465 ms;
//
// 0.311749 ms in all, 6.0534% of Storm's 5.15 ms.
func TestCrossCheckLatencyToleranceFromEdges(t *testing.T) {
	reports, from, to := edgeRun(t, 5.15)
	window := Window(reports, nil, nil, 100_000, 116_000)
	c := CrossCheck(from, to, window, reports)
	if !c.Compared || math.Abs(c.CompleteLatencyMs-5.15) > 1e-9 || c.OurLatencyCount != 800 || math.Abs(c.OurLatencyMs-5.42) > 1e-9 {
		t.Fatalf("compared %v (%s): Storm %.4f ms, ours %.4f ms over %d; want 5.15 and 5.42 over 800", c.Compared, c.Note, c.CompleteLatencyMs, c.OurLatencyMs, c.OurLatencyCount)
	}
	const wantTol = 0.311749 / 5.15
	if math.Abs(c.LatencyTolerance-wantTol) > 1e-5 {
		t.Errorf("latency tolerance %.6f, want %.6f (hand computation)", c.LatencyTolerance, wantTol)
	}
	if math.Abs(c.LatencyDiff-0.27/5.15) > 1e-9 || c.suspectText() != "" {
		t.Errorf("5.42 against 5.15 ms (%.2f%% apart, tolerance %.2f%%): suspect %q, want none", 100*c.LatencyDiff, 100*c.LatencyTolerance, c.suspectText())
	}
	// Gross: Storm's mean half the harness's, 100% apart, far beyond 0.31 ms.
	reports, from, to = edgeRun(t, 2.71)
	c = CrossCheck(from, to, Window(reports, nil, nil, 100_000, 116_000), reports)
	if got := c.suspectText(); !strings.Contains(got, "mean complete latency 5.42 ms vs Storm's 2.71 ms") || !strings.Contains(got, "window's edges") {
		t.Errorf("2x disagreement: suspect %q, want the latency named with its tolerance", got)
	}
	if !hasLatency(c.reasons()) {
		t.Errorf("2x disagreement: reasons %v, want %s", c.reasons(), ReasonStormLatency)
	}
}

// Without reports over Storm's span (none sent, or a check recorded before the tolerance was kept)
// the fixed 5% applies.
func TestCrossCheckLatencyFallback(t *testing.T) {
	for _, c := range []struct {
		diff    float64
		suspect bool
	}{{0.049, false}, {0.051, true}} {
		sc := StormCheck{Compared: true, Quantity: "throughput", LatencyDiff: c.diff, OurLatencyMs: 1, CompleteLatencyMs: 1}
		if got := hasLatency(sc.reasons()); got != c.suspect {
			t.Errorf("latency %.1f%% apart, no tolerance: suspect %v, want %v", 100*c.diff, got, c.suspect)
		}
	}
}

func hasLatency(rs []Reason) bool {
	for _, r := range rs {
		if r.Kind == ReasonStormLatency {
			return true
		}
	}
	return false
}
