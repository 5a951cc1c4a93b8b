package diagnose

import (
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// base is a 40 s window on two nodes of 0.5 core, three tasks on two workers reporting every 5 s.
func base() Input {
	in := Input{FromMs: 0, ToMs: 40_000,
		Capacity: map[string]float64{"sup1": 50, "sup2": 50},
		NodeCPU:  map[string]float64{"sup1": 30, "sup2": 20},
		Tasks:    map[int]Task{1: {"split", "sup1", 6700}, 2: {"count", "sup2", 6700}, 3: {"__acker", "sup2", 6700}},
	}
	for t := int64(5_000); t <= 40_000; t += 5_000 {
		in.Reports = append(in.Reports,
			protocol.WorkerReport{Host: "sup1", Port: 6700, TimeMs: t, IntervalS: 5, WorkerStartMs: 1, CPU: []protocol.TaskCPU{{Task: 1, CPUNs: 2e9}}},
			protocol.WorkerReport{Host: "sup2", Port: 6700, TimeMs: t, IntervalS: 5, WorkerStartMs: 1, CPU: []protocol.TaskCPU{{Task: 2, CPUNs: 1e9}, {Task: 3, CPUNs: 5e9}}})
	}
	return in
}

// TestPrecedence: each rule on a run built to meet it, and the earlier rule winning where two are met.
// Reference figures by hand: split 2 s of CPU per 5 s report = busy 0.40; sup1 30/50 = 60% of its quota.
func TestPrecedence(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Input)
		rule string
		want string
	}{
		{"nothing limits", func(*Input) {}, "none found", "none found"},
		{"busy executor", func(in *Input) {
			for i := range in.Reports {
				if in.Reports[i].Host == "sup1" {
					in.Reports[i].CPU[0].CPUNs = 4.8e9 // 0.96 of each 5 s
				}
			}
		}, "executor busy", "split task 1 busy 0.96 (sup1)"},
		{"full node before a busy executor", func(in *Input) {
			in.NodeCPU["sup2"] = 49
			for i := range in.Reports {
				if in.Reports[i].Host == "sup1" {
					in.Reports[i].CPU[0].CPUNs = 4.8e9
				}
			}
		}, "node at its quota", "sup2 CPU 98% of 0.50 core"},
		{"a restarted, silent worker before a full node", func(in *Input) {
			in.NodeCPU["sup2"] = 49
			var kept []protocol.WorkerReport
			for _, r := range in.Reports {
				if r.Host == "sup2" && r.TimeMs > 10_000 && r.TimeMs <= 25_000 {
					continue // 15 s without reports
				}
				if r.Host == "sup2" && r.TimeMs > 25_000 {
					r.WorkerStartMs = 26_000
				}
				kept = append(kept, r)
			}
			in.Reports = kept
		}, "not running", "a worker silent 15 s of the 40 s window (1 restarted"},
		{"no report", func(in *Input) { in.NodeCPU, in.Reports = nil, nil }, "unknown", "no worker report"},
		{"reports without CPU", func(in *Input) {
			in.NodeCPU = nil
			for i := range in.Reports {
				in.Reports[i].CPU = nil
			}
		}, "unknown", "no CPU measured"},
	}
	for _, c := range cases {
		in := base()
		c.edit(&in)
		d := Run(in)
		if d.Rule != c.rule || !strings.Contains(d.Bottleneck, c.want) {
			t.Errorf("%s: rule %q, bottleneck %q; want %q containing %q", c.name, d.Rule, d.Bottleneck, c.rule, c.want)
		}
		if len(d.Unknown) != 4 || !strings.Contains(d.Unknown[0], "no control layer") || d.Unknown[1] != unreadPending ||
			d.Unknown[2] != unreadLinks || d.Unknown[3] != unreadTransfer {
			t.Errorf("%s: unknown %v: host starvation without samples, the pending limit without one known, the links without counters and the transfer threads must be named", c.name, d.Unknown)
		}
	}
}

// TestFigures: the busy fractions (Storm's own executors left out), the nodes' shares of their quotas
// and the applied migrations inside the window.
func TestFigures(t *testing.T) {
	in := base()
	in.Decisions = []protocol.DecisionRecord{
		{TimeMs: 12_000, Kind: "reschedule", Applied: true},
		{TimeMs: 13_000, Kind: "reschedule", Applied: false},
		{TimeMs: 50_000, Kind: "reschedule", Applied: true}, // after the window
	}
	d := Run(in)
	if len(d.Busiest) != 2 || d.Busiest[0].Task != 1 || math.Abs(d.Busiest[0].Busy-0.4) > 1e-9 || math.Abs(d.Busiest[1].Busy-0.2) > 1e-9 {
		t.Errorf("busiest %+v: want split 0.40 then count 0.20, the acker left out", d.Busiest)
	}
	if len(d.Nodes) != 2 || d.Nodes[0].Host != "sup1" || math.Abs(d.Nodes[0].UsedOfQuota-0.6) > 1e-9 {
		t.Errorf("nodes %+v: want sup1 at 0.60 of its quota first", d.Nodes)
	}
	if d.Migrations != 1 || d.Restarts != 0 || d.SilentS != 0 {
		t.Errorf("migrations %d, restarts %d, silent %v s: want 1, 0, 0", d.Migrations, d.Restarts, d.SilentS)
	}
}

// TestSpinBeside: a full node on containers of one host is said to pay for its neighbour's idle
// spinning at SpinBeside cores or more. By hand: sup2's task 2 counts 2.5 s idle of each 5 s report,
// 0.50 cores (0.10 at 0.5 s); sup1 at 49 of its 50 = 98% of its quota.
func TestSpinBeside(t *testing.T) {
	spinning := func(spinNs int64, shared bool) Input {
		in := base()
		in.NodeCPU["sup1"], in.SharedHost = 49, shared
		for i := range in.Reports {
			in.Reports[i].ThreadGroups = []protocol.ThreadGroupCPU{{Name: "Worker-Transfer", Threads: 1, CPUNs: 1e8}}
			if in.Reports[i].Host == "sup2" {
				in.Reports[i].CPU[0].CPUNs, in.Reports[i].CPU[0].SpinNs = 3e9, spinNs
			}
		}
		return in
	}
	for _, c := range []struct {
		name string
		in   Input
		want string // "" for none
	}{
		{"a neighbour spinning 0.50 cores", spinning(2.5e9, true), "sup1 CPU 98% of 0.50 core (workers), beside sup2 spinning 0.50 cores idle on one host"},
		{"a neighbour spinning 0.10 cores", spinning(0.5e9, true), ""},
		{"machines of their own", spinning(2.5e9, false), ""},
	} {
		d := Run(c.in)
		if d.Rule != "node at its quota" {
			t.Fatalf("%s: rule %q (%s), want a full node", c.name, d.Rule, d.Bottleneck)
		}
		if got := strings.Contains(d.Bottleneck, "beside"); c.want == "" && got || c.want != "" && !strings.Contains(d.Bottleneck, c.want) {
			t.Errorf("%s: bottleneck %q, want %q", c.name, d.Bottleneck, c.want)
		}
	}
}
