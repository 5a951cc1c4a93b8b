package experiments

import (
	"io"
	"slices"
	"testing"
	"time"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
)

// fixtureRuns are three repetitions of each kpart-cluster scheduler with
// made-up windows of differing counts (the plot keeps the common ones).
func fixtureRuns() map[string][]*harness.RunResult {
	runs := map[string][]*harness.RunResult{}
	for si, s := range kpartClusterSchedulers {
		for rep := 0; rep < 3; rep++ {
			r := &harness.RunResult{}
			for i := 0; i < 4+rep; i++ {
				f := float64(si*10 + rep*3 + i)
				r.Series = append(r.Series, harness.Measurement{Throughput: 100 + f, Balance: 5 + f/10, CutRate: 0.1 + f/100, InterNodeRate: 20 + f, LatencyMean: 3 + f/7})
			}
			runs[s] = append(runs[s], r)
		}
	}
	return runs
}

// fixtureDeadline are made-up QoS-per-node records and rows of the
// deadline scheduler with and without background load.
func fixtureDeadline() ([]nodeQoS, *lab.Results) {
	var nodes []nodeQoS
	res := &lab.Results{Experiment: "deadline", Metrics: deadlineMetrics}
	for rep := 0; rep < 3; rep++ {
		for _, load := range []float64{20, 80} {
			for _, n := range []string{"sup1", "sup2"} {
				nodes = append(nodes, nodeQoS{Series: loadSeries("kmeans"), X: load, Rep: rep, Node: n, QoS: 40 + load/3 + float64(rep)})
			}
			res.Add(lab.Row{Series: loadSeries("kmeans"), X: load, Rep: rep, Values: map[string]float64{"dataset_s": 40 + load/10 + float64(rep), "proc_ms": 100 + load + float64(rep), "qos_pct": 30 + load/5 + float64(rep), "qos_node_max_pct": 50, "misses": 0, "throughput": 10, "migrations": 1}})
		}
		res.Add(lab.Row{Series: "deadline kmeans", X: 0.5, Rep: rep, Values: map[string]float64{"dataset_s": 40, "proc_ms": 100, "qos_pct": 30, "qos_node_max_pct": 50, "misses": 0, "throughput": 10, "migrations": 1}})
	}
	return nodes, res
}

// The extra files of kpart-cluster (time series) and deadline (QoS per
// node, load figures) are the ones Run wrote itself before the files moved
// to lab.Output: the same names, each rendered without error. (Their bytes
// were compared with the old writers' output on this fixture when they
// moved: identical.)
func TestExtraFiles(t *testing.T) {
	files := timeSeriesFiles("kpart-cluster", kpartClusterSchedulers, fixtureRuns(), 10*time.Second, kpartSeriesFigures)
	nodes, res := fixtureDeadline()
	nq, err := nodeQoSFiles(nodes)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := loadPlotFiles(res)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range append(append(files, nq...), lp...) {
		if err := f.Write(io.Discard); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
		got = append(got, f.Name)
	}
	var want []string
	for _, m := range []string{"balance", "cut_rate", "inter_node_tps", "latency_mean_ms", "throughput"} {
		for _, ext := range []string{".png", ".svg", ".txt", ".tex"} {
			want = append(want, "series-"+m+ext)
		}
	}
	for _, m := range []string{"dataset_s", "qos_pct", "proc_ms"} {
		for _, ext := range []string{".png", ".svg", ".txt", ".tex"} {
			want = append(want, "load-"+m+ext)
		}
	}
	want = append(want, "series.csv", "node-qos.md", "node-qos.csv")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("extra files:\n got %v\nwant %v", got, want)
	}
	if lp, _ := loadPlotFiles(&lab.Results{Metrics: deadlineMetrics}); len(lp) != 0 {
		t.Errorf("no run under load: %d load files, want none", len(lp))
	}
}
