package schedulers

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/stormlab/stormlab/topologies"
)

// Benchmarks of every graph-partition scheduler at large sizes, on sparse random
// graphs (the paper's generator, average degree 3: m = 1.5 n) of 10^3,
// 10^4 and 10^5 vertices, k = 64. Run:
//
//	go test -run '^$' -bench . -benchmem ./schedulers/

var benchGraphs sync.Map // n -> *topologies.Graph

func benchGraph(b testing.TB, n int) *topologies.Graph {
	if g, ok := benchGraphs.Load(n); ok {
		return g.(*topologies.Graph)
	}
	g, err := topologies.RandomGraph(n, 3*n/2, 42)
	if err != nil {
		b.Fatal(err)
	}
	benchGraphs.Store(n, g)
	return g
}

func BenchmarkPartition(b *testing.B) {
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"even", Options{}},
		{"online", Options{}},
		{"tstorm", Options{}},
		{"mpart", Options{Seed: 1}},
		{"kpart", Options{Seed: 1}},
		{"kpart-mul1", Options{Seed: 1, Mul: 1}},
	} {
		name := c.name
		if name == "kpart-mul1" {
			name = "kpart"
		}
		s, err := New(name, c.o)
		if err != nil {
			b.Fatal(err)
		}
		p := s.(Partitioner)
		for _, n := range []int{1000, 10000, 100000} {
			g := benchGraph(b, n)
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.Partition(context.Background(), g, 64); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkKPartPeakMemory reports, for K-PART (Mul=0) at 10^5 vertices, the
// heap growth of one run with the garbage collector off: everything the run
// allocates, an upper bound on its peak live memory ("peak-B"), next to
// the graph's own size ("graph-B") to show memory is linear in the graph.
func BenchmarkKPartPeakMemory(b *testing.B) {
	g := benchGraph(b, 100000)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	_ = benchGraphCopy(g)
	runtime.ReadMemStats(&ms)
	graphBytes := ms.HeapAlloc - before
	for b.Loop() {
		runtime.GC()
		old := debug.SetGCPercent(-1)
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		if _, err := (&KPart{Seed: 1}).Partition(context.Background(), g, 64); err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc-before), "peak-B")
		debug.SetGCPercent(old)
	}
	b.ReportMetric(float64(graphBytes), "graph-B")
}

func benchGraphCopy(g *topologies.Graph) *topologies.Graph {
	return &topologies.Graph{Vertices: append([]topologies.Vertex(nil), g.Vertices...), Edges: append([]topologies.Edge(nil), g.Edges...)}
}

// TestWriteMetisBenchGraph writes the 10^5-vertex benchmark graph in METIS
// format (merged undirected, integer weights as MPart passes them, no
// vertex weights) to $STORMLAB_METIS_OUT, so gpmetis can be timed on the
// same graph: gpmetis -seed=1 FILE 64. Skipped unless the variable is set.
func TestWriteMetisBenchGraph(t *testing.T) {
	out := os.Getenv("STORMLAB_METIS_OUT")
	if out == "" {
		t.Skip("set STORMLAB_METIS_OUT=FILE to write the benchmark graph for gpmetis")
	}
	g := benchGraph(t, 100000)
	mg := newMetisGraph(g, false)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := writeMetisFile(f, mg); err != nil {
		t.Fatal(err)
	}
}

// writeMetisFile writes mg in METIS's graph file format (1-based, edge
// weights, no vertex weights unless mg has them).
func writeMetisFile(f io.Writer, mg *metisGraph) error {
	n := len(mg.xadj) - 1
	w := bufio.NewWriter(f)
	if mg.vwgt != nil {
		fmt.Fprintf(w, "%d %d 011\n", n, len(mg.adjncy)/2)
	} else {
		fmt.Fprintf(w, "%d %d 001\n", n, len(mg.adjncy)/2)
	}
	for v := 0; v < n; v++ {
		if mg.vwgt != nil {
			fmt.Fprintf(w, "%d ", mg.vwgt[v])
		}
		for i := mg.xadj[v]; i < mg.xadj[v+1]; i++ {
			fmt.Fprintf(w, "%d %d ", mg.adjncy[i]+1, mg.adjwgt[i])
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}
