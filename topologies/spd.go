package topologies

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
)

// SPD composition operators of Eidenbenz and Locher, "Task Allocation for
// Distributed Stream Processing", 2016, sec. II: a serial
// composition G1 o_s G2 joins every sink of G1 to every source of G2; a
// parallel composition is the plain union.
const (
	Serial   = "s"
	Parallel = "p"
)

// SPDNode is a node of a series-parallel decomposition tree (SPD tree). A
// leaf names one task (Task = the vertex ID); an inner node has Op "s" or
// "p" and two or more Children (the paper's n-ary extension, so a chain of
// k serial steps is one node with k children).
type SPDNode struct {
	Op       string     `json:"op,omitempty"`
	Task     *int       `json:"task,omitempty"`
	Children []*SPDNode `json:"children,omitempty"`
}

// Leaf returns the SPD tree leaf for vertex id.
func Leaf(id int) *SPDNode { return &SPDNode{Task: &id} }

// Ser returns a serial composition of children, in order.
func Ser(children ...*SPDNode) *SPDNode { return &SPDNode{Op: Serial, Children: children} }

// Par returns a parallel composition of children.
func Par(children ...*SPDNode) *SPDNode { return &SPDNode{Op: Parallel, Children: children} }

// IsLeaf reports whether z is a task.
func (z *SPDNode) IsLeaf() bool { return z.Task != nil }

// Leaves lists the task IDs of the subtree in left-to-right order.
func (z *SPDNode) Leaves() []int {
	var out []int
	var walk func(*SPDNode)
	walk = func(z *SPDNode) {
		if z.IsLeaf() {
			out = append(out, *z.Task)
			return
		}
		for _, c := range z.Children {
			walk(c)
		}
	}
	walk(z)
	return out
}

// check reports the first structural problem of the tree.
func (z *SPDNode) check() error {
	if z == nil {
		return errors.New("SPD tree has a null node: every node needs \"task\" or \"op\" with children")
	}
	if z.IsLeaf() {
		if z.Op != "" || len(z.Children) > 0 {
			return fmt.Errorf("SPD tree leaf for task %d also has op/children: a leaf holds only \"task\"", *z.Task)
		}
		return nil
	}
	if z.Op != Serial && z.Op != Parallel {
		return fmt.Errorf("SPD tree node has op %q: use \"s\" (serial) or \"p\" (parallel), or \"task\" for a leaf", z.Op)
	}
	if len(z.Children) < 2 {
		return fmt.Errorf("SPD tree %q node has %d children: a composition needs at least 2", z.Op, len(z.Children))
	}
	for _, c := range z.Children {
		if err := c.check(); err != nil {
			return err
		}
	}
	return nil
}

// TreeEdges returns the DAG edges the SPD tree defines (From/To are task IDs,
// weight 0), built bottom-up in linear time in the output size.
func (z *SPDNode) TreeEdges() []Edge {
	var edges []Edge
	var walk func(*SPDNode) (src, snk []int)
	walk = func(z *SPDNode) (src, snk []int) {
		if z.IsLeaf() {
			return []int{*z.Task}, []int{*z.Task}
		}
		if z.Op == Parallel {
			for _, c := range z.Children {
				s, t := walk(c)
				src = append(src, s...)
				snk = append(snk, t...)
			}
			return src, snk
		}
		var prevSnk []int
		for i, c := range z.Children {
			s, t := walk(c)
			if i == 0 {
				src = s
			} else {
				for _, a := range prevSnk {
					for _, b := range s {
						edges = append(edges, Edge{From: a, To: b})
					}
				}
			}
			prevSnk = t
		}
		return src, prevSnk
	}
	walk(z)
	return edges
}

// SPD is a streaming graph together with its decomposition tree. The
// graph's edges are exactly those the tree defines; Graph carries the task
// weights w(v) (Vertex.Weight) and transfer weights b(e) (Edge.Weight).
type SPD struct {
	Graph *Graph
	Tree  *SPDNode
}

// Validate checks that the tree's leaves are the graph's vertices (each
// once) and that the graph's edge set is the one the tree defines.
func (s *SPD) Validate() error {
	if s.Graph == nil || s.Tree == nil {
		return errors.New("SPD graph needs both a graph and a tree")
	}
	if err := s.Graph.Validate(); err != nil {
		return err
	}
	if err := s.Tree.check(); err != nil {
		return err
	}
	idx := s.Graph.Index()
	seen := make(map[int]bool, len(idx))
	for _, id := range s.Tree.Leaves() {
		if _, ok := idx[id]; !ok {
			return fmt.Errorf("SPD tree names task %d, which is not a vertex: add it to \"vertices\" or remove the leaf", id)
		}
		if seen[id] {
			return fmt.Errorf("SPD tree names task %d twice: every vertex is exactly one leaf", id)
		}
		seen[id] = true
	}
	if len(seen) != len(idx) {
		for _, v := range s.Graph.Vertices {
			if !seen[v.ID] {
				return fmt.Errorf("vertex %d is missing from the SPD tree: add a leaf {\"task\": %d}", v.ID, v.ID)
			}
		}
	}
	type pair struct{ a, b int }
	want := map[pair]bool{}
	for _, e := range s.Tree.TreeEdges() {
		want[pair{e.From, e.To}] = true
	}
	have := map[pair]bool{}
	for _, e := range s.Graph.Edges {
		p := pair{e.From, e.To}
		if !want[p] {
			return fmt.Errorf("edge %d->%d is not implied by the SPD tree: remove it or fix the tree", e.From, e.To)
		}
		if have[p] {
			return fmt.Errorf("edge %d->%d appears twice: list each edge once", e.From, e.To)
		}
		have[p] = true
	}
	if len(have) != len(want) {
		for p := range want {
			if !have[p] {
				return fmt.Errorf("the SPD tree implies edge %d->%d, which the graph lacks: add it with its weight b(e)", p.a, p.b)
			}
		}
	}
	return nil
}

// SPDOptions configures RandomSPD. Zero values mean the defaults below.
type SPDOptions struct {
	// MaxTaskWeight: task weights w(v) are uniform integers in [1, MaxTaskWeight] (default 100,
	// as RandomGraph).
	MaxTaskWeight int
	// MaxEdgeWeight: transfer weights b(e) are uniform integers in [1, MaxEdgeWeight] (default 100).
	// Small values (e.g. 10) give computationally constrained instances.
	MaxEdgeWeight int
	// MaxChildren bounds the fan-out of a composition (default 4, minimum 2).
	MaxChildren int
}

// RandomSPD generates a random SPD graph with n tasks: a random SPD tree
// whose root operator is chosen at random, whose inner nodes have 2 to
// MaxChildren children with the tasks split uniformly at random among them,
// and whose operators alternate level by level (a serial node's children are
// leaves or parallel nodes and vice versa, so the tree is in the canonical
// form DecomposeSPD returns). Task IDs are 0..n-1 in tree order. The same
// seed and options give the same graph. n is at most MaxRandomVertices.
//
// The paper (Eidenbenz and Locher 2016) gives no generator; alternation and the bounded fan-out
// are our choices, made so the edge count (sum over serial joins of
// |sinks| x |sources|) stays near-linear in n.
func RandomSPD(n int, seed uint64, o SPDOptions) (*SPD, error) {
	if n < 1 {
		return nil, fmt.Errorf("random SPD graph needs at least 1 task, got %d", n)
	}
	if n > MaxRandomVertices {
		return nil, fmt.Errorf("random SPD graph with %d tasks is too large: use at most %d", n, MaxRandomVertices)
	}
	if o.MaxTaskWeight <= 0 {
		o.MaxTaskWeight = 100
	}
	if o.MaxEdgeWeight <= 0 {
		o.MaxEdgeWeight = 100
	}
	if o.MaxChildren < 2 {
		o.MaxChildren = 4
	}
	r := rand.New(rand.NewPCG(seed, 0x5bd))
	next := 0
	var gen func(n int, op string) *SPDNode
	gen = func(n int, op string) *SPDNode {
		if n == 1 {
			z := Leaf(next)
			next++
			return z
		}
		k := 2 + r.IntN(min(n, o.MaxChildren)-1)
		// Split n into k positive parts: k-1 distinct cut points in 1..n-1.
		cuts := r.Perm(n - 1)[:k-1]
		sort.Ints(cuts)
		other := Parallel
		if op == Parallel {
			other = Serial
		}
		z := &SPDNode{Op: op}
		prev := 0
		for i := 0; i < k; i++ {
			end := n
			if i < k-1 {
				end = cuts[i] + 1
			}
			z.Children = append(z.Children, gen(end-prev, other))
			prev = end
		}
		return z
	}
	rootOp := Serial
	if r.IntN(2) == 1 {
		rootOp = Parallel
	}
	tree := gen(n, rootOp)
	g := &Graph{Vertices: make([]Vertex, n)}
	for i := range g.Vertices {
		g.Vertices[i] = Vertex{ID: i, Weight: float64(1 + r.IntN(o.MaxTaskWeight))}
	}
	g.Edges = tree.TreeEdges()
	for i := range g.Edges {
		g.Edges[i].Weight = float64(1 + r.IntN(o.MaxEdgeWeight))
	}
	return &SPD{Graph: g, Tree: tree}, nil
}

// DecomposeSPD recovers the SPD tree of a graph, or reports that the graph
// is not series-parallel decomposable. SPD graphs are exactly the Hasse
// diagrams of series-parallel orders, so: a disconnected graph is the
// parallel composition of its weakly connected components; a connected one
// with more than one vertex must be serial, and its serial factors are the
// prefixes of any topological order whose crossing edges are exactly
// sinks(prefix) x sources(rest) (every topological order keeps the factors
// contiguous). One scan per tree level finds all factors, so the cost is
// O((n+m) * tree depth). The result is canonical: serial children are leaves
// or parallel nodes, parallel children are leaves or serial nodes.
func DecomposeSPD(g *Graph) (*SPDNode, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	n := g.N()
	idx := g.Index()
	type pair struct{ a, b int }
	seen := make(map[pair]bool, len(g.Edges))
	out := make([][]int, n)
	in := make([][]int, n)
	for _, e := range g.Edges {
		a, b := idx[e.From], idx[e.To]
		if a == b {
			return nil, fmt.Errorf("vertex %d has a self loop: a streaming graph is acyclic", e.From)
		}
		if seen[pair{a, b}] {
			continue
		}
		seen[pair{a, b}] = true
		out[a] = append(out[a], b)
		in[b] = append(in[b], a)
	}
	d := &decomposer{g: g, out: out, in: in, stamp: make([]int, n),
		indeg: make([]int, n), inQ: make([]int, n), inP: make([]int, n), outP: make([]int, n), outQ: make([]int, n)}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return d.decompose(all)
}

type decomposer struct {
	g                           *Graph
	out, in                     [][]int
	stamp                       []int // stamp[v] == cur marks membership in the current subset
	cur                         int
	indeg, inQ, inP, outP, outQ []int
}

func (d *decomposer) mark(vs []int) {
	d.cur++
	for _, v := range vs {
		d.stamp[v] = d.cur
	}
}

func (d *decomposer) decompose(vs []int) (*SPDNode, error) {
	if len(vs) == 1 {
		return Leaf(d.g.Vertices[vs[0]].ID), nil
	}
	d.mark(vs)
	// Weakly connected components of the induced subgraph.
	comp := map[int]int{}
	var comps [][]int
	for _, s := range vs {
		if _, ok := comp[s]; ok {
			continue
		}
		c := len(comps)
		comp[s] = c
		list := []int{s}
		for q := 0; q < len(list); q++ {
			v := list[q]
			for _, nb := range [2][]int{d.out[v], d.in[v]} {
				for _, w := range nb {
					if d.stamp[w] == d.cur {
						if _, ok := comp[w]; !ok {
							comp[w] = c
							list = append(list, w)
						}
					}
				}
			}
		}
		comps = append(comps, list)
	}
	if len(comps) > 1 {
		z := &SPDNode{Op: Parallel}
		for _, c := range comps {
			child, err := d.decompose(c)
			if err != nil {
				return nil, err
			}
			z.Children = append(z.Children, child)
		}
		return z, nil
	}
	// Connected: find the serial factors along a topological order.
	var topo []int
	sources := 0
	for _, v := range vs {
		d.indeg[v] = 0
		for _, u := range d.in[v] {
			if d.stamp[u] == d.cur {
				d.indeg[v]++
			}
		}
		d.inQ[v], d.inP[v], d.outP[v], d.outQ[v] = d.indeg[v], 0, 0, 0
		if d.indeg[v] == 0 {
			topo = append(topo, v)
			sources++
		}
	}
	for q := 0; q < len(topo); q++ {
		for _, w := range d.out[topo[q]] {
			if d.stamp[w] == d.cur {
				d.indeg[w]--
				if d.indeg[w] == 0 {
					topo = append(topo, w)
				}
			}
		}
	}
	if len(topo) != len(vs) {
		return nil, fmt.Errorf("the graph has a cycle through vertex %d: a streaming graph must be acyclic", d.g.Vertices[vs[0]].ID)
	}
	c1 := func(u int) int { // crossing edges leaving a non-sink of the prefix
		if d.outP[u] > 0 {
			return d.outQ[u]
		}
		return 0
	}
	c2 := func(w int) int { // crossing edges entering a non-source of the rest
		if d.inQ[w] > 0 {
			return d.inP[w]
		}
		return 0
	}
	sinks, crossing, bad1, bad2 := 0, 0, 0, 0
	var factors [][]int
	start := 0
	for i, v := range topo[:len(topo)-1] {
		sources-- // v was a source of the rest: all its predecessors precede it
		for _, u := range d.in[v] {
			if d.stamp[u] != d.cur {
				continue
			}
			bad1 -= c1(u)
			d.outQ[u]--
			if d.outP[u] == 0 {
				sinks--
			}
			d.outP[u]++
			bad1 += c1(u)
			crossing--
		}
		for _, w := range d.out[v] {
			if d.stamp[w] != d.cur {
				continue
			}
			d.outQ[v]++
			crossing++
			bad2 -= c2(w)
			d.inQ[w]--
			d.inP[w]++
			if d.inQ[w] == 0 {
				sources++
			}
			bad2 += c2(w)
		}
		sinks++
		if bad1 == 0 && bad2 == 0 && crossing == sinks*sources {
			factors = append(factors, topo[start:i+1])
			start = i + 1
		}
	}
	if len(factors) == 0 {
		return nil, fmt.Errorf("the graph is not series-parallel decomposable (no serial split of the part holding vertex %d): the spd scheduler needs an SPD graph, e.g. from `random:N` or a file with a \"tree\"", d.g.Vertices[vs[0]].ID)
	}
	factors = append(factors, topo[start:])
	z := &SPDNode{Op: Serial}
	for _, f := range factors {
		child, err := d.decompose(append([]int(nil), f...))
		if err != nil {
			return nil, err
		}
		z.Children = append(z.Children, child)
	}
	return z, nil
}

// spdFile is the JSON file format: the graph format plus the tree.
type spdFile struct {
	Vertices []Vertex `json:"vertices"`
	Edges    []Edge   `json:"edges"`
	Tree     *SPDNode `json:"tree,omitempty"`
}

// ReadSPD decodes an SPD graph file: the graph file format with an extra
// "tree" member, e.g.
//
//	{"vertices":[{"id":0,"weight":3},{"id":1,"weight":5}],
//	 "edges":[{"from":0,"to":1,"weight":2}],
//	 "tree":{"op":"s","children":[{"task":0},{"task":1}]}}
//
// Without "tree" the tree is recovered with DecomposeSPD. The result is
// validated (the edges must be exactly those the tree implies).
func ReadSPD(r io.Reader) (*SPD, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f spdFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("malformed SPD graph JSON: %w (expected {\"vertices\":[...],\"edges\":[...],\"tree\":{\"op\":\"s\",\"children\":[{\"task\":0},{\"task\":1}]}})", err)
	}
	if err := expectEOF(dec); err != nil {
		return nil, fmt.Errorf("malformed SPD graph JSON: %w", err)
	}
	s := &SPD{Graph: &Graph{Vertices: f.Vertices, Edges: f.Edges}, Tree: f.Tree}
	if s.Tree == nil {
		t, err := DecomposeSPD(s.Graph)
		if err != nil {
			return nil, err
		}
		s.Tree = t
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// ReadSPDFile reads an SPD graph file; see ReadSPD.
func ReadSPDFile(path string) (*SPD, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open SPD graph file: %w", err)
	}
	defer f.Close()
	s, err := ReadSPD(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// WriteSPD encodes s in the SPD file format.
func WriteSPD(w io.Writer, s *SPD) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(spdFile{Vertices: s.Graph.Vertices, Edges: s.Graph.Edges, Tree: s.Tree})
}
