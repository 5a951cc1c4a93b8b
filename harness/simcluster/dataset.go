package simcluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers/native"
	"github.com/stormlab/stormlab/topologies"
)

// A finite dataset (--size-mb > 0) as the project's dataset spouts (PacedSpout) stream it: each spout
// task sends its share, the dataset's bytes over the spout's tasks, counting each tuple's bytes as its
// main class counts them, and stops after the tuple that reaches its share.

// wordCountSentenceBytes is the mean bytes WordCount's spout counts per sentence (the sentence's
// length plus one): 10 words on average (5-15 uniform) of TextGenerator's word list drawn with weight
// 1/rank, whose mean length is 3.2225 characters, each word with its separator. A test recomputes
// it from TextGenerator.java.
const wordCountSentenceBytes = 42.225

// datasetTupleBytes is the bytes one tuple of a main's dataset spout counts against its share.
func datasetTupleBytes(rt *runTopology) (float64, error) {
	switch rt.main.Class {
	case "org.stormlab.topologies.WordCountTopology":
		return wordCountSentenceBytes, nil
	case "org.stormlab.topologies.KMeansTopology":
		dims, err := rt.flags.num("dims", 16)
		return 8 * dims, err // 8 bytes a coordinate (KMeansTopology.PointSpout.bytes)
	}
	return 0, fmt.Errorf("--size-mb: a simulated cluster streams datasets through wordcount and kmeans, not %s", rt.main.Name)
}

// datasetShare is the tuples each task of the dataset spout emits: its share of --size-mb (10^6
// bytes) over the spout's tasks, integer bytes as PacedSpout divides them, and the tuple that
// reaches it; 0 when the run streams no dataset.
func datasetShare(rt *runTopology) (int64, error) {
	mb, err := rt.flags.num("size-mb", 0)
	if err != nil || mb == 0 {
		return 0, err
	}
	if mb < 0 || rt.main.Class == "" {
		return 0, fmt.Errorf("--size-mb %v: give 0 (endless) or more, to wordcount or kmeans", mb)
	}
	per, err := datasetTupleBytes(rt)
	if err != nil {
		return 0, err
	}
	budget := max(1, int64(mb*1e6)/int64(rt.par[rt.spout()]))
	return int64(math.Ceil(float64(budget) / per)), nil
}

// checkDataset refuses a dataset run the model cannot end: no dataset, or another spout.
func (r *simRun) checkDataset(d harness.Dataset) error {
	switch {
	case d.Max <= 0 || d.Quiet < 0:
		return fmt.Errorf("dataset run of %s: Max %s, Quiet %s: give Max > 0 and Quiet >= 0", r.spec.Topology.Name, d.Max, d.Quiet)
	case d.Spout != r.rt.spout():
		return fmt.Errorf("dataset run of %s: spout %q: the topology's spout is %q", r.spec.Topology.Name, d.Spout, r.rt.spout())
	case r.share == 0:
		return fmt.Errorf("dataset run of %s: the topology streams no dataset: give --size-mb > 0", r.spec.Topology.Name)
	}
	return nil
}

// datasetWindow runs the model one report interval at a time until every spout task has sent its
// share and every tree of it is acked or failed, then one interval more (as the harness closes a
// dataset run after a report newer than the last ack). The window is the whole run; DatasetS is the
// harness's: from the start of the first report interval with acks to the last report with acks.
func (r *simRun) datasetWindow(ctx context.Context, res *harness.RunResult, d harness.Dataset) error {
	step := r.rt.intervalS
	res.MeasureFrom = r.now().UnixMilli()
	r.openLoad()
	finished := false
	for k := 1; ; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.t = float64(k) * step
		r.x.Advance(r.t)
		done := r.interval(step)
		r.accountLoad()
		if err := r.reschedule(ctx); err != nil {
			return err
		}
		if finished {
			res.MeasureTo = r.now().UnixMilli()
			res.DatasetS = datasetSeconds(r.reports)
			return nil
		}
		finished = done == r.rt.par[d.Spout] && r.x.InFlight() == 0
		if !finished && r.t >= d.Max.Seconds() {
			return fmt.Errorf("dataset run of %s: %w within %s of simulated time (%d of %d spout tasks done)", r.spec.Topology.Name, errDatasetUnfinished, d.Max, done, r.rt.par[d.Spout])
		}
	}
}

// errDatasetUnfinished is a dataset not processed within its run's Max.
var errDatasetUnfinished = errors.New("dataset not processed in time")

// datasetSeconds is the time from the start of the first report interval with acks to the last
// report with acks (as harness.Dataset measures it).
func datasetSeconds(reports []protocol.WorkerReport) float64 {
	var first, last int64
	for _, r := range reports {
		if r.Acked > 0 {
			if start := r.TimeMs - int64(r.IntervalS*1000); first == 0 || start < first {
				first = start
			}
			last = max(last, r.TimeMs)
		}
	}
	return float64(last-first) / 1000
}

// deadlinesOf is each bolt's deadline T_dline in seconds, as TopologySetup.applyDeadlines sets it
// from --deadline-ms (default 1000), --deadlines (staged: a bolt at depth i of the deepest n gets
// deadline-ms x i / n, rounded; uniform: every bolt deadline-ms) and --deadline-ms.COMPONENT.
func deadlinesOf(rt *runTopology, spouts map[string]bool) (map[string]float64, error) {
	total, err := rt.flags.num("deadline-ms", 1000)
	if err != nil {
		return nil, err
	}
	mode := rt.flags["deadlines"]
	if mode == "" {
		mode = "staged"
	}
	if total <= 0 || (mode != "staged" && mode != "uniform") {
		return nil, fmt.Errorf("--deadline-ms %v, --deadlines %q: give a deadline > 0 and staged or uniform", total, mode)
	}
	depth := depths(rt.streams, spouts)
	n := 1
	for _, d := range depth {
		n = max(n, d)
	}
	out := map[string]float64{}
	for name := range rt.par {
		if spouts[name] || name == topologies.AckerComponent {
			continue
		}
		ms := total
		if mode == "staged" && depth[name] > 0 {
			ms = max(1, math.Round(total*float64(depth[name])/float64(n)))
		}
		if v, ok := rt.flags["deadline-ms."+name]; ok {
			if ms, err = rt.flags.num("deadline-ms."+name, 0); err != nil || ms <= 0 {
				return nil, fmt.Errorf("--deadline-ms.%s %q: give a deadline > 0 ms", name, strings.TrimSpace(v))
			}
		}
		out[name] = ms / 1000
	}
	return out, nil
}

// depths is the fewest stream hops from any spout to each component (breadth first, as
// TopologySetup.depths).
func depths(streams []topologies.Stream, spouts map[string]bool) map[string]int {
	depth := map[string]int{}
	var queue []string
	for s := range spouts {
		depth[s] = 0
		queue = append(queue, s)
	}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		for _, st := range streams {
			if _, seen := depth[st.To]; st.From == c && !seen {
				depth[st.To] = depth[c] + 1
				queue = append(queue, st.To)
			}
		}
	}
	return depth
}

// spouts are the topology's spout components.
func (rt *runTopology) spouts() map[string]bool {
	out := map[string]bool{}
	for name, c := range rt.costs.Components {
		if c.Spout {
			out[name] = true
		}
	}
	return out
}

// resources are what RAS reads of every component from the topology's conf
// (topology.component.cpu.pcore.percent, topology.component.resources.onheap.memory.mb: --conf k=v);
// nil leaves Storm's defaults.
func (rt *runTopology) resources() (map[string]native.Resources, error) {
	cpu, err := rt.flags.num("conf.topology.component.cpu.pcore.percent", 0)
	if err != nil {
		return nil, err
	}
	mem, err := rt.flags.num("conf.topology.component.resources.onheap.memory.mb", 0)
	if err != nil || (cpu == 0 && mem == 0) {
		return nil, err
	}
	out := map[string]native.Resources{}
	for _, name := range append(slices.Collect(maps.Keys(rt.par)), topologies.AckerComponent) {
		out[name] = native.Resources{CPU: cpu, OnHeapMB: mem}
	}
	return out, nil
}
