package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/capacity"
	"github.com/stormlab/stormlab/internal/golden"
)

func TestCapacityBadInput(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	base := func(extra ...string) []string {
		return append([]string{"capacity", "--scheduler", "kpart", "--topology", "wordcount"}, extra...)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"scheduler missing", []string{"capacity", "--topology", "wordcount"}, "--scheduler is required"},
		{"unknown scheduler", []string{"capacity", "--scheduler", "nope", "--topology", "wordcount"}, `unknown scheduler "nope"`},
		{"topology missing", []string{"capacity", "--scheduler", "kpart"}, "--topology is required"},
		{"unknown topology", []string{"capacity", "--scheduler", "kpart", "--topology", "pi"}, `unknown storm topology "pi"`},
		{"replay file missing", []string{"capacity", "--scheduler", "kpart", "--topology", "replay:testdata/absent.json"}, "absent.json"},
		{"replay of a plain graph", []string{"capacity", "--scheduler", "kpart", "--topology", "replay:testdata/small.json"}, "capture one with"},
		{"unknown shape", base("--cluster", "huge-9"), `unknown cluster shape "huge-9"`},
		{"start zero", base("--start", "0"), "start rate 0 is not a rate"},
		{"start NaN", base("--start", "NaN"), "start rate NaN is not a rate"},
		{"max below start", base("--start", "500", "--max", "100"), "below the start rate"},
		{"max above spouts", base("--max", "1e6"), "the most the spouts can generate"},
		{"factor 1", base("--factor", "1"), "step factor 1 must be above 1"},
		{"precision 0", base("--precision", "0"), "precision 0 must be in (0, 1)"},
		{"achieved over 1", base("--min-achieved", "1.2"), "minimum achieved share 1.2"},
		{"bound zero", base("--p99-bound", "0s"), "p99 bound must be positive"},
		{"one window", base("--windows", "1"), "at least 2 windows"},
		{"short window", base("--window", "1s"), "--window 1s is shorter"},
		{"no reps", base("--reps", "0"), "--reps 0"},
		{"bad arrivals", base("--arrivals", "bursty"), `unknown --arrivals "bursty"`},
		{"bad format", base("--format", "xml"), `unknown --format "xml"`},
		{"rate after dash", base("--", "--rate", "5"), "topology flag --rate is set by stormlab capacity"},
		{"stray argument", base("now"), "capacity takes no arguments"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli(t, c.args...)
			if code != exitBadInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d stdout %q stderr %q: want exit 2 and one line containing %q", code, out, errs, c.want)
			}
		})
	}
}

// Without a Docker engine the search fails (exit 1) before anything starts, naming how to start one.
func TestCapacityNoDockerEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	code, out, errs := cli(t, "capacity", "--scheduler", "storm-even", "--topology", "wordcount")
	if code != exitFailed || out != "" || !strings.Contains(errs, "no Docker engine reachable") {
		t.Errorf("exit %d stdout %q stderr %q: want exit 1 naming the missing engine", code, out, errs)
	}
}

// TestCapacityTableGolden renders a hand-made two-step search.
func TestCapacityTableGolden(t *testing.T) {
	w := func(off, acked, p99, lag float64) capacity.Window {
		return capacity.Window{OfferedRate: off, AckedRate: acked, LatencyP99Ms: p99, SendLagP50Ms: lag}
	}
	r := &capacity.Result{Capacity: 400, Failed: 800, WallS: 150, Steps: []capacity.Step{
		{Rate: 400, Phase: "step up", Sustainable: true, WallS: 70, Windows: []capacity.Window{w(400, 399, 40, 1), w(400, 401, 42, 2)}},
		{Rate: 800, Phase: "step up", Why: "window 1: acked 600 of 800 tuples/s offered (75.0% < 98%)", WallS: 80,
			Windows: []capacity.Window{w(800, 600, 4000, 100), w(800, 610, 9000, 900)}},
	}}
	s, err := capacity.Summarize([]*capacity.Result{r})
	if err != nil {
		t.Fatal(err)
	}
	rep := capacityReport{Scheduler: "kpart", Topology: "wordcount", Cluster: "heterogeneous-2", Summary: s,
		Searches: []*capacity.Result{r}, Steps: r.Steps, WallS: 151}
	var b bytes.Buffer
	if err := writeCapacityTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/capacity.golden", b.Bytes())
}
