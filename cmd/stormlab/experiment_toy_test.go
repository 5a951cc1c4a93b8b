package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
)

// toyExperiment is a whole experiment in one file, as docs/experiments.md
// "Adding an experiment" describes: its Spec says what it needs, what it
// costs per scale, its metric and its Run (rows only).
func toyExperiment() *lab.Spec {
	return &lab.Spec{
		Name:        "toy",
		Description: "a toy experiment: one row per scale",
		Setup:       "nothing to set up",
		SeriesLabel: "series",
		XName:       "x",
		XLabel:      "x",
		Metrics:     []lab.Metric{{Name: "m", Label: "a metric"}},
		Cost:        lab.Cost{CI: "~2 s", Quick: "~3 s", Full: "~7 s"},
		Needs:       lab.Needs{Need: lab.NeedsControl, Why: "it stops a toy node"},
		Run: func(_ context.Context, env lab.Env) (*lab.Results, error) {
			r := &lab.Results{}
			r.Add(lab.Row{Series: "toy", Values: map[string]float64{"m": 1}})
			return r, nil
		},
	}
}

// withToy registers the toy experiment in the list for the test's length:
// the one line a new experiment adds to experiments.List.
func withToy(t *testing.T, toy func() *lab.Spec) {
	t.Helper()
	old := listExperiments
	listExperiments = func() []*lab.Spec { return append(old(), toy()) }
	t.Cleanup(func() { listExperiments = old })
}

// A registered experiment shows its needs and costs in `experiment list`.
func TestExperimentListToy(t *testing.T) {
	withToy(t, toyExperiment)
	t.Setenv("COLUMNS", "1000") // a row a line
	code, out, errs := cli(t, "experiment", "list")
	if code != exitOK {
		t.Fatalf("experiment list: exit %d: %s", code, errs)
	}
	var line string
	for _, l := range tableRows(out) {
		if strings.HasPrefix(l, "toy ") {
			line = l
		}
	}
	for _, want := range []string{"yes", "cluster + control", "~2 s", "~3 s", "~7 s", "a toy experiment"} {
		if !strings.Contains(line, want) {
			t.Errorf("toy's line %q lacks %q\n%s", line, want, out)
		}
	}
	if err := lab.CheckSpec(toyExperiment()); err != nil {
		t.Errorf("the toy is complete: %v", err)
	}
}

// An experiment without a cost or a need shows "?" and fails CheckSpec,
// which TestRegistryComplete in package experiments runs on every
// registered experiment.
func TestExperimentListToyIncomplete(t *testing.T) {
	bare := func() *lab.Spec {
		s := toyExperiment()
		s.Cost, s.Needs = lab.Cost{}, lab.Needs{}
		return s
	}
	withToy(t, bare)
	t.Setenv("COLUMNS", "1000") // a row a line
	_, out, _ := cli(t, "experiment", "list")
	for _, l := range tableRows(out) {
		if strings.HasPrefix(l, "toy ") && strings.Count(l, "?") != 4 {
			t.Errorf("toy without cost and need: %q, want ? for its need and three costs", l)
		}
	}
	err := lab.CheckSpec(bare())
	if err == nil || !strings.Contains(err.Error(), "no Needs") || !strings.Contains(err.Error(), "no Cost for scale ci") {
		t.Errorf("CheckSpec of a toy without cost and need: %v", err)
	}
}
