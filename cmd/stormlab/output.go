package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/stormlab/stormlab/topologies"
)

// checkFormat accepts the --format values of the graph commands.
func checkFormat(format string) error {
	if format != "json" && format != "table" {
		return fmt.Errorf("unknown --format %q: use json or table", format)
	}
	return nil
}

// writeJSON writes v as indented JSON: the --format json output of every
// command.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// idsByPart turns a partition (parts[v] = part of the vertex at index v)
// into the vertex ids of each of the k parts, ascending; empty parts are
// empty lists, not null, in JSON. A labelling that does not fit g and k is
// a scheduler bug, reported as an error naming the first wrong label.
func idsByPart(g *topologies.Graph, parts []int, k int) ([][]int, error) {
	if len(parts) != g.N() {
		return nil, fmt.Errorf("returned %d part numbers for %d vertices", len(parts), g.N())
	}
	out := make([][]int, k)
	for i := range out {
		out[i] = []int{}
	}
	for v, p := range parts {
		if p < 0 || p >= k {
			return nil, fmt.Errorf("put vertex %d in part %d, outside [0,%d)", g.Vertices[v].ID, p, k)
		}
		out[p] = append(out[p], g.Vertices[v].ID)
	}
	for _, ids := range out {
		sort.Ints(ids)
	}
	return out, nil
}

// joinIDs prints vertex ids space-separated, for the table cells.
func joinIDs(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, " ")
}
