package lab

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/reports"
)

// whyRow is a run of series at x = 0 with bottleneck text b by rule limit; starved names its
// host-starved node ("" none); read says its cgroups were read.
func whyRow(series, limit, b string, migrations int, starved string, read bool) Row {
	return Row{Series: series, Limit: limit, Bottleneck: b, Values: map[string]float64{"throughput": 1},
		Diag: RunDiagnosis{Migrations: migrations, HostStarved: starved, StarvationRead: read}}
}

// TestWhy: the why line names what differs between the compared series with every series' figure, says
// when nothing differs, leaves host starvation "not read" (never 0) where no cgroup was read, and a
// series more than half of whose runs were host-starved blocks the claim (inconclusive, with why).
func TestWhy(t *testing.T) {
	const full, starved = "node at its quota", "host-starved: sup2 got 0.20 of 0.50 core (host 0% idle)"
	cases := []struct {
		name    string
		rows    []Row
		want    []string
		blocked string // "" none
	}{
		{"bottleneck and migrations differ", []Row{
			whyRow("kpart", full, "sup2 CPU 98% of 1.00 core", 2, "", true),
			whyRow("kpart", full, "sup2 CPU 97% of 1.00 core", 1, "", true),
			whyRow("even", "executor busy", "count task 7 busy 0.96 (sup1)", 0, "", true),
		}, []string{"Differ: bottleneck (kpart node at its quota in 2 of 2, even executor busy in 1 of 1); migrations (kpart 1.5 per run, even 0.0 per run).",
			"kpart (2 run(s)): bottleneck node at its quota in 2 (sup2 CPU 97% of 1.00 core; sup2 CPU 98% of 1.00 core); 3 migration(s), 0 worker restart(s), host-starved in 0 of 2"}, ""},
		{"nothing differs, starvation not read", []Row{
			whyRow("kpart", full, "sup1 CPU 99% of 0.50 core", 0, "", false),
			whyRow("even", full, "sup2 CPU 96% of 0.50 core", 0, "", false),
		}, []string{"The diagnoses do not differ between the series:", "even (1 run(s)): bottleneck node at its quota in 1 (sup2 CPU 96% of 0.50 core); 0 migration(s), 0 worker restart(s), host starvation not read."}, ""},
		{"two of three host-starved", []Row{
			whyRow("kpart", "host-starved", starved, 0, starved, true),
			whyRow("kpart", "host-starved", starved, 0, starved, true),
			whyRow("kpart", full, "sup1 CPU 99% of 0.50 core", 0, "", true),
			whyRow("even", full, "sup2 CPU 96% of 0.50 core", 0, "", true),
		}, []string{"host starvation (kpart host-starved in 2 of 3, even host-starved in 0 of 1)", "bottleneck host-starved in 2 (" + starved + ")"},
			"2 of 3 runs of kpart host-starved (" + starved + "): the host did not give the nodes their quotas"},
		{"one of two host-starved: not more than half", []Row{
			whyRow("kpart", "host-starved", starved, 0, starved, true),
			whyRow("kpart", full, "sup1 CPU 99% of 0.50 core", 0, "", true),
		}, []string{"One series diagnosed:"}, ""},
	}
	for _, c := range cases {
		r := &Results{Rows: c.rows}
		sc := ScreenRuns(r, "throughput", nil, "kpart", "even")
		for _, w := range c.want {
			if !strings.Contains(sc.Why, w) {
				t.Errorf("%s: why %q\nwant %q", c.name, sc.Why, w)
			}
		}
		blocked := strings.Join(sc.Blockers, "; ")
		if c.blocked != "" && !strings.Contains(blocked, c.blocked) || c.blocked == "" && strings.Contains(blocked, "host-starved") {
			t.Errorf("%s: blockers %q; want host starvation %q", c.name, blocked, c.blocked)
		}
		cl := []Claim{{Checks: []reports.Check{reports.Missing("x", "no data")}, Screen: sc}}
		JudgeClaims(cl, "")
		if c.blocked != "" && (cl[0].Verdict != reports.Inconclusive || !strings.Contains(cl[0].Reason, "host-starved")) {
			t.Errorf("%s: verdict %s (%s): want inconclusive for host starvation", c.name, cl[0].Verdict, cl[0].Reason)
		}
	}
	if why, _ := whyOf(&Results{Rows: []Row{{Series: "kpart", Values: map[string]float64{"x": 1}}}}, nil, []string{"kpart"}); why != "" {
		t.Errorf("rows without a diagnosis (graph experiments) gave a why line %q", why)
	}
}

// TestWhyHostSpeed: the why line names the host's speed where the series' medians are hostspeed.Apart
// or more apart, says per series where it was sampled, and says nothing of it for runs never sampled.
func TestWhyHostSpeed(t *testing.T) {
	const full = "node at its quota"
	row := func(series string, ns float64) Row {
		r := whyRow(series, full, "sup1 CPU 99% of 0.50 core", 0, "", true)
		r.Diag.HostNs = ns
		return r
	}
	for _, c := range []struct {
		name   string
		rows   []Row
		want   []string
		absent string
	}{
		{"apart: 13.3 over 12.0 is 11% slower, past 3%", []Row{row("kpart", 12), row("kpart", 12.2), row("kpart", 11.8), row("even", 13.3), row("even", 0)},
			[]string{"; host speed (kpart host 12.0 ns a probe step (median of 3), even host 13.3 ns a probe step (median of 1), not sampled in 1).",
				"host-starved in 0 of 3, host 12.0 ns a probe step (median of 3);"}, ""},
		{"close: 12.3 over 12.0 is 2.5%", []Row{row("kpart", 12), row("even", 12.3)},
			[]string{"The diagnoses do not differ", "host 12.3 ns a probe step (median of 1)."}, "Differ"},
		{"never sampled", []Row{row("kpart", 0), row("even", 0)}, []string{"The diagnoses do not differ"}, "probe"},
	} {
		sc := ScreenRuns(&Results{Rows: c.rows}, "throughput", nil, "kpart", "even")
		for _, w := range c.want {
			if !strings.Contains(sc.Why, w) {
				t.Errorf("%s: why %q\nwant %q", c.name, sc.Why, w)
			}
		}
		if c.absent != "" && strings.Contains(sc.Why, c.absent) {
			t.Errorf("%s: why %q says %q", c.name, sc.Why, c.absent)
		}
	}
}
