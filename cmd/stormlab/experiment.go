package main

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/experiments"
)

func newExperimentCmd() *cobra.Command {
	out := "results"
	if d := os.Getenv("STORMLAB_OUT"); d != "" {
		out = d
	}
	profile := os.Getenv(experiments.ProfileEnv)
	if profile == "" {
		profile = "quick"
	}
	cmd := &cobra.Command{
		Use:   "experiment NAME|list [--out DIR] [--profile ci|quick|full]",
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
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
				for _, s := range experiments.List() {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Description, s.Source)
				}
				for _, s := range experiments.Suites() {
					fmt.Fprintf(tw, "%s\tsuite: %s\t%v\n", s.Name, s.Description, s.Experiments)
				}
				return tw.Flush()
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
			opts := experiments.Options{Out: out, Log: stderr, Profile: profile}
			if isSuite {
				reps, err := experiments.RunSuite(cmd.Context(), suite, opts)
				for _, r := range reps {
					fmt.Fprintf(stdout, "\n%s (%s): %s\n", r.Spec.Name, r.Spec.Source, r.Dir)
					for _, c := range r.Claims {
						fmt.Fprintf(stdout, "  %s\n", c.Line())
					}
				}
				if err != nil {
					return failed(err)
				}
				fmt.Fprintln(stdout)
				return experiments.SummaryTable("suite "+suite.Name, reps).WriteText(stdout)
			}
			spec, err := experiments.Lookup(name)
			if err != nil {
				return err
			}
			rep, err := experiments.Run(cmd.Context(), spec, opts)
			if err != nil {
				return failed(err)
			}
			return rep.WriteSummary(stdout)
		},
	}
	cmd.Flags().StringVar(&out, "out", out, "results base folder (default $STORMLAB_OUT or results); files go to DIR/NAME/")
	cmd.Flags().StringVar(&profile, "profile", profile, "cluster experiments' profile: ci (1 run per cell, no verdicts), quick (3 runs per cell), full (the papers' scale); default $STORMLAB_PROFILE or quick")
	return cmd
}
