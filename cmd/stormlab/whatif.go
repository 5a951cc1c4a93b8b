package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/schedulers/whatif"
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
}

func newWhatifCmd() *cobra.Command {
	var (
		profile, clusterFile, list, format, options string
		workers                                     int
		seed                                        uint64
		timeout                                     time.Duration
	)
	cmd := &cobra.Command{
		Use:   "whatif GRAPH (--profile P | --cluster FILE) [--schedulers a,b] [--workers K] [--format table|json]",
		Short: "Ask every scheduler, in process, where it would place a graph on a cluster, and compare the placements",
		Long: "whatif runs each scheduler on the graph (a graph JSON file, see docs/graph-format.md, or random:N:M)\n" +
			"and the cluster's capacities, in process and in seconds, and prints per scheduler: the share of\n" +
			"traffic between nodes (cut rate) and its amount, the busiest node's load over its fair share\n" +
			"(load ratio: the node's share of CPU demand over its share of capacity; 1 = proportional), the\n" +
			"spread of those ratios, and the run time. Where the graph is small enough it adds the proven\n" +
			"minimum cut at equal part weights as a reference. Nothing runs on Storm: it is a second opinion\n" +
			"before a live run, not a measurement of one. Schedulers that need measured load say so.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			c, name, err := whatifCluster(profile, clusterFile)
			if err != nil {
				return err
			}
			g, err := loadGraph(args[0], seed)
			if err != nil {
				return err
			}
			names, err := whatifNames(list)
			if err != nil {
				return err
			}
			o, err := schedulers.ParseOptions(options)
			if err != nil {
				return fmt.Errorf("--options: %w", err)
			}
			q := whatif.Question{Graph: g, Cluster: c, Workers: workers, Options: o, Timeout: timeout}
			rows, err := whatif.Ask(cmd.Context(), q, names)
			if err != nil {
				return err
			}
			ref, err := whatif.Optimum(cmd.Context(), g, len(c.Nodes), o.Epsilon, timeout)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "whatif: no optimum reference: %v\n", err)
			}
			if workers == 0 {
				workers = len(c.Nodes)
			}
			out := whatifOutput{Graph: args[0], Cluster: name, Workers: workers, Vertices: g.N(), Edges: len(g.Edges),
				Rows: rows, Reference: ref, Nodes: c.Nodes}
			if format == "json" {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			return writeWhatifTable(cmd.OutOrStdout(), out)
		},
	}
	f := cmd.Flags()
	f.StringVar(&profile, "profile", "", "a containerized cluster profile: "+strings.Join(docker.Profiles(), ", "))
	f.StringVar(&clusterFile, "cluster", "", `a cluster JSON file: {"nodes":[{"id":"n1","cpu":400,"memory_mb":8192,"ports":[6700,6701]}]} (cpu: percent of a core, as supervisor.cpu.capacity)`)
	f.StringVar(&list, "schedulers", "", "comma-separated schedulers (default: every scheduler but exact, which gives the reference line)")
	f.IntVar(&workers, "workers", 0, "the topology's number of workers (0 = one per node)")
	f.StringVar(&options, "options", "", `scheduler options as JSON, e.g. '{"mul":5}'`)
	f.Uint64Var(&seed, "seed", 1, "seed for random graphs")
	f.DurationVar(&timeout, "timeout", 10*time.Second, "time limit per scheduler (and for the reference optimum)")
	f.StringVar(&format, "format", "table", "output format: table or json")
	return cmd
}

// whatifCluster reads the cluster from exactly one of --profile and --cluster.
func whatifCluster(profile, file string) (schedulers.Cluster, string, error) {
	switch {
	case profile != "" && file != "":
		return schedulers.Cluster{}, "", fmt.Errorf("--profile and --cluster both given: give one")
	case profile != "":
		sups, err := docker.Profile(profile)
		if err != nil {
			return schedulers.Cluster{}, "", fmt.Errorf("--profile: %w", err)
		}
		var c schedulers.Cluster
		for _, s := range sups {
			c.Nodes = append(c.Nodes, schedulers.Node{ID: s.Host, CPU: s.CapacityCPU(), MemoryMB: float64(s.CapacityMemoryMB()), Ports: s.Ports()})
		}
		return c, "profile " + profile, nil
	case file != "":
		data, err := os.ReadFile(file)
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
	return schedulers.Cluster{}, "", fmt.Errorf("no cluster: give --profile (%s) or --cluster FILE", strings.Join(docker.Profiles(), ", "))
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
		t.AddRow(reports.Text(r.Scheduler), reports.Textf("%.4f", r.CutRate), reports.Textf("%.4g", r.InterNode),
			reports.Textf("%.3f", r.MaxLoadRatio), reports.Textf("%.3f", r.Imbalance), reports.Text(strings.Join(per, ", ")))
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	var tail strings.Builder
	if len(notPlaced) > 0 {
		tail.WriteString("no placement:\n" + strings.Join(notPlaced, "\n") + "\n")
	}
	if ref := out.Reference; ref != nil {
		proof := "proven"
		if !ref.Proven {
			proof = "best found, not proven"
		}
		fmt.Fprintf(&tail, "reference: minimum cut rate into %d parts of equal weight (max deviation %g): %.4f (%s)\n",
			len(out.Nodes), ref.Epsilon, ref.CutRate, proof)
	}
	_, err := io.WriteString(w, tail.String())
	return err
}
