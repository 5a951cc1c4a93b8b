package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/experiments/compare"
	"github.com/stormlab/stormlab/reports"
)

// compareFlags are the flags of `stormlab compare`.
type compareFlags struct {
	metrics     []string
	threshold   float64
	failOnReg   bool
	onlyChanged bool
	format      string
	verdicts    bool
}

func newCompareCmd() *cobra.Command {
	var o compareFlags
	cmd := &cobra.Command{
		Use:   "compare BASE_DIR NEW_DIR [--metric M]... [--threshold 0.05] [--only-changed] [--fail-on-regression] [--verdicts] [--format table|markdown|csv|json]",
		Short: "Compare two result folders (raw.csv or run.json): means with CIs, ratio, test + Holm, verdict",
		Long: "compare reads every raw.csv in BASE_DIR and NEW_DIR (an experiment's folder or a suite's; a folder\n" +
			"without raw.csv is read as `stormlab run --out` folders, every run.json one sample) and prints, per\n" +
			"experiment / series / x / metric, both means with their 95% CIs, new/base and whether the\n" +
			"difference is significant. n counts the experiment's statistical unit, which its manifest.json\n" +
			"records: a run, or an instance (a graph, the mean of its repetitions). Rows of instances whose\n" +
			"sides hold the same instances are tested pair by pair (paired t-test on the logs of the\n" +
			"per-instance means); the others per experiment and metric by a moderated t-test on log values\n" +
			"(variances pooled across the metric's series) when 3 or more series have 2+ units a side, else\n" +
			"Welch's t-test; p Holm-corrected over all tested rows, family-wise 95%. Directions come from the metric registry\n" +
			"(reports/metric); a metric not in it is listed as untested. A significant change beyond --threshold\n" +
			"(relative) is improved or regressed (changed, for a metric that should not change). With\n" +
			"--fail-on-regression, a regression, a change, or anything the base has and NEW_DIR lacks\n" +
			"(experiment, series, cell, metric) exits 1. With csv or json, the summary goes to stderr. Where the\n" +
			"manifests say base and new were measured on different testbeds (host cores or CPU model, cluster,\n" +
			"supervisors), compare warns on stderr and --fail-on-regression refuses to judge (exit 2).\n\n" +
			"With --verdicts, compare reads every claims.json instead and lists each claim's verdict in both\n" +
			"folders: how often two independent runs at one scale reach the same verdict (raw, among decided\n" +
			"claims, and Cohen's kappa). --only-changed then lists the claims whose verdict differs.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("compare needs BASE_DIR and NEW_DIR (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !(o.threshold >= 0) || math.IsInf(o.threshold, 0) {
				return fmt.Errorf("--threshold %v must be a relative change >= 0, e.g. 0.05 for 5%%", o.threshold)
			}
			if !slices.Contains([]string{"table", "markdown", "csv", "json"}, o.format) {
				return fmt.Errorf("unknown --format %q: use table, markdown, csv or json", o.format)
			}
			if o.verdicts {
				for _, f := range []string{"metric", "threshold", "fail-on-regression"} {
					if cmd.Flags().Changed(f) {
						return fmt.Errorf("--%s does not apply to --verdicts, which compares the claims' verdicts: drop it, or compare the metrics without --verdicts", f)
					}
				}
				warnSameFolder(cmd.ErrOrStderr(), args[0], args[1])
				return compareVerdicts(cmd.OutOrStdout(), args[0], args[1], o)
			}
			warnSameFolder(cmd.ErrOrStderr(), args[0], args[1])
			return compareMetrics(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], args[1], o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.metrics, "metric", nil, "compare only this metric (repeatable; default all)")
	f.Float64Var(&o.threshold, "threshold", 0.05, "relative change a significant difference must exceed to be a verdict")
	f.BoolVar(&o.onlyChanged, "only-changed", false, "show only the rows whose verdict is not \"same\" (with --verdicts: the claims whose verdict differs)")
	f.BoolVar(&o.failOnReg, "fail-on-regression", false, "exit 1 on a significant regression beyond --threshold, or anything the base has and NEW_DIR lacks")
	f.StringVar(&o.format, "format", "table", "output: table, markdown, csv or json")
	f.BoolVar(&o.verdicts, "verdicts", false, "compare the claims' verdicts (claims.json) instead of the metrics, and count how many agree")
	return cmd
}

// readBoth reads both folders and checks --metric against them.
func readBoth(baseDir, newDir string, metrics []string) (*compare.Samples, *compare.Samples, error) {
	base, err := compare.ReadDir(baseDir)
	if err != nil {
		return nil, nil, fmt.Errorf("base: %w", err)
	}
	nw, err := compare.ReadDir(newDir)
	if err != nil {
		return nil, nil, fmt.Errorf("new: %w", err)
	}
	all := append(slices.Clone(base.Metrics), nw.Metrics...)
	for _, m := range metrics {
		if !slices.Contains(all, m) {
			slices.Sort(all)
			return nil, nil, fmt.Errorf("unknown --metric %q: the results have %s", m, strings.Join(slices.Compact(all), ", "))
		}
	}
	if !slices.ContainsFunc(base.Metrics, func(m string) bool { return slices.Contains(nw.Metrics, m) }) {
		return nil, nil, fmt.Errorf("%s and %s share no metric (base has %s; new has %s): compare results of the same experiments",
			baseDir, newDir, strings.Join(base.Metrics, ", "), strings.Join(nw.Metrics, ", "))
	}
	return base, nw, nil
}

// compareMetrics is `compare` without --verdicts. The summary goes under a
// table, and to stderr with csv and json so their stdout stays pure.
func compareMetrics(stdout, stderr io.Writer, baseDir, newDir string, o compareFlags) error {
	base, nw, err := readBoth(baseDir, newDir, o.metrics)
	if err != nil {
		return err
	}
	if err := checkTestbeds(stderr, baseDir, newDir, o.failOnReg); err != nil {
		return err
	}
	res := compare.Compare(base, nw, compare.Options{Metrics: o.metrics, Threshold: o.threshold})
	shown := res.Rows
	if o.onlyChanged {
		shown = slices.DeleteFunc(slices.Clone(res.Rows), func(r compare.Row) bool { return !r.IsChanged() })
	}
	t := compare.Table(fmt.Sprintf("compare %s -> %s (threshold %g; mean ± 95%% CI)", baseDir, newDir, o.threshold), shown)
	t.MoveFirst = []string{"test", "p", "n base", "n new", "unit", "p (Holm)"} // on a narrow terminal: under the table first, the verdict kept
	summary := stdout
	switch {
	case o.format == "json":
		err, summary = writeJSON(stdout, res.ToJSON(baseDir, newDir, o.threshold, o.onlyChanged, shown)), stderr
	case o.format == "csv":
		err, summary = t.WriteCSV(stdout), stderr
	case len(shown) == 0:
		// --only-changed and nothing changed: no empty table.
		_, err = fmt.Fprintf(stdout, "compare %s -> %s: no changes\n", baseDir, newDir)
	case o.format == "markdown":
		err = t.WriteMarkdown(stdout)
	default:
		err = writeTable(stdout, t)
	}
	if err != nil {
		return failed(err)
	}
	if sum := res.Summary(); o.format == "table" {
		fmt.Fprint(summary, wrapLines(sum))
	} else {
		fmt.Fprint(summary, sum)
	}
	if fails := res.Failures(); o.failOnReg && len(fails) > 0 {
		writeGateFailures(stderr, fails, o.threshold)
		return failed(fmt.Errorf("the gate failed: %d failure(s) at threshold %g, listed above", len(fails), o.threshold))
	}
	return nil
}

// maxGateLines is how many gate failures stderr lists one per line; the
// rest are counted (the output's table and summary name every one).
const maxGateLines = 10

// writeGateFailures lists the gate's failures one per line, at most
// maxGateLines of them, so a nightly's log stays readable.
func writeGateFailures(w io.Writer, fails []string, threshold float64) {
	fmt.Fprintf(w, "gate failures (threshold %g):\n", threshold)
	for _, f := range fails[:min(len(fails), maxGateLines)] {
		fmt.Fprintf(w, "  %s\n", f)
	}
	if n := len(fails) - maxGateLines; n > 0 {
		fmt.Fprintf(w, "  and %d more: the output names every one (compare.md in a nightly)\n", n)
	}
}

// warnSameFolder warns on stderr when both arguments are one folder: every
// value would be compared with itself, and "no changes" would say nothing.
func warnSameFolder(stderr io.Writer, baseDir, newDir string) {
	a, errA := os.Stat(baseDir)
	b, errB := os.Stat(newDir)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		fmt.Fprintf(stderr, "warning: %s and %s are the same folder: every value is compared with itself, so nothing can change\n", baseDir, newDir)
	}
}

// compareVerdicts is `compare --verdicts`: every claim's verdict in both
// folders and how far they agree.
func compareVerdicts(w io.Writer, baseDir, newDir string, o compareFlags) error {
	base, err := compare.ReadClaimsDir(baseDir)
	if err != nil {
		return fmt.Errorf("base: %w", err)
	}
	nw, err := compare.ReadClaimsDir(newDir)
	if err != nil {
		return fmt.Errorf("new: %w", err)
	}
	a := reports.CompareVerdicts(base, nw)
	if a.Compared == 0 {
		return fmt.Errorf("no claim is in both %s and %s (%d in only one): compare results of the same experiments", baseDir, newDir, a.OneSide)
	}
	// Agreement and kappa are over every claim judged on both sides;
	// --only-changed filters the listing only.
	js, listed := a.JSON(), a
	if o.onlyChanged {
		listed.Pairs = slices.DeleteFunc(slices.Clone(a.Pairs), reports.VerdictPair.Agree)
		js.Pairs = listed.Pairs
	}
	switch t := listed.Table(fmt.Sprintf("verdicts %s -> %s", baseDir, newDir)); o.format {
	case "json":
		return failedIf(writeJSON(w, js))
	case "csv":
		return failedIf(t.WriteCSV(w))
	case "markdown":
		err = t.WriteMarkdown(w)
		fmt.Fprintln(w) // a line right under a Markdown table would read as a row
	default:
		err = writeTable(w, t)
	}
	if err != nil {
		return failed(err)
	}
	sum := a.Summary()
	if o.format == "table" {
		sum = wrapLines(sum)
	}
	_, err = fmt.Fprintln(w, sum)
	return failedIf(err)
}
