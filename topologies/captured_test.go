package topologies

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// sampleCaptured is a small hand-made capture of a two-component topology:
// spout "sentence" (tasks 3, 4) shuffles to bolt "split" (tasks 5, 6, 7 in 2
// executors). Its figures are invented but consistent: 100 tuples/s per spout
// task, spread evenly (100/3 per task pair), 64 bytes per tuple.
func sampleCaptured() *Captured {
	e := func(from, to int) CapturedEdge {
		return CapturedEdge{From: from, To: to, Weight: 100.0 / 3, BytesPerS: 64 * 100.0 / 3}
	}
	return &Captured{
		Format: CapturedFormat,
		Provenance: Provenance{Cluster: "heterogeneous-2", Topology: "wc", TopologyID: "wc-1-1700000000",
			FromMs: 1700000000000, ToMs: 1700000060000, SpanS: 60, StormlabVersion: "test", Source: SourceInstrumented},
		Components: []CapturedComponent{
			{Name: "sentence", Kind: KindSpout, Parallelism: 2, Tasks: []int{3, 4}, EmitPerS: 200, CPUPercent: 10, CPUMicrosPerTuple: 500, TupleBytes: 64},
			{Name: "split", Kind: KindBolt, Parallelism: 2, Tasks: []int{5, 6, 7}, EmitPerS: 1000, ExecutePerS: 200, CPUPercent: 30, CPUMicrosPerTuple: 1500},
		},
		Streams: []CapturedStream{{From: "sentence", To: "split", Stream: "default", Grouping: GroupShuffle, TuplesPerS: 200, BytesPerTuple: 64}},
		Vertices: []Vertex{{ID: 3, Weight: 5, Component: "sentence"}, {ID: 4, Weight: 5, Component: "sentence"},
			{ID: 5, Weight: 10, Component: "split"}, {ID: 6, Weight: 10, Component: "split"}, {ID: 7, Weight: 10, Component: "split"}},
		Edges:     []CapturedEdge{e(3, 5), e(3, 6), e(3, 7), e(4, 5), e(4, 6), e(4, 7)},
		Placement: Placement{3: "sup1:6700", 4: "sup2:6700", 5: "sup1:6700", 6: "sup2:6700", 7: "sup2:6701"},
	}
}

// TestCapturedGolden: WriteCaptured's output of sampleCaptured is the golden
// file (the format's field names are a contract with the replay side), it
// reads back equal with ReadCaptured, and ReadGraph reads it as a graph.
func TestCapturedGolden(t *testing.T) {
	c := sampleCaptured()
	var buf bytes.Buffer
	if err := WriteCaptured(&buf, c); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "captured.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./topologies -run TestCapturedGolden -update)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("WriteCaptured output differs from %s:\n%s", golden, buf.String())
	}
	back, err := ReadCaptured(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Fatalf("round trip changed the capture:\n got %+v\nwant %+v", back, c)
	}
	g, err := ReadGraph(bytes.NewReader(want))
	if err != nil {
		t.Fatalf("ReadGraph of a captured file: %v", err)
	}
	if !reflect.DeepEqual(g, c.Graph()) {
		t.Fatalf("ReadGraph gave %+v, want %+v", g, c.Graph())
	}
}

// TestCapturedFileAtomic: WriteCapturedFile leaves the file and nothing else;
// an invalid capture writes nothing.
func TestCapturedFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.json")
	if err := WriteCapturedFile(path, sampleCaptured()); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCapturedFile(path); err != nil {
		t.Fatal(err)
	}
	bad := sampleCaptured()
	bad.Components[0].Kind = "pump"
	other := filepath.Join(dir, "bad.json")
	if err := WriteCapturedFile(other, bad); err == nil || !strings.Contains(err.Error(), `kind "pump"`) {
		t.Fatalf("invalid capture: error %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "g.json" {
		t.Fatalf("folder holds %v, want only g.json", entries)
	}
}

// TestCapturedRejects: each mutation of a valid capture is refused with an
// error naming the problem.
func TestCapturedRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Captured)
		want string
	}{
		{"no format", func(c *Captured) { c.Format = 0 }, `"format" is missing`},
		{"newer format", func(c *Captured) { c.Format = 2 }, "graph file format 2 is newer than this stormlab reads (1): upgrade stormlab"},
		{"no topology", func(c *Captured) { c.Provenance.Topology = "" }, `"topology" is empty`},
		{"bad source", func(c *Captured) { c.Provenance.Source = "guess" }, `source "guess": use "instrumented" or "storm-ui"`},
		{"ui not estimated", func(c *Captured) { c.Provenance.Source = SourceStormUI }, `set "estimated": true`},
		{"zero span", func(c *Captured) { c.Provenance.SpanS = 0 }, "span_s 0"},
		{"reversed window", func(c *Captured) { c.Provenance.ToMs = 1 }, "is before from_ms"},
		{"no components", func(c *Captured) { c.Components = nil }, "no components"},
		{"system component", func(c *Captured) { c.Components[1].Name = "__acker" }, "Storm's system components"},
		{"duplicate component", func(c *Captured) { c.Components[1].Name = "sentence" }, "listed twice"},
		{"bad kind", func(c *Captured) { c.Components[0].Kind = "pump" }, `kind "pump"`},
		{"zero parallelism", func(c *Captured) { c.Components[0].Parallelism = 0 }, "parallelism 0"},
		{"fewer tasks than executors", func(c *Captured) { c.Components[0].Parallelism = 3 }, "2 tasks for parallelism 3"},
		{"shared task", func(c *Captured) { c.Components[1].Tasks[0] = 4 }, "task 4 belongs to both"},
		{"negative rate", func(c *Captured) { c.Components[1].EmitPerS = -1 }, "emit_per_s -1"},
		{"stream from unknown", func(c *Captured) { c.Streams[0].From = "x" }, `starts at unknown component "x"`},
		{"stream to unknown", func(c *Captured) { c.Streams[0].To = "y" }, `ends at unknown component "y"`},
		{"no stream id", func(c *Captured) { c.Streams[0].Stream = "" }, "no stream id"},
		{"bad grouping", func(c *Captured) { c.Streams[0].Grouping = "random" }, `grouping "random": use one of shuffle, fields`},
		{"fields on shuffle", func(c *Captured) { c.Streams[0].Fields = []string{"word"} }, "fields belong to a fields grouping only"},
		{"vertex of no task", func(c *Captured) { c.Vertices[0].ID = 99; c.Edges = c.Edges[3:] }, "vertex 99 is no component's task"},
		{"vertex wrong component", func(c *Captured) { c.Vertices[0].Component = "split" }, `vertex 3 names component "split" but is a task of "sentence"`},
		{"task without vertex", func(c *Captured) {
			c.Vertices = c.Vertices[:4]
			c.Edges = slices.DeleteFunc(c.Edges, func(e CapturedEdge) bool { return e.To == 7 })
		}, `task 7 of "split" has no vertex`},
		{"edge to missing vertex", func(c *Captured) { c.Edges[0].To = 42 }, "ends at missing vertex 42"},
		{"negative bytes", func(c *Captured) { c.Edges[0].BytesPerS = -5 }, "bytes_per_s -5"},
		{"placement unknown task", func(c *Captured) { c.Placement[42] = "sup1:6700" }, "placement names task 42"},
		{"placement no port", func(c *Captured) { c.Placement[3] = "sup1" }, `worker "sup1": want host:port`},
		{"placement bad port", func(c *Captured) { c.Placement[3] = "sup1:x" }, "port must be a number"},
		{"placement partial", func(c *Captured) { delete(c.Placement, 5) }, "placement lacks task 5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := sampleCaptured()
			c.edit(x)
			if err := x.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestReadGraphCapturedSections: ReadGraph takes the captured sections as
// optional (a graph with only some of them reads), refuses newer formats with
// the contract's message, and still refuses unknown fields.
func TestReadGraphCapturedSections(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"format only", `{"format":1,"vertices":[{"id":0,"weight":1}],"edges":[]}`, ""},
		{"bytes on edges", `{"vertices":[{"id":0,"weight":1},{"id":1,"weight":1}],"edges":[{"from":0,"to":1,"weight":2,"bytes_per_s":128}]}`, ""},
		{"placement only", `{"vertices":[{"id":0,"weight":1}],"edges":[],"placement":{"0":"a:6700"}}`, ""},
		{"newer format", `{"format":2,"vertices":[{"id":0,"weight":1}],"edges":[],"future":true}`, "graph file format 2 is newer than this stormlab reads (1): upgrade stormlab"},
		{"unknown field", `{"vertices":[{"id":0,"weight":1}],"edges":[],"placements":{}}`, `unknown field "placements"`},
		{"negative bytes", `{"vertices":[{"id":0,"weight":1},{"id":1,"weight":1}],"edges":[{"from":0,"to":1,"weight":2,"bytes_per_s":-1}]}`, "bytes_per_s -1"},
	} {
		_, err := ReadGraph(strings.NewReader(c.in))
		if c.want == "" && err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// ReadCaptured of a newer format names the format, not its unknown fields.
	if _, err := ReadCaptured(strings.NewReader(`{"format":3,"new_section":{}}`)); err == nil || !strings.Contains(err.Error(), "format 3 is newer") {
		t.Errorf("ReadCaptured format 3: error %v", err)
	}
	// A placement key that is not a task id is a decoding error.
	if _, err := ReadGraph(strings.NewReader(`{"vertices":[{"id":0,"weight":1}],"edges":[],"placement":{"x":"a:1"}}`)); err == nil {
		t.Error("placement key x: no error")
	}
}

// TestPlacementJSONKeys: placement keys are task ids written as strings, in
// the contract's shape {"3":"sup1:6700"}.
func TestPlacementJSONKeys(t *testing.T) {
	b, err := json.Marshal(Placement{3: "sup1:6700", 12: "sup2:6701"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"12":"sup2:6701","3":"sup1:6700"}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestCapturedDocExample: the example in docs/graph-format.md ("Captured
// topologies") is a valid captured file.
func TestCapturedDocExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "graph-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "## Captured topologies")
	_, blk, ok2 := strings.Cut(sec, "```json")
	blk, _, ok3 := strings.Cut(blk, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/graph-format.md has no JSON example under \"Captured topologies\"")
	}
	if _, err := ReadCaptured(strings.NewReader(blk)); err != nil {
		t.Fatalf("the documented example: %v", err)
	}
}
