package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/stormlab/stormlab/experiments"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/target"
	"github.com/stormlab/stormlab/reports"
)

// experimentCost is what an experiment needs: Docker (it starts Storm
// clusters in containers) and its expected wall time under each profile
// (ci, quick, full) on the reference machine (2 shared cores).
// In-process experiments: measured with `stormlab experiment NAME
// --profile P` (their work does not depend on the profile), rounded up.
// Cluster experiments: the profile's runs times what one run cost in the
// ci-profile runs of make test (save to save, so submit, worker start,
// collect, kill and waiting for idle included: comm-cost ~60 s for a 20 s
// window, kpart-cluster ~100 s for 45 s, a 0.5 MB k-means dataset ~55 s)
// plus ~25 s per cluster start; ci figures measured. Quick figures of the
// cluster experiments measured in one quick run (2026-12-01: comm-cost
// 10.1 min, kpart-cluster 13.3, deadline 15.6, observer 15.0; recovery
// about 7 min per scheduler). A guide for planning, not a limit.
type experimentCost struct {
	docker bool
	wall   [3]string // ci, quick, full
}

var experimentCosts = map[string]experimentCost{
	"kpart-mul":         {false, [3]string{"< 1 s", "< 1 s", "< 1 s"}},
	"partition-k":       {false, [3]string{"~40 s", "~40 s", "~40 s"}},
	"partition-density": {false, [3]string{"~15 s", "~15 s", "~15 s"}},
	"spd":               {false, [3]string{"~25 s", "~25 s", "~25 s"}},
	"smoke":             {true, [3]string{"~4 min", "~4 min", "~4 min"}},
	"comm-cost":         {true, [3]string{"~7 min", "~10 min", "~70 min"}},
	"kpart-cluster":     {true, [3]string{"~6 min", "~13 min", "~90 min"}},
	"deadline":          {true, [3]string{"~10 min", "~16 min", "~3 h"}},
	"recovery":          {true, [3]string{"not run (quick/full only)", "~35 min", "~70 min"}},
	"observer":          {true, [3]string{"not run (quick/full only)", "~15 min", "~40 min"}},
}

// targetRefusals are the cluster experiments that cannot run on a target (an existing cluster used
// through its endpoints only), and why. smoke runs there (both schedulers on one bridged Nimbus);
// in-process experiments need no cluster and ignore the target.
var targetRefusals = map[string]string{
	"comm-cost":     "it builds clusters of 1 to 4 supervisors and delays the network between them with tc netem inside its own containers",
	"kpart-cluster": "it sets the scheduler service's rescheduling period (a flag of the service it starts) and checks for leftover worker JVMs inside its own supervisor containers between runs",
	"deadline":      "it loads the supervisors' CPUs with background processes and reads their whole-node CPU use inside its own containers",
	"recovery":      "it kills and restarts a supervisor container (a Docker fault) in the middle of each run",
	"observer":      "its back-to-back saturation runs share one cluster session that checks for leftover worker JVMs inside its own supervisor containers between runs",
}

// writeExperimentList is `stormlab experiment list`.
func writeExperimentList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDOCKER\tCI\tQUICK\tFULL\tDESCRIPTION\tREPRODUCES")
	for _, s := range experiments.List() {
		c, ok := experimentCosts[s.Name]
		docker, wall := "?", [3]string{"?", "?", "?"}
		if ok {
			docker, wall = "no", c.wall
			if c.docker {
				docker = "yes"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, docker, wall[0], wall[1], wall[2], s.Description, s.Source)
	}
	for _, s := range experiments.Suites() {
		docker := "no"
		for _, e := range s.Experiments {
			if experimentCosts[e].docker {
				docker = "yes"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t\t\t\tsuite: %s\t%s\n", s.Name, docker, s.Description, strings.Join(s.Experiments, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nCI, QUICK, FULL: expected wall time per --profile on a 2-core machine (cluster experiments: estimates).")
	return err
}

// isTerminal reports whether w is a terminal (progress bar) rather than a
// file or pipe (plain progress lines).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func newExperimentCmd() *cobra.Command {
	out := "results"
	if d := os.Getenv("STORMLAB_OUT"); d != "" {
		out = d
	}
	profile := os.Getenv(experiments.ProfileEnv)
	if profile == "" {
		profile = "quick"
	}
	force, resume := false, false
	reps := 0
	targetFile := ""
	cmd := &cobra.Command{
		Use:   "experiment NAME|list [--out DIR] [--profile ci|quick|full] [--reps N] [--force | --resume]",
		Short: "Run an experiment or suite (files go to DIR/NAME/); `experiment list` lists them",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("experiment needs exactly one NAME (got %d): run `stormlab experiment list` for the names", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			name := args[0]
			if name == "list" {
				return writeExperimentList(stdout)
			}
			suite, isSuite := experiments.LookupSuite(name)
			if !isSuite {
				if _, err := experiments.Lookup(name); err != nil {
					return err
				}
			}
			// An unusable --out is bad input, found before minutes of runs.
			if err := os.MkdirAll(out, 0o755); err != nil {
				return fmt.Errorf("--out: %w: choose a folder you can write to", err)
			}
			if _, err := experiments.ClusterProfileNamed(profile); err != nil {
				return fmt.Errorf("--profile: %w", err)
			}
			names := []string{name}
			if isSuite {
				names = suite.Experiments
			}
			if targetFile != "" {
				if _, err := target.Load(targetFile); err != nil {
					return err
				}
				for _, n := range names {
					if why, ok := targetRefusals[n]; ok {
						return fmt.Errorf("%s cannot run on a target: %s; run it without --target (it starts its own containers)", n, why)
					}
				}
				// The experiments read the target from the environment, as under `go test`.
				os.Setenv(harness.TargetEnv, targetFile)
			}
			// Never overwrite results silently: an existing DIR/NAME needs --force.
			if reps < 0 {
				return fmt.Errorf("--reps %d: give the runs per cell (>= 1; a verdict needs >= %d), or leave it out for the profile's", reps, experiments.MinVerdictReps)
			}
			if force && resume {
				return fmt.Errorf("--force and --resume exclude each other: --force starts again, --resume keeps the finished runs")
			}
			if !force && !resume {
				for _, n := range names {
					if _, err := os.Stat(filepath.Join(out, n)); err == nil {
						return fmt.Errorf("%s already holds results: rerun with --resume to keep its finished runs, --force to replace them, or give another --out", filepath.Join(out, n))
					}
				}
			}
			meter := reports.NewMeter(stderr, isTerminal(stderr))
			defer meter.Stop()
			opts := experiments.Options{Out: out, Log: meter, Profile: profile, Progress: meter, Resume: resume, Reps: reps}
			if isSuite {
				reps, err := experiments.RunSuite(cmd.Context(), suite, opts)
				meter.Stop()
				if werr := experiments.WriteSuiteSummary(stdout, "suite "+suite.Name, reps); werr != nil && err == nil {
					err = werr
				}
				if err != nil {
					return failed(err)
				}
				return nil
			}
			spec, err := experiments.Lookup(name)
			if err != nil {
				return err
			}
			rep, err := experiments.Run(cmd.Context(), spec, opts)
			meter.Stop()
			if err != nil {
				return failed(err)
			}
			return rep.WriteSummary(stdout)
		},
	}
	cmd.Flags().StringVar(&out, "out", out, "results base folder, files go to DIR/NAME/ (or $STORMLAB_OUT when set)")
	cmd.Flags().StringVar(&profile, "profile", profile, "cluster experiments' profile: ci (1 run per cell, no verdicts), quick (3 runs per cell), full (the papers' scale) (or $STORMLAB_PROFILE when set)")
	cmd.Flags().StringVar(&targetFile, "target", "", "target file: run the cluster experiments on that existing Storm cluster instead of containers (or $STORMLAB_TARGET): smoke; comm-cost, kpart-cluster, deadline, recovery and observer need containers of their own and refuse, saying why")
	cmd.Flags().BoolVar(&force, "force", false, "replace the results already in DIR/NAME")
	cmd.Flags().IntVar(&reps, "reps", 0, "runs per cell of the cluster experiments (observer: pairs) instead of the profile's; with --resume the kept runs count towards them, so a finished experiment can be extended")
	cmd.Flags().BoolVar(&resume, "resume", false, "continue an interrupted experiment: cluster runs already kept in DIR/NAME/runs/ are read back, not run again")
	return cmd
}
