package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/infra/target"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/schedulers/whatif"
	"github.com/stormlab/stormlab/topologies"
)

// whatifOutput is `stormlab whatif --format json`.
type whatifOutput struct {
	Graph     string            `json:"graph"`
	Cluster   string            `json:"cluster"`
	Workers   int               `json:"workers"`
	Vertices  int               `json:"vertices"`
	Edges     int               `json:"edges"`
	Rows      []whatif.Row      `json:"rows"`
	Reference *whatif.Reference `json:"reference,omitempty"`
	Nodes     []schedulers.Node `json:"nodes"`
	// Current says where the running placement came from and how its hosts were matched to the
	// cluster's nodes; empty when the graph has none (then every row's moved is -1).
	Current string `json:"current,omitempty"`
	// NotCompared says why a placement the graph holds was not compared (its hosts are not the
	// cluster's nodes: a what-if on another cluster).
	NotCompared string `json:"not_compared,omitempty"`
}

// whatifFlags are the flags of stormlab whatif.
type whatifFlags struct {
	profile, clusterFile, targetFile, list, format, options string
	workers                                                 int
	seed                                                    uint64
	timeout                                                 time.Duration
}

// whatifLong is the help text of stormlab whatif.
const whatifLong = "whatif runs each scheduler on the graph (a graph JSON file, see docs/graph-format.md, or random:N:M)\n" +
	"and the cluster's capacities, in process and in seconds, and prints per scheduler: the share of\n" +
	"traffic between nodes (cut rate) and its amount, the busiest node's load over its fair share\n" +
	"(load ratio: the node's share of CPU demand over its share of capacity; 1 = proportional), the\n" +
	"spread of those ratios, and the run time. Where the graph is small enough it adds the proven\n" +
	"minimum cut at equal part weights as a reference. Nothing runs on Storm: it is a second opinion\n" +
	"before a live run, not a measurement of one. Schedulers that need measured load say so.\n\n" +
	"--cluster target:FILE takes the capacities of a running cluster (its UI's supervisors, the target file's\n" +
	"capacity entries first). A graph written by `stormlab capture` holds the placement it ran with:\n" +
	"then a column counts the executors (tasks) each scheduler would put on another node, nodes\n" +
	"matched by host name (exact, else by first DNS label); on a cluster without those hosts the\n" +
	"column is left out and a note says why."

func newWhatifCmd() *cobra.Command {
	var fl whatifFlags
	cmd := &cobra.Command{
		Use:   "whatif GRAPH --cluster SHAPE|target:FILE|FILE.json [--schedulers a,b] [--workers K] [--format table|json]",
		Short: "Ask every scheduler, in process, where it would place a graph on a cluster, and compare the placements",
		Long:  whatifLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWhatif(cmd, fl, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.clusterFile, "cluster", "", "the cluster: a shape of the containerized clusters ("+strings.Join(docker.Shapes(), ", ")+`), target:FILE (the capacities of that running cluster's supervisors), or a cluster JSON file: {"nodes":[{"id":"n1","cpu":400,"memory_mb":8192,"ports":[6700,6701]}]} (cpu: percent of a core, as supervisor.cpu.capacity)`)
	f.StringVar(&fl.profile, "profile", "", "a cluster shape (deprecated: use --cluster SHAPE)")
	f.StringVar(&fl.targetFile, "target", "", "a target file (deprecated: use --cluster target:FILE)")
	deprecate(cmd, "profile", "--cluster SHAPE")
	deprecate(cmd, "target", "--cluster target:FILE")
	f.StringVar(&fl.list, "schedulers", "", "comma-separated schedulers (default: every scheduler but exact, which gives the reference line)")
	f.IntVar(&fl.workers, "workers", 0, "the topology's number of workers (0 = one per node)")
	f.StringVar(&fl.options, "options", "", `scheduler options as JSON, e.g. '{"mul":5}'`)
	f.Uint64Var(&fl.seed, "seed", 1, "seed for random graphs")
	f.DurationVar(&fl.timeout, "timeout", 10*time.Second, "time limit per scheduler (and for the reference optimum)")
	f.StringVar(&fl.format, "format", "table", "output format: table or json")
	return cmd
}

// runWhatif asks the schedulers where they would place the graph and
// prints their placements compared.
func runWhatif(cmd *cobra.Command, fl whatifFlags, graph string) error {
	if err := checkFormat(fl.format); err != nil {
		return err
	}
	g, err := loadGraph(graph, fl.seed)
	if err != nil {
		return err
	}
	placed, err := graphPlacement(graph)
	if err != nil {
		return err
	}
	c, name, err := whatifCluster(cmd.Context(), fl.profile, fl.clusterFile, fl.targetFile, placed)
	if err != nil {
		return err
	}
	names, err := whatifNames(fl.list)
	if err != nil {
		return err
	}
	o, err := schedulers.ParseOptions(fl.options)
	if err != nil {
		return fmt.Errorf("--options: %w", err)
	}
	q := whatif.Question{Graph: g, Cluster: c, Workers: fl.workers, Options: o, Timeout: fl.timeout}
	current, notCompared := whatifCurrent(&q, &c, placed)
	rows, err := whatif.Ask(cmd.Context(), q, names)
	if err != nil {
		return err
	}
	ref, err := whatif.Optimum(cmd.Context(), g, len(c.Nodes), o.Epsilon, fl.timeout)
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "whatif: no optimum reference: %v\n", err)
	}
	workers := fl.workers
	if workers == 0 {
		workers = len(c.Nodes)
	}
	out := whatifOutput{Graph: graph, Cluster: name, Workers: workers, Vertices: g.N(), Edges: len(g.Edges),
		Rows: rows, Reference: ref, Nodes: c.Nodes, Current: current, NotCompared: notCompared}
	if fl.format == "json" {
		return writeJSON(cmd.OutOrStdout(), out)
	}
	return writeWhatifTable(cmd.OutOrStdout(), out)
}

// whatifCurrent sets the question's current placement from the graph's own
// (placed, when it has one) and says what it is, or why it is not compared.
func whatifCurrent(q *whatif.Question, c *schedulers.Cluster, placed topologies.Placement) (current, notCompared string) {
	if len(placed) == 0 {
		return "", ""
	}
	var err error
	q.Current, q.CurrentNodes, err = whatif.FromPlacement(q.Graph, c, placed)
	switch {
	case err != nil:
		notCompared = err.Error()
	case q.Current == nil:
		current = "the graph's placement, nodes matched by host name (its worker ports are not the cluster's: moves counted by node, schedulers not told)"
	default:
		current = "the graph's placement, nodes matched by host name"
	}
	return current, notCompared
}

// whatifCluster reads the cluster from exactly one of --cluster and the deprecated --profile and
// --target. --cluster is a shape, target:FILE or a cluster JSON file (any other value).
func whatifCluster(ctx context.Context, profile, file, targetFile string, placed topologies.Placement) (schedulers.Cluster, string, error) {
	if f, ok := strings.CutPrefix(file, "target:"); ok {
		file, targetFile = "", f
	} else if shape, ok := strings.CutPrefix(file, "containers:"); ok {
		file, profile = "", shape
	} else if _, err := docker.Shape(file); err == nil {
		file, profile = "", file
	}
	given := 0
	for _, f := range []string{profile, file, targetFile} {
		if f != "" {
			given++
		}
	}
	switch {
	case given > 1:
		return schedulers.Cluster{}, "", fmt.Errorf("--cluster, --profile and --target: give one (--cluster SHAPE, target:FILE or FILE.json)")
	case profile != "":
		sups, err := docker.Shape(profile)
		if err != nil {
			return schedulers.Cluster{}, "", fmt.Errorf("--cluster: %w", err)
		}
		var c schedulers.Cluster
		for _, s := range sups {
			c.Nodes = append(c.Nodes, schedulers.Node{ID: s.Host, CPU: s.CapacityCPU(), MemoryMB: float64(s.CapacityMemoryMB()), Ports: s.Ports()})
		}
		return c, "shape " + profile, nil
	case file != "":
		return clusterFromFile(file)
	case targetFile != "":
		return clusterFromTarget(ctx, targetFile, placed)
	}
	return schedulers.Cluster{}, "", fmt.Errorf("no cluster: give --cluster SHAPE (%s), --cluster target:FILE or --cluster FILE.json", strings.Join(docker.Shapes(), ", "))
}

func clusterFromFile(file string) (schedulers.Cluster, string, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return schedulers.Cluster{}, "", fmt.Errorf("--cluster %s: neither a shape (%s), target:FILE nor a cluster JSON file that exists", file, strings.Join(docker.Shapes(), ", "))
	}
	if err != nil {
		return schedulers.Cluster{}, "", fmt.Errorf("--cluster: %w", err)
	}
	var c schedulers.Cluster
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return schedulers.Cluster{}, "", fmt.Errorf("--cluster %s: %w (want {\"nodes\":[{\"id\",\"cpu\",\"memory_mb\",\"ports\"}]})", file, err)
	}
	for _, n := range c.Nodes {
		if n.ID == "" || !(n.CPU > 0) {
			return schedulers.Cluster{}, "", fmt.Errorf("--cluster %s: node %q needs an id and a cpu capacity > 0 (percent of a core)", file, n.ID)
		}
	}
	return c, file, nil
}

// clusterFromTarget reads the target's supervisors through its UI: id = host, CPU as runs on the
// target use it (harness.TargetCapacity), memory as Nimbus reports it. The UI gives each supervisor's
// number of slots but not their ports: the ports the placement uses on that host come first, then
// Storm's default numbering from 6700 up to the slot count.
func clusterFromTarget(ctx context.Context, file string, placed topologies.Placement) (schedulers.Cluster, string, error) {
	tg, err := target.Load(file)
	if err != nil {
		return schedulers.Cluster{}, "", err
	}
	capacity, err := harness.TargetCapacity(ctx, tg)
	if err != nil {
		return schedulers.Cluster{}, "", fmt.Errorf("--cluster target:%s: %w", file, err)
	}
	sups, err := stormui.New(tg.UI).Supervisors(ctx)
	if err != nil {
		return schedulers.Cluster{}, "", fmt.Errorf("--cluster target:%s: %w", file, err)
	}
	var c schedulers.Cluster
	for _, s := range sups {
		c.Nodes = append(c.Nodes, schedulers.Node{ID: s.Host, Host: s.Host, CPU: capacity[s.Host], MemoryMB: s.TotalMem, Ports: slotPorts(s.Host, s.SlotsTotal, placed)})
	}
	slices.SortFunc(c.Nodes, func(a, b schedulers.Node) int { return strings.Compare(a.ID, b.ID) })
	return c, "target " + orDefaultStr(tg.Name, file), nil
}

// slotPorts are n port numbers for host: those the placement uses there, then 6700, 6701, ...
func slotPorts(host string, n int, placed topologies.Placement) []int {
	seen := map[int]bool{}
	var ports []int
	for _, w := range placed {
		if h, p, err := topologies.SplitWorker(w); err == nil && h == host && !seen[p] {
			seen[p] = true
			ports = append(ports, p)
		}
	}
	slices.Sort(ports)
	for p := 6700; len(ports) < n; p++ {
		if !seen[p] {
			seen[p] = true
			ports = append(ports, p)
		}
	}
	return ports
}

// graphPlacement is the placement a graph file holds ("placement", as `stormlab capture` writes it),
// nil for random graphs and files without one. The file has been read and checked as a graph.
func graphPlacement(spec string) (topologies.Placement, error) {
	if strings.HasPrefix(spec, "random:") {
		return nil, nil
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, fmt.Errorf("open graph file: %w", err)
	}
	var f struct {
		Placement topologies.Placement `json:"placement"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: placement: %w", spec, err)
	}
	return f.Placement, nil
}

// whatifNames is the --schedulers list, or every scheduler but exact.
func whatifNames(list string) ([]string, error) {
	if list == "" {
		var out []string
		for _, n := range schedulers.Names() {
			if n != "exact" {
				out = append(out, n)
			}
		}
		return out, nil
	}
	var out []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if _, err := schedulers.Lookup(n); err != nil {
			return nil, fmt.Errorf("--schedulers: %w", err)
		}
		out = append(out, n)
	}
	return out, nil
}

// writeWhatifTable writes the rows (run times only in JSON: they vary from run to run), then the
// schedulers that gave no placement and why, then the reference.
func writeWhatifTable(w io.Writer, out whatifOutput) error {
	t := &reports.Table{
		Title:   fmt.Sprintf("what if: %s (%d executors, %d edges) on %s, %d workers", out.Graph, out.Vertices, out.Edges, out.Cluster, out.Workers),
		Columns: []string{"scheduler", "cut rate", "inter-node traffic", "max load ratio", "load ratio std", "load ratio per node"},
	}
	if out.Current != "" {
		t.Columns = append(t.Columns, "executors moved")
	}
	var notPlaced []string
	for _, r := range out.Rows {
		if r.Err != "" {
			notPlaced = append(notPlaced, fmt.Sprintf("  %s: %s", r.Scheduler, r.Err))
			continue
		}
		per := make([]string, len(r.Nodes))
		for i, n := range r.Nodes {
			per[i] = fmt.Sprintf("%s %.2f", n.Node, n.LoadRatio)
		}
		cells := []reports.Cell{reports.Text(r.Scheduler), reports.Textf("%.4f", r.CutRate), reports.Textf("%.4g", r.InterNode),
			reports.Textf("%.3f", r.MaxLoadRatio), reports.Textf("%.3f", r.Imbalance), reports.Text(strings.Join(per, ", "))}
		if out.Current != "" {
			cells = append(cells, reports.Textf("%d of %d", r.Moved, out.Vertices))
		}
		t.AddRow(cells...)
	}
	if err := writeTable(w, t); err != nil {
		return err
	}
	var tail strings.Builder
	if len(notPlaced) > 0 {
		tail.WriteString("no placement:\n" + strings.Join(notPlaced, "\n") + "\n")
	}
	if out.Current != "" {
		fmt.Fprintf(&tail, "executors moved: against %s\n", out.Current)
	}
	if out.NotCompared != "" {
		fmt.Fprintf(&tail, "executors moved: not counted: %s\n", out.NotCompared)
	}
	if ref := out.Reference; ref != nil {
		proof := "proven"
		if !ref.Proven {
			proof = "best found, not proven"
		}
		fmt.Fprintf(&tail, "reference: minimum cut rate into %d parts of equal weight (max deviation %g): %.4f (%s)\n",
			len(out.Nodes), ref.Epsilon, ref.CutRate, proof)
	}
	_, err := io.WriteString(w, wrapLines(tail.String()))
	return err
}
