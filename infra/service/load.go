package service

import (
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/schedulers"
)

// maxReports bounds the raw reports kept (oldest dropped first): about
// 10 workers reporting every 10 s for 2.5 days.
const maxReports = 200_000

type workerKey struct {
	host string
	port int
}

// topoMeasure is what the workers of one topology reported.
type topoMeasure struct {
	latest   map[workerKey]*protocol.WorkerReport // newest report per worker
	newestMs int64
	// startMs is when the earliest reported interval began (TimeMs -
	// IntervalS): the origin of the monitor's clock (see monitorNowMs).
	startMs   int64
	acked     int64
	failed    int64
	traffic   map[[2]int]int64
	cpu       map[int]int64
	deadlines map[int]*protocol.TaskDeadline
	counts    []protocol.CountSample
	latency   []protocol.LatencySample
	workerCPU []protocol.WorkerSample
	// latencyHist sums every complete-latency histogram the workers sent
	// (nil until one arrives); latencyBad counts those that could not be
	// merged exactly (malformed, another layout). GET /metrics reads both.
	latencyHist *hdrhistogram.Histogram
	latencyBad  int64
}

type measurements struct {
	reports []protocol.WorkerReport
	dropped int64
	topos   map[string]*topoMeasure
}

func newMeasurements() *measurements {
	return &measurements{topos: map[string]*topoMeasure{}}
}

func (m *measurements) add(r *protocol.WorkerReport) {
	if len(m.reports) >= maxReports {
		n := len(m.reports) / 10
		m.reports = append(m.reports[:0], m.reports[n:]...)
		m.dropped += int64(n)
	}
	m.reports = append(m.reports, *r)
	t := m.topos[r.Topology]
	if t == nil {
		t = &topoMeasure{
			latest:    map[workerKey]*protocol.WorkerReport{},
			traffic:   map[[2]int]int64{},
			cpu:       map[int]int64{},
			deadlines: map[int]*protocol.TaskDeadline{},
		}
		m.topos[r.Topology] = t
	}
	rc := *r
	t.latest[workerKey{r.Host, r.Port}] = &rc
	if r.TimeMs > t.newestMs {
		t.newestMs = r.TimeMs
	}
	if begin := r.TimeMs - int64(r.IntervalS*1000); t.startMs == 0 || begin < t.startMs {
		t.startMs = begin
	}
	t.acked += r.Acked
	t.failed += r.Failed
	for _, x := range r.Traffic {
		t.traffic[[2]int{x.Src, x.Dst}] += x.Count
	}
	for _, x := range r.CPU {
		t.cpu[x.Task] += x.CPUNs
	}
	for _, x := range r.Deadlines {
		d := t.deadlines[x.Task]
		if d == nil {
			d = &protocol.TaskDeadline{Task: x.Task}
			t.deadlines[x.Task] = d
		}
		d.Count += x.Count
		d.Missed += x.Missed
		d.SumProcessingMs += x.SumProcessingMs
		d.SumQoS += x.SumQoS
		d.Sink = d.Sink || x.Sink
		if x.DeadlineMs > 0 {
			d.DeadlineMs = x.DeadlineMs
		}
		if x.StartMinMs > 0 && (d.StartMinMs == 0 || x.StartMinMs < d.StartMinMs) {
			d.StartMinMs = x.StartMinMs
		}
		d.StartMaxMs = max(d.StartMaxMs, x.StartMaxMs)
	}
	t.counts = append(t.counts, protocol.CountSample{TimeMs: r.TimeMs, IntervalS: r.IntervalS, Acked: r.Acked, Failed: r.Failed})
	if len(r.CompleteLatencyMs) > 0 {
		t.latency = append(t.latency, protocol.LatencySample{TimeMs: r.TimeMs, Ms: r.CompleteLatencyMs})
	}
	t.workerCPU = append(t.workerCPU, protocol.WorkerSample{TimeMs: r.TimeMs, Host: r.Host, Port: r.Port, CPUPercent: r.WorkerCPUPercent, MemoryMB: r.WorkerMemoryMB})
}

// decodeLatency decodes r's complete-latency histogram; nil, nil when the
// worker sent none. Called without s.mu: decoding is the costly part.
func decodeLatency(r *protocol.WorkerReport) (*hdrhistogram.Histogram, error) {
	if r.LatencyHist == "" || r.Lacks(protocol.FieldLatencyHist) {
		return nil, nil
	}
	return protocol.DecodeHistogram(r.LatencyHist, protocol.LatencyHistHighest)
}

// mergeLatency adds one report's decoded latency histogram h (or its
// decode error) to topology id's running sum; call after add. The sum is
// kept as reports arrive so that a scrape does not decode every stored
// report again.
func (m *measurements) mergeLatency(id string, h *hdrhistogram.Histogram, err error) {
	t := m.topos[id]
	switch {
	case t == nil || (h == nil && err == nil):
		return
	case err != nil:
		t.latencyBad++
		return
	}
	if t.latencyHist == nil {
		t.latencyHist = protocol.NewHistogram(protocol.LatencyHistHighest)
	}
	if t.latencyHist.Merge(h) > 0 {
		t.latencyBad++ // values outside the range: cannot happen with the checked layout
	}
}

// fresh returns the newest report of every worker that is not stale: at
// most three of its intervals (and at least 30 s) older than the
// topology's newest report.
func (t *topoMeasure) fresh() []*protocol.WorkerReport {
	var out []*protocol.WorkerReport
	for _, r := range t.latest {
		age := t.newestMs - r.TimeMs
		limit := int64(3 * r.IntervalS * 1000)
		if limit < 30_000 {
			limit = 30_000
		}
		if age <= limit {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Host != out[j].Host {
			return out[i].Host < out[j].Host
		}
		return out[i].Port < out[j].Port
	})
	return out
}

// taskInputs are the per-task inputs of the deadline-aware scheduler's
// monitor (Table 2 of "Dynamic Task Scheduling Scheme for Processing
// Real-Time Stream Data in Storm Environments") beyond CPU and traffic,
// from the fresh reports of one topology.
type taskInputs struct {
	// originMs is the monitor clock's origin (topoMeasure.startMs).
	originMs int64
	// startMs is T_start of eq. 1 per task: the epoch ms at which the
	// spout emitted the oldest tuple the task executed in its latest
	// interval (TaskDeadline.StartMinMs).
	startMs map[int]int64
	// size sums the sampled serialized tuple sizes per task (eqs. 5-6).
	size map[int]protocol.TaskTupleSize
}

// rates derives per-task CPU and task-to-task tuple rates from the fresh
// reports of topology id; nil when nothing was reported.
func (m *measurements) rates(id string) *rates {
	t := m.topos[id]
	if t == nil {
		return nil
	}
	r := &rates{taskCPU: map[int]float64{}, deadline: map[int]float64{},
		in: taskInputs{originMs: t.startMs, startMs: map[int]int64{}, size: map[int]protocol.TaskTupleSize{}}}
	fresh := t.fresh()
	n := 0
	for _, w := range fresh {
		n += len(w.Traffic)
	}
	r.traffic = make([]taskRate, 0, n)
	for _, w := range fresh {
		if !w.Lacks(protocol.FieldTaskCPU) {
			for _, x := range w.CPU {
				r.taskCPU[x.Task] += float64(x.CPUNs) / (w.IntervalS * 1e9) * 100
			}
		}
		for _, x := range w.Traffic {
			r.traffic = append(r.traffic, taskRate{x.Src, x.Dst, float64(x.Count) / w.IntervalS})
		}
		for _, x := range w.Deadlines {
			// T_dline as the topology set it for the task's class; reports
			// from workers that predate the field give it as the mean
			// sum(p)/sum(p/d), exact for a constant deadline.
			switch {
			case x.DeadlineMs > 0:
				r.deadline[x.Task] = x.DeadlineMs
			case x.SumQoS > 0:
				r.deadline[x.Task] = x.SumProcessingMs / x.SumQoS
			}
			if x.Count > 0 && x.StartMinMs > 0 {
				if s, ok := r.in.startMs[x.Task]; !ok || x.StartMinMs < s {
					r.in.startMs[x.Task] = x.StartMinMs
				}
			}
		}
		if !w.Lacks(protocol.FieldTupleSizes) {
			for _, x := range w.TupleSizes {
				s := r.in.size[x.Task]
				s.Task = x.Task
				s.InSamples += x.InSamples
				s.InBytes += x.InBytes
				s.OutSamples += x.OutSamples
				s.OutBytes += x.OutBytes
				r.in.size[x.Task] = s
			}
		}
	}
	return r
}

// monitorNowMs is "Now" of the per-task monitor (Load.NowMs, eq. 1 of the
// deadline-aware scheduler paper) for topology id: milliseconds since its
// earliest reported interval began. TaskLoad.StartMs (T_start) is on the
// same clock, so eq. 1's Now / (T_start + T_dline) compares the present
// with the time the task's oldest tuple is due: near 1 when it is due now,
// above 1 when it is late. 0 before any report.
func (m *measurements) monitorNowMs(id string, now int64) int64 {
	t := m.topos[id]
	if t == nil || t.startMs == 0 || now <= t.startMs {
		return 0
	}
	return now - t.startMs
}

// taskSupervisors maps every task of t to the supervisor running it.
func taskSupervisors(t *protocol.Topology) map[int]string {
	m := map[int]string{}
	for _, a := range t.Assignment {
		for task := a.Executor.Start; task <= a.Executor.End; task++ {
			m[task] = a.Supervisor
		}
	}
	return m
}

// taskLoad is the per-executor monitor (vertex indices of ix). Each row
// follows Table 2 of the deadline-aware scheduler paper:
//   - CPU (CPU_use): percent of one core, the executor thread's CPU time
//     over the interval (ThreadMXBean), summed over its tasks;
//   - Network (Network_use): tuples/s the executor sends to other
//     executors;
//   - StartMs (T_start, eq. 1): emit time of the oldest tuple the executor
//     executed in its latest interval, on the monitor clock (monitorNowMs);
//     0 when no tuple carried a T_start;
//   - DeadlineMs (T_dline, eq. 1): the deadline the topology set for the
//     executor's component;
//   - TupleSize (ST_size, eqs. 5-6): mean serialized size in bytes of the
//     sampled tuples the executor executed (its input); for spouts, which
//     execute none, of the tuples it emitted; 0 when none was sampled.
//
// Memory_use per task is not measured (a JVM's heap is not attributable to
// its threads); MemoryMB stays 0 and memory is known per worker only.
func taskLoad(t *protocol.Topology, ix *execIndex, r *rates) []schedulers.TaskLoad {
	if r.empty() {
		return nil
	}
	sup := taskSupervisors(t)
	out := make([]schedulers.TaskLoad, len(ix.execs))
	for v, e := range ix.execs {
		tl := schedulers.TaskLoad{Executor: v, Node: sup[e.Start]}
		var size protocol.TaskTupleSize
		start := int64(0)
		for task := e.Start; task <= e.End; task++ {
			tl.CPU += r.taskCPU[task]
			if d, ok := r.deadline[task]; ok {
				tl.DeadlineMs = d
			}
			if s, ok := r.in.startMs[task]; ok && (start == 0 || s < start) {
				start = s
			}
			if s, ok := r.in.size[task]; ok {
				size.InSamples += s.InSamples
				size.InBytes += s.InBytes
				size.OutSamples += s.OutSamples
				size.OutBytes += s.OutBytes
			}
		}
		if start > 0 && start > r.in.originMs {
			tl.StartMs = start - r.in.originMs
		}
		switch {
		case size.InSamples > 0:
			tl.TupleSize = float64(size.InBytes) / float64(size.InSamples)
		case size.OutSamples > 0:
			tl.TupleSize = float64(size.OutBytes) / float64(size.OutSamples)
		}
		out[v] = tl
	}
	for _, x := range r.traffic {
		a, okA := ix.vertex(x.src)
		b, okB := ix.vertex(x.dst)
		if okA && okB && a != b {
			out[a].Network += x.rate
		}
	}
	return out
}

// nodeLoad is the load table (Table 1 of the deadline-aware scheduler
// paper): one row per supervisor of snap (sorted by id), from the fresh
// reports of every topology. Nil before any report or snapshot.
//   - CPUUsed (CPU_use): the workers' process CPU on the node, percent of
//     the node's CPU capacity (supervisor.cpu.capacity);
//   - MemoryTotalMB / MemoryFreeMB: the node's memory capacity, and that
//     minus the used heap + non-heap of its workers;
//   - NetworkLoad: tuples/s sent from executors on the node to executors
//     on other nodes.
//
// CPUThroughput (CPU_avg-th, node performance) is left 0 here: it is the
// node's capacity, which the service sets from the CPU quota; the tuples a
// node happens to receive are its load, not its performance.
func (m *measurements) nodeLoad(snap *protocol.Snapshot) []schedulers.NodeLoad {
	if snap == nil || len(m.topos) == 0 {
		return nil
	}
	rows := map[string]*schedulers.NodeLoad{}
	byHost := map[string]string{}
	sups := append([]protocol.Supervisor(nil), snap.Supervisors...)
	sort.Slice(sups, func(i, j int) bool { return sups[i].ID < sups[j].ID })
	capacity := map[string]float64{}
	for _, s := range sups {
		rows[s.ID] = &schedulers.NodeLoad{Node: s.ID, MemoryTotalMB: s.MemoryMB, MemoryFreeMB: s.MemoryMB}
		capacity[s.ID] = s.CPU
		if _, ok := byHost[s.Host]; !ok {
			byHost[s.Host] = s.ID
		}
	}
	cpuUsed := map[string]float64{} // percent of one core
	for i := range snap.Topologies {
		t := &snap.Topologies[i]
		tm := m.topos[t.ID]
		if tm == nil {
			continue
		}
		sup := taskSupervisors(t)
		for _, w := range tm.fresh() {
			id, ok := byHost[w.Host]
			if !ok {
				continue
			}
			if !w.Lacks(protocol.FieldWorkerCPU) {
				cpuUsed[id] += w.WorkerCPUPercent
			}
			if !w.Lacks(protocol.FieldWorkerMemory) {
				rows[id].MemoryFreeMB -= w.WorkerMemoryMB
			}
			for _, x := range w.Traffic {
				rate := float64(x.Count) / w.IntervalS
				// The sender's node may be gone from snap (a killed supervisor
				// whose executors the assignment still lists): it has no row.
				if src, ok := sup[x.Src]; ok && rows[src] != nil {
					if dst, ok := sup[x.Dst]; ok && dst != src {
						rows[src].NetworkLoad += rate
					}
				}
			}
		}
	}
	out := make([]schedulers.NodeLoad, 0, len(sups))
	for _, s := range sups {
		row := rows[s.ID]
		if capacity[s.ID] > 0 {
			row.CPUUsed = 100 * cpuUsed[s.ID] / capacity[s.ID]
		}
		out = append(out, *row)
	}
	return out
}

// besideCPU is the process CPU (percent of one core) per host of the workers of every topology that
// snap does not list (ones the service does not place: e.g. the burner topologies of background load,
// placed by Storm's own schedulers), from their reports fresh at nowMs. Without it, a node's CPU use
// would miss every worker that the service does not schedule. A topology counts while its newest
// report is at most 3 report intervals (at least 30 s) old, so a killed one drops out.
func (m *measurements) besideCPU(snap *protocol.Snapshot, nowMs int64) map[string]float64 {
	listed := map[string]bool{}
	if snap != nil {
		for _, t := range snap.Topologies {
			listed[t.ID] = true
		}
	}
	out := map[string]float64{}
	for id, t := range m.topos {
		if listed[id] {
			continue
		}
		for _, w := range t.fresh() {
			limit := max(int64(3*w.IntervalS*1000), 30_000)
			if nowMs-w.TimeMs <= limit && !w.Lacks(protocol.FieldWorkerCPU) {
				out[w.Host] += w.WorkerCPUPercent
			}
		}
	}
	return out
}

// topologyState renders one topology's measurements; series cut at sinceMs.
func (m *measurements) topologyState(id string, sinceMs int64, snap *protocol.Snapshot) protocol.TopologyState {
	t := m.topos[id]
	st := protocol.TopologyState{ID: id, Acked: t.acked, Failed: t.failed,
		Traffic: []protocol.TaskTraffic{}, CPU: []protocol.TaskCPU{},
		Counts: []protocol.CountSample{}, WorkerCPU: []protocol.WorkerSample{}}
	for k, c := range t.traffic {
		st.Traffic = append(st.Traffic, protocol.TaskTraffic{Src: k[0], Dst: k[1], Count: c})
	}
	sort.Slice(st.Traffic, func(i, j int) bool {
		if st.Traffic[i].Src != st.Traffic[j].Src {
			return st.Traffic[i].Src < st.Traffic[j].Src
		}
		return st.Traffic[i].Dst < st.Traffic[j].Dst
	})
	for task, ns := range t.cpu {
		st.CPU = append(st.CPU, protocol.TaskCPU{Task: task, CPUNs: ns})
	}
	sort.Slice(st.CPU, func(i, j int) bool { return st.CPU[i].Task < st.CPU[j].Task })
	for _, d := range t.deadlines {
		st.Deadlines = append(st.Deadlines, *d)
	}
	sort.Slice(st.Deadlines, func(i, j int) bool { return st.Deadlines[i].Task < st.Deadlines[j].Task })
	st.Counts = appendSince(st.Counts, t.counts, sinceMs, func(x protocol.CountSample) int64 { return x.TimeMs })
	st.CompleteLatency = appendSince(st.CompleteLatency, t.latency, sinceMs, func(x protocol.LatencySample) int64 { return x.TimeMs })
	st.WorkerCPU = appendSince(st.WorkerCPU, t.workerCPU, sinceMs, func(x protocol.WorkerSample) int64 { return x.TimeMs })
	if snap != nil {
		for i := range snap.Topologies {
			tp := &snap.Topologies[i]
			if tp.ID != id {
				continue
			}
			ix, err := newExecIndex(tp)
			if err != nil {
				break
			}
			for v, tl := range taskLoad(tp, ix, m.rates(id)) {
				st.Executors = append(st.Executors, protocol.ExecutorLoad{
					Executor: ix.execs[v], Supervisor: tl.Node, CPU: tl.CPU, Network: tl.Network, DeadlineMs: tl.DeadlineMs,
					StartMs: tl.StartMs, TupleSize: tl.TupleSize,
				})
			}
		}
	}
	return st
}

// appendSince appends the records of src at or after sinceMs to dst (the
// ?since_ms= filter of /v1/state).
func appendSince[T any](dst, src []T, sinceMs int64, at func(T) int64) []T {
	for _, x := range src {
		if at(x) >= sinceMs {
			dst = append(dst, x)
		}
	}
	return dst
}
