package topologies

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// This file holds the captured topology: what `stormlab capture` records of a
// running Storm topology (components, streams, the per-task graph with measured
// CPU and traffic, and where each task ran), in a file that is a superset of the
// graph JSON format (docs/graph-format.md, "Captured topologies").

// CapturedFormat is the newest captured/graph file format this stormlab reads
// and the one it writes.
const CapturedFormat = 1

// Capture sources (Provenance.Source).
const (
	// SourceInstrumented: rates, CPU and task-to-task traffic measured by
	// stormlab's task hook in the workers (exact per task pair).
	SourceInstrumented = "instrumented"
	// SourceStormUI: Storm's own component statistics from the UI; task-level
	// traffic is spread over the task pairs each grouping connects (estimated).
	SourceStormUI = "storm-ui"
)

// Component kinds (CapturedComponent.Kind).
const (
	KindSpout = "spout"
	KindBolt  = "bolt"
)

// Groupings a captured stream may carry besides the four Topology.Graph
// expands (shuffle, fields, all, global). Storm's names, lower case.
const (
	GroupLocalOrShuffle Grouping = "local_or_shuffle"
	GroupNone           Grouping = "none"
	GroupDirect         Grouping = "direct"
	GroupCustom         Grouping = "custom"
)

// capturedGroupings are the groupings a captured stream may name.
var capturedGroupings = []Grouping{GroupShuffle, GroupFields, GroupAll, GroupGlobal, GroupLocalOrShuffle, GroupNone, GroupDirect, GroupCustom}

// Provenance says where and when a capture was taken and how it was measured.
type Provenance struct {
	Cluster         string  `json:"cluster"`
	Topology        string  `json:"topology"`
	TopologyID      string  `json:"topology_id"`
	FromMs          int64   `json:"from_ms"`
	ToMs            int64   `json:"to_ms"`
	SpanS           float64 `json:"span_s"`
	StormlabVersion string  `json:"stormlab_version"`
	// Source is SourceInstrumented or SourceStormUI.
	Source string `json:"source"`
	// Estimated is true when some figures are not measured per task (always
	// with SourceStormUI).
	Estimated bool `json:"estimated"`
}

// CapturedComponent is one spout or bolt with its measured rates. Rates are
// per second, averaged over the capture span, summed over the component's tasks.
type CapturedComponent struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Parallelism int    `json:"parallelism"` // executors
	Tasks       []int  `json:"tasks"`       // task ids, ascending
	// EmitPerS counts tuples emitted on all streams.
	EmitPerS float64 `json:"emit_per_s"`
	// ExecutePerS counts tuples executed (bolts; 0 for spouts).
	ExecutePerS float64 `json:"execute_per_s"`
	// CPUPercent is the CPU of all its tasks, 100 = one core.
	CPUPercent float64 `json:"cpu_percent"`
	// CPUMicrosPerTuple is CPU per executed tuple (bolts) or per emitted tuple
	// (spouts), µs; 0 when no tuple passed.
	CPUMicrosPerTuple float64 `json:"cpu_us_per_tuple"`
	// TupleBytes is the mean serialized size of an emitted tuple; 0 = unknown.
	TupleBytes float64 `json:"tuple_bytes"`
	// MemoryMB is the memory of all its tasks, MB; 0 = unknown. An estimate: instrumented captures
	// share each worker's used memory (heap and non-heap) evenly among the tasks that ran in it, since a
	// JVM cannot say which task holds what; captures from Storm's statistics leave it unknown.
	MemoryMB float64 `json:"memory_mb"`
}

// CapturedStream is one subscription: To reads stream Stream of From.
type CapturedStream struct {
	From     string   `json:"from"`
	To       string   `json:"to"`
	Stream   string   `json:"stream"`
	Grouping Grouping `json:"grouping"`
	// Fields are the grouping fields (fields grouping only; may be empty when
	// the source did not name them).
	Fields        []string `json:"fields,omitempty"`
	TuplesPerS    float64  `json:"tuples_per_s"`
	BytesPerTuple float64  `json:"bytes_per_tuple"` // 0 = unknown
}

// CapturedEdge is a task -> task flow: Weight tuples/s and BytesPerS bytes/s
// (0 = unknown).
type CapturedEdge struct {
	From      int     `json:"from"`
	To        int     `json:"to"`
	Weight    float64 `json:"weight"`
	BytesPerS float64 `json:"bytes_per_s,omitempty"`
}

// Placement maps a task id to the worker that ran it, "host:port".
type Placement map[int]string

// Captured is a captured topology, format 1. Vertices are tasks (weight = CPU
// percent of one core), edges task -> task tuples per second. Storm's own
// tasks (components named "__...") are left out.
type Captured struct {
	Format     int                 `json:"format"`
	Provenance Provenance          `json:"provenance"`
	Components []CapturedComponent `json:"components"`
	Streams    []CapturedStream    `json:"streams"`
	Vertices   []Vertex            `json:"vertices"`
	Edges      []CapturedEdge      `json:"edges"`
	Placement  Placement           `json:"placement,omitempty"`
}

// graphFile is the union of the graph and captured file formats: ReadGraph
// decodes it and keeps the graph.
type graphFile struct {
	Format     int                 `json:"format,omitempty"`
	Provenance *Provenance         `json:"provenance,omitempty"`
	Components []CapturedComponent `json:"components,omitempty"`
	Streams    []CapturedStream    `json:"streams,omitempty"`
	Vertices   []Vertex            `json:"vertices"`
	Edges      []CapturedEdge      `json:"edges"`
	Placement  Placement           `json:"placement,omitempty"`
}

// checkFormat refuses a format newer than this stormlab reads.
func checkFormat(f int) error {
	if f > CapturedFormat {
		return fmt.Errorf("graph file format %d is newer than this stormlab reads (%d): upgrade stormlab", f, CapturedFormat)
	}
	if f < 0 {
		return fmt.Errorf("graph file format %d: use %d (or leave \"format\" out)", f, CapturedFormat)
	}
	return nil
}

// Graph is the executor graph of c (tasks as vertices; bytes dropped).
func (c *Captured) Graph() *Graph {
	g := &Graph{Vertices: append([]Vertex(nil), c.Vertices...), Edges: make([]Edge, len(c.Edges))}
	for i, e := range c.Edges {
		g.Edges[i] = Edge{From: e.From, To: e.To, Weight: e.Weight}
	}
	return g
}

// Component returns the component named name, or nil.
func (c *Captured) Component(name string) *CapturedComponent {
	for i := range c.Components {
		if c.Components[i].Name == name {
			return &c.Components[i]
		}
	}
	return nil
}

// Validate reports the first inconsistency of c with an error naming the
// problem and the fix: the format, the provenance, the components (unique
// names, none of Storm's "__" ones, kind, parallelism <= tasks, disjoint task
// sets), the streams, the graph (one vertex per task, of its component) and the
// placement (empty, or every task on a "host:port").
func (c *Captured) Validate() error {
	if c.Format == 0 {
		return errors.New("not a captured topology: \"format\" is missing (a plain graph file? capture one with `stormlab capture`)")
	}
	if err := checkFormat(c.Format); err != nil {
		return err
	}
	if err := c.Provenance.validate(); err != nil {
		return fmt.Errorf("provenance: %w", err)
	}
	owner, err := c.validateComponents()
	if err != nil {
		return err
	}
	if err := c.validateStreams(); err != nil {
		return err
	}
	if err := c.validateGraph(owner); err != nil {
		return err
	}
	return c.validatePlacement(owner)
}

func (p *Provenance) validate() error {
	if p.Topology == "" {
		return errors.New("\"topology\" is empty: name the captured topology")
	}
	if p.Source != SourceInstrumented && p.Source != SourceStormUI {
		return fmt.Errorf("source %q: use %q or %q", p.Source, SourceInstrumented, SourceStormUI)
	}
	if p.Source == SourceStormUI && !p.Estimated {
		return fmt.Errorf("source %q is always estimated: set \"estimated\": true", SourceStormUI)
	}
	if !(p.SpanS > 0) || math.IsInf(p.SpanS, 0) {
		return fmt.Errorf("span_s %v: the capture span must be a positive number of seconds", p.SpanS)
	}
	if p.ToMs < p.FromMs {
		return fmt.Errorf("to_ms %d is before from_ms %d: swap them", p.ToMs, p.FromMs)
	}
	return nil
}

// validateComponents checks the components and returns task id -> component.
func (c *Captured) validateComponents() (map[int]string, error) {
	if len(c.Components) == 0 {
		return nil, errors.New("no components: a captured topology lists at least its spout in \"components\"")
	}
	owner := map[int]string{}
	seen := map[string]bool{}
	for i, k := range c.Components {
		where := fmt.Sprintf("component %d (%q)", i, k.Name)
		switch {
		case k.Name == "":
			return nil, fmt.Errorf("component %d has no name", i)
		case strings.HasPrefix(k.Name, "__"):
			return nil, fmt.Errorf("%s is one of Storm's system components: leave components named \"__...\" out", where)
		case seen[k.Name]:
			return nil, fmt.Errorf("%s is listed twice: component names must be unique", where)
		case k.Kind != KindSpout && k.Kind != KindBolt:
			return nil, fmt.Errorf("%s has kind %q: use %q or %q", where, k.Kind, KindSpout, KindBolt)
		case k.Parallelism < 1:
			return nil, fmt.Errorf("%s has parallelism %d: it must be >= 1", where, k.Parallelism)
		case len(k.Tasks) < k.Parallelism:
			return nil, fmt.Errorf("%s has %d tasks for parallelism %d: Storm runs at least one task per executor, list every task id", where, len(k.Tasks), k.Parallelism)
		}
		seen[k.Name] = true
		for _, x := range []struct {
			name string
			v    float64
		}{{"emit_per_s", k.EmitPerS}, {"execute_per_s", k.ExecutePerS}, {"cpu_percent", k.CPUPercent},
			{"cpu_us_per_tuple", k.CPUMicrosPerTuple}, {"tuple_bytes", k.TupleBytes}, {"memory_mb", k.MemoryMB}} {
			if !finiteNonNeg(x.v) {
				return nil, fmt.Errorf("%s has %s %v: it must be finite and >= 0", where, x.name, x.v)
			}
		}
		for _, t := range k.Tasks {
			if o, dup := owner[t]; dup {
				return nil, fmt.Errorf("task %d belongs to both %q and %q: a task belongs to one component", t, o, k.Name)
			}
			owner[t] = k.Name
		}
	}
	return owner, nil
}

func (c *Captured) validateStreams() error {
	for i, s := range c.Streams {
		where := fmt.Sprintf("stream %d (%s -> %s)", i, s.From, s.To)
		if c.Component(s.From) == nil {
			return fmt.Errorf("%s starts at unknown component %q: add it to \"components\"", where, s.From)
		}
		if c.Component(s.To) == nil {
			return fmt.Errorf("%s ends at unknown component %q: add it to \"components\"", where, s.To)
		}
		if s.Stream == "" {
			return fmt.Errorf("%s has no stream id: Storm's default stream is \"default\"", where)
		}
		if !slices.Contains(capturedGroupings, s.Grouping) {
			return fmt.Errorf("%s has grouping %q: use one of %s", where, s.Grouping, groupingNames())
		}
		if len(s.Fields) > 0 && s.Grouping != GroupFields {
			return fmt.Errorf("%s lists fields %v with grouping %q: fields belong to a fields grouping only", where, s.Fields, s.Grouping)
		}
		if !finiteNonNeg(s.TuplesPerS) || !finiteNonNeg(s.BytesPerTuple) {
			return fmt.Errorf("%s has tuples_per_s %v, bytes_per_tuple %v: both must be finite and >= 0", where, s.TuplesPerS, s.BytesPerTuple)
		}
	}
	return nil
}

func groupingNames() string {
	s := make([]string, len(capturedGroupings))
	for i, g := range capturedGroupings {
		s[i] = string(g)
	}
	return strings.Join(s, ", ")
}

// validateGraph checks the graph part and that its vertices are exactly the
// components' tasks.
func (c *Captured) validateGraph(owner map[int]string) error {
	if err := c.Graph().Validate(); err != nil {
		return err
	}
	for i, e := range c.Edges {
		if !finiteNonNeg(e.BytesPerS) {
			return fmt.Errorf("edge %d (%d->%d) has bytes_per_s %v: it must be finite and >= 0", i, e.From, e.To, e.BytesPerS)
		}
	}
	for _, v := range c.Vertices {
		comp, ok := owner[v.ID]
		if !ok {
			return fmt.Errorf("vertex %d is no component's task: add it to a component's \"tasks\" or remove it", v.ID)
		}
		if v.Component != comp {
			return fmt.Errorf("vertex %d names component %q but is a task of %q: fix its \"component\"", v.ID, v.Component, comp)
		}
	}
	if len(c.Vertices) != len(owner) {
		for t, comp := range owner {
			if !slices.ContainsFunc(c.Vertices, func(v Vertex) bool { return v.ID == t }) {
				return fmt.Errorf("task %d of %q has no vertex: add {\"id\":%d,\"weight\":...,\"component\":%q} to \"vertices\"", t, comp, t, comp)
			}
		}
	}
	return nil
}

func (c *Captured) validatePlacement(owner map[int]string) error {
	if len(c.Placement) == 0 {
		return nil
	}
	for t, w := range c.Placement {
		if _, ok := owner[t]; !ok {
			return fmt.Errorf("placement names task %d, which no component has: remove it", t)
		}
		if _, _, err := SplitWorker(w); err != nil {
			return fmt.Errorf("placement of task %d: %w", t, err)
		}
	}
	for t, comp := range owner {
		if _, ok := c.Placement[t]; !ok {
			return fmt.Errorf("placement lacks task %d of %q: place every task or leave \"placement\" out", t, comp)
		}
	}
	return nil
}

// SplitWorker splits a worker "host:port" into its host and port.
func SplitWorker(w string) (string, int, error) {
	host, p, err := net.SplitHostPort(w)
	if err != nil || host == "" {
		return "", 0, fmt.Errorf("worker %q: want host:port, e.g. \"sup1:6700\"", w)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("worker %q: the port must be a number 1..65535", w)
	}
	return host, port, nil
}

// ReadCaptured decodes and validates a captured topology file (see
// Captured.Validate). Unknown fields and trailing data are errors.
func ReadCaptured(r io.Reader) (*Captured, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read captured topology: %w", err)
	}
	var c Captured
	if err := decodeStrict(data, &c, "captured topology", `see docs/graph-format.md, "Captured topologies"`); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// peekFormat refuses a newer format before the strict decoding would complain
// about its (unknown) fields.
func peekFormat(data []byte) error {
	var f struct {
		Format int `json:"format"`
	}
	if json.Unmarshal(data, &f) != nil {
		return nil // the strict decoder reports the error
	}
	return checkFormat(f.Format)
}

// ReadCapturedFile reads a captured topology file; see ReadCaptured.
func ReadCapturedFile(path string) (*Captured, error) {
	return readFile(path, "captured topology", ReadCaptured)
}

// WriteCaptured validates c and encodes it (format 1, indented).
func WriteCaptured(w io.Writer, c *Captured) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("write captured topology: %w", err)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// WriteCapturedFile writes c to path atomically: a temporary file in the same
// folder, renamed over path once complete, so path never holds half a file.
func WriteCapturedFile(path string, c *Captured) error {
	var buf bytes.Buffer
	if err := WriteCaptured(&buf, c); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// writeFileAtomic writes data to a temporary file next to path and renames it
// over path.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
