package simcluster

import (
	"bytes"
	_ "embed"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/montanaflynn/stats"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/capture"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
	"github.com/stormlab/stormlab/topologies"
)

//go:embed costs/containers.json
var containersJSON []byte

// ContainersCosts is the cost model of this project's containers that ships with it (its provenance
// says which runs it was measured from).
func ContainersCosts() (*sim.CostModel, error) {
	return sim.ReadCostModel(bytes.NewReader(containersJSON))
}

// CostsFor is the cost model that charges the simulated cluster where names: the file where.Costs
// names (a `stormlab sim costs` file), else the model shipped with the project (ContainersCosts).
func CostsFor(where clusterref.Ref) (*sim.CostModel, error) {
	if where.Costs == "" {
		return ContainersCosts()
	}
	f, err := os.Open(where.Costs)
	if err != nil {
		return nil, fmt.Errorf("--sim-costs: %w", err)
	}
	defer f.Close()
	m, err := sim.ReadCostModel(f)
	if err != nil {
		return nil, fmt.Errorf("--sim-costs %s: %w (write one with stormlab sim costs)", where.Costs, err)
	}
	return m, nil
}

// workFlags are, per main, the flags that change a tuple's work: costs measured at one value do not
// hold at another (--work-us is added to the bolts' costs instead).
var workFlags = map[string][]string{
	"throughput": {"payload-bytes"},
	"kmeans":     {"k", "dims"},
}

// MeasureCosts derives a cost model from recorded runs of the project's topologies on a real cluster
// (valid runs only; each run's window, as a capture of it: capture.FromRecords): per topology and
// component, the CPU per tuple (the mean over runs, their standard deviation, and the stated interval:
// remeasure), the tuples each stream carries per tuple and the tuples' size. Runs of one topology at
// different work flags are refused: measure them into separate models. Runs of the transfer design
// (IsTransferRun) are left to FitTransfer.
func MeasureCosts(name string, runs []*harness.RunResult, prov sim.CostProvenance, opts ...MeasureOption) (*sim.CostModel, error) {
	var o measureOptions
	for _, opt := range opts {
		opt(&o)
	}
	m := &sim.CostModel{Format: sim.CostFormat, Name: name, Provenance: prov, Topologies: map[string]sim.TopologyCosts{}}
	m.Provenance.Uncertainty = uncertaintyMethod
	per := map[string][]runCosts{} // by main class
	var all []runCosts
	xfer, counted := 0, 0
	for _, r := range runs {
		if IsTransferRun(r) { // the transfer design's runs: FitTransfer
			xfer++
			continue
		}
		if r.Validity.Level == harness.Invalid {
			continue
		}
		if CountsSpin(r) {
			counted++
		}
		rc, err := measureRun(r, o.withoutSpin)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.Spec.Topology.Name, err)
		}
		t := m.Topologies[rc.main.Class]
		wa := workArgs(rc.main, r.Spec.Topology.Args)
		if t.Runs > 0 && !maps.Equal(t.WorkArgs, wa) {
			return nil, fmt.Errorf("run %s has %s at %v, earlier runs at %v: measure each setting into its own cost model", r.Spec.Topology.Name, rc.main.Name, wa, t.WorkArgs)
		}
		t.WorkArgs, t.Runs = wa, t.Runs+1
		m.Topologies[rc.main.Class] = t
		per[rc.main.Class] = append(per[rc.main.Class], rc)
		all = append(all, rc)
		m.Provenance.Runs = append(m.Provenance.Runs, fmt.Sprintf("%s under %s on %s at %s", rc.main.Name, r.Spec.Scheduler, r.Cluster, r.StartedAt.UTC().Format(time.RFC3339)))
	}
	if len(per) == 0 {
		return nil, fmt.Errorf("no valid run of the project's topologies among %d runs (%d of them of the transfer design, which give the transfer costs only): record some (stormlab run --out DIR, or an experiment's folder)", len(runs), xfer)
	}
	if o.withoutSpin && counted < len(all) {
		// a component's figures pooled over runs read two ways would be neither
		return nil, fmt.Errorf("%d of the %d runs counted their threads' idle CPU (spin_ns): record them all with this stormlab's topologies jar, or read them with the ratio method", counted, len(all))
	}
	m.Transfer = poolTransfer(all)
	if o.withoutSpin {
		spinApart(m)
	}
	for class, rs := range per {
		t := m.Topologies[class]
		t.Components = pool(rs)
		t.AckCPUS, t.AckCPUPI = poolAcks(rs)
		setExecute(&t, rs)
		m.Topologies[class] = t
	}
	return m, nil
}

// runCosts is what one run measures: its components' costs and its transfer figures, over the whole
// window and over each of its quarters (the spread within the run).
type runCosts struct {
	main     topologies.StormMain
	comps    map[string]sim.ComponentCost
	quarters []map[string]sim.ComponentCost
	// overhead is per worker (cores); overheadQ the workers' mean in each quarter.
	overhead, overheadQ []float64
	ackerCPU, messages  float64
	ackQ                []float64 // acker CPU per message in each quarter
	start               float64
	execute             map[string]sim.StormExecute // Storm's execute latency per bolt (executeOf)
}

// windowParts is how many parts a run's window is cut into to see how much its figures move within it.
const windowParts = 4

// measureRun reads one run's window, and each of its parts, as costs: with noSpin its threads' CPU less
// what they counted idle (withoutSpin), the workers' overhead from their whole thread CPU either way.
func measureRun(r *harness.RunResult, noSpin bool) (runCosts, error) {
	read := r
	if noSpin {
		read = withoutSpin(r)
	}
	main, comps, err := costsOfRun(read)
	if err != nil {
		return runCosts{}, err
	}
	rc := runCosts{main: main, comps: comps, start: r.Phases.StartS, execute: executeOf(r)}
	rc.overhead, rc.ackerCPU, rc.messages = overheadOf(r)
	if noSpin {
		_, rc.ackerCPU, _ = overheadOf(read)
	}
	span := (r.MeasureTo - r.MeasureFrom) / windowParts
	for k := range int64(windowParts) {
		from, to := r.MeasureFrom+k*span, r.MeasureFrom+(k+1)*span
		part, partRead := *r, *read
		part.MeasureFrom, part.MeasureTo = from, to
		partRead.MeasureFrom, partRead.MeasureTo = from, to
		if _, c, err := costsOfRun(&partRead); err == nil { // a part without tuples of a component says nothing of it
			rc.quarters = append(rc.quarters, c)
		}
		o, a, n := overheadOf(&part)
		if noSpin {
			_, a, n = overheadOf(&partRead)
		}
		if len(o) > 0 {
			mean, _ := stats.Mean(o)
			rc.overheadQ = append(rc.overheadQ, mean)
		}
		if n > 0 {
			rc.ackQ = append(rc.ackQ, a/n)
		}
	}
	return rc, nil
}

// poolTransfer is the transfer figures over runs: the workers' overhead (mean and spread over all
// measured workers), the workers' start (over runs), the acker's CPU per message (a ratio of sums: the
// runs with the most acks weigh most), each with its stated interval.
func poolTransfer(runs []runCosts) sim.TransferCosts {
	var t sim.TransferCosts
	var overhead, overheadRun, start []float64
	var overheadQ [][]float64
	for _, rc := range runs {
		overhead, start = append(overhead, rc.overhead...), append(start, rc.start)
		if mean, err := stats.Mean(rc.overhead); err == nil {
			overheadRun, overheadQ = append(overheadRun, mean), append(overheadQ, rc.overheadQ)
		}
	}
	t.WorkerOverheadCores, _ = stats.Mean(overhead)
	t.WorkerOverheadSD = sampleSD(overhead)
	t.WorkerOverheadPI = remeasure(t.WorkerOverheadCores, overheadRun, overheadQ)
	t.WorkerOverheadCores, t.WorkerOverheadSD = round(t.WorkerOverheadCores), round(t.WorkerOverheadSD)
	t.WorkerStartS, _ = stats.Mean(start)
	t.WorkerStartSD = sampleSD(start)
	t.WorkerStartPI = remeasure(t.WorkerStartS, start, nil)
	t.WorkerStartS, t.WorkerStartSD = round(t.WorkerStartS), round(t.WorkerStartSD)
	t.AckCPUS, t.AckCPUPI = poolAcks(runs)
	return t
}

// poolAcks is the acker's CPU per message over runs (a ratio of sums: the runs with the most acks weigh
// most) and its stated interval; 0 and nil without acks. Per topology too: at saturation an acker's
// thread gets its share of its node's CPU like any executor's, so its CPU per message follows the
// topology (the Throughput chain's ackers read several times WordCount's), and a figure pooled over
// topologies fits none of them.
func poolAcks(runs []runCosts) (float64, *sim.Interval) {
	var perRun []float64
	var parts [][]float64
	var cpu, messages float64
	for _, rc := range runs {
		if rc.messages > 0 {
			perRun, parts = append(perRun, rc.ackerCPU/rc.messages), append(parts, rc.ackQ)
		}
		cpu, messages = cpu+rc.ackerCPU, messages+rc.messages
	}
	if messages == 0 {
		return 0, nil
	}
	s := cpu / messages
	return round(s), remeasure(s, perRun, parts)
}

// sampleSD is xs's sample standard deviation, 0 for fewer than two.
func sampleSD(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	sd, _ := stats.StandardDeviationSample(xs)
	return sd
}

// costsOfRun reads one run's window as component costs.
func costsOfRun(r *harness.RunResult) (topologies.StormMain, map[string]sim.ComponentCost, error) {
	i := slices.IndexFunc(topologies.StormMains(), func(m topologies.StormMain) bool { return m.Class == r.Spec.Topology.MainClass })
	if i < 0 {
		return topologies.StormMain{}, nil, fmt.Errorf("main class %s is not one of the project's topologies", r.Spec.Topology.MainClass)
	}
	main := topologies.StormMains()[i]
	tasks := map[string][]int{}
	for _, e := range r.Executors {
		for t := e.Start; t <= e.End; t++ {
			tasks[e.Component] = append(tasks[e.Component], t)
		}
	}
	c := capture.FromRecords(main.Spec(1), tasks, windowReports(r))
	out := map[string]sim.ComponentCost{}
	for _, cc := range c.Components {
		comp, err := sim.CapturedComponent(c, cc)
		if err != nil {
			return main, nil, err
		}
		cost := sim.ComponentCost{Spout: comp.Spout, CPUMicros: comp.Service.Mean * 1e6, Bytes: cc.TupleBytes}
		k := 0
		for _, s := range c.Streams {
			if s.From == cc.Name {
				cost.Streams = append(cost.Streams, sim.StreamCost{To: s.To, PerTuple: comp.Streams[k].PerTuple, Grouping: string(s.Grouping)})
				k++
			}
		}
		out[cc.Name] = cost
	}
	return main, out, nil
}

// windowReports are r's reports inside its window.
func windowReports(r *harness.RunResult) []protocol.WorkerReport {
	var in []protocol.WorkerReport
	for _, rep := range r.Reports {
		if rep.Topology == r.TopologyID && rep.TimeMs > r.MeasureFrom && rep.TimeMs <= r.MeasureTo {
			in = append(in, rep)
		}
	}
	return in
}

// MeasureOption changes how MeasureCosts reads the runs.
type MeasureOption func(*measureOptions)

type measureOptions struct{ withoutSpin bool }

// WithoutSpin reads each bolt's and acker's thread CPU less what it counted idle in Storm's wait strategy
// (spin_ns, CountsSpin), so that the model, which charges that spinning apart (sim.Config.IdleSpin), does
// not charge it twice; the workers' overhead (their process less all their threads) is read as before.
// MeasureCosts refuses a run set of which some run did not count it.
func WithoutSpin() MeasureOption { return func(o *measureOptions) { o.withoutSpin = true } }

// withoutSpin is a copy of r whose reports' thread CPU is less the idle CPU they counted (lessSpin).
func withoutSpin(r *harness.RunResult) *harness.RunResult {
	c := *r
	c.Reports = lessSpin(r.Reports)
	return &c
}

// lessSpin is reps with each thread's CPU less what it spent idle in the wait strategy (spin_ns and the
// estimate of the last parks, spin_last_ns, where the reports carry them). reps is not changed.
func lessSpin(reps []protocol.WorkerReport) []protocol.WorkerReport {
	out := slices.Clone(reps)
	for i := range out {
		out[i].CPU = slices.Clone(out[i].CPU)
		for k, c := range out[i].CPU {
			out[i].CPU[k].CPUNs, out[i].CPU[k].SpinNs, out[i].CPU[k].SpinLastNs = max(0, c.CPUNs-c.Idle()), 0, 0
		}
	}
	return out
}

// spinApart says in m's provenance how the components' CPU was read: less the idle CPU the threads
// counted. Whether the model charges that spinning (idle_spin_cores) is measureSpin's to say.
func spinApart(m *sim.CostModel) {
	m.Provenance.Method += "; each bolt's and acker's thread CPU is read less what it counted idle in Storm's wait strategy " +
		"(spin_ns; the model charges that spinning apart, idle_spin_cores)"
}

// CountsSpin tells whether r's reports count their threads' idle CPU: some task's spin_ns above 0 in the
// window (a real run's instrumented bolts, or a simulated run).
func CountsSpin(r *harness.RunResult) bool {
	for _, rep := range windowReports(r) {
		for _, c := range rep.CPU {
			if c.SpinNs > 0 {
				return true
			}
		}
	}
	return false
}

// overheadOf is, per worker of r, the cores its process used besides its executor threads (mean over
// the window), and the ackers' thread CPU and the ack messages they got: the tuples the reports show
// sent to acker tasks (Storm's acking: the spout's init and each bolt's ack), or, in reports that do not
// show the acking streams, one per tree emitted and one per tuple a bolt executed. The completions back
// to the spouts are left out.
func overheadOf(r *harness.RunResult) (perWorker []float64, ackerCPU, messages float64) {
	acker := map[int]bool{}
	for _, e := range r.Executors {
		for t := e.Start; t <= e.End; t++ {
			acker[t] = isAcker(e.Component)
		}
	}
	cpu, span := map[string]float64{}, map[string]float64{}
	var toAckers, toBolts, trees float64
	for _, rep := range windowReports(r) {
		k := fmt.Sprintf("%s:%d", rep.Host, rep.Port)
		threads := 0.0
		for _, c := range rep.CPU {
			threads += float64(c.CPUNs) / 1e9
			if acker[c.Task] {
				ackerCPU += float64(c.CPUNs) / 1e9
			}
		}
		cpu[k] += rep.WorkerCPUPercent/100*rep.IntervalS - threads
		span[k] += rep.IntervalS
		for _, t := range rep.Traffic {
			if acker[t.Dst] {
				toAckers += float64(t.Count)
			} else {
				toBolts += float64(t.Count)
			}
		}
		trees += float64(rep.Acked)
	}
	for _, k := range slices.Sorted(maps.Keys(cpu)) {
		perWorker = append(perWorker, max(0, cpu[k]/span[k]))
	}
	if messages = toAckers; messages == 0 {
		messages = toBolts + trees // each tuple a bolt executes is acked, each tree's init
	}
	return perWorker, ackerCPU, messages
}

func workArgs(main topologies.StormMain, args []string) map[string]string {
	f := parseFlags(append(slices.Clone(main.DefaultArgs), args...))
	out := map[string]string{}
	for _, k := range workFlags[main.Name] {
		out[k] = f[k]
	}
	return out
}

// pool is the components' costs over runs: means, the CPU's standard deviation between runs and its
// stated interval.
func pool(runs []runCosts) map[string]sim.ComponentCost {
	out := map[string]sim.ComponentCost{}
	for name, first := range runs[0].comps {
		var cpu, size []float64
		quarters := make([][]float64, len(runs))
		per := make([]float64, len(first.Streams))
		for i, rc := range runs {
			c := rc.comps[name]
			cpu, size = append(cpu, c.CPUMicros), append(size, c.Bytes)
			for _, q := range rc.quarters {
				if qc, ok := q[name]; ok {
					quarters[i] = append(quarters[i], qc.CPUMicros)
				}
			}
			for i := range per {
				if i < len(c.Streams) {
					per[i] += c.Streams[i].PerTuple / float64(len(runs))
				}
			}
		}
		c := first
		c.Streams = slices.Clone(first.Streams)
		c.CPUMicros, _ = stats.Mean(cpu)
		c.Bytes, _ = stats.Mean(size)
		c.CPUMicrosSD = sampleSD(cpu)
		c.CPUMicrosPI = remeasure(c.CPUMicros, cpu, quarters)
		for i := range c.Streams {
			c.Streams[i].PerTuple = round(per[i])
		}
		c.CPUMicros, c.CPUMicrosSD, c.Bytes = round(c.CPUMicros), round(c.CPUMicrosSD), round(c.Bytes)
		out[name] = c
	}
	return out
}

// uncertaintyMethod is how remeasure computes a cost's stated interval, as the cost-model file says it.
const uncertaintyMethod = "each *_pi95 is where a measurement of the same configuration from as many runs (n) falls with 95% " +
	"probability: the figure +- t(0.975, df) * sqrt(2/n) * s, s the standard deviation of the runs' figures (df n-1), " +
	"floored by the same from the spread within the runs (each window cut into 4 parts: s = the parts' pooled " +
	"standard deviation / 2, df 3n); from one run only that floor, which leaves out how runs differ from each other " +
	"(placement, rate) and is too narrow where they do; the worker start, one figure per run, has none from one run; " +
	"sizes and tuples per tuple have none"

// remeasure is the 95% interval around center in which a measurement of the same configuration from as
// many runs falls: center ± t(0.975, df)·√(2/n)·s (the difference of two means of n runs), s the
// runs' standard deviation (df n-1), floored by the same half-width from what the spread of each run's
// parts says a run's figure varies by (s_w/√k, df Σ(k-1)). With neither (one run, no parts) it is
// nil: nothing to say. A cost is not negative, so the interval starts at 0 at the least.
func remeasure(center float64, perRun []float64, parts [][]float64) *sim.Interval {
	n := len(perRun)
	if n == 0 {
		return nil
	}
	t := func(df int) float64 { return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975) }
	half, said := 0.0, false
	if n > 1 {
		half, said = t(n-1)*sampleSD(perRun), true
	}
	if w, df := withinRun(parts); df > 0 {
		half, said = max(half, t(df)*w), true
	}
	if !said {
		return nil
	}
	half *= math.Sqrt(2 / float64(n))
	return &sim.Interval{Lo: roundDown(max(0, center-half)), Hi: roundUp(center + half)}
}

// withinRun is the standard deviation of a run's figure that the spread of its parts implies (pooled
// over runs: s_w/√k, k the mean number of parts) and its degrees of freedom.
func withinRun(parts [][]float64) (float64, int) {
	ss, df, k := 0.0, 0, 0
	for _, p := range parts {
		if len(p) < 2 {
			continue
		}
		mean, _ := stats.Mean(p)
		for _, x := range p {
			ss += (x - mean) * (x - mean)
		}
		df, k = df+len(p)-1, k+len(p)
	}
	if df == 0 {
		return 0, 0
	}
	runs := k - df // one per run with parts
	return math.Sqrt(ss/float64(df)) / math.Sqrt(float64(k)/float64(runs)), df
}

// roundDown and roundUp keep 4 significant digits, outward: a rounded interval still holds its figure.
func roundDown(x float64) float64 { return roundWith(x, math.Floor) }
func roundUp(x float64) float64   { return roundWith(x, math.Ceil) }

func roundWith(x float64, f func(float64) float64) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return f(x*p) / p
}

// round keeps 4 significant digits: the file is read by people too.
func round(x float64) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// describe is one line of where m comes from.
func describe(m *sim.CostModel) string {
	p := m.Provenance
	s := fmt.Sprintf("%s: measured on %s (%s), %s, commit %s, %d runs", m.Name, p.Cluster, p.Host, p.Date, p.Commit, len(p.Runs))
	if len(p.Missing) > 0 {
		s += "; not measured (charged as zero): " + strings.Join(p.Missing, ", ")
	}
	return s
}
