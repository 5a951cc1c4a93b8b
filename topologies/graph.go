package topologies

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Vertex is one executor. Weight is its CPU demand (the K-PART paper uses
// executor CPU time; the graph generators use unitless integers 1..100).
type Vertex struct {
	ID        int     `json:"id"`
	Weight    float64 `json:"weight"`
	Component string  `json:"component,omitempty"`
	// MemoryMB is the executor's memory demand; 0 means unknown.
	MemoryMB float64 `json:"memory_mb,omitempty"`
}

// Edge is a directed tuple flow From -> To (vertex IDs) with a rate weight.
type Edge struct {
	From   int     `json:"from"`
	To     int     `json:"to"`
	Weight float64 `json:"weight"`
}

// Graph is a weighted executor graph. Algorithms address vertices by their
// index in Vertices (0..N-1); Vertex.ID is the external name used in files
// and output. Use Validate (or ReadGraph, which calls it) before Index.
type Graph struct {
	Vertices []Vertex `json:"vertices"`
	Edges    []Edge   `json:"edges"`
}

// N is the number of vertices.
func (g *Graph) N() int { return len(g.Vertices) }

// TotalVertexWeight is the sum of all vertex weights.
func (g *Graph) TotalVertexWeight() float64 {
	s := 0.0
	for _, v := range g.Vertices {
		s += v.Weight
	}
	return s
}

// TotalEdgeWeight is the sum of all edge weights.
func (g *Graph) TotalEdgeWeight() float64 {
	s := 0.0
	for _, e := range g.Edges {
		s += e.Weight
	}
	return s
}

// Validate reports the first inconsistency: duplicate vertex ids, edges to
// missing vertices, negative or non-finite weights, weights whose sum
// overflows float64 (every metric divides by a total). The error names the
// problem so a user can fix the file.
func (g *Graph) Validate() error {
	if len(g.Vertices) == 0 {
		return errors.New("graph has no vertices: add at least one entry to \"vertices\"")
	}
	seen := make(map[int]bool, len(g.Vertices))
	for _, v := range g.Vertices {
		if seen[v.ID] {
			return fmt.Errorf("duplicate vertex id %d: every vertex id must be unique", v.ID)
		}
		seen[v.ID] = true
		if v.Weight < 0 || math.IsNaN(v.Weight) || math.IsInf(v.Weight, 0) {
			return fmt.Errorf("vertex %d has weight %v: weights must be finite and >= 0", v.ID, v.Weight)
		}
	}
	for i, e := range g.Edges {
		if !seen[e.From] {
			return fmt.Errorf("edge %d (%d->%d) starts at missing vertex %d: add it to \"vertices\"", i, e.From, e.To, e.From)
		}
		if !seen[e.To] {
			return fmt.Errorf("edge %d (%d->%d) ends at missing vertex %d: add it to \"vertices\"", i, e.From, e.To, e.To)
		}
		if e.Weight < 0 || math.IsNaN(e.Weight) || math.IsInf(e.Weight, 0) {
			return fmt.Errorf("edge %d (%d->%d) has weight %v: weights must be finite and >= 0", i, e.From, e.To, e.Weight)
		}
	}
	if math.IsInf(g.TotalVertexWeight(), 0) {
		return errors.New("vertex weights sum to more than the largest float64: scale them down")
	}
	if math.IsInf(g.TotalEdgeWeight(), 0) {
		return errors.New("edge weights sum to more than the largest float64: scale them down")
	}
	return nil
}

// expectEOF reports data after the one JSON value a graph file holds.
func expectEOF(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON object: a file holds exactly one graph")
	}
	return nil
}

// Index maps vertex IDs to their index in Vertices.
func (g *Graph) Index() map[int]int {
	m := make(map[int]int, len(g.Vertices))
	for i, v := range g.Vertices {
		m[v.ID] = i
	}
	return m
}

// Adjacency is an undirected view of a Graph in compressed sparse row form,
// by vertex index. Parallel and opposite edges are merged (weights summed);
// self loops are dropped, since they never cross a partition.
type Adjacency struct {
	Start  []int     // neighbours of v are Nbr[Start[v]:Start[v+1]]
	Nbr    []int     // neighbour vertex index
	Weight []float64 // weight of the merged edge to Nbr[i]
}

// Neighbors returns v's neighbours and the matching edge weights.
func (a *Adjacency) Neighbors(v int) ([]int, []float64) {
	return a.Nbr[a.Start[v]:a.Start[v+1]], a.Weight[a.Start[v]:a.Start[v+1]]
}

// Undirected builds the merged undirected adjacency of g. g must be valid.
func (g *Graph) Undirected() *Adjacency {
	// Two counting passes instead of a map of vertex pairs: on dense
	// executor graphs (shuffle groupings are all-to-all, ~2*10^5 edges for
	// 10^3 executors) the map made this the slowest step of a scheduling
	// round. Per vertex, neighbours keep the order of their first edge and
	// weights are summed in edge order, as before.
	n := len(g.Vertices)
	ends := g.edgeEnds()
	raw := make([]int, n+1)
	for _, ab := range ends {
		if ab[0] != ab[1] {
			raw[ab[0]+1]++
			raw[ab[1]+1]++
		}
	}
	for i := 1; i <= n; i++ {
		raw[i] += raw[i-1]
	}
	rawNbr := make([]int, raw[n])
	rawW := make([]float64, raw[n])
	fill := append([]int(nil), raw[:n]...)
	for i, ab := range ends {
		a, b := ab[0], ab[1]
		if a == b {
			continue
		}
		w := g.Edges[i].Weight
		rawNbr[fill[a]], rawW[fill[a]] = b, w
		fill[a]++
		rawNbr[fill[b]], rawW[fill[b]] = a, w
		fill[b]++
	}
	// Merge parallel and opposite edges in place, per vertex.
	adj := &Adjacency{Start: make([]int, n+1), Nbr: rawNbr, Weight: rawW}
	mark := make([]int, n) // mark[u] = v+1 while merging v's list
	pos := make([]int, n)
	out := 0
	for v := 0; v < n; v++ {
		adj.Start[v] = out
		for i := raw[v]; i < raw[v+1]; i++ {
			u, w := rawNbr[i], rawW[i]
			if mark[u] == v+1 {
				adj.Weight[pos[u]] += w
				continue
			}
			mark[u], pos[u] = v+1, out
			adj.Nbr[out], adj.Weight[out] = u, w
			out++
		}
	}
	adj.Start[n] = out
	adj.Nbr, adj.Weight = adj.Nbr[:out:out], adj.Weight[:out:out]
	return adj
}

// edgeEnds maps each edge to its endpoints' vertex indices. Vertex ids
// 0..n-1 in order (what the generators make) skip the id map.
func (g *Graph) edgeEnds() [][2]int {
	ends := make([][2]int, len(g.Edges))
	dense := true
	for i, v := range g.Vertices {
		if v.ID != i {
			dense = false
			break
		}
	}
	var idx map[int]int
	if !dense {
		idx = g.Index()
	}
	for i, e := range g.Edges {
		if dense {
			ends[i] = [2]int{e.From, e.To}
		} else {
			ends[i] = [2]int{idx[e.From], idx[e.To]}
		}
	}
	return ends
}

// ReadGraph decodes and validates a graph in the JSON file format
// {"vertices":[{"id":0,"weight":12}],"edges":[{"from":0,"to":1,"weight":5}]}.
// Every vertex and edge must state its "weight": a missing one is an
// error naming it, never a silent 0.
//
// A captured topology file (see Captured) is a graph file too: ReadGraph
// accepts its extra sections ("format", "provenance", "components",
// "streams", "placement", edges' "bytes_per_s") and returns its graph; it
// refuses a "format" newer than CapturedFormat. Only ReadCaptured checks the
// extra sections against each other.
func ReadGraph(r io.Reader) (*Graph, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read graph: %w", err)
	}
	var f graphFile
	if err := decodeStrict(data, &f, "graph", `expected {"vertices":[{"id":0,"weight":1}],"edges":[{"from":0,"to":1,"weight":1}]}`); err != nil {
		return nil, err
	}
	g := &Graph{Vertices: f.Vertices, Edges: make([]Edge, len(f.Edges))}
	for i, e := range f.Edges {
		if !finiteNonNeg(e.BytesPerS) {
			return nil, fmt.Errorf("edge %d (%d->%d) has bytes_per_s %v: it must be finite and >= 0", i, e.From, e.To, e.BytesPerS)
		}
		g.Edges[i] = Edge{From: e.From, To: e.To, Weight: e.Weight}
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}

// checkFieldsGiven reports the first vertex or edge of a graph JSON document without a field that
// has no sensible default: a vertex's "id" and "weight", an edge's "from", "to" and "weight". A
// missing one would decode as 0 and surface later as a wrong error ("duplicate vertex id 0") or
// a wrong graph. The document decodes: ReadGraph has checked it.
func checkFieldsGiven(data []byte) error {
	var raw struct {
		Vertices []map[string]json.RawMessage `json:"vertices"`
		Edges    []map[string]json.RawMessage `json:"edges"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("malformed graph JSON: %w", err)
	}
	for i, v := range raw.Vertices {
		if _, ok := v["id"]; !ok {
			return fmt.Errorf("vertex at index %d has no \"id\": give every vertex a unique integer id, e.g. {\"id\":%d,\"weight\":1}", i, i)
		}
		if _, ok := v["weight"]; !ok {
			return fmt.Errorf("vertex %s (index %d) has no \"weight\": give every vertex its CPU weight, e.g. {\"id\":%s,\"weight\":1}", v["id"], i, v["id"])
		}
	}
	for i, e := range raw.Edges {
		for _, end := range []string{"from", "to"} {
			if _, ok := e[end]; !ok {
				return fmt.Errorf("edge %d has no %q: give every edge the ids of its two vertices, e.g. {\"from\":0,\"to\":1,\"weight\":1}", i, end)
			}
		}
		if _, ok := e["weight"]; !ok {
			return fmt.Errorf("edge %d (%s->%s) has no \"weight\": give every edge its traffic weight, e.g. {\"from\":%s,\"to\":%s,\"weight\":1}", i, e["from"], e["to"], e["from"], e["to"])
		}
	}
	return nil
}

// ReadGraphFile reads a graph file; see ReadGraph.
func ReadGraphFile(path string) (*Graph, error) {
	return readFile(path, "graph file", ReadGraph)
}

// readFile opens path and reads it with read; errors name the file (what: for the open error).
func readFile[T any](path, what string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, fmt.Errorf("open %s: %w", what, err)
	}
	defer f.Close()
	v, err := read(f)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// WriteGraph encodes g in the JSON file format.
func WriteGraph(w io.Writer, g *Graph) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(g)
}

// decodeStrict decodes a graph or captured-topology file into v: its format not newer than this stormlab
// reads, no unknown field, nothing after the object, every weight given. A decoding error names what
// (e.g. "graph") and the hint for the expected shape.
func decodeStrict(data []byte, v any, what, hint string) error {
	if err := peekFormat(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("malformed %s JSON: %w (%s)", what, err, hint)
	}
	if err := expectEOF(dec); err != nil {
		return fmt.Errorf("malformed %s JSON: %w", what, err)
	}
	return checkFieldsGiven(data)
}
