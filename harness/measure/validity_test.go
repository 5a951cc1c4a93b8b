package measure

import (
	"strings"
	"testing"
)

// TestCounts: which metrics of a run may feed a statistic. A storm-latency reason puts only the
// latency metrics in doubt; any other suspect reason every metric; an invalid run none.
func TestCounts(t *testing.T) {
	latency := Reason{ReasonStormLatency, Suspect, "latency 20% apart"}
	counts := Reason{ReasonStormCounts, Suspect, "throughput 10% apart"}
	fell := Reason{ReasonScheduler, Invalid, "fell back"}
	for _, tc := range []struct {
		name     string
		v        Validity
		lat, thr bool // Counts("latency_mean_ms"), Counts("throughput")
	}{
		{"never judged", Validity{}, true, true},
		{"valid", Validity{Level: Valid}, true, true},
		{"latency only", Validity{}.merge(latency), false, true},
		{"counts off", Validity{}.merge(counts), false, false},
		{"could not judge", Validity{}.merge(Reason{ReasonUnknown, Suspect, "panic"}), false, false},
		{"invalid", Validity{}.merge(fell, latency), false, false},
	} {
		if got := [2]bool{tc.v.Counts("latency_mean_ms"), tc.v.Counts("throughput")}; got != [2]bool{tc.lat, tc.thr} {
			t.Errorf("%s: counts latency, throughput = %v; want %v, %v", tc.name, got, tc.lat, tc.thr)
		}
	}
}

// TestWaive: waived kinds stay listed, prefixed and at level valid, and count against nothing; the level
// is the worst of the other reasons.
func TestWaive(t *testing.T) {
	counts := Reason{ReasonStormCounts, Suspect, "acked 10% off Storm's"}
	latency := Reason{ReasonStormLatency, Suspect, "latency off"}
	unsteady := Reason{ReasonUnsteady, Suspect, "opened unsteady"}
	fell := Reason{ReasonNoThroughput, Invalid, "nothing acked"}
	for _, tc := range []struct {
		name string
		v    Validity
		want Level
	}{
		{"only Storm's checks: valid", Validity{}.merge(counts, latency), Valid},
		{"unsteady stays suspect", Validity{}.merge(counts, unsteady), Suspect},
		{"invalid stays invalid", Validity{}.merge(counts, fell), Invalid},
		{"nothing to waive", Validity{Level: Valid}, Valid},
	} {
		got := tc.v.Waive("killed", ReasonStormCounts, ReasonStormLatency)
		if got.Level != tc.want || len(got.Reasons) != len(tc.v.Reasons) {
			t.Errorf("%s: %+v; want level %s and all %d reasons kept", tc.name, got, tc.want, len(tc.v.Reasons))
		}
		for _, r := range got.Reasons {
			waived := r.Kind == ReasonStormCounts || r.Kind == ReasonStormLatency
			if waived && (r.Level != Valid || !strings.HasPrefix(r.Text, "killed: ")) {
				t.Errorf("%s: reason %+v: want level valid and the text prefixed", tc.name, r)
			}
		}
		if tc.want == Valid && !got.Counts("throughput") {
			t.Errorf("%s: a waived run must count", tc.name)
		}
	}
}
