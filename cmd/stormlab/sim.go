package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/experiments"
	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/sim"
)

func newSimCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Simulated clusters (--cluster sim:NAME): list them, measure their costs",
		Long: "A simulated cluster runs the project's topologies in a discrete-event model of Storm 2 (infra/sim),\n" +
			"placed by the real schedulers, charged by a cost model measured on real runs. Pick one with\n" +
			"--cluster sim:NAME on run, capacity and experiment (docs/simulator.md).",
		Args: exactArgs(0, "sim takes a subcommand: stormlab sim clusters | stormlab sim costs | stormlab sim validate"),
	}
	cmd.AddCommand(newSimClustersCmd(), newSimCostsCmd(), newSimValidateCmd())
	return cmd
}

func newSimClustersCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "clusters",
		Short: "List the simulated clusters",
		Args:  exactArgs(0, "sim clusters takes no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range simcluster.Names() {
				n, _ := simcluster.Lookup(name) // names from Names always resolve
				cores := 0.0
				for _, x := range n.Nodes {
					cores += x.Cores
				}
				fmt.Fprintf(cmd.OutOrStdout(), "sim:%-24s %3d nodes, %6.2f cores  %s\n", name, len(n.Nodes), cores, n.About)
			}
			return nil
		},
	}
}

func newSimCostsCmd() *cobra.Command {
	var from, linkFrom []string
	var out, name, cluster, method string
	var messaging bool
	o := costRuns{}
	cmd := &cobra.Command{
		Use:   "costs (--cluster containers:SHAPE|target:FILE [--reps 2] [--transfer=false] | --from DIR [--from DIR ...]) --out FILE [--name NAME]",
		Short: "Measure a simulated cluster's cost model on a real cluster, or from runs recorded on one",
		Long: "costs measures the cost model of a simulated cluster. With --cluster it runs each of the project's\n" +
			"topologies (Throughput chain, WordCount, k-means) --reps times under EvenScheduler, unpaced, on that real\n" +
			"cluster (containers of a shape, or your cluster's target file), keeps the runs under --keep, and\n" +
			"measures them; with --from it reads runs recorded before (a run folder with run.json, or any\n" +
			"folder holding such folders: an experiment's results, a `stormlab run --out` folder). It writes:\n" +
			"per topology and component, the CPU per tuple (mean over runs, their spread, and a 95% interval\n" +
			"for measuring again), the tuples per tuple each stream carries and their size; the acker's CPU per\n" +
			"message, the workers' overhead and start; with the runs, cluster, host, JVM flags, date and\n" +
			"commit they come from. Invalid runs are left out.\n" +
			"With --transfer (on by default with --cluster) it also runs the transfer design: the Throughput\n" +
			"chain paced open loop in 1 worker, 2 workers of a node and 2 workers of 2 nodes, at 100 and 4,000\n" +
			"bytes, and fits from it the serialization and deserialization CPU per message and per byte and the\n" +
			"latency of a transfer between workers and between nodes, each with its 95% interval; what the runs\n" +
			"cannot tell is charged as zero and listed as missing. Each placement also runs at half the rate at\n" +
			"100 bytes, so that what a placement costs whatever its rate is told apart from its transfers'.\n" +
			"With --from, runs of that design among the folders (the Throughput chain with --rate) are read\n" +
			"the same way. The bytes a message and an ack take on a link are fitted from the topologies' runs'\n" +
			"interface counters, or from those of --link-from's runs (then only their counters and traffic are\n" +
			"read: runs recorded later than the CPU's). docs/simulator.md.",
		Args: exactArgs(0, "sim costs takes no arguments: stormlab sim costs --cluster containers:SHAPE --out FILE"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkCostsFlags(from, cluster, out, method, o.conf); err != nil {
				return err
			}
			var runs []*harness.RunResult
			var err error
			if cluster != "" {
				if o.where, err = costCluster(cluster); err != nil {
					return err
				}
				if o.reps < 1 || o.measure <= 0 || o.warmup < 0 || !(o.transferRate > 0) {
					return fmt.Errorf("--reps %d, --measure %s, --warmup %s, --transfer-rate %v: give reps >= 1, a window > 0, a warm-up >= 0 and a rate > 0", o.reps, o.measure, o.warmup, o.transferRate)
				}
				if o.keep == "" {
					o.keep = out + ".runs"
				}
				logf := func(format string, a ...any) { fmt.Fprintf(cmd.ErrOrStderr(), "sim costs: "+format+"\n", a...) }
				if runs, err = o.record(cmd.Context(), logf); err != nil {
					return failed(err)
				}
			} else if runs, err = loadRuns(from); err != nil {
				return err
			}
			var linkRuns []*harness.RunResult
			if len(linkFrom) > 0 {
				if linkRuns, err = loadRuns(linkFrom); err != nil {
					return fmt.Errorf("--link-from: %w", err)
				}
			}
			return measureCostModel(cmd, runs, linkRuns, name, method, out, messaging)
		},
	}
	cmd.Flags().StringSliceVar(&from, "from", nil, "a folder of recorded runs (repeatable)")
	cmd.Flags().StringSliceVar(&linkFrom, "link-from", nil, "a folder of recorded runs whose nodes' interface counters give the bytes on a link (msg_bytes, ack_bytes) instead of the measured runs' (repeatable); their CPU is not read")
	cmd.Flags().StringVar(&cluster, "cluster", "", "a real cluster to measure on: containers:SHAPE or target:FILE")
	cmd.Flags().IntVar(&o.reps, "reps", 2, "with --cluster: runs of each topology")
	cmd.Flags().DurationVar(&o.warmup, "warmup", 40*time.Second, "with --cluster: each run's maximum warm-up")
	cmd.Flags().DurationVar(&o.measure, "measure", 60*time.Second, "with --cluster: each run's window")
	cmd.Flags().StringVar(&o.jvmFlags, "jvm-flags", "-XX:TieredStopAtLevel=1", "with --cluster: the workers' JVM flags (those of the experiments' ci and quick runs)")
	cmd.Flags().StringArrayVar(&o.conf, "topology-conf", nil, "with --cluster: a Storm setting `KEY=VALUE` every run gets (repeatable; the wait strategy's go into the model's provenance, wait_conf), e.g. topology.bolt.wait.progressive.level2.count=0: costs read where idle bolts sleep at once, not parking beside the work")
	cmd.Flags().BoolVar(&o.transfer, "transfer", true, "with --cluster: also run the transfer design for the transfer costs (9 runs of about 1 min per repetition, at most 20 s warm-up and a 15 s window: ~17 min at --reps 2, besides ~12 min for the topologies' runs; --transfer=false leaves the transfer costs missing)")
	cmd.Flags().Float64Var(&o.transferRate, "transfer-rate", 100, "with --transfer: the chain's open-loop rate, tuples/s (every node must carry it: 100 on containers' 0.5-core nodes; each placement also runs at half of it)")
	cmd.Flags().BoolVar(&o.resume, "resume", false, "with --cluster: runs already kept under --keep are read back, not run again (an interrupted measurement continues; a newer design's runs are added to the kept ones)")
	cmd.Flags().StringVar(&o.keep, "keep", "", "with --cluster: where the runs are kept (default: FILE.runs beside --out)")
	cmd.Flags().StringVar(&out, "out", "", "the cost-model file to write")
	cmd.Flags().StringVar(&name, "name", "measured", "the cost model's name")
	cmd.Flags().BoolVar(&messaging, "messaging", false, "also run the workers' transfer and Netty threads as threads of the model and fit their CPU per frame and per message through the runs' twins (runs recorded with this stormlab's topologies jar, whose reports carry the threads; docs/simulator.md)")
	cmd.Flags().StringVar(&method, "method", "ratio", "how a component's CPU is read: ratio (its CPU over its tuples in the window), fit (CPU per tuple and per executor at any rate, fitted over the report intervals), work (the ratio less the spinning the model charges apart, read on the runs' twins) or counted (the ratio less what the real threads counted idle in Storm's wait strategy: runs recorded with this stormlab's topologies jar)")
	return cmd
}

// checkCostsFlags refuses a sim costs command line that names neither or both of a cluster and
// recorded runs, no output, an unknown method, or topology settings that are not key=value or that
// recorded runs cannot take.
func checkCostsFlags(from []string, cluster, out, method string, conf []string) error {
	if (len(from) == 0) == (cluster == "") || out == "" {
		return fmt.Errorf("sim costs needs one of --cluster (a real cluster to measure) or --from DIR (recorded runs), and --out FILE")
	}
	if !slices.Contains(simcluster.CostMethods, method) {
		return fmt.Errorf("--method %q: give one of %s", method, strings.Join(simcluster.CostMethods, ", "))
	}
	if err := lab.CheckTopologyConf(conf); err != nil {
		return fmt.Errorf("--topology-conf: %w", err)
	}
	if len(conf) > 0 && cluster == "" {
		return fmt.Errorf("--topology-conf applies to the runs --cluster records; recorded runs (--from) keep the settings they ran with")
	}
	return nil
}

// measureCostModel measures runs into a cost model named name (method: simcluster.CostMethods), with
// the transfer costs and the bytes on a link (from the interface counters of linkRuns, listed in the
// provenance, or where nil of runs), and with messaging the messaging threads' costs, writes it to out
// and says what it could not measure.
func measureCostModel(cmd *cobra.Command, runs, linkRuns []*harness.RunResult, name, method, out string, messaging bool) error {
	m, rep, err := experiments.MeasureCostModel(cmd.Context(), runs, experiments.CostMeasure{Name: name, Method: method,
		Provenance: provenance(runs), LinkRuns: linkRuns, Messaging: messaging})
	sayRounds(cmd.ErrOrStderr(), rep)
	if m == nil {
		return err
	}
	if err != nil {
		return failed(err)
	}
	if err := writeCostModel(out, m); err != nil {
		return failed(err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "cost model %s: %d topologies and the transfer costs from %d runs (%d of the transfer design) -> %s\n", m.Name, len(m.Topologies), rep.Measured, rep.Transfer.Runs, out)
	if tr := m.Transfer; rep.LinkNodes > 0 && tr.MsgBytesPI != nil && tr.AckBytesPI != nil {
		fmt.Fprintf(cmd.OutOrStdout(), "  on a link (from %d nodes' interface counters): a message %d bytes besides its tuple (%g to %g), an ack %d (%g to %g)\n",
			rep.LinkNodes, tr.MsgBytes, tr.MsgBytesPI.Lo, tr.MsgBytesPI.Hi, tr.AckBytes, tr.AckBytesPI.Lo, tr.AckBytesPI.Hi)
	}
	if len(rep.Transfer.Busy) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "sim costs: caution: a node was at 90%% of its CPU or more in %s: the transfer CPU costs may read low (a lower --transfer-rate)\n", strings.Join(rep.Transfer.Busy, ", "))
	}
	for _, miss := range m.Provenance.Missing {
		fmt.Fprintf(cmd.OutOrStdout(), "  not measured (charged as zero): %s\n", miss)
	}
	for _, s := range simcluster.Spinning(m) {
		fmt.Fprintf(cmd.OutOrStdout(), "  charged high where a node is short of CPU (its thread spun between tuples): %s\n", s)
	}
	return printClosure(cmd, runs, m) // the model is written: an interrupted check leaves it so
}

// sayRounds says each round of the work and messaging fits rep ran.
func sayRounds(w io.Writer, rep experiments.CostReport) {
	for i, r := range rep.Work {
		fmt.Fprintf(w, "sim costs: work round %d: throughput error on the model's own runs %.1f%% before it, largest change %.1f%%\n", i+1, 100*r.ClosureError, 100*r.Moved)
	}
	if rep.MessagingSaid != "" {
		fmt.Fprintf(w, "sim costs: messaging threads: %s\n", rep.MessagingSaid)
	}
	for i, r := range rep.Messaging {
		fmt.Fprintf(w, "sim costs: messaging round %d: throughput error on the model's own runs %.1f%% before it; a frame %.1f µs sent, %.1f µs received, a message %.2f µs sent, %.2f µs received, a wake-up %.1f µs sending, %.1f µs receiving, the transfer thread idle %.4f cores; largest change %.1f%%\n",
			i+1, 100*r.ClosureError, 1e6*r.SendFrame, 1e6*r.RecvFrame, 1e6*r.SendMsg, 1e6*r.DeserMsg, 1e6*r.SendWake, 1e6*r.RecvWake, r.TransferIdle, 100*r.Moved)
	}
}

// printClosure says how far the model's twins carry the throughput of the runs it was measured from
// (experiments.Closure); an interruption is its error.
func printClosure(cmd *cobra.Command, runs []*harness.RunResult, m *sim.CostModel) error {
	own, err := experiments.Closure(cmd.Context(), runs, m)
	if len(own) == 0 {
		return err
	}
	w := cmd.OutOrStdout()
	if mae, n := experiments.ClosureError(own); n > 0 {
		fmt.Fprintf(w, "the model on its own runs (a check of its costs' sum, not a validation): throughput error %.1f%% (mean absolute over %d runs)\n", 100*mae, n)
	}
	for _, c := range own {
		run := fmt.Sprintf("%s at %s", c.Name, c.Started.UTC().Format(time.RFC3339))
		if c.Err != "" {
			fmt.Fprintf(w, "  %s: not simulated again: %s\n", run, c.Err)
			continue
		}
		fmt.Fprintf(w, "  %s: real %.0f tuples/s, simulated %.0f (%+.0f%%)\n", run, c.Real, c.Simulated, 100*c.Error())
	}
	return err
}

// loadRuns loads every run folder (one with run.json) under dirs, in path order.
func loadRuns(dirs []string) ([]*harness.RunResult, error) {
	var paths []string
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && e.Name() == "run.json" {
				paths = append(paths, filepath.Dir(p))
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("--from %s: %w", d, err)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("--from %s: no recorded run (a folder with run.json) found", strings.Join(dirs, ", "))
	}
	slices.Sort(paths)
	var runs []*harness.RunResult
	for _, p := range paths {
		r, err := harness.Load(p)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// provenance says where the runs come from: their clusters and JVM flags, this host, now, this build.
func provenance(runs []*harness.RunResult) sim.CostProvenance {
	var clusters, flags, waits []string
	containers := len(runs) > 0
	for _, r := range runs {
		containers = containers && len(r.Images) > 0 // a target's runs start no images
		clusters = appendNew(clusters, r.Cluster)
		if i := slices.Index(r.Spec.Topology.Args, "--worker-childopts"); i >= 0 && i+1 < len(r.Spec.Topology.Args) {
			flags = appendNew(flags, r.Spec.Topology.Args[i+1])
		}
		waits = appendNew(waits, waitConf(r.Spec.Topology.Args))
	}
	hostCores := 0
	if containers { // this project's containers on this machine (Host too takes the runs to be this machine's)
		hostCores = runtime.NumCPU()
	}
	return sim.CostProvenance{Cluster: strings.Join(clusters, ", "), Host: hostDescription(), HostCores: hostCores, JVMFlags: strings.Join(flags, " | "),
		WaitConf: strings.Join(waits, " | "),
		Date:     time.Now().UTC().Format(time.DateOnly), Commit: lab.Revision(),
		Method: "each valid run's window read as a capture (workers' reports: thread CPU per task, tuples per task pair, sampled sizes), pooled per component over runs",
		Missing: []string{"transfer costs per message (serialization is in the sending executor's thread CPU; deserialization, Netty and garbage collection are in the worker overhead, not per message)",
			"idle executors' wait-strategy CPU apart from their tuples' (it is in the per-tuple costs, at the measured runs' rates)",
			"a migration's own time apart from the restarted workers' start (Nimbus's scheduling round, the supervisors' reaction)"}}
}

// waitConf is the wait strategies' settings among a topology's arguments (--conf topology.bolt.wait.*,
// topology.spout.wait.*), in order, space between; "" for Storm's defaults.
func waitConf(args []string) string {
	var out []string
	for i := 0; i+1 < len(args); i++ {
		if kv := args[i+1]; args[i] == "--conf" && lab.WaitConf(kv) {
			out = append(out, kv)
		}
	}
	return strings.Join(out, " ")
}

func appendNew(xs []string, x string) []string {
	if x == "" || slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// hostDescription is this machine's cores and CPU model.
func hostDescription() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%d cores, %s", runtime.NumCPU(), model)
}

// writeCostModel writes m to path whole or not at all.
func writeCostModel(path string, m *sim.CostModel) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".costs-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := sim.WriteCostModel(tmp, m); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
