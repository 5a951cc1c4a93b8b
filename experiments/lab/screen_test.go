package lab

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/reports"
)

// run is one synthetic cluster run: series, x, rep, value, suspect reason
// and inputs not measured.
type run struct {
	s       string
	x       float64
	v       float64
	suspect string
	only    []string // SuspectMetrics
	nm      []string
}

func runsOf(rs ...run) *Results {
	r := &Results{Experiment: "t"}
	reps := map[string]int{}
	for _, x := range rs {
		k := x.s + FormatX(x.x)
		r.Add(Row{Series: x.s, X: x.x, Rep: reps[k], Values: map[string]float64{"m": x.v}, Suspect: x.suspect, SuspectMetrics: x.only, NotMeasured: x.nm})
		reps[k]++
	}
	return r
}

func TestScreenRuns(t *testing.T) {
	ok := func(s string, x float64) run { return run{s: s, x: x, v: 1} }
	bad := run{s: "a", x: 0, v: 1, suspect: "latency 20% apart"}
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
			[]string{"a x=0: 2 valid run(s) (1 suspect left out), a verdict needs >= 3"}, 2, 0},
		{"1 of 4 suspect: 3 left, enough", runsOf(ok("a", 0), ok("a", 0), ok("a", 0), bad, ok("b", 0), ok("b", 0), ok("b", 0)), nil, []string{"a", "b"}, 1, nil, 3, 0},
		{"input not measured on a valid run", runsOf(ok("a", 0), ok("a", 0), run{s: "a", v: 1, nm: []string{"deadline", "tuple_size"}}), nil, []string{"a"}, 0,
			[]string{"a x=0 rep 2: the scheduler decided without deadline, tuple_size (not measured)"}, 3, 0},
		{"input not measured on a suspect run: left out, counted once", runsOf(ok("a", 0), ok("a", 0), ok("a", 0), run{s: "a", v: 1, suspect: "x", nm: []string{"deadline"}}), nil, []string{"a"}, 1, nil, 3, 0},
		{"series without runs", runsOf(ok("a", 0), ok("a", 0), ok("a", 0)), nil, []string{"a", "c"}, 0, []string{"no runs of c"}, 3, 0},
		{"keep screens only its cells", runsOf(ok("a", 0), ok("a", 0), ok("a", 0), run{s: "a", x: 10, v: 1, suspect: "x"}), func(x float64) bool { return x == 0 }, []string{"a"}, 0, nil, 3, 0},
		{"suspect for another metric only: stays", runsOf(ok("a", 0), ok("a", 0), run{s: "a", v: 1, suspect: "latency 20% apart", only: []string{"lat"}}), nil, []string{"a"}, 0, nil, 3, 0},
		{"suspect for this metric among others: left out", runsOf(ok("a", 0), ok("a", 0), ok("a", 0), run{s: "a", v: 1, suspect: "x", only: []string{"lat", "m"}}), nil, []string{"a"}, 1, nil, 3, 0},
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
	blocked := Screen{Excluded: []string{"a x=0 rep 2: latency 20% apart"}, Blockers: []string{"a x=0: 2 valid run(s) (1 suspect left out), a verdict needs >= 3"}}
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
	// The ci profile's reason stays first when both apply.
	cs := []Claim{{Statement: "a > b", Checks: []reports.Check{reports.DifferenceCheck("a > b", hi, lo, reports.Greater, "")}, Screen: blocked}}
	JudgeClaims(cs, "profile ci runs 1 repetition(s)")
	if cs[0].Verdict != reports.Inconclusive || !strings.HasPrefix(cs[0].Reason, "profile ci") {
		t.Errorf("no-verdict profile with a blocked screen: %q %q", cs[0].Verdict, cs[0].Reason)
	}
}
