package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
)

// Bad open-loop input is exit 2 with one line naming the problem, before anything starts.
func TestRunBadRate(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	base := func(extra ...string) []string {
		return append([]string{"run", "--scheduler", "storm-even", "--topology", "throughput"}, extra...)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"zero rate", base("--rate", "0"), "--rate 0 is not a rate"},
		{"negative rate", base("--rate", "-5"), "--rate -5 is not a rate"},
		{"NaN rate", base("--rate", "NaN"), "--rate NaN is not a rate"},
		{"rate above the maximum", base("--rate", "100001"), "above 100000 tuples/s"},
		{"not a number", base("--rate", "fast"), `invalid argument "fast" for "--rate"`},
		{"unknown arrivals", base("--rate", "100", "--arrivals", "bursty"), `unknown --arrivals "bursty"`},
		{"rate given twice", base("--rate", "100", "--", "--rate", "5"), "--rate is given twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli(t, c.args...)
			if code != exitBadInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d stdout %q stderr %q: want exit 2 and one line containing %q", code, out, errs, c.want)
			}
		})
	}
}

// The open-loop flags reach the topology; without --rate the topology flags are the ones given.
func TestRunRateTopologyArgs(t *testing.T) {
	o := runOptions{extra: []string{"--workers", "2"}, arrivals: "poisson"}
	if got := o.topologyArgs(); !slices.Equal(got, []string{"--workers", "2"}) {
		t.Errorf("closed loop: topology args %q", got)
	}
	o.rate, o.rateSet = 250.5, true
	if got, want := o.topologyArgs(), []string{"--workers", "2", "--rate", "250.5", "--arrivals", "poisson"}; !slices.Equal(got, want) {
		t.Errorf("open loop: topology args %q, want %q", got, want)
	}
}

// An open-loop run's JSON row has latency_ms, latency_from_intended_ms and send_lag_ms (p50, p99, max)
// and the rates; a closed-loop row has none of them.
func TestRunRowOpenLoop(t *testing.T) {
	m := harness.Measurement{Throughput: 99, LatencyP50: 3, LatencyP99: 9, LatencyMax: 40}
	o := runOptions{scheduler: "storm-even", topology: "throughput", shape: "heterogeneous-2"}
	var b strings.Builder
	if err := newRunRow(o, &harness.RunResult{Measurement: m}).write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"latency_ms", "latency_from_intended_ms", "send_lag_ms", "offered_rate"} {
		if strings.Contains(b.String(), f) {
			t.Errorf("closed-loop row has %s: %s", f, b.String())
		}
	}
	m.OpenLoop = &harness.OpenLoop{IntendedP50: 4, IntendedP99: 1900, IntendedMax: 2010, SendLagP50: 1, SendLagP99: 1890,
		SendLagMax: 2000, OfferedRate: 100, EmittedRate: 99.5}
	b.Reset()
	row := newRunRow(o, &harness.RunResult{Measurement: m})
	if err := row.write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Latency, Intended, Lag map[string]float64
		Offered, Achieved      float64
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(b.String()), &raw); err != nil {
		t.Fatal(err)
	}
	for k, dst := range map[string]any{"latency_ms": &back.Latency, "latency_from_intended_ms": &back.Intended,
		"send_lag_ms": &back.Lag, "offered_rate": &back.Offered, "achieved_rate": &back.Achieved} {
		if err := json.Unmarshal(raw[k], dst); err != nil {
			t.Fatalf("%s: %v in %s", k, err, b.String())
		}
	}
	want := map[string][3]float64{"latency_ms": {3, 9, 40}, "latency_from_intended_ms": {4, 1900, 2010}, "send_lag_ms": {1, 1890, 2000}}
	for k, q := range map[string]map[string]float64{"latency_ms": back.Latency, "latency_from_intended_ms": back.Intended, "send_lag_ms": back.Lag} {
		if got := [3]float64{q["p50"], q["p99"], q["max"]}; got != want[k] {
			t.Errorf("%s = %v, want %v", k, got, want[k])
		}
	}
	if back.Offered != 100 || back.Achieved != 99.5 {
		t.Errorf("rates %v %v, want 100 and 99.5", back.Offered, back.Achieved)
	}
	b.Reset()
	if err := row.write(&b, "table"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "latency from intended") || !strings.Contains(b.String(), "offered 100.0 tuples/s, achieved (emitted) 99.5") {
		t.Errorf("table lacks the open-loop rows:\n%s", b.String())
	}
}
