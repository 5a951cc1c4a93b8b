package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/infra/clusterref"
)

// writeTarget writes a target file naming cluster name (endpoints on 127.0.0.1 that nothing serves:
// the experiment's run is replaced, so nothing is reached).
func writeTarget(t *testing.T, name string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "target.yaml")
	body := "name: " + name + "\nnimbus: {seeds: [127.0.0.1], port: 1}\nui: http://127.0.0.1:1\nservice: {cluster: http://127.0.0.1:1, harness: http://127.0.0.1:1}\n"
	if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestExperimentSettingsAreValues: the scale and the cluster of a command line reach the experiment's
// run as values in its Options (the target file loaded once), nothing is set in the process
// environment, and the deprecated --profile and --target still work with one warning line each.
func TestExperimentSettingsAreValues(t *testing.T) {
	file := writeTarget(t, "lab")
	cases := []struct {
		name     string
		args     []string
		scale    string
		kind     clusterref.Kind
		warnings []string
	}{
		{"new flags", []string{"--cluster", "target:" + file, "--scale", "ci"}, "ci", clusterref.Target, nil},
		{"defaults", nil, lab.DefaultScale, clusterref.Containers, nil},
		{"containers", []string{"--cluster", "containers", "--scale", "full"}, "full", clusterref.Containers, nil},
		{"deprecated flags", []string{"--target", file, "--profile", "ci"}, "ci", clusterref.Target,
			[]string{"--profile is deprecated and goes in the next minor release: use --scale", "--target is deprecated and goes in the next minor release: use --cluster target:FILE"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got lab.Options
			old := runExperiment
			runExperiment = func(_ context.Context, _ *lab.Spec, o lab.Options) (*lab.Report, error) {
				got = o
				return nil, errors.New("stopped by the test")
			}
			t.Cleanup(func() { runExperiment = old })
			args := append([]string{"experiment", "smoke", "--out", t.TempDir()}, c.args...)
			code, _, errs := cli(t, args...)
			if code != exitFailed || !strings.Contains(errs, "stopped by the test") {
				t.Fatalf("exit %d, stderr %q: want the replaced run's failure", code, errs)
			}
			if got.Scale != c.scale || got.Cluster.Kind != c.kind {
				t.Errorf("Options: scale %q cluster %v, want %q %v", got.Scale, got.Cluster, c.scale, c.kind)
			}
			if c.kind == clusterref.Target && (got.Cluster.Target == nil || got.Cluster.Target.Name != "lab" || got.Cluster.File != file) {
				t.Errorf("Options.Cluster = %+v, want the loaded target lab from %s", got.Cluster, file)
			}
			for _, v := range []string{"STORMLAB_TARGET", "STORMLAB_PROFILE", "STORMLAB_SCALE"} {
				if os.Getenv(v) != "" {
					t.Errorf("$%s = %q after the command: a setting went through the environment", v, os.Getenv(v))
				}
			}
			for _, w := range c.warnings {
				if strings.Count(errs, w) != 1 {
					t.Errorf("stderr %q: want the warning %q once", errs, w)
				}
			}
			if c.warnings == nil && strings.Contains(errs, "deprecated") {
				t.Errorf("stderr %q: a deprecation warning without a deprecated flag", errs)
			}
		})
	}
}

// TestClusterFlagBadInput: what --cluster refuses, before anything runs, with the fix named.
func TestClusterFlagBadInput(t *testing.T) {
	file := writeTarget(t, "lab")
	run := []string{"run", "--scheduler", "kpart", "--topology", "throughput"}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"experiment with a shape", []string{"experiment", "smoke", "--out", t.TempDir(), "--cluster", "heterogeneous-4"}, "experiments start clusters of their own shapes"},
		{"experiment with an unknown kind", []string{"experiment", "smoke", "--out", t.TempDir(), "--cluster", "moon:big"}, `unknown kind of cluster "moon"`},
		{"experiment on an unknown simulated cluster", []string{"experiment", "smoke", "--out", t.TempDir(), "--cluster", "sim:big"}, `no simulated cluster "big"`},
		{"experiment with a missing target", []string{"experiment", "smoke", "--out", t.TempDir(), "--cluster", "target:" + filepath.Join(t.TempDir(), "none.yaml")}, "--cluster target:"},
		{"experiment with both", []string{"experiment", "smoke", "--out", t.TempDir(), "--cluster", "target:" + file, "--target", file}, "give one"},
		{"experiment with a shape as scale", []string{"experiment", "smoke", "--out", t.TempDir(), "--scale", "heterogeneous-2"}, `unknown scale "heterogeneous-2"`},
		{"run with both", append(append([]string{}, run...), "--cluster", "heterogeneous-2", "--profile", "heterogeneous-2"), "give one"},
		{"run with an unknown shape", append(append([]string{}, run...), "--cluster", "huge-9"), `unknown cluster shape "huge-9"`},
		{"deprecated run --profile", append(append([]string{}, run...), "--profile", "huge-9"), "--profile is deprecated"},
		{"cluster up with --profile", []string{"cluster", "up", "--detach", "--profile", "huge-9"}, "--profile is deprecated and goes in the next minor release: use --shape"},
	}
	for _, c := range cases {
		code, _, errs := cli(t, c.args...)
		if code != exitBadInput || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, errs, exitBadInput, c.want)
		}
	}
}
