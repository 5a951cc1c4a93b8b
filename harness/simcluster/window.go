package simcluster

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/measure"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
)

// window runs the model one report interval at a time: the workers' reports go to the scheduler
// service (a dynamic scheduler's load table) and to the run; the window opens, as on a real cluster,
// once throughput is steady (measure.SteadyNow) or at the maximum warm-up, and closes Measure later.
func (r *simRun) window(ctx context.Context, res *harness.RunResult) error {
	step := r.rt.intervalS
	maxWarm, length := r.spec.WarmUp.Seconds(), r.spec.Measure.Seconds()
	open := -1.0
	for k := 1; ; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.t = float64(k) * step
		r.x.Advance(r.t)
		r.interval(step)
		if err := r.reschedule(ctx); err != nil {
			return err
		}
		if open < 0 {
			s, ok := measure.SteadyNow(r.reports)
			if (ok && s.Steady) || r.t >= maxWarm {
				open = r.t
				res.WarmUp = harness.WarmUp{MaxS: maxWarm, S: r.t, Steady: ok && s.Steady, Rates: s.Rates, OfferedRate: s.OfferedRate}
				res.MeasureFrom = r.now().UnixMilli()
				r.measuring = true
				r.openLoad()
			}
			continue
		}
		r.accountLoad()
		if err := r.faultsAt(res, res.MeasureFrom); err != nil {
			return err
		}
		if r.t >= open+length-1e-9 {
			res.MeasureTo = r.now().UnixMilli()
			return nil
		}
	}
}

// interval turns the model's counters of the last step into one report per worker, as the
// instrumentation writes them, and hands them to the service; it returns the dataset spout tasks done.
func (r *simRun) interval(step float64) (done int) {
	counts := r.x.Take()
	views := make([]countsView, len(counts))
	for i, c := range counts {
		views[i] = countsView{executed: c.Executed, acked: c.Acked, sent: c.Sent, spout: i < len(r.modelTasks) && r.isSpout(i)}
	}
	r.flow.add(views)
	bySlot := map[slot]*protocol.WorkerReport{}
	get := func(s slot) *protocol.WorkerReport {
		if bySlot[s] == nil {
			bySlot[s] = &protocol.WorkerReport{Topology: r.id, Host: r.c.named.Nodes[s.node].Name, Port: s.port,
				TimeMs: r.now().UnixMilli(), IntervalS: step, WorkerStartMs: epoch.UnixMilli()}
		}
		return bySlot[s]
	}
	workers := r.x.Workers()
	lat, lags := map[slot][]hdrPair{}, map[slot][]hdrPair{}
	procs := map[slot][]*hdrhistogram.Histogram{}
	for i, c := range counts {
		w := r.slotOf(i, workers[i])
		rep := get(w)
		task := r.taskOf(i)
		if r.deadlineRecords(rep, task, c) {
			done++
		}
		if c.Processing != nil {
			procs[w] = append(procs[w], c.Processing)
		}
		rep.CPU = append(rep.CPU, protocol.TaskCPU{Task: task, CPUNs: int64(c.CPU * 1e9), SpinNs: int64(c.Spin * 1e9), Spells: c.Spells})
		rep.WorkerCPUPercent += 100 * c.CPU / step
		for _, to := range slices.Sorted(maps.Keys(c.Sent)) {
			rep.Traffic = append(rep.Traffic, protocol.TaskTraffic{Src: task, Dst: r.taskOf(to), Count: c.Sent[to]})
		}
		rep.Acked += c.Acked
		rep.Failed += c.Failed
		if c.Latency != nil {
			lat[w] = append(lat[w], hdrPair{c.Latency, c.LatencyIntended})
		}
		if r.rt.openLoop() && i < len(r.modelTasks) && r.isSpout(i) {
			r.offered[task] += c.Offered
			r.emitted[task] += c.Executed
			rep.SpoutLoad = append(rep.SpoutLoad, protocol.SpoutLoad{Task: task, OfferedTotal: r.offered[task], EmittedTotal: r.emitted[task]})
			if c.SendLag != nil {
				lags[w] = append(lags[w], hdrPair{c.SendLag, c.SendLag})
			}
		}
	}
	r.addThreads(get, step)
	r.addOverhead(get, step)
	r.nodeReports(step)
	for _, w := range slices.SortedFunc(maps.Keys(bySlot), compareSlots) {
		rep := bySlot[w]
		r.totals[w] += rep.Acked
		r.failedTotals[w] += rep.Failed
		rep.AckedTotal, rep.FailedTotal = r.totals[w], r.failedTotals[w]
		rep.LatencyHist = encodeMerged(lat[w], false)
		rep.ProcessingHist = encodeProcessing(procs[w])
		if r.rt.openLoop() {
			rep.LatencyIntendedHist = encodeMerged(lat[w], true)
			rep.SendLagHist = encodeMerged(lags[w], false)
		}
		r.reports = append(r.reports, *rep)
		if r.svc != nil {
			_ = r.svc.Report(rep) // a report the service refuses is one a real worker's would be too
		}
	}
	return done
}

// addThreads adds each worker's messaging threads of the last step (sim.Config.Messaging) to its
// report, as thread groups named as a real worker's reporter names them, and to its process CPU.
func (r *simRun) addThreads(get func(slot) *protocol.WorkerReport, step float64) {
	for w, t := range r.x.TakeThreads() {
		if w >= len(r.slots) { // an acker's former worker (sim.Sim.Move keeps the ackers)
			break
		}
		rep := get(r.slots[w])
		r.countFrames(r.slots[w], t)
		for _, g := range []struct {
			name string
			cpu  float64
		}{{sim.TransferThread, t.TransferCPU}, {sim.NettyThread, t.NettyCPU}} {
			rep.ThreadGroups = append(rep.ThreadGroups, protocol.ThreadGroupCPU{Name: g.name, Threads: 1, CPUNs: int64(g.cpu * 1e9)})
			rep.WorkerCPUPercent += 100 * g.cpu / step
		}
	}
}

// countFrames adds worker s's frames of the last step to the window's.
func (r *simRun) countFrames(s slot, t sim.ThreadCounts) {
	if !r.measuring {
		return
	}
	if r.frames == nil {
		r.frames = map[slot]*protocol.WorkerFrames{}
	}
	f := r.frames[s]
	if f == nil {
		f = &protocol.WorkerFrames{Worker: fmt.Sprintf("%s:%d", r.c.named.Nodes[s.node].Name, s.port)}
		r.frames[s] = f
	}
	f.Sent, f.SentMsgs, f.Received, f.ReceivedMsgs = f.Sent+t.SentFrames, f.SentMsgs+t.SentMsgs, f.Received+t.RecvFrames, f.ReceivedMsgs+t.RecvMsgs
	f.SentWakes, f.ReceivedWakes = f.SentWakes+t.SendWakes, f.ReceivedWakes+t.RecvWakes
}

// addOverhead adds each node's worker overhead of the last step to its workers' process CPU, in equal
// shares (every worker on a node gets the same share of it).
func (r *simRun) addOverhead(get func(slot) *protocol.WorkerReport, step float64) {
	used, workers := r.x.Overhead()
	if r.overhead == nil {
		r.overhead = make([]float64, len(used))
	}
	for _, s := range r.slots {
		if n := workers[s.node]; n > 0 {
			get(s).WorkerCPUPercent += 100 * (used[s.node] - r.overhead[s.node]) / float64(n) / step
		}
	}
	copy(r.overhead, used)
}

// isSpout says whether model executor i (not an acker) is a spout's.
func (r *simRun) isSpout(i int) bool {
	return r.rt.costs.Components[r.componentOf(r.modelTasks[i])].Spout
}

// slotOf is the slot of model executor i on worker w: an acker stays on the slots the topology
// started on (sim.Sim.Move).
func (r *simRun) slotOf(i, w int) slot {
	if i >= len(r.modelTasks) {
		return r.ackerSlots[w]
	}
	return r.slots[w]
}

func compareSlots(a, b slot) int {
	if a.node != b.node {
		return a.node - b.node
	}
	return a.port - b.port
}

// taskOf is model executor i's task: the topology's executors, then the ackers (in task order).
func (r *simRun) taskOf(i int) int {
	if i < len(r.modelTasks) {
		return r.modelTasks[i]
	}
	return r.first["__acker"] + (i - len(r.modelTasks))
}

// reschedule offers a dynamic scheduler the running topology each interval (the service decides
// when a round is due) and moves the executors where it says, at once.
func (r *simRun) reschedule(ctx context.Context) error {
	if !r.dynamic {
		return nil
	}
	dec, err := r.decide(ctx, r.snapshot())
	if err != nil {
		return err
	}
	slots, execSlot, assign, ok, err := r.placed(dec)
	if err != nil || !ok || slices.Equal(assign, r.assign) {
		return err
	}
	var nodes []int
	for _, s := range slots {
		nodes = append(nodes, s.node)
	}
	restart := r.restarted(slots, execSlot)
	if err := r.x.Move(nodes, execSlot); err != nil {
		return err
	}
	if err := r.x.Restart(restart, r.workerStart); err != nil {
		return err
	}
	r.slots, r.execSlot, r.assign = slots, execSlot, assign
	r.moves++
	return nil
}

// restarted lists the model executors whose worker Storm restarts for a new placement: those in a
// slot whose set of executors changed (a supervisor relaunches such a worker; one with the same
// executors on the same slot keeps running).
func (r *simRun) restarted(slots []slot, execSlot []int) []int {
	set := func(ss []slot, es []int) map[slot][]int {
		m := map[slot][]int{}
		for i, w := range es {
			m[ss[w]] = append(m[ss[w]], i)
		}
		return m
	}
	before, after := set(r.slots, r.execSlot), set(slots, execSlot)
	var out []int
	for s, execs := range after {
		if !slices.Equal(before[s], execs) {
			out = append(out, execs...)
		}
	}
	slices.Sort(out)
	return out
}
