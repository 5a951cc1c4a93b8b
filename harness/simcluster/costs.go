package simcluster

import (
	"bytes"
	_ "embed"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/capture"
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

// workFlags are, per main, the flags that change a tuple's work: costs measured at one value do not
// hold at another (--work-us is added to the bolts' costs instead).
var workFlags = map[string][]string{
	"throughput": {"payload-bytes"},
	"kmeans":     {"k", "dims"},
}

// MeasureCosts derives a cost model from recorded runs of the project's topologies on a real cluster
// (valid runs only; each run's window, as a capture of it: capture.FromRecords): per topology and
// component, the CPU per tuple (the mean over runs, and their standard deviation as its uncertainty),
// the tuples each stream carries per tuple and the tuples' size. Runs of one topology at different work
// flags are refused: measure them into separate models.
func MeasureCosts(name string, runs []*harness.RunResult, prov sim.CostProvenance) (*sim.CostModel, error) {
	m := &sim.CostModel{Format: sim.CostFormat, Name: name, Provenance: prov, Topologies: map[string]sim.TopologyCosts{}}
	per := map[string][]map[string]sim.ComponentCost{} // class -> one map per run
	var overhead, start []float64
	var ackerCPU, messages float64
	for _, r := range runs {
		if r.Validity.Level == harness.Invalid {
			continue
		}
		main, comps, err := costsOfRun(r)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.Spec.Topology.Name, err)
		}
		t := m.Topologies[main.Class]
		wa := workArgs(main, r.Spec.Topology.Args)
		if t.Runs > 0 && !maps.Equal(t.WorkArgs, wa) {
			return nil, fmt.Errorf("run %s has %s at %v, earlier runs at %v: measure each setting into its own cost model", r.Spec.Topology.Name, main.Name, wa, t.WorkArgs)
		}
		t.WorkArgs, t.Runs = wa, t.Runs+1
		m.Topologies[main.Class] = t
		per[main.Class] = append(per[main.Class], comps)
		start = append(start, r.Phases.StartS)
		o, a, n := overheadOf(r)
		overhead, ackerCPU, messages = append(overhead, o...), ackerCPU+a, messages+n
		m.Provenance.Runs = append(m.Provenance.Runs, fmt.Sprintf("%s under %s on %s at %s", main.Name, r.Spec.Scheduler, r.Cluster, r.StartedAt.UTC().Format(time.RFC3339)))
	}
	if len(per) == 0 {
		return nil, fmt.Errorf("no valid run of the project's topologies among %d runs: record some (stormlab run --out DIR, or an experiment's folder)", len(runs))
	}
	m.Transfer.WorkerOverheadCores, _ = stats.Mean(overhead)
	m.Transfer.WorkerOverheadSD, _ = stats.StandardDeviationSample(overhead)
	m.Transfer.WorkerOverheadCores, m.Transfer.WorkerOverheadSD = round(m.Transfer.WorkerOverheadCores), round(m.Transfer.WorkerOverheadSD)
	m.Transfer.WorkerStartS, _ = stats.Mean(start)
	m.Transfer.WorkerStartSD, _ = stats.StandardDeviationSample(start)
	m.Transfer.WorkerStartS, m.Transfer.WorkerStartSD = round(m.Transfer.WorkerStartS), round(m.Transfer.WorkerStartSD)
	if messages > 0 { // pooled as a ratio of sums: the runs with the most acks weigh most
		m.Transfer.AckCPUS = round(ackerCPU / messages)
	}
	for class, rs := range per {
		t := m.Topologies[class]
		t.Components = pool(rs)
		m.Topologies[class] = t
	}
	return m, nil
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

// overheadOf is, per worker of r, the cores its process used besides its executor threads (mean over
// the window), and the ackers' thread CPU and the ack messages they got, taken as one per tree emitted
// and one per tuple a bolt executed (Storm's acking: the spout's init and each bolt's ack; the
// completions back to the spouts are left out).
func overheadOf(r *harness.RunResult) (perWorker []float64, ackerCPU, messages float64) {
	acker := map[int]bool{}
	for _, e := range r.Executors {
		for t := e.Start; t <= e.End; t++ {
			acker[t] = isAcker(e.Component)
		}
	}
	cpu, span := map[string]float64{}, map[string]float64{}
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
			messages += float64(t.Count) // each tuple a bolt executes is acked
		}
		messages += float64(rep.Acked) // each tree's init
	}
	for _, k := range slices.Sorted(maps.Keys(cpu)) {
		perWorker = append(perWorker, max(0, cpu[k]/span[k]))
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

// pool is the components' costs over runs: means, and the CPU's standard deviation between runs.
func pool(runs []map[string]sim.ComponentCost) map[string]sim.ComponentCost {
	out := map[string]sim.ComponentCost{}
	for name, first := range runs[0] {
		var cpu, size []float64
		per := make([]float64, len(first.Streams))
		for _, r := range runs {
			c := r[name]
			cpu, size = append(cpu, c.CPUMicros), append(size, c.Bytes)
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
		if len(cpu) > 1 {
			c.CPUMicrosSD, _ = stats.StandardDeviationSample(cpu)
		}
		for i := range c.Streams {
			c.Streams[i].PerTuple = round(per[i])
		}
		c.CPUMicros, c.CPUMicrosSD, c.Bytes = round(c.CPUMicros), round(c.CPUMicrosSD), round(c.Bytes)
		out[name] = c
	}
	return out
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
