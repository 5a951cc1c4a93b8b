package capture

import (
	"fmt"
	"slices"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/topologies"
)

// rates are the per-second figures of the worker reports over a window. Each worker's counts are
// divided by the time its reports in the window cover (the sum of their intervals), so a window that
// does not fall on report boundaries still averages over exactly the time counted. A task that moved
// to another worker during the window adds up its share from each.
type rates struct {
	cpuNs    map[int]float64    // task -> CPU ns per second
	traffic  map[[2]int]float64 // (src, dst) -> tuples executed per second
	emits    map[int]map[string]float64
	outBytes map[int]int64 // sampled emitted tuple sizes, raw sums
	outN     map[int]int64
	worker   map[int]string     // task -> "host:port" of the last report that carried it
	memMB    map[string]float64 // worker -> mean used memory over its reports that measured it
	// noSizes / noCPU: some worker said it could not measure them.
	noSizes, noCPU bool
}

func workerKey(r *protocol.WorkerReport) string { return fmt.Sprintf("%s:%d", r.Host, r.Port) }

// foldReports turns reports (already cut to one topology and the window) into rates.
func foldReports(reps []protocol.WorkerReport) rates {
	cover := map[string]float64{}
	for i := range reps {
		cover[workerKey(&reps[i])] += reps[i].IntervalS
	}
	r := rates{cpuNs: map[int]float64{}, traffic: map[[2]int]float64{}, emits: map[int]map[string]float64{},
		outBytes: map[int]int64{}, outN: map[int]int64{}, worker: map[int]string{}, memMB: workerMemory(reps)}
	for i := range reps {
		rep := &reps[i]
		w := workerKey(rep)
		span := cover[w]
		if span <= 0 {
			continue
		}
		r.noSizes = r.noSizes || rep.Lacks(protocol.FieldTupleSizes)
		r.noCPU = r.noCPU || rep.Lacks(protocol.FieldTaskCPU)
		for _, c := range rep.CPU {
			r.cpuNs[c.Task] += float64(c.CPUNs) / span
			r.worker[c.Task] = w
		}
		for _, t := range rep.Traffic {
			r.traffic[[2]int{t.Src, t.Dst}] += float64(t.Count) / span
		}
		for _, e := range rep.Emits {
			if r.emits[e.Task] == nil {
				r.emits[e.Task] = map[string]float64{}
			}
			r.emits[e.Task][e.Stream] += float64(e.Count) / span
		}
		for _, s := range rep.TupleSizes {
			r.outBytes[s.Task] += s.OutBytes
			r.outN[s.Task] += s.OutSamples
		}
	}
	return r
}

// workerMemory is each worker's mean used memory (heap and non-heap, MB) over its reports that measured
// it; a worker none of whose reports did is left out.
func workerMemory(reps []protocol.WorkerReport) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for i := range reps {
		if m := reps[i].WorkerMemoryMB; m > 0 {
			sum[workerKey(&reps[i])] += m
			n[workerKey(&reps[i])]++
		}
	}
	for w := range sum {
		sum[w] /= float64(n[w])
	}
	return sum
}

// taskMemory shares each worker's memory evenly among the tasks of comps that ran in it: a JVM cannot
// say which of its tasks holds what, and a scheduler that places a task places its share of the worker
// (Storm's own runtime included) with it. An estimate; 0 for a task whose worker's memory is unknown.
func taskMemory(comps []component, r *rates) map[int]float64 {
	per := map[string]int{}
	for _, k := range comps {
		for _, t := range k.tasks {
			if w, ok := r.worker[t]; ok {
				per[w]++
			}
		}
	}
	out := map[int]float64{}
	for _, k := range comps {
		for _, t := range k.tasks {
			if w, ok := r.worker[t]; ok && r.memMB[w] > 0 {
				out[t] = r.memMB[w] / float64(per[w])
			}
		}
	}
	return out
}

// meanOut is task's mean sampled emitted tuple size, 0 when unknown.
func (r *rates) meanOut(task int) float64 {
	if r.noSizes || r.outN[task] == 0 {
		return 0
	}
	return float64(r.outBytes[task]) / float64(r.outN[task])
}

// buildInstrumented makes the captured topology from the structure comps and the reports' rates.
// Stream rates come from the per-stream emit counts; from workers whose instrumentation predates
// them, from the tuples the subscribers executed (split evenly over the streams between the same two
// components, divided by the target's tasks for an all grouping), and the capture is then marked
// estimated.
func buildInstrumented(comps []component, r rates) *topologies.Captured {
	c := &topologies.Captured{Format: topologies.CapturedFormat}
	owner := map[int]int{} // task -> index in comps
	for i, k := range comps {
		for _, t := range k.tasks {
			owner[t] = i
		}
	}
	mem := taskMemory(comps, &r)
	for _, k := range comps {
		for _, t := range k.tasks {
			c.Vertices = append(c.Vertices, topologies.Vertex{ID: t, Weight: r.cpuNs[t] / 1e7, Component: k.name, MemoryMB: mem[t]})
		}
	}
	in := make([]float64, len(comps))
	pair := map[[2]int]float64{} // component index pair -> tuples executed per second
	for _, e := range sortedPairs(r.traffic) {
		a, okA := owner[e[0]]
		b, okB := owner[e[1]]
		if !okA || !okB { // acker or other system tasks
			continue
		}
		w := r.traffic[e]
		in[b] += w
		pair[[2]int{a, b}] += w
		edge := topologies.CapturedEdge{From: e[0], To: e[1], Weight: w}
		edge.BytesPerS = w * sizeOf(&r, comps[a], e[0])
		c.Edges = append(c.Edges, edge)
	}
	hasEmits := len(r.emits) > 0
	c.Streams = streams(comps)
	emitted := streamRates(c.Streams, comps, &r, pair)
	for i, k := range comps {
		c.Components = append(c.Components, componentFigures(k, c.Vertices, emitted[i], in[i], componentSize(&r, k)))
	}
	c.Provenance.Source = topologies.SourceInstrumented
	c.Provenance.Estimated = !hasEmits && len(c.Edges) > 0
	return c
}

// streamRates fills in each stream's rate and tuple size and returns each component's emit rate:
// from the per-stream emit counts, or without them (older instrumentation) from the tuples executed
// between the two components (pair), split evenly over the streams between them, over the target's
// tasks for an all grouping.
func streamRates(ss []topologies.CapturedStream, comps []component, r *rates, pair map[[2]int]float64) []float64 {
	idx := map[string]int{}
	for i, k := range comps {
		idx[k.name] = i
	}
	hasEmits := len(r.emits) > 0
	for i := range ss {
		s := &ss[i]
		a, b := idx[s.From], idx[s.To]
		if hasEmits {
			for _, t := range comps[a].tasks {
				s.TuplesPerS += r.emits[t][s.Stream]
			}
		} else {
			s.TuplesPerS = pair[[2]int{a, b}] / float64(countStreams(ss, s.From, s.To))
			if s.Grouping == topologies.GroupAll {
				s.TuplesPerS /= float64(len(comps[b].tasks))
			}
		}
		s.BytesPerTuple = componentSize(r, comps[a])
	}
	if !hasEmits {
		return emittedFromStreams(comps, ss, idx)
	}
	emitted := make([]float64, len(comps))
	for i, k := range comps {
		for _, t := range k.tasks {
			for _, v := range r.emits[t] {
				emitted[i] += v
			}
		}
	}
	return emitted
}

// sizeOf is task's mean emitted tuple size, or its component's when the task has no sample.
func sizeOf(r *rates, k component, task int) float64 {
	if s := r.meanOut(task); s > 0 {
		return s
	}
	return componentSize(r, k)
}

// componentSize is the mean sampled emitted tuple size over k's tasks, 0 when unknown.
func componentSize(r *rates, k component) float64 {
	if r.noSizes {
		return 0
	}
	var b, n int64
	for _, t := range k.tasks {
		b += r.outBytes[t]
		n += r.outN[t]
	}
	if n == 0 {
		return 0
	}
	return float64(b) / float64(n)
}

func countStreams(ss []topologies.CapturedStream, from, to string) int {
	n := 0
	for _, s := range ss {
		if s.From == from && s.To == to {
			n++
		}
	}
	return n
}

// emittedFromStreams estimates each component's emit rate as the sum of its streams' rates, each
// stream counted once however many components subscribe to it.
func emittedFromStreams(comps []component, ss []topologies.CapturedStream, idx map[string]int) []float64 {
	out := make([]float64, len(comps))
	seen := map[[2]string]bool{}
	for _, s := range ss {
		k := [2]string{s.From, s.Stream}
		if seen[k] {
			continue
		}
		seen[k] = true
		out[idx[s.From]] += s.TuplesPerS
	}
	return out
}

// componentFigures sums k's vertices into its captured figures. CPU per tuple divides by the tuples
// executed (bolts) or emitted (spouts), 0 when none passed.
func componentFigures(k component, vs []topologies.Vertex, emitPerS, execPerS, size float64) topologies.CapturedComponent {
	cc := topologies.CapturedComponent{Name: k.name, Kind: k.kind, Parallelism: len(k.execs), Tasks: slices.Clone(k.tasks),
		EmitPerS: emitPerS, TupleBytes: size}
	if k.kind == topologies.KindBolt {
		cc.ExecutePerS = execPerS
	}
	for _, v := range vs {
		if v.Component == k.name {
			cc.CPUPercent += v.Weight
			cc.MemoryMB += v.MemoryMB
		}
	}
	per := cc.ExecutePerS
	if k.kind == topologies.KindSpout {
		per = cc.EmitPerS
	}
	if per > 0 {
		cc.CPUMicrosPerTuple = cc.CPUPercent / 100 * 1e6 / per
	}
	return cc
}

// sortedPairs returns m's keys in (src, dst) order, so files come out the same for the same data.
func sortedPairs(m map[[2]int]float64) [][2]int {
	keys := make([][2]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return keys
}
