package main

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// partitionOutput is the JSON contract of `stormlab partition` (other tools
// parse it): parts[i] lists the vertex ids of part i, ascending.
type partitionOutput struct {
	Scheduler   string    `json:"scheduler"`
	K           int       `json:"k"`
	Seed        uint64    `json:"seed"`
	Mul         int       `json:"mul"`
	Vertices    int       `json:"vertices"`
	Edges       int       `json:"edges"`
	Parts       [][]int   `json:"parts"`
	PartWeights []float64 `json:"part_weights"`
	CutRate     float64   `json:"cut_rate"`
	Std         float64   `json:"std"`
	MaxDev      float64   `json:"max_dev"`
	MaxOver     float64   `json:"max_over"`
	// Epsilon is the balance bound of exact and mlfm (max deviation rate).
	Epsilon float64 `json:"epsilon,omitempty"`
	// Status is exact's proof status: "optimal" or "not proven optimal: ...".
	Status string `json:"status,omitempty"`
	// EmptyParts counts the parts without a vertex.
	EmptyParts int `json:"empty_parts"`
	// BoundViolated says how the partition breaks Epsilon or, for any
	// scheduler, that it leaves parts empty ("" when neither).
	BoundViolated string `json:"bound_violated,omitempty"`
}

// partitionFlags are the flags of stormlab partition.
type partitionFlags struct {
	graph, scheduler, format, options string
	k, mul                            int
	seed                              uint64
	epsilon                           float64
	allowImbalance                    bool
}

func newPartitionCmd() *cobra.Command {
	var fl partitionFlags
	cmd := &cobra.Command{
		Use:   "partition --graph FILE|random:N:M --k K --scheduler NAME [--mul M] [--epsilon E] [--seed S] [--options JSON] [--format json|table]",
		Short: "Partition a weighted graph into k parts and print the parts and their partition metrics",
		Long:  partitionLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPartition(cmd, fl)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.graph, "graph", "", "graph JSON file (format: see above), or random:N:M (N vertices, M edges, weights 1..100)")
	f.IntVar(&fl.k, "k", 0, "number of parts, 1 <= k <= number of vertices")
	f.StringVar(&fl.scheduler, "scheduler", "", "scheduler name (list them with: stormlab schedulers)")
	f.IntVar(&fl.mul, "mul", 0, "K-PART balance-adjustment iteration multiplier (0 = none)")
	f.StringVar(&fl.options, "options", "", `scheduler options as JSON, as the scheduler service takes them, e.g. '{"mul":5,"alpha":0.1}'`)
	f.Float64Var(&fl.epsilon, "epsilon", 0, fmt.Sprintf("balance bound of exact and mlfm: max deviation rate of part weights, in [0, 1) (0 = %v)", schedulers.DefaultEpsilon))
	f.Uint64Var(&fl.seed, "seed", 1, "seed for random graphs and randomised schedulers")
	f.StringVar(&fl.format, "format", "json", "output format: json or table")
	f.BoolVar(&fl.allowImbalance, "allow-imbalance", false, "accept a partition that breaks the scheduler's balance bound (epsilon) or leaves a part empty (any scheduler): warn, exit 0 (without it: printed, exit 1)")
	return cmd
}

// partitionOptions checks the flags and returns the scheduler's options:
// --options with --seed, --mul and --epsilon merged in.
func partitionOptions(cmd *cobra.Command, fl partitionFlags) (schedulers.Options, error) {
	if err := checkFormat(fl.format); err != nil {
		return schedulers.Options{}, err
	}
	if fl.scheduler == "" {
		return schedulers.Options{}, fmt.Errorf("--scheduler is required: choose one of %s", strings.Join(schedulers.Names(), ", "))
	}
	if fl.graph == "" {
		return schedulers.Options{}, fmt.Errorf("--graph is required: a graph JSON file or random:N:M")
	}
	o, err := schedulers.ParseOptions(fl.options)
	if err != nil {
		return schedulers.Options{}, fmt.Errorf("--options: %w", err)
	}
	// --seed and --mul are shorthands for the options' fields; given
	// both ways they must agree (the scheduler service's rule).
	for _, f := range []struct {
		name      string
		set, same bool
		zero      bool
	}{{"seed", cmd.Flags().Changed("seed"), o.Seed == fl.seed, o.Seed == 0}, {"mul", cmd.Flags().Changed("mul"), o.Mul == fl.mul, o.Mul == 0},
		{"epsilon", cmd.Flags().Changed("epsilon"), o.Epsilon == fl.epsilon, o.Epsilon == 0}} {
		if fl.options != "" && f.set && !f.same && !f.zero {
			return schedulers.Options{}, fmt.Errorf("--%s and --options %s disagree: give it once", f.name, f.name)
		}
	}
	if fl.options == "" || cmd.Flags().Changed("seed") {
		o.Seed = fl.seed
	}
	if fl.options == "" || cmd.Flags().Changed("mul") {
		o.Mul = fl.mul
	}
	if fl.options == "" || cmd.Flags().Changed("epsilon") {
		o.Epsilon = fl.epsilon
	}
	return o, nil
}

// runPartition partitions the graph and prints the parts and their metrics.
func runPartition(cmd *cobra.Command, fl partitionFlags) error {
	o, err := partitionOptions(cmd, fl)
	if err != nil {
		return err
	}
	scheduler, k := fl.scheduler, fl.k
	g, err := loadGraph(fl.graph, o.Seed)
	if err != nil {
		return err
	}
	if err := schedulers.CheckK(k, g.N()); err != nil {
		return fmt.Errorf("--k: %w", err)
	}
	p, err := newPartitioner(scheduler, o)
	if err != nil {
		return err
	}
	warnIgnoredOptions(cmd, scheduler, o)
	parts, err := p.Partition(cmd.Context(), g, k)
	status := ""
	var notProven *schedulers.NotProvenError
	switch {
	case errors.As(err, &notProven):
		status = notProven.Error() // a feasible partition, without the proof
	case err != nil:
		return failed(fmt.Errorf("%s partition: %w", scheduler, err))
	case scheduler == "exact":
		status = "optimal"
	}
	ids, err := idsByPart(g, parts, k)
	if err != nil {
		return failed(fmt.Errorf("%s %w (scheduler bug)", scheduler, err))
	}
	out := partitionOutput{Scheduler: scheduler, K: k, Seed: o.Seed, Mul: o.Mul, Vertices: g.N(), Edges: len(g.Edges),
		Parts: ids, PartWeights: schedulers.PartWeights(g, parts, k)}
	m := schedulers.Measure(g, parts, k)
	out.CutRate, out.Std, out.MaxDev, out.MaxOver = m.CutRate, m.Std, m.MaxDev, m.MaxOver
	out.Status = status
	if e, ok := p.(interface{ BalanceBound() float64 }); ok {
		out.Epsilon = e.BalanceBound()
	}
	out.EmptyParts, out.BoundViolated = boundViolation(out)
	return writePartition(cmd, fl, out)
}

// writePartition prints the partition and refuses one that breaks its
// balance bound unless --allow-imbalance accepts it.
func writePartition(cmd *cobra.Command, fl partitionFlags, out partitionOutput) error {
	var err error
	if fl.format == "json" {
		err = writeJSON(cmd.OutOrStdout(), out)
	} else {
		err = writePartitionTable(cmd.OutOrStdout(), out)
	}
	if err != nil || out.BoundViolated == "" {
		return err
	}
	if fl.allowImbalance {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s (allowed by --allow-imbalance)\n", out.BoundViolated)
		return nil
	}
	return failed(fmt.Errorf("%s: the partition is printed but refused; rerun with --allow-imbalance to accept it, or %s", out.BoundViolated, boundAdvice(out)))
}

// boundViolation counts the empty parts and says how the partition breaks
// the scheduler's balance bound (exact, mlfm) or, for a scheduler without
// one (kpart, mpart, ...), that it leaves parts empty: k parts were asked for.
func boundViolation(out partitionOutput) (empty int, why string) {
	for _, ids := range out.Parts {
		if len(ids) == 0 {
			empty++
		}
	}
	if out.Epsilon <= 0 {
		if empty == 0 {
			return 0, ""
		}
		return empty, fmt.Sprintf("%s partition leaves %d of %d parts empty", out.Scheduler, empty, out.K)
	}
	var broken []string
	if out.MaxDev > out.Epsilon+1e-9 {
		broken = append(broken, fmt.Sprintf("max deviation rate %.4g > epsilon %g", out.MaxDev, out.Epsilon))
	}
	if empty > 0 {
		broken = append(broken, fmt.Sprintf("%d of %d parts empty", empty, out.K))
	}
	if len(broken) == 0 {
		return empty, ""
	}
	return empty, fmt.Sprintf("%s partition breaks its balance bound: %s", out.Scheduler, strings.Join(broken, ", "))
}

// boundAdvice is the other way out of a refused partition: fewer parts where
// some are empty, else a looser bound.
func boundAdvice(out partitionOutput) string {
	if out.EmptyParts > 0 {
		return "a smaller --k"
	}
	return "a larger --epsilon (below 1)"
}

// warnIgnoredOptions says on stderr which of --mul and --epsilon (or the
// same fields of --options) the scheduler does not read, so a value given
// is never silently without effect. A field counts as ignored when the
// scheduler built with it equals the one built without it.
func warnIgnoredOptions(cmd *cobra.Command, name string, o schedulers.Options) {
	for _, f := range []struct {
		flag  string
		given bool
		clear func(*schedulers.Options)
	}{
		{"mul", o.Mul != 0, func(o *schedulers.Options) { o.Mul = 0 }},
		{"epsilon", o.Epsilon != 0, func(o *schedulers.Options) { o.Epsilon = 0 }},
	} {
		if !f.given || readsOption(name, o, f.clear) {
			continue
		}
		given := "--" + f.flag
		if !cmd.Flags().Changed(f.flag) {
			given = fmt.Sprintf("%q of --options", f.flag)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s ignores %s (read by %s only)\n", name, given, strings.Join(optionReaders(f.clear), ", "))
	}
}

// readsOption says whether scheduler name built with o differs from the one
// built with clear applied to o.
func readsOption(name string, o schedulers.Options, clear func(*schedulers.Options)) bool {
	with, err1 := schedulers.New(name, o)
	clear(&o)
	without, err2 := schedulers.New(name, o)
	return err1 != nil || err2 != nil || !reflect.DeepEqual(with, without)
}

// optionReaders lists the partitioners that read the option clear resets.
func optionReaders(clear func(*schedulers.Options)) []string {
	probe := schedulers.Options{Seed: 1, Mul: 3, Epsilon: 0.1}
	var out []string
	for _, name := range partitionerNames() {
		if readsOption(name, probe, clear) {
			out = append(out, name)
		}
	}
	return out
}

// newPartitioner builds the named scheduler as a Partitioner; one that only
// places executors on a cluster is bad input naming the ones that partition.
func newPartitioner(name string, o schedulers.Options) (schedulers.Partitioner, error) {
	s, err := schedulers.New(name, o)
	if err != nil {
		return nil, err
	}
	p, ok := s.(schedulers.Partitioner)
	if !ok {
		return nil, fmt.Errorf("scheduler %q places executors on a cluster but does not partition graphs: choose one of %s", name, strings.Join(partitionerNames(), ", "))
	}
	return p, nil
}

// partitionerNames lists the schedulers that can partition a graph.
func partitionerNames() []string {
	var out []string
	for _, i := range schedulers.List() {
		if s, err := i.New(schedulers.Options{}); err == nil {
			if _, ok := s.(schedulers.Partitioner); ok {
				out = append(out, i.Name)
			}
		}
	}
	return out
}

// loadGraph reads a graph file or generates random:N:M with seed.
func loadGraph(spec string, seed uint64) (*topologies.Graph, error) {
	if rest, ok := strings.CutPrefix(spec, "random:"); ok {
		nm := strings.Split(rest, ":")
		if len(nm) != 2 {
			return nil, fmt.Errorf("bad random graph %q: use random:N:M (N vertices, M edges), e.g. random:24:36", spec)
		}
		n, err1 := strconv.Atoi(nm[0])
		m, err2 := strconv.Atoi(nm[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad random graph %q: N and M must be integers, e.g. random:24:36", spec)
		}
		g, err := topologies.RandomGraph(n, m, seed)
		if err != nil {
			return nil, fmt.Errorf("bad random graph %q: %w", spec, err)
		}
		return g, nil
	}
	return topologies.ReadGraphFile(spec)
}

func writePartitionTable(w io.Writer, out partitionOutput) error {
	t := &reports.Table{
		Title:   fmt.Sprintf("%s, k=%d, %d vertices, %d edges", out.Scheduler, out.K, out.Vertices, out.Edges),
		Columns: []string{"part", "size", "weight", "vertices"},
	}
	for i, ids := range out.Parts {
		t.AddRow(reports.Textf("%d", i), reports.Textf("%d", len(ids)), reports.Number(out.PartWeights[i]), reports.Text(joinIDs(ids)))
	}
	if err := writeTable(w, t); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "cut_rate %.4f  std %.4g  max_dev %.4f  max_over %.4f\n", out.CutRate, out.Std, out.MaxDev, out.MaxOver); err != nil {
		return err
	}
	if out.Status != "" {
		_, err := fmt.Fprintf(w, "epsilon %g  status %s\n", out.Epsilon, out.Status)
		return err
	}
	return nil
}
