package harness

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

func TestAckSpan(t *testing.T) {
	// Hand-made reports: acks in the intervals ending at 2,000 and 5,000 ms
	// (1 s intervals), none at 6,000 ms. The dataset spans from the start of
	// the first acked interval (1,000) to the last acked report (5,000).
	reports := []protocol.WorkerReport{
		{TimeMs: 2000, IntervalS: 1, Acked: 10},
		{TimeMs: 3000, IntervalS: 1},
		{TimeMs: 5000, IntervalS: 1, Acked: 3},
		{TimeMs: 6000, IntervalS: 1},
	}
	first, last, newest := ackSpan(reports)
	if first != 1000 || last != 5000 || newest != 6000 {
		t.Errorf("ackSpan = %d, %d, %d; want 1000, 5000, 6000", first, last, newest)
	}
	if f, l, n := ackSpan(nil); f != 0 || l != 0 || n != 0 {
		t.Errorf("ackSpan(nil) = %d, %d, %d; want zeros", f, l, n)
	}
}

func TestLoadScript(t *testing.T) {
	tests := []struct {
		busyMs int
		want   []string
	}{
		{40, []string{"timeout 0.040", "sleep 0.060", "setsid", loadPidFile}},
		{100, []string{"while :; do :; done", "setsid"}},
	}
	for _, tc := range tests {
		s := loadScript(tc.busyMs)
		for _, w := range tc.want {
			if !strings.Contains(s, w) {
				t.Errorf("loadScript(%d) = %q: missing %q", tc.busyMs, s, w)
			}
		}
	}
}
