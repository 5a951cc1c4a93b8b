package simcluster

import (
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
)

// deadlineRecords adds what the instrumentation reports of one executor's interval beyond its
// traffic and CPU: a bolt's deadline records (protocol.TaskDeadline, T_start on the simulated clock),
// its tuples' sizes (every tuple sampled) and a dataset spout's done line (protocol.SpoutDone, in every report from then on). It says whether
// the executor is a dataset spout that is done.
func (r *simRun) deadlineRecords(rep *protocol.WorkerReport, task int, c sim.Counts) bool {
	if d := c.Deadlines; d.Count > 0 {
		rep.Deadlines = append(rep.Deadlines, protocol.TaskDeadline{Task: task, Count: d.Count, Missed: d.Missed,
			SumProcessingMs: 1000 * d.SumProcessingS, SumQoS: d.SumQoS, DeadlineMs: 1000 * r.deadlines[r.componentOf(task)],
			StartMinMs: r.epochMs(d.StartMin), StartMaxMs: r.epochMs(d.StartMax), Sink: d.Sink})
	}
	if z := c.Sizes; z.In > 0 || z.Out > 0 {
		rep.TupleSizes = append(rep.TupleSizes, protocol.TaskTupleSize{Task: task, InSamples: z.In, InBytes: z.InBytes, OutSamples: z.Out, OutBytes: z.OutBytes})
		rep.SizeSampleEvery = 1
	}
	if c.Done {
		rep.SpoutDone = append(rep.SpoutDone, protocol.SpoutDone{Task: task, Tuples: c.Emitted})
	}
	return c.Done
}

// epochMs is simulated time t (seconds) as the epoch milliseconds the workers' clocks give it
// (T_start is floored to the millisecond, as the instrumentation floors it).
func (r *simRun) epochMs(t float64) int64 {
	return epoch.UnixMilli() + int64(math.Floor(t*1000))
}

// encodeProcessing is a worker's histogram of its sinks' processing times (µs) as a report carries
// it; "" when its sinks executed none.
func encodeProcessing(hs []*hdrhistogram.Histogram) string {
	if len(hs) == 0 {
		return ""
	}
	all := protocol.NewHistogram(protocol.ProcessingHistHighest)
	for _, h := range hs {
		all.Merge(h)
	}
	s, err := protocol.EncodeHistogram(all)
	if err != nil {
		return "" // cannot happen with the shared layout; an unencoded interval is left unmeasured
	}
	return s
}

// nodeReports posts each node's whole CPU use over the last step (its workers, their overhead and
// the background load) to the scheduler service while the cluster's node CPU reports are on
// (Cluster.StartNodeCPUReports), as a control layer samples a real node's cgroup.
func (r *simRun) nodeReports(step float64) {
	used, load := r.x.NodeUsage(), r.x.LoadUsage()
	if r.nodeUsed == nil {
		r.nodeUsed = make([]float64, len(used))
	}
	for i := range used {
		all := used[i] + load[i]
		if r.svc != nil && r.c.nodeCPU {
			_ = r.svc.NodeReport(&protocol.NodeReport{Host: r.c.named.Nodes[i].Name, TimeMs: r.now().UnixMilli(), IntervalS: step,
				CPUPercent: 100 * (all - r.nodeUsed[i]) / step})
		}
		r.nodeUsed[i] = all
	}
}
