package capacity

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// knee simulates a system that keeps up with any rate up to its capacity and falls behind above it:
// acked = min(rate, capacity), and the queue that builds above capacity shows in latency and lag. Its
// windows are what the criteria would see from a real cluster at each side of the knee.
type knee struct {
	capacity float64
	windows  int
	probes   []float64
}

func (k *knee) Probe(_ context.Context, rate float64) ([]Window, error) {
	k.probes = append(k.probes, rate)
	ws := make([]Window, k.windows)
	for i := range ws {
		ws[i] = Window{OfferedRate: rate, AckedRate: min(rate, k.capacity), LatencyP99Ms: 20, SendLagP50Ms: 1}
		if rate > k.capacity {
			// The backlog grows by (rate - capacity) tuples each second of a 10 s window.
			backlogS := (rate - k.capacity) / k.capacity * 10 * float64(i+1)
			ws[i].LatencyP99Ms = 20 + 1000*backlogS
		}
	}
	return ws, nil
}

// TestSearchFindsKnee: on a system with a known knee the search ends with a sustainable rate within
// the stated precision below the knee and a failed rate above it. Tolerance: exactly the search's
// precision (5%), from its stopping rule.
func TestSearchFindsKnee(t *testing.T) {
	for _, tc := range []struct {
		name         string
		knee, start  float64
		maxSteps     int // exponential steps + bisections needed, log2 bounds
		wantBelow    bool
		wantAtLeast  bool
		maxRate      float64
		wantCapacity float64 // exact where the search must land on a step rate
	}{
		{name: "knee between steps", knee: 2900, start: 250, maxSteps: 4 + 1 + 5},
		{name: "knee on a step", knee: 2000, start: 250, maxSteps: 4 + 1 + 5},
		{name: "knee just above start", knee: 260, start: 250, maxSteps: 1 + 1 + 5},
		{name: "below first step", knee: 100, start: 250, wantBelow: true, maxSteps: 1},
		{name: "at least max", knee: 1e9, start: 250, maxRate: 5000, wantAtLeast: true, wantCapacity: 5000, maxSteps: 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := &knee{capacity: tc.knee, windows: 3}
			r, err := Search(context.Background(), k, Options{Start: tc.start, Max: tc.maxRate})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Steps) > tc.maxSteps {
				t.Errorf("%d steps, want at most %d: %v", len(r.Steps), tc.maxSteps, k.probes)
			}
			switch {
			case tc.wantBelow:
				if !r.BelowFirstStep || r.Capacity != 0 || r.Failed != tc.start {
					t.Errorf("want below first step, got %+v", r)
				}
			case tc.wantAtLeast:
				if !r.AtLeast || r.Capacity != tc.wantCapacity {
					t.Errorf("want at least %v, got %+v", tc.wantCapacity, r)
				}
			default:
				if r.Capacity > tc.knee || r.Capacity < tc.knee*(1-0.05) {
					t.Errorf("capacity %v, want within 5%% below the knee %v", r.Capacity, tc.knee)
				}
				if r.Failed <= tc.knee || (r.Failed-r.Capacity)/r.Capacity > 0.05 {
					t.Errorf("failed %v, want above the knee %v and within 5%% of %v", r.Failed, tc.knee, r.Capacity)
				}
				if s := r.CapacityStep(); s == nil || len(s.Windows) != 3 {
					t.Errorf("capacity step %+v, want the step with its 3 windows", s)
				}
			}
		})
	}
}

// TestSearchPropertyRandomKnees: for 200 seeded knees and starts, the capacity is within the precision
// below the knee, or above it by at most the 2% shortfall the criteria forgive (acked >= 98% of
// offered), or the start is above the knee and the search says so.
func TestSearchPropertyRandomKnees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		kn := 10 + rng.Float64()*50_000
		start := 10 + rng.Float64()*1000
		prec := 0.01 + rng.Float64()*0.1
		r, err := Search(context.Background(), &knee{capacity: kn, windows: 2}, Options{Start: start, Precision: prec})
		if err != nil {
			t.Fatal(err)
		}
		if start > kn/DefaultCriteria.MinAchieved {
			if !r.BelowFirstStep {
				t.Fatalf("knee %v start %v: want below first step, got %+v", kn, start, r)
			}
			continue
		}
		if r.Capacity > kn/DefaultCriteria.MinAchieved || r.Capacity < kn/(1+prec) {
			t.Fatalf("knee %v start %v precision %v: capacity %v", kn, start, prec, r.Capacity)
		}
	}
}

// TestJudge: each criterion fails the step on its own; the message names it.
func TestJudge(t *testing.T) {
	ok := Window{OfferedRate: 1000, AckedRate: 995, LatencyP99Ms: 40, SendLagP50Ms: 2}
	with := func(f func(*Window)) Window { w := ok; f(&w); return w }
	for _, tc := range []struct {
		name string
		ws   []Window
		want string // "" = sustainable
	}{
		{"all good", []Window{ok, ok, ok}, ""},
		{"no windows", nil, "no measurement window"},
		{"nothing offered", []Window{with(func(w *Window) { w.OfferedRate = 0 })}, "nothing offered"},
		{"acked 97.9% over the step", []Window{with(func(w *Window) { w.AckedRate = 979 }), with(func(w *Window) { w.AckedRate = 979 })}, "acked 979.0 of 1000.0 tuples/s offered over the step (97.9%"},
		{"acked exactly 98%", []Window{with(func(w *Window) { w.AckedRate = 980 })}, ""},
		// Report edges move one window's count; the step's total is what counts (values from a run).
		{"one low window, step keeps up", []Window{with(func(w *Window) { w.OfferedRate, w.AckedRate = 100, 101.6 }),
			with(func(w *Window) { w.OfferedRate, w.AckedRate = 100, 104.1 }), with(func(w *Window) { w.OfferedRate, w.AckedRate = 100, 97.5 })}, ""},
		{"p99 over bound", []Window{ok, ok, with(func(w *Window) { w.LatencyP99Ms = 2001 })}, "window 3: latency p99"},
		{"lag grows 101 ms", []Window{ok, ok, with(func(w *Window) { w.SendLagP50Ms = 103 })}, "send lag p50 grew by 101 ms"},
		{"lag high but flat", []Window{with(func(w *Window) { w.SendLagP50Ms = 500 }), with(func(w *Window) { w.SendLagP50Ms = 550 })}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sus, why := DefaultCriteria.Judge(tc.ws)
			if sus != (tc.want == "") || !strings.Contains(why, tc.want) {
				t.Errorf("Judge = %v, %q; want sustainable %v, reason containing %q", sus, why, tc.want == "", tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	with := func(f func(*Options)) Options { o := DefaultOptions; f(&o); return o }
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{with(func(o *Options) { o.Start = -1 }), "start rate -1"},
		{with(func(o *Options) { o.Start = math.NaN() }), "start rate NaN"},
		{with(func(o *Options) { o.Start, o.Max = 500, 100 }), "below the start rate"},
		{with(func(o *Options) { o.Factor = 1 }), "step factor 1"},
		{with(func(o *Options) { o.Precision = 1.5 }), "precision 1.5"},
		{with(func(o *Options) { o.Criteria.MinAchieved = 2 }), "minimum achieved share 2"},
		{with(func(o *Options) { o.Criteria.P99Bound = 0 }), "p99 bound must be positive"},
	} {
		err := tc.o.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.o, err, tc.want)
		}
		if _, serr := Search(context.Background(), &knee{capacity: 1}, tc.o); serr == nil {
			t.Errorf("Search(%+v) ran", tc.o)
		}
	}
}

// TestProbeErrorKeepsSteps: a failed probe ends the search with the error and every step so far.
func TestProbeErrorKeepsSteps(t *testing.T) {
	n := 0
	p := ProberFunc(func(ctx context.Context, rate float64) ([]Window, error) {
		if n++; n == 3 {
			return nil, errors.New("cluster gone")
		}
		return []Window{{OfferedRate: rate, AckedRate: rate}}, nil
	})
	r, err := Search(context.Background(), p, Options{Start: 100})
	if err == nil || !strings.Contains(err.Error(), "cluster gone") || len(r.Steps) != 3 || r.Steps[2].Sustainable {
		t.Fatalf("err %v, steps %+v", err, r.Steps)
	}
}

// TestSummarize: two or more searches give a t-interval over their capacities (reference: mean 1000,
// sample std 100, n 3 -> half width t(0.975, 2) * 100 / sqrt(3) = 4.302653 * 57.735 = 248.41); one
// search gives the interval of its capacity step's acked rates; a search below its first step fails.
func TestSummarize(t *testing.T) {
	res := func(c float64, acked ...float64) *Result {
		st := Step{Rate: c, Sustainable: true}
		for _, a := range acked {
			st.Windows = append(st.Windows, Window{OfferedRate: c, AckedRate: a})
		}
		return &Result{Capacity: c, Steps: []Step{st}}
	}
	s, err := Summarize([]*Result{res(900, 900), res(1000, 1000), res(1100, 1100)})
	if err != nil || s.Capacity != 1000 || math.Abs(s.CI95[1]-1000-248.41) > 0.01 || !strings.Contains(s.CIOver, "3 independent searches") {
		t.Errorf("three searches: %+v, %v", s, err)
	}
	s, err = Summarize([]*Result{res(1000, 990, 1000, 1010)})
	if err != nil || s.Capacity != 1000 || s.CI95[0] >= 1000 || s.CI95[1] <= 1000 || !strings.Contains(s.CIOver, "3 consecutive windows") {
		t.Errorf("one search: %+v, %v", s, err)
	}
	if _, err := Summarize([]*Result{{BelowFirstStep: true, Failed: 250}}); err == nil || !strings.Contains(err.Error(), "below the first step (250") {
		t.Errorf("below first step: %v", err)
	}
}
