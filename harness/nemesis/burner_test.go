package nemesis

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
)

// TestBurnerPlans checks the sizing of background load (burner.go's definition: L% of Q cores is
// k = ceil(L/100*Q) tasks, each busy L/100*Q/k). Reference numbers by hand: 20% of 0.25 cores is
// 0.05 cores, one task busy 5%; 80% of 1.0 core is one task busy 80%; 50% of 3 cores is 1.5 cores,
// two tasks busy 75%; 100% of 2 cores is two tasks busy all the time.
func TestBurnerPlans(t *testing.T) {
	tests := []struct {
		percent float64
		cores   map[string]float64
		want    []burnerPlan
	}{
		{20, map[string]float64{"sup2": 0.25, "sup1": 1}, []burnerPlan{{host: "sup1", tasks: 1, busy: 0.2}, {host: "sup2", tasks: 1, busy: 0.05}}},
		{80, map[string]float64{"sup1": 1}, []burnerPlan{{host: "sup1", tasks: 1, busy: 0.8}}},
		{50, map[string]float64{"big": 3}, []burnerPlan{{host: "big", tasks: 2, busy: 0.75}}},
		{100, map[string]float64{"h": 2}, []burnerPlan{{host: "h", tasks: 2, busy: 1}}},
	}
	for _, tc := range tests {
		got, err := burnerPlans(tc.percent, tc.cores, nil)
		if err != nil {
			t.Fatalf("burnerPlans(%v): %v", tc.percent, err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("burnerPlans(%v) = %v, want %v", tc.percent, got, tc.want)
		}
		for i, w := range tc.want {
			g := got[i]
			if g.host != w.host || g.tasks != w.tasks || math.Abs(g.busy-w.busy) > 1e-9 {
				t.Errorf("burnerPlans(%v)[%d] = %+v, want %+v", tc.percent, i, g, w)
			}
		}
	}
}

func TestBurnerPlansBadInput(t *testing.T) {
	for _, tc := range []struct {
		percent float64
		cores   map[string]float64
		want    string
	}{
		{0, map[string]float64{"h": 1}, "out of range"},
		{101, map[string]float64{"h": 1}, "out of range"},
		{math.NaN(), map[string]float64{"h": 1}, "out of range"},
		{50, map[string]float64{"h": 0}, "supervisor.cpu.capacity"},
	} {
		if _, err := burnerPlans(tc.percent, tc.cores, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("burnerPlans(%v, %v) error %v, want one saying %q", tc.percent, tc.cores, err, tc.want)
		}
	}
}

// TestBurnerArgs checks that a burner names its host and EvenScheduler in its conf (so the bridge pins
// it there) and that its name is a valid, recognisable topology name.
func TestBurnerArgs(t *testing.T) {
	p := burnerPlan{host: "sup1.example.org", tasks: 2, busy: 0.75}
	args := p.args()
	for _, want := range []string{protocol.NodesConf + "=sup1.example.org", protocol.TopologySchedulerConf + "=storm-even", "0.7500"} {
		if !slices.Contains(args, want) {
			t.Errorf("args %v lack %q", args, want)
		}
	}
	if p.name() != "stormlab-burner-sup1-example-org" || !IsBurner(p.name()) {
		t.Errorf("name %q", p.name())
	}
	if IsBurner("wordcount-1-1700000000") {
		t.Error("a measured topology taken for a burner")
	}
}

// fakeStorm is a Storm whose UI lists the given topologies, which records submissions and posts to
// post.
type fakeStorm struct {
	Storm
	ui        *stormui.Client
	post      func(path string, v any) error
	submitted []string
}

func (f *fakeStorm) UI() *stormui.Client  { return f.ui }
func (f *fakeStorm) Jar() (string, error) { return "burner.jar", nil }
func (f *fakeStorm) Submit(_ context.Context, _, main string, args ...string) error {
	f.submitted = append(f.submitted, main)
	return nil
}

// TestBurnerLeftBehind: a burner that already runs (left by a killed run) makes background load refuse
// before anything is submitted, naming the topology and how to remove it.
func TestBurnerLeftBehind(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"topologies":[{"id":"stormlab-burner-sup1-3-1700000000","name":"stormlab-burner-sup1","status":"ACTIVE"}]}`)
	}))
	defer srv.Close()
	st := &fakeStorm{ui: stormui.New(srv.URL)}
	n := &Nemesis{storm: st, name: "t", logf: t.Logf, cores: func() map[string]float64 { return map[string]float64{"sup1": 1, "sup2": 0.5} }}
	_, err := n.Inject(t.Context(), fault.Load(50))
	if err == nil || !strings.Contains(err.Error(), "stormlab-burner-sup1 already runs") || !strings.Contains(err.Error(), "storm kill") {
		t.Errorf("Inject = %v, want a refusal naming the burner and how to kill it", err)
	}
	if len(st.submitted) > 0 {
		t.Errorf("submitted %v before refusing", st.submitted)
	}
}

func (f *fakeStorm) Post(_ context.Context, path string, v any) error { return f.post(path, v) }
func (f *fakeStorm) State(context.Context, int64) (*protocol.State, error) {
	return &protocol.State{}, nil
}

// TestSwitchStraggler: a straggler fault switches its host's prepared burner to percent x the host's
// cores / the burner's tasks (80% of 0.5 cores on a 1-task burner: busy 0.4; 50% of 3 cores on a
// 2-task burner: 0.75), its undo switches it off, and a host without a prepared burner is an error.
func TestSwitchStraggler(t *testing.T) {
	var got []protocol.Burn
	st := &fakeStorm{post: func(path string, v any) error {
		if path == protocol.PathBurn {
			got = append(got, v.(protocol.Burn))
		}
		return nil
	}}
	n := &Nemesis{storm: st, name: "t", logf: t.Logf, cores: func() map[string]float64 { return map[string]float64{"sup1": 0.5, "big": 3} }}
	n.stragglers = map[string]burnerPlan{
		"sup1": {host: "sup1", tasks: 1, role: "straggler-", switched: true},
		"big":  {host: "big", tasks: 2, role: "straggler-", switched: true},
	}
	for _, c := range []struct {
		target string
		want   protocol.Burn
	}{
		{"sup1=80", protocol.Burn{Topology: "stormlab-burner-straggler-sup1", Busy: 0.4}},
		{"big=50", protocol.Burn{Topology: "stormlab-burner-straggler-big", Busy: 0.75}},
	} {
		got = nil
		undo, err := n.Inject(t.Context(), fault.Fault{Kind: fault.Straggler, Arg: c.target, Duration: time.Second})
		if err != nil {
			t.Fatalf("%s: %v", c.target, err)
		}
		if err := undo(t.Context()); err != nil {
			t.Fatal(err)
		}
		off := protocol.Burn{Topology: c.want.Topology}
		if len(got) != 2 || got[0].Topology != c.want.Topology || math.Abs(got[0].Busy-c.want.Busy) > 1e-9 || got[1] != off {
			t.Errorf("%s: burns %+v, want %+v then %+v", c.target, got, c.want, off)
		}
	}
	n.cores = func() map[string]float64 { return map[string]float64{"sup1": 0.5, "sup2": 1} }
	if _, err := n.Inject(t.Context(), fault.Fault{Kind: fault.Straggler, Arg: "sup2=50", Duration: time.Second}); err == nil || !strings.Contains(err.Error(), "no burner was started on sup2") {
		t.Errorf("unprepared straggler: %v", err)
	}
}

// TestStragglerApplied: a straggler's applied load is read from its own burner's reports (the
// burner's topology name), against its percent of the host's cores: 80% of sup1's 0.5 core = 0.40
// cores asked; reports of 0.10 and 0.30 core inside the span give 0.20 used. Other kinds give none.
func TestStragglerApplied(t *testing.T) {
	f, err := fault.Parse("straggler@5s+20s:sup1=80")
	if err != nil {
		t.Fatal(err)
	}
	tops := []protocol.TopologyState{{ID: burnerPlan{host: "sup1", role: "straggler-"}.name() + "-3-17", WorkerCPU: []protocol.WorkerSample{
		{TimeMs: 13_000, CPUPercent: 10}, {TimeMs: 15_000, CPUPercent: 30}}}}
	a := StragglerApplied(tops, f, map[string]float64{"sup1": 50}, 10_000, 30_000)
	if a == nil || a.Host != "sup1" || math.Abs(a.Asked-0.40) > 1e-9 || a.Used == nil || math.Abs(*a.Used-0.20) > 1e-9 || a.Reports != 2 {
		t.Errorf("applied %+v, want sup1 0.40 asked, 0.20 used over 2 reports", a)
	}
	k, err := fault.Parse("pause-worker@5s+5s:sup1")
	if err != nil {
		t.Fatal(err)
	}
	if a := StragglerApplied(tops, k, map[string]float64{"sup1": 50}, 10_000, 30_000); a != nil {
		t.Errorf("a pause fault's applied load %+v, want none", a)
	}
}
