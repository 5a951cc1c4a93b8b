package measure

import (
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/stormui"
)

// TestCrossCheckUninstrumented: with no worker reports (an uninstrumented run) Storm's figures are still
// computed, the same as in TestCrossCheckTimed's hand computation (300 tuples/s, 5.6 ms, 2,500 acked),
// and the run is not compared.
func TestCrossCheckUninstrumented(t *testing.T) {
	from := &Snapshot{TimeMs: 100_000, Executors: []stormui.Executor{spout("s", 1, 60, 1000, 4), spout("s", 2, 62, 500, 6)}}
	to := &Snapshot{TimeMs: 110_000, Executors: []stormui.Executor{spout("s", 1, 70, 3000, 5), spout("s", 2, 67, 1000, 6)}}
	m := Window(nil, nil, nil, 100_000, 110_000)
	c := CrossCheck(from, to, m, nil)
	if c.Compared || !strings.Contains(c.Note, "did not measure throughput") || c.suspectText() != "" {
		t.Errorf("compared %v, note %q, suspect %q; want not compared, not suspect", c.Compared, c.Note, c.suspectText())
	}
	if math.Abs(c.Throughput-300) > 1e-9 || math.Abs(c.CompleteLatencyMs-5.6) > 1e-9 || c.Acked != 2500 || len(c.Spouts) != 1 {
		t.Errorf("Storm's figures %.3f/s, %.4f ms, %d acked, %d spouts; want 300, 5.6, 2500, 1", c.Throughput, c.CompleteLatencyMs, c.Acked, len(c.Spouts))
	}
}
