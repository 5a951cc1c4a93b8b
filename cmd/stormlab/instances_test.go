package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
)

// TestExperimentSeedInstancesReps: a graph experiment re-runs on other graphs (--seed), more graphs
// (--instances) and more repetitions (--reps); the manifest records them, and the rows follow.
// kpart-mul: 10 Mul values x (K-PART's reps + the optimum's one row) per graph; by default 10 graphs and
// 10 repetitions, so 10 x 10 x 11 = 1,100 rows.
func TestExperimentSeedInstancesReps(t *testing.T) {
	run := func(args ...string) (lab.Manifest, []byte) {
		t.Helper()
		out := t.TempDir()
		code, _, errs := cli(t, append([]string{"experiment", "kpart-mul", "--out", out}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, stderr %s", args, code, errs)
		}
		var m lab.Manifest
		data, err := os.ReadFile(filepath.Join(out, "kpart-mul", "manifest.json"))
		if err == nil {
			err = json.Unmarshal(data, &m)
		}
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(out, "kpart-mul", "raw.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return m, raw
	}
	base, rawBase := run()
	if base.Rows != 1100 || base.SeedOffset != 0 || base.Instances != 0 || base.RepsAsked != 0 {
		t.Errorf("default: %d rows, seed %d, instances %d, reps %d; want 1,100 rows and nothing asked", base.Rows, base.SeedOffset, base.Instances, base.RepsAsked)
	}
	seeded, rawSeeded := run("--seed", "1000")
	if seeded.SeedOffset != 1000 || bytes.Equal(rawBase, rawSeeded) || seeded.InstanceSeeds[0] != 1001 {
		t.Errorf("--seed 1000: offset %d, first instance seed %d, raw.csv changed %v; want 1000, 1001, true", seeded.SeedOffset, seeded.InstanceSeeds[0], !bytes.Equal(rawBase, rawSeeded))
	}
	more, _ := run("--instances", "12", "--reps", "3")
	if want := 10 * 12 * (3 + 1); more.Rows != want || more.Instances != 12 || more.RepsAsked != 3 {
		t.Errorf("--instances 12 --reps 3: %d rows (instances %d, reps %d), want %d", more.Rows, more.Instances, more.RepsAsked, want)
	}
}

// TestExperimentSeedInstancesRefused: where the flags cannot apply, the command says why before
// anything runs.
func TestExperimentSeedInstancesRefused(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"smoke", "--seed", "3"}, "smoke runs on a cluster and has no generated instances"},
		{[]string{"kpart-cluster", "--instances", "5"}, "--seed and --instances apply to the graph experiments"},
		{[]string{"spd", "--reps", "5"}, "--reps does not apply to spd"},
		{[]string{"kpart-mul", "--instances", "-1"}, "--instances -1"},
	}
	for _, c := range cases {
		out := t.TempDir()
		code, _, errs := cli(t, append([]string{"experiment", "--out", out}, c.args...)...)
		if code != exitBadInput || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, exitBadInput, c.want)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("%v: refused, yet wrote %d entries", c.args, len(entries))
		}
	}
}
