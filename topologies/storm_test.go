package topologies_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/topologies"
)

// TestTopologyGraph checks the expansion against executor graphs computed by
// hand (the rule of each grouping is in Topology.Graph's doc comment).
func TestTopologyGraph(t *testing.T) {
	twoByThree := func(g topologies.Grouping) topologies.Topology {
		return topologies.Topology{Name: "t", Components: []topologies.Component{{Name: "a", Parallelism: 2, CPU: 3}, {Name: "b", Parallelism: 3, CPU: 4}},
			Streams: []topologies.Stream{{From: "a", To: "b", Grouping: g, Rate: 60}}}
	}
	pairs := func(w float64) []topologies.Edge {
		// a = vertices 0,1; b = vertices 2,3,4; all six pairs in source-major order.
		return []topologies.Edge{{0, 2, w}, {0, 3, w}, {0, 4, w}, {1, 2, w}, {1, 3, w}, {1, 4, w}}
	}
	abVertices := []topologies.Vertex{{ID: 0, Weight: 3, Component: "a"}, {ID: 1, Weight: 3, Component: "a"},
		{ID: 2, Weight: 4, Component: "b"}, {ID: 3, Weight: 4, Component: "b"}, {ID: 4, Weight: 4, Component: "b"}}
	withAckers := topologies.Topology{Name: "t", Ackers: 2, AckerCPU: 1,
		Components: []topologies.Component{{Name: "s", Parallelism: 1, CPU: 1}, {Name: "b", Parallelism: 1, CPU: 1}},
		Streams:    []topologies.Stream{{From: "s", To: "b", Grouping: topologies.GroupShuffle, Rate: 100}}}

	tests := []struct {
		name string
		top  topologies.Topology
		want topologies.Graph
	}{
		{
			// Paper sec. 2.1 chain, parallelism 1: one executor per component, a tuple every 5 ms = 200/s on each hop.
			name: "throughput chain p=1",
			top:  topologies.ThroughputChain(1),
			want: topologies.Graph{
				Vertices: []topologies.Vertex{{0, 2, "spout", 0}, {1, 2, "bolt1", 0}, {2, 2, "bolt2", 0}, {3, 2, "bolt3", 0}},
				Edges:    []topologies.Edge{{0, 1, 200}, {1, 2, 200}, {2, 3, 200}},
			},
		},
		// Rate 60 from 2 to 3 executors: shuffle 60/(2*3) = 10 per pair; all 60/2 = 30 per pair;
		// global 60/2 = 30 from each source to b's first executor (vertex 2).
		{name: "shuffle 2x3", top: twoByThree(topologies.GroupShuffle), want: topologies.Graph{Vertices: abVertices, Edges: pairs(10)}},
		{name: "fields 2x3", top: twoByThree(topologies.GroupFields), want: topologies.Graph{Vertices: abVertices, Edges: pairs(10)}},
		{name: "all 2x3", top: twoByThree(topologies.GroupAll), want: topologies.Graph{Vertices: abVertices, Edges: pairs(30)}},
		{name: "global 2x3", top: twoByThree(topologies.GroupGlobal), want: topologies.Graph{Vertices: abVertices, Edges: []topologies.Edge{{0, 2, 30}, {1, 2, 30}}}},
		{
			// Spout s emits 100/s to bolt b; 2 ackers: s sends 100/2 inits to each acker and gets 50 completions
			// back from each; b sends one ack per input tuple, 100/2 to each acker.
			name: "ackers",
			top:  withAckers,
			want: topologies.Graph{
				Vertices: []topologies.Vertex{{0, 1, "s", 0}, {1, 1, "b", 0}, {2, 1, topologies.AckerComponent, 0}, {3, 1, topologies.AckerComponent, 0}},
				Edges: []topologies.Edge{{0, 1, 100},
					{0, 2, 50}, {2, 0, 50}, {0, 3, 50}, {3, 0, 50},
					{1, 2, 50}, {1, 3, 50}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.top.Graph()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g.Vertices, tc.want.Vertices) {
				t.Errorf("vertices\n got %v\nwant %v", g.Vertices, tc.want.Vertices)
			}
			if len(g.Edges) != len(tc.want.Edges) {
				t.Fatalf("edges\n got %v\nwant %v", g.Edges, tc.want.Edges)
			}
			for i := range g.Edges {
				w, e := tc.want.Edges[i], g.Edges[i]
				if e.From != w.From || e.To != w.To || math.Abs(e.Weight-w.Weight) > 1e-9 {
					t.Errorf("edge %d = %v, want %v", i, e, w)
				}
			}
		})
	}
}

// TestSpecTotals checks sizes and total traffic of the paper topologies.
func TestSpecTotals(t *testing.T) {
	tests := []struct {
		name            string
		top             topologies.Topology
		vertices, edges int
		traffic, cpu    float64
	}{
		// 4 components x 2 executors; 3 all-to-all streams of 2x2 pairs. Traffic: 1000 sentences + 10,000
		// words + 10,000 counts per second. CPU: 2 x (10+20+15+10).
		{"wordcount p=2", topologies.WordCount(2), 8, 12, 21000, 110},
		// 4 streams of 2x2 pairs; 3 x 1000 points/s plus broadcasts: 1000/100 = 10/s from 2 update executors
		// to 2 assign executors at 10/2 = 5 each = 20. CPU: 2 x (10+40+20+5).
		{"kmeans p=2", topologies.KMeans(2), 8, 16, 3020, 150},
		// 4 components x 4; 3 streams of 4x4 pairs; 4 spouts x 200/s = 800 per hop. CPU 16 x 2.
		{"throughput p=4", topologies.ThroughputChain(4), 16, 48, 2400, 32},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.top.Graph()
			if err != nil {
				t.Fatal(err)
			}
			if g.N() != tc.vertices || len(g.Edges) != tc.edges {
				t.Errorf("got %d vertices %d edges, want %d and %d", g.N(), len(g.Edges), tc.vertices, tc.edges)
			}
			if d := math.Abs(g.TotalEdgeWeight() - tc.traffic); d > 1e-6 {
				t.Errorf("traffic %v, want %v", g.TotalEdgeWeight(), tc.traffic)
			}
			if d := math.Abs(g.TotalVertexWeight() - tc.cpu); d > 1e-9 {
				t.Errorf("cpu %v, want %v", g.TotalVertexWeight(), tc.cpu)
			}
		})
	}
}

func TestTopologyGraphErrors(t *testing.T) {
	ok := func() topologies.Topology { return topologies.ThroughputChain(1) }
	tests := []struct {
		name string
		edit func(*topologies.Topology)
		want string
	}{
		{"no components", func(t *topologies.Topology) { t.Components = nil }, "no components"},
		{"parallelism 0", func(t *topologies.Topology) { t.Components[1].Parallelism = 0 }, `"bolt1" has parallelism 0`},
		{"unknown from", func(t *topologies.Topology) { t.Streams[0].From = "nope" }, `unknown component "nope"`},
		{"unknown to", func(t *topologies.Topology) { t.Streams[2].To = "sink" }, `unknown component "sink"`},
		{"duplicate", func(t *topologies.Topology) { t.Components[2].Name = "bolt1" }, "declared twice"},
		{"bad grouping", func(t *topologies.Topology) { t.Streams[0].Grouping = "partial_key" }, `grouping "partial_key"`},
		{"negative rate", func(t *topologies.Topology) { t.Streams[0].Rate = -1 }, "rate -1"},
		{"NaN cpu", func(t *topologies.Topology) { t.Components[0].CPU = math.NaN() }, "CPU NaN"},
		{"reserved name", func(t *topologies.Topology) { t.Components[0].Name = topologies.AckerComponent }, "reserved"},
		{"negative ackers", func(t *topologies.Topology) { t.Ackers = -1 }, "-1 ackers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := ok()
			tc.edit(&top)
			_, err := top.Graph()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestWorkerReportGolden decodes the report the Java Reporter renders (its
// unit test ReporterTest compares its output with the same file) strictly
// into protocol.WorkerReport, so the Java and Go sides cannot drift apart.
func TestWorkerReportGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("storm", "src", "test", "resources", "worker-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r protocol.WorkerReport
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("decode Java report: %v", err)
	}
	// Values from the hand computation in ReporterTest.rendersGoldenReport;
	// the histograms are checked below by decoding them.
	want := protocol.WorkerReport{
		Topology: "wordcount-1-1700000000", Host: "node-1", Port: 6700, TimeMs: 1700000005000, IntervalS: 5.002,
		Traffic: []protocol.TaskTraffic{{Src: 3, Dst: 5, Count: 2}, {Src: 4, Dst: 5, Count: 1}, {Src: 5, Dst: 6, Count: 3}},
		Emits: []protocol.TaskEmits{{Task: 3, Stream: "default", Count: 3}, {Task: 5, Stream: "default", Count: 2},
			{Task: 5, Stream: "words", Count: 1}},
		CPU: []protocol.TaskCPU{{Task: 3, CPUNs: 1000}, {Task: 5, CPUNs: 1500000}, {Task: 6, CPUNs: 500000}},
		Deadlines: []protocol.TaskDeadline{{Task: 6, Count: 2, Missed: 1, SumProcessingMs: 400, SumQoS: 2,
			DeadlineMs: 200, StartMinMs: 1700000003700, StartMaxMs: 1700000004000, Sink: true}},
		Acked:             7,
		Failed:            1,
		CompleteLatencyMs: []float64{10, 20.5},
		WorkerCPUPercent:  37.5,
		ThreadGroups: []protocol.ThreadGroupCPU{{Name: "Netty-server-localhost-#-worker-#", Threads: 2, CPUNs: 125000},
			{Name: "Worker-Transfer", Threads: 1, CPUNs: 250000}},
		WorkerMemoryMB: 96.25,
		WorkerStartMs:  1699999990000,
		AckedTotal:     7,
		FailedTotal:    1,
		LatencyHist:    r.LatencyHist,
		ProcessingHist: r.ProcessingHist,
		TupleSizes: []protocol.TaskTupleSize{{Task: 3, OutSamples: 1, OutBytes: 60},
			{Task: 5, InSamples: 2, InBytes: 320, OutSamples: 1, OutBytes: 90}},
		SizeSampleEvery: 64,
		NotMeasured:     []string{},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("decoded\n%+v\nwant\n%+v", r, want)
	}
	// Java's HdrHistogram encoding decodes in Go with the shared layout:
	// latency 10 and 21 ms (20.5 rounded), processing 100 and 300 ms in µs.
	// 3 significant digits: values below 2048 are exact; 100,000 and
	// 300,000 lie in buckets of width 64 and 256: [99,968, 100,031] and
	// [299,776, 300,031], so Min and Max report 99,968 and 300,031.
	hists := []struct {
		name     string
		enc      string
		highest  int64
		min, max int64
	}{
		{"latency", r.LatencyHist, protocol.LatencyHistHighest, 10, 21},
		{"processing", r.ProcessingHist, protocol.ProcessingHistHighest, 99_968, 300_031},
	}
	for _, h := range hists {
		d, err := protocol.DecodeHistogram(h.enc, h.highest)
		if err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		if d.TotalCount() != 2 || d.Min() != h.min || d.Max() != h.max {
			t.Errorf("%s histogram: count %d, min %d, max %d; want 2, %d, %d", h.name, d.TotalCount(), d.Min(), d.Max(), h.min, h.max)
		}
	}
	// Every field of the Go type is sent by Java (none left to its zero value by omission).
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		t.Fatal(err)
	}
	rt := reflect.TypeOf(protocol.WorkerReport{})
	for i := 0; i < rt.NumField(); i++ {
		name := strings.Split(rt.Field(i).Tag.Get("json"), ",")[0]
		if openLoopOnly[name] || name == "spout_done" {
			continue // sent by open-loop spouts only (OpenLoopReportTest in Java checks them), or once a dataset spout is done (DatasetDoneReportTest)
		}
		if _, ok := keys[name]; !ok {
			t.Errorf("Java report lacks field %q", name)
		}
	}
}

// openLoopOnly are the WorkerReport fields a worker sends only when its spouts run open loop.
var openLoopOnly = map[string]bool{"latency_intended_hist": true, "send_lag_hist": true, "spout_load": true}

// TestStormMains checks that every listed main class exists in the Java
// sources and that every default flag is declared there.
func TestStormMains(t *testing.T) {
	shared, err := os.ReadFile(filepath.Join("storm", "src", "main", "java", "org", "stormlab", "topologies", "TopologySetup.java"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range topologies.StormMains() {
		path := filepath.Join(append([]string{"storm", "src", "main", "java"}, strings.Split(m.Class, ".")...)...) + ".java"
		src, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: main class source: %v", m.Name, err)
			continue
		}
		for _, a := range m.DefaultArgs {
			if !strings.HasPrefix(a, "--") {
				continue
			}
			flag := `"` + strings.TrimPrefix(a, "--") + `"`
			if !bytes.Contains(src, []byte(".flag("+flag)) && !bytes.Contains(shared, []byte(".flag("+flag)) {
				t.Errorf("%s: default flag %s is not declared in %s or TopologySetup.java", m.Name, a, path)
			}
		}
		if _, err := m.Spec(2).Graph(); err != nil {
			t.Errorf("%s: spec: %v", m.Name, err)
		}
		if got, _ := topologies.LookupStormMain(m.Name); got.Class != m.Class {
			t.Errorf("lookup %s = %q", m.Name, got.Class)
		}
	}
	// The instrumentation switch is a shared flag with the values the Go side passes.
	if !bytes.Contains(shared, []byte(`.flag("`+strings.TrimPrefix(topologies.FlagInstrumentation, "--")+`", "on"`)) {
		t.Errorf("TopologySetup.java declares no %s flag defaulting to on", topologies.FlagInstrumentation)
	}
	for _, on := range []bool{true, false} {
		a := topologies.InstrumentationArgs(on)
		if len(a) != 2 || a[0] != topologies.FlagInstrumentation || !bytes.Contains(shared, []byte(`case "`+a[1]+`":`)) {
			t.Errorf("InstrumentationArgs(%v) = %v: TopologySetup.java does not handle that value", on, a)
		}
	}
	if _, err := topologies.LookupStormMain("nope"); err == nil {
		t.Error("LookupStormMain(nope) succeeded")
	}
	cmd, err := topologies.StormMains()[0].SubmitCommand("/opt/storm/lib", "/jars/t.jar", "tp1", "--interval-ms", "2")
	if err != nil {
		t.Fatal(err)
	}
	want := "java -cp /opt/storm/lib/*:/jars/t.jar -Dstorm.jar=/jars/t.jar org.stormlab.topologies.ThroughputTopology --name tp1 " +
		"--workers 4 --parallelism 1 --interval-ms 5 --payload-bytes 100 --interval-ms 2"
	if got := strings.Join(cmd, " "); got != want {
		t.Errorf("command\n got %s\nwant %s", got, want)
	}
}
