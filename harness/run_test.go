package harness

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/protocol"
)

func TestFromStateAndInvalid(t *testing.T) {
	st := &protocol.State{
		Scheduler:  "kpart",
		RoundTimes: []protocol.RoundTime{{BridgeMs: 0}, {BridgeMs: 12.5}, {BridgeMs: 7}},
		Fallbacks:  []protocol.Fallback{{Topology: "other-1", Reason: "x"}, {Topology: "", Reason: "service unreachable"}},
		Decisions:  []protocol.DecisionRecord{{Topology: "t-1", Kind: "schedule", Applied: true}, {Topology: "other-1", Applied: true}},
	}
	rounds, fb, dec := fromState(st, "t-1")
	if len(rounds) != 2 || rounds[0] != 12.5 || rounds[1] != 7 {
		t.Errorf("rounds = %v, want [12.5 7] (the first round has no previous one)", rounds)
	}
	if len(fb) != 1 || fb[0].Reason != "service unreachable" {
		t.Errorf("fallbacks = %v, want the whole-round one only", fb)
	}
	if len(dec) != 1 || dec[0].Topology != "t-1" {
		t.Errorf("decisions = %v, want t-1's only", dec)
	}
	tests := []struct {
		name, asked, runs string
		fb                []protocol.Fallback
		dec               []protocol.DecisionRecord
		want              []string // substrings; none = valid
	}{
		{"valid", "kpart", "kpart", nil, dec, nil},
		{"native ignores the service", "storm-even", "even", fb, nil, nil},
		{"fallback", "kpart", "kpart", fb, dec, []string{"fell back", "service unreachable"}},
		{"other scheduler", "kpart", "even", nil, dec, []string{`runs "even", not "kpart"`}},
		{"never decided", "kpart", "kpart", nil, nil, []string{"no placement"}},
	}
	for _, tc := range tests {
		r := &RunResult{Spec: RunSpec{Scheduler: tc.asked}, ServiceScheduler: tc.runs, Fallbacks: tc.fb, Decisions: tc.dec,
			Measurement: Measurement{Throughput: 1}}
		got := judge(r).Text(Invalid) // the scheduler's reason, the only one this run can have
		if len(tc.want) == 0 && got != "" {
			t.Errorf("%s: invalid = %q, want valid", tc.name, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: invalid = %q, want it to say %q", tc.name, got, w)
			}
		}
	}
}

// reportsCovering waits for every live worker of the topology to report past the span's end: worker b
// is behind at the first read and catches up at the second; c stopped reporting long before (gone)
// and x belongs to another topology, so neither is awaited.
func TestReportsCovering(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reps := []protocol.WorkerReport{
			{Topology: "t", Host: "a", Port: 6700, TimeMs: 10_500},
			{Topology: "t", Host: "b", Port: 6700, TimeMs: 9_000},
			{Topology: "t", Host: "c", Port: 6700, TimeMs: 1_000},
			{Topology: "other", Host: "x", Port: 6700, TimeMs: 2_000},
		}
		if calls.Add(1) > 1 {
			reps = append(reps, protocol.WorkerReport{Topology: "t", Host: "b", Port: 6700, TimeMs: 11_000})
		}
		json.NewEncoder(w).Encode(reps)
	}))
	defer srv.Close()
	all, err := reportsCovering(context.Background(), &serviceClient{BaseURL: srv.URL}, "t", 0, 10_000, 5_000)
	if err != nil || len(all) != 5 || calls.Load() != 2 {
		t.Errorf("reportsCovering: %d reports after %d reads, err %v; want 5 after 2", len(all), calls.Load(), err)
	}
}

// TestCheckTopologyName: Storm's rule (Utils.validateTopologyName in storm-client: ^[^/.:\\]+$).
func TestCheckTopologyName(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"stormlab-wordcount", true}, {"lc-storm-even-p050-r0", true}, {"a b_c", true},
		{"", false}, {"lc-storm-even-f0.5-r0", false}, {"a/b", false}, {"a:b", false}, {`a\b`, false},
	} {
		if err := CheckTopologyName(c.name); (err == nil) != c.ok {
			t.Errorf("CheckTopologyName(%q) = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// retryRead repeats a failing read until it succeeds, and gives the last error once its time is up or
// the context ends.
func TestRetryRead(t *testing.T) {
	calls := 0
	err := retryRead(context.Background(), time.Minute, func(context.Context) error {
		if calls++; calls < 3 {
			return errors.New("timeout")
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("flaky read: err %v after %d calls, want success on the 3rd", err, calls)
	}
	calls = 0
	err = retryRead(context.Background(), 0, func(context.Context) error { calls++; return errors.New("down") })
	if err == nil || calls != 1 {
		t.Errorf("no time to retry: err %v after %d calls, want the error after 1", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls = 0
	err = retryRead(ctx, time.Minute, func(context.Context) error { calls++; return errors.New("down") })
	if err == nil || calls != 1 {
		t.Errorf("cancelled: err %v after %d calls, want the error after 1", err, calls)
	}
}

// TestBurnerNameIsATopologyName: Storm takes the nemesis's burner names (nemesis.TestBurnerArgs checks
// how a host becomes one).
func TestBurnerNameIsATopologyName(t *testing.T) {
	if err := CheckTopologyName(BurnerPrefix + "straggler-sup1-example-org"); err != nil {
		t.Errorf("burner name: %v", err)
	}
}
