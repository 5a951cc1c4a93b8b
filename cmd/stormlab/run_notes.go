package main

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/stormlab/stormlab/harness"
)

// writeNotes says what the throughput counts when it is not acked tuples, and why each metric
// the row shows as not measured was not.
func (row runRow) writeNotes(w io.Writer) error {
	if row.ThroughputBasis == harness.BasisSinkExecuted {
		if _, err := fmt.Fprintln(w, "throughput: tuples executed by the sink tasks per second (no spout tuple was acked: the spouts do not anchor)"); err != nil {
			return err
		}
	}
	if d := row.Diagnosis; d != nil {
		if _, err := fmt.Fprintln(w, wrapLines("bottleneck: "+d.Bottleneck)); err != nil {
			return err
		}
		if n := d.NodesText(); n != "" {
			if _, err := fmt.Fprintln(w, wrapLines("nodes: "+n)); err != nil {
				return err
			}
		}
		if c := d.ThreadsText(); c != "" {
			if _, err := fmt.Fprintln(w, wrapLines("cpu by thread: "+c)); err != nil {
				return err
			}
		}
		if l := d.LinksText(); l != "" {
			if _, err := fmt.Fprintln(w, wrapLines("links: "+l)); err != nil {
				return err
			}
		}
		if h := d.HostText(); h != "" {
			if _, err := fmt.Fprintln(w, wrapLines("host speed: "+h)); err != nil {
				return err
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(row.NotMeasured)) {
		if !slices.Contains([]string{harness.MetricThroughput, harness.MetricLatency, harness.MetricCutRate, harness.MetricNodeCPU}, k) {
			continue // not a column of this table
		}
		if _, err := fmt.Fprintf(w, "not measured: %s: %s\n", k, row.NotMeasured[k]); err != nil {
			return err
		}
	}
	return nil
}
