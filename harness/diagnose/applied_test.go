package diagnose

import (
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// TestBurnerCPU: the mean of the burner's reports inside the span, its first 2.5 s left out (the
// switch's lag), other topologies left out. By hand: reports at 3 s (0.10 core) and 5 s (0.30 core) of
// a span from 0 to 6 s: mean 0.20 core over 2 reports; the one at 1 s and the one at 7 s are outside.
func TestBurnerCPU(t *testing.T) {
	tops := []protocol.TopologyState{
		{ID: "stormlab-burner-straggler-sup1-7-123", WorkerCPU: []protocol.WorkerSample{
			{TimeMs: 1_000, CPUPercent: 90}, {TimeMs: 3_000, CPUPercent: 10}, {TimeMs: 5_000, CPUPercent: 30}, {TimeMs: 7_000, CPUPercent: 90}}},
		{ID: "wordcount-1-1", WorkerCPU: []protocol.WorkerSample{{TimeMs: 3_000, CPUPercent: 99}}},
	}
	cores, n := BurnerCPU(tops, "stormlab-burner-straggler-sup1-", 0, 6_000)
	if n != 2 || math.Abs(cores-0.20) > 1e-9 {
		t.Errorf("BurnerCPU = %v over %d reports, want 0.20 over 2", cores, n)
	}
	if _, n := BurnerCPU(tops, "stormlab-burner-straggler-sup2-", 0, 6_000); n != 0 {
		t.Errorf("another host's burner: %d reports, want 0", n)
	}
}

// TestShortText: a load applied under 0.9 of its level is named with its figures (the recorded case:
// 0.03 of 0.40 cores); one within 10% is not; one whose use is unknown says so, never 0.
func TestShortText(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	got := ShortText([]Applied{
		{Host: "sup1", Kind: "straggler", Asked: 0.40, Used: f(0.03)},
		{Host: "sup2", Kind: "straggler", Asked: 0.40, Used: f(0.37)},
		{Host: "sup3", Kind: "straggler", Asked: 0.40},
	})
	want := []string{"straggler on sup1 applied 0.03 of 0.40 cores asked (8%)", "straggler on sup3: the load applied is unknown"}
	if len(got) != 2 || got[0] != want[0] || !strings.HasPrefix(got[1], want[1]) {
		t.Errorf("ShortText = %q, want %q", got, want)
	}
}
