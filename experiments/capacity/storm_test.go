package capacity

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
)

// TestWindowsOf: the acked rate is the window's throughput, the other three fields its open-loop
// measurement; a closed-loop window or too few windows is an error naming it.
func TestWindowsOf(t *testing.T) {
	ol := &harness.OpenLoop{OfferedRate: 500, IntendedP99: 80, SendLagP50: 3}
	res := &harness.RunResult{Series: []harness.Measurement{{Throughput: 498, OpenLoop: ol}, {Throughput: 501, OpenLoop: ol}}}
	ws, err := WindowsOf(res, 2)
	want := Window{OfferedRate: 500, AckedRate: 498, LatencyP99Ms: 80, SendLagP50Ms: 3}
	if err != nil || len(ws) != 2 || ws[0] != want || ws[1].AckedRate != 501 {
		t.Fatalf("WindowsOf = %+v, %v", ws, err)
	}
	if _, err := WindowsOf(res, 3); err == nil || !strings.Contains(err.Error(), "2 measurement windows, want 3") {
		t.Errorf("too few windows: %v", err)
	}
	closed := &harness.RunResult{Series: []harness.Measurement{{Throughput: 498}}}
	if _, err := WindowsOf(closed, 1); err == nil || !strings.Contains(err.Error(), "did the topology get --rate?") {
		t.Errorf("closed loop: %v", err)
	}
}
