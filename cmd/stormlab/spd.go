package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// spdOutput is the JSON contract of `stormlab spd`.
type spdOutput struct {
	Scheduler      string  `json:"scheduler"`
	Resources      int     `json:"resources"`
	Seed           uint64  `json:"seed"`
	Tasks          int     `json:"tasks"`
	Edges          int     `json:"edges"`
	StreamingCost  float64 `json:"streaming_cost"`  // d(G) of 003
	ProcessingCost float64 `json:"processing_cost"` // d-hat(G): transfer costs set to 0
	LowerBound     float64 `json:"lower_bound"`     // A^cont cost w(root)/c
	Ratio          float64 `json:"ratio"`           // streaming_cost / lower_bound
	ResourcesUsed  int     `json:"resources_used"`
	Parts          [][]int `json:"parts"` // task ids per resource, ascending
}

// newSPDCmd is `stormlab spd`: allocate an SPD graph's tasks onto c
// resources with a partitioning scheduler and report the streaming cost
// against the continuous lower bound (Eidenbenz and Locher, "Task Allocation
// for Distributed Stream Processing", 2016).
func newSPDCmd() *cobra.Command {
	var (
		graphSpec, scheduler, format string
		resources, edgeMax           int
		seed                         uint64
	)
	cmd := &cobra.Command{
		Use:   "spd --graph FILE|random:N --resources C --scheduler NAME [--seed S] [--format json|table]",
		Short: "Allocate an SPD streaming graph onto C resources; print its streaming cost and the continuous lower bound",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			if graphSpec == "" {
				return fmt.Errorf("--graph is required: an SPD graph JSON file or random:N")
			}
			if scheduler == "" {
				return fmt.Errorf("--scheduler is required: e.g. spd (see `stormlab schedulers`)")
			}
			if resources < 1 {
				return fmt.Errorf("--resources %d: need at least 1 resource", resources)
			}
			s, err := loadSPD(graphSpec, seed, edgeMax)
			if err != nil {
				return err
			}
			if resources > s.Graph.N() {
				return fmt.Errorf("--resources %d is more than the %d tasks: use at most %d", resources, s.Graph.N(), s.Graph.N())
			}
			p, err := newPartitioner(scheduler, schedulers.Options{Seed: seed})
			if err != nil {
				return err
			}
			parts, err := p.Partition(cmd.Context(), s.Graph, resources)
			if err != nil {
				return failed(fmt.Errorf("%s allocation: %w", scheduler, err))
			}
			ids, err := idsByPart(s.Graph, parts, resources)
			if err != nil {
				return failed(fmt.Errorf("%s %w (scheduler bug)", scheduler, err))
			}
			out := spdOutput{Scheduler: scheduler, Resources: resources, Seed: seed, Tasks: s.Graph.N(), Edges: len(s.Graph.Edges),
				Parts: ids}
			for _, ids := range out.Parts {
				if len(ids) > 0 {
					out.ResourcesUsed++
				}
			}
			if out.StreamingCost, err = schedulers.StreamingCost(s.Graph, parts); err != nil {
				return failed(err)
			}
			out.ProcessingCost, _ = schedulers.ProcessingCost(s.Graph, parts)
			if out.LowerBound, err = schedulers.LowerBound(s, resources); err != nil {
				return failed(err)
			}
			if out.LowerBound > 0 {
				out.Ratio = out.StreamingCost / out.LowerBound
			}
			if format == "json" {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			return writeSPDTable(cmd.OutOrStdout(), out)
		},
	}
	f := cmd.Flags()
	f.StringVar(&graphSpec, "graph", "", "SPD graph JSON file (graph format plus \"tree\"; without it the tree is recovered), or random:N (random SPD graph with N tasks)")
	f.IntVar(&resources, "resources", 0, "number of resources c (parts), 1 <= c <= number of tasks")
	f.StringVar(&scheduler, "scheduler", "", "a scheduler that partitions graphs, e.g. spd (list them with: stormlab schedulers)")
	f.Uint64Var(&seed, "seed", 1, "seed for random graphs and randomised schedulers")
	f.IntVar(&edgeMax, "edge-max", 100, "random:N only: transfer weights b(e) uniform in 1..edge-max (task weights 1..100); small values give computationally constrained graphs")
	f.StringVar(&format, "format", "json", "output format: json or table")
	return cmd
}

// loadSPD reads an SPD graph file or generates random:N with seed.
func loadSPD(spec string, seed uint64, edgeMax int) (*topologies.SPD, error) {
	if rest, ok := strings.CutPrefix(spec, "random:"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil {
			return nil, fmt.Errorf("bad random SPD graph %q: use random:N with N tasks, e.g. random:100", spec)
		}
		if edgeMax < 1 {
			return nil, fmt.Errorf("--edge-max %d: need at least 1", edgeMax)
		}
		s, err := topologies.RandomSPD(n, seed, topologies.SPDOptions{MaxEdgeWeight: edgeMax})
		if err != nil {
			return nil, fmt.Errorf("bad random SPD graph %q: %w", spec, err)
		}
		return s, nil
	}
	return topologies.ReadSPDFile(spec)
}

func writeSPDTable(w io.Writer, out spdOutput) error {
	t := &reports.Table{
		Title:   fmt.Sprintf("%s, c=%d, %d tasks, %d edges", out.Scheduler, out.Resources, out.Tasks, out.Edges),
		Columns: []string{"resource", "tasks", "task ids"},
	}
	for i, ids := range out.Parts {
		t.AddRow(reports.Textf("%d", i), reports.Textf("%d", len(ids)), reports.Text(joinIDs(ids)))
	}
	if err := writeTable(w, t); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, wrapLines(fmt.Sprintf("streaming_cost %.6g  processing_cost %.6g  lower_bound %.6g  ratio %.4f  resources_used %d",
		out.StreamingCost, out.ProcessingCost, out.LowerBound, out.Ratio, out.ResourcesUsed)))
	return err
}
