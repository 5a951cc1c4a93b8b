package lab

import (
	"math"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/reports"
)

// run is one synthetic cluster run: series, x, value, validity and inputs
// not measured.
type run struct {
	s   string
	x   float64
	v   float64
	val harness.Validity
	nm  []string
}

// judged is a validity with one reason.
func judged(kind harness.ReasonKind, l harness.Level, text string) harness.Validity {
	return harness.Validity{Level: l, Reasons: []harness.Reason{{Kind: kind, Level: l, Text: text}}}
}

var (
	countsOff  = judged(harness.ReasonStormCounts, harness.Suspect, "throughput 20% apart") // every metric in doubt
	latencyOff = judged(harness.ReasonStormLatency, harness.Suspect, "latency 20% apart")   // latency metrics only
	fellBack   = judged(harness.ReasonScheduler, harness.Invalid, "bridge fell back")
)

func runsOf(rs ...run) *Results {
	r := &Results{Experiment: "t"}
	reps := map[string]int{}
	for _, x := range rs {
		k := x.s + FormatX(x.x)
		r.Add(Row{Series: x.s, X: x.x, Rep: reps[k], Values: map[string]float64{"m": x.v}, Validity: x.val, NotMeasured: x.nm})
		reps[k]++
	}
	return r
}

func TestScreenRuns(t *testing.T) {
	ok := func(s string, x float64) run { return run{s: s, x: x, v: 1} }
	bad := run{s: "a", x: 0, v: 1, val: countsOff}
	for _, tc := range []struct {
		name         string
		r            *Results
		keep         func(float64) bool
		series       []string
		excluded     int
		blockers     []string // substrings, one per blocker, in order
		unitsOfA, at float64  // len(RunUnits(a at x = at)) expected
	}{
		{"3 valid runs per cell", runsOf(ok("a", 0), ok("a", 0), ok("a", 0), ok("b", 0), ok("b", 0), ok("b", 0)), nil, []string{"a", "b"}, 0, nil, 3, 0},
		{"1 of 3 suspect: 2 left, too few", runsOf(ok("a", 0), ok("a", 0), bad, ok("b", 0), ok("b", 0), ok("b", 0)), nil, []string{"a", "b"}, 1,
			[]string{"a x=0: 2 valid run(s) (1 invalid or suspect left out), a verdict needs >= 3"}, 2, 0},
		{"1 of 4 suspect: 3 left, enough", runsOf(ok("a", 0), ok("a", 0), ok("a", 0), bad, ok("b", 0), ok("b", 0), ok("b", 0)), nil, []string{"a", "b"}, 1, nil, 3, 0},
		{"input not measured on a valid run", runsOf(ok("a", 0), ok("a", 0), run{s: "a", v: 1, nm: []string{"deadline", "tuple_size"}}), nil, []string{"a"}, 0,
			[]string{"a x=0 rep 2: the scheduler decided without deadline, tuple_size (not measured)"}, 3, 0},
		{"input not measured on a suspect run: left out, counted once", runsOf(ok("a", 0), ok("a", 0), ok("a", 0), run{s: "a", v: 1, val: countsOff, nm: []string{"deadline"}}), nil, []string{"a"}, 1, nil, 3, 0},
		{"series without runs", runsOf(ok("a", 0), ok("a", 0), ok("a", 0)), nil, []string{"a", "c"}, 0, []string{"no runs of c"}, 3, 0},
		{"keep screens only its cells", runsOf(ok("a", 0), ok("a", 0), ok("a", 0), run{s: "a", x: 10, v: 1, val: countsOff}), func(x float64) bool { return x == 0 }, []string{"a"}, 0, nil, 3, 0},
		{"suspect for latency only: stays", runsOf(ok("a", 0), ok("a", 0), run{s: "a", v: 1, val: latencyOff}), nil, []string{"a"}, 0, nil, 3, 0},
		{"suspect for every metric: left out", runsOf(ok("a", 0), ok("a", 0), ok("a", 0), run{s: "a", v: 1, val: countsOff}), nil, []string{"a"}, 1, nil, 3, 0},
		{"invalid: left out", runsOf(ok("a", 0), ok("a", 0), ok("a", 0), run{s: "a", v: 1, val: fellBack}), nil, []string{"a"}, 1, nil, 3, 0},
		{"invalid of 3: 2 left, too few", runsOf(ok("a", 0), ok("a", 0), run{s: "a", v: 1, val: fellBack}), nil, []string{"a"}, 1,
			[]string{"a x=0: 2 valid run(s) (1 invalid or suspect left out)"}, 2, 0},
		{"each short cell named", runsOf(ok("a", 0), ok("a", 10), ok("a", 10), ok("a", 10)), nil, []string{"a"}, 0, []string{"a x=0: 1 valid run(s)"}, 1, 0},
	} {
		sc := ScreenRuns(tc.r, "m", tc.keep, tc.series...)
		if len(sc.Excluded) != tc.excluded {
			t.Errorf("%s: excluded %q, want %d", tc.name, sc.Excluded, tc.excluded)
		}
		if len(sc.Blockers) != len(tc.blockers) {
			t.Errorf("%s: blockers %q, want %d like %q", tc.name, sc.Blockers, len(tc.blockers), tc.blockers)
		} else {
			for i, b := range tc.blockers {
				if !strings.Contains(sc.Blockers[i], b) {
					t.Errorf("%s: blocker %d = %q, want containing %q", tc.name, i, sc.Blockers[i], b)
				}
			}
		}
		if n := len(RunUnits(tc.r, "a", "m", AtX(tc.at))); float64(n) != tc.unitsOfA {
			t.Errorf("%s: RunUnits(a, x=%v) has %d units, want %v (suspect runs left out)", tc.name, tc.at, n, tc.unitsOfA)
		}
	}
}

// A screen's blockers turn any verdict inconclusive with the reason, and
// the left-out runs show in the verdict line and in claims.json.
func TestJudgeClaimsScreen(t *testing.T) {
	hi := []float64{10, 11, 12, 10.5, 11.5}
	lo := []float64{5, 6, 5.5, 6.5, 5}
	blocked := Screen{Excluded: []string{"a x=0 rep 2: latency 20% apart"}, Blockers: []string{"a x=0: 2 valid run(s) (1 invalid or suspect left out), a verdict needs >= 3"}}
	leftOut := Screen{Excluded: []string{"a x=0 rep 3: latency 20% apart"}}
	for _, tc := range []struct {
		name   string
		checks []reports.Check
		screen Screen
		want   reports.Verdict
		reason string // substring of Reason
		line   string // substring of Line()
	}{
		{"holds, clean", []reports.Check{reports.DifferenceCheck("a > b", hi, lo, reports.Greater, "")}, Screen{}, reports.Holds, "significant", "[holds]"},
		{"holds, one suspect left out", []reports.Check{reports.DifferenceCheck("a > b", hi, lo, reports.Greater, "")}, leftOut, reports.Holds, "significant", "left out 1 suspect run(s): a x=0 rep 3"},
		{"would hold, too few valid runs", []reports.Check{reports.DifferenceCheck("a > b", hi, lo, reports.Greater, "")}, blocked, reports.Inconclusive, "invalid input: a x=0: 2 valid run(s)", "left out 1 suspect run(s)"},
		{"would not hold, input not measured", []reports.Check{reports.DifferenceCheck("a > b", lo, hi, reports.Greater, "")},
			Screen{Blockers: []string{"a x=0 rep 0: the scheduler decided without deadline (not measured)"}}, reports.Inconclusive, "decided without deadline", "[inconclusive]"},
	} {
		cs := []Claim{{Statement: "a > b", Checks: tc.checks, Screen: tc.screen}}
		JudgeClaims(cs, "")
		c := cs[0]
		if c.Verdict != tc.want || !strings.Contains(c.Reason, tc.reason) || !strings.Contains(c.Line(), tc.line) {
			t.Errorf("%s: %q, reason %q, line %q; want %q, reason with %q, line with %q", tc.name, c.Verdict, c.Reason, c.Line(), tc.want, tc.reason, tc.line)
		}
		f := claimsFile("t", "quick", cs)
		if len(tc.screen.Excluded) > 0 && !strings.Contains(f.Claims[0].Evidence, tc.screen.Excluded[0]) {
			t.Errorf("%s: claims.json evidence %q does not name the left-out run", tc.name, f.Claims[0].Evidence)
		}
	}
	// The ci scale's reason stays first when both apply.
	cs := []Claim{{Statement: "a > b", Checks: []reports.Check{reports.DifferenceCheck("a > b", hi, lo, reports.Greater, "")}, Screen: blocked}}
	JudgeClaims(cs, "profile ci runs 1 repetition(s)")
	if cs[0].Verdict != reports.Inconclusive || !strings.HasPrefix(cs[0].Reason, "profile ci") {
		t.Errorf("no-verdict scale with a blocked screen: %q %q", cs[0].Verdict, cs[0].Reason)
	}
}

// TestValidityInTables: an invalid run is in no table cell and no unit, a suspect one stays in the
// tables; raw.csv keeps both with their level and reasons, and notes.md counts them.
func TestValidityInTables(t *testing.T) {
	r := runsOf(run{s: "a", v: 1}, run{s: "a", v: 3}, run{s: "a", v: 100, val: fellBack}, run{s: "a", v: 5, val: countsOff})
	r.Metrics = []Metric{{Name: "m", Label: "m"}}
	for i := range r.Rows {
		r.Rows[i].Offered = "paced" // cluster rows: each run is a unit
	}
	a, err := Summarise(r)
	if err != nil {
		t.Fatal(err)
	}
	// Mean over the valid runs (1, 3) and the suspect one (5): 3; the invalid 100 is out.
	if s, ok := a.Get("a", 0, "m"); !ok || s.N != 3 || math.Abs(s.Mean-3) > 1e-12 {
		t.Errorf("table cell %+v (found %v), want n 3, mean 3 (invalid run left out)", s, ok)
	}
	if a.Runs != (RunCount{Valid: 2, Suspect: 1, Invalid: 1}) || a.Runs.String() != "1 invalid run(s) left out, 1 suspect" {
		t.Errorf("runs %+v %q, want 2 valid, 1 suspect, 1 invalid", a.Runs, a.Runs)
	}
	var b strings.Builder
	if err := r.WriteRaw(&b); err != nil {
		t.Fatal(err)
	}
	want := "experiment,series,x,instance,instance_seed,rep,seed,validity,reasons,m\n" +
		"t,a,0,0,0,0,0,valid,,1\nt,a,0,0,0,1,0,valid,,3\n" +
		"t,a,0,0,0,2,0,invalid,scheduler: bridge fell back,100\n" +
		"t,a,0,0,0,3,0,suspect,storm-counts: throughput 20% apart,5\n"
	if b.String() != want {
		t.Errorf("raw.csv:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestValidityTableNote: the table says how many runs were left out or are suspect, from the counts.
func TestValidityTableNote(t *testing.T) {
	r := runsOf(run{s: "a", v: 1}, run{s: "a", v: 2, val: fellBack}, run{s: "a", v: 3, val: latencyOff})
	r.Metrics = []Metric{{Name: "m"}}
	for i := range r.Rows {
		r.Rows[i].Offered = "paced"
	}
	a, err := Summarise(r)
	if err != nil {
		t.Fatal(err)
	}
	tab := a.Table("t", "series", "x")
	want := "Validity: 1 invalid run(s) left out, 1 suspect (suspect runs are kept in n; raw.csv names every run with its reasons)."
	if !ContainsStr(tab.Notes, want) || tab.Rows[0][3].String() != "2" {
		t.Errorf("notes %q, n %v; want %q and n 2", tab.Notes, tab.Rows[0][3], want)
	}
}
