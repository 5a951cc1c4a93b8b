package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/harness/capture"
	"github.com/stormlab/stormlab/infra/target"
	"github.com/stormlab/stormlab/topologies"
)

func newCaptureCmd() *cobra.Command {
	var (
		targetFile, topology, out, source string
		window, reportWait                time.Duration
	)
	cmd := &cobra.Command{
		Use:   "capture --target FILE --topology NAME [--for 60s] --out graph.json [--source auto|instrumented|storm-ui] [--report-wait 15s]",
		Short: "Record a topology running on a cluster as a graph file: components, rates, CPU, placement",
		Long: "capture watches a topology that runs on the target's cluster for --for and writes what it saw\n" +
			"as a captured graph file (docs/graph-format.md, \"Captured topologies\"): its components, tasks,\n" +
			"parallelism and stream groupings, each task's CPU and each task pair's tuple rate, and where\n" +
			"every task ran. `stormlab whatif` and `stormlab partition --graph` read the file. The rates are\n" +
			"measured by stormlab's instrumentation when the topology runs with it (the workers' reports to\n" +
			"the scheduler service); otherwise they are estimated from Storm's own statistics (the file says\n" +
			"so). It only reads from the cluster. The file appears complete or not at all.",
		Args: exactArgs(0, "capture takes no arguments: stormlab capture --target FILE --topology NAME --out FILE"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkCaptureFlags(targetFile, topology, out, window, reportWait); err != nil {
				return err
			}
			tg, err := target.Load(targetFile)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			logf := func(format string, a ...any) { fmt.Fprintf(cmd.ErrOrStderr(), "capture: "+format+"\n", a...) }
			c, err := capture.Capture(ctx, tg, topology, window, capture.WithSource(source), capture.WithVersion(version()), capture.WithLogf(logf), capture.WithReportWait(reportWait))
			if capture.IsBadInput(err) {
				return err
			}
			if err != nil {
				return failed(err)
			}
			if err := topologies.WriteCapturedFile(out, c); err != nil {
				return failed(err)
			}
			est := ""
			if c.Provenance.Estimated {
				est = ", estimated"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "captured %s over %.1f s (%s%s): %d components, %d tasks, %d edges -> %s\n",
				topology, c.Provenance.SpanS, c.Provenance.Source, est, len(c.Components), len(c.Vertices), len(c.Edges), out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&targetFile, "target", "", "target file of the cluster the topology runs on (stormlab cluster up --detach writes one)")
	f.StringVar(&topology, "topology", "", "name of the running topology")
	f.DurationVar(&window, "for", 60*time.Second, "how long to watch it; rates are averages over this window")
	f.StringVar(&out, "out", "", "the graph file to write (replaced if it exists)")
	f.DurationVar(&reportWait, "report-wait", 15*time.Second, "after the window, wait at most this long for the workers' reports of its last interval (longer for clusters with a long stormlab.report.interval.secs)")
	f.StringVar(&source, "source", capture.Auto, "auto (instrumented when the workers report, else storm-ui), instrumented, or storm-ui")
	return cmd
}

// checkCaptureFlags refuses missing or impossible flags before anything is read.
func checkCaptureFlags(targetFile, topology, out string, window, reportWait time.Duration) error {
	switch {
	case targetFile == "":
		return errors.New("no --target: give the target file of the cluster the topology runs on")
	case topology == "":
		return errors.New("no --topology: give the name of the running topology")
	case out == "":
		return errors.New("no --out: give the graph file to write, e.g. --out graph.json")
	case window <= 0:
		return fmt.Errorf("--for %s: give a positive duration, e.g. --for 60s", window)
	case reportWait < 0:
		return fmt.Errorf("--report-wait %s: give a duration >= 0", reportWait)
	}
	if fi, err := os.Stat(filepath.Dir(out)); err != nil || !fi.IsDir() {
		return fmt.Errorf("--out %s: folder %s does not exist: create it first", out, filepath.Dir(out))
	}
	return nil
}
