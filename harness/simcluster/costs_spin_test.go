package simcluster

import (
	"math"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/diagnose"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/sim"
)

// setThreadCPU gives every executor of r the thread CPU cpu(executor) over each of its reports' intervals
// (seconds of CPU per second of report), the whole executor's on its first task.
func setThreadCPU(r *harness.RunResult, cores func(e harness.ExecutorPlace) float64) {
	for i := range r.Reports {
		rep := &r.Reports[i]
		var cpu []protocol.TaskCPU
		for _, e := range r.Executors {
			if e.Host == rep.Host && e.Port == rep.Port {
				cpu = append(cpu, protocol.TaskCPU{Task: e.Start, CPUNs: int64(cores(e) * rep.IntervalS * 1e9)})
			}
		}
		rep.CPU = cpu
	}
}

// TestMeasureSpin: the spinning is the mean over a transfer run's bolt and acker executors of their
// thread's cores, pooled over runs (mean, sample sd); the spouts' threads are not in it, nor a run with
// a node at 90% of its CPU or more. The synthetic runs' executors spin 0.10 + 0.01 k cores in run k;
// tolerance: the 4 significant digits the model keeps.
func TestMeasureSpin(t *testing.T) {
	runs := synthRuns(TransferDesign(2), 1, 0)
	var want []float64
	for k, r := range runs {
		spin := 0.10 + 0.01*float64(k)
		if k == 3 { // busy: left out
			r.Diagnosis = &harness.Diagnosis{Nodes: []diagnose.Node{{Host: "sup2", UsedOfQuota: 0.95}}}
			spin = 0.5
		} else {
			want = append(want, spin)
		}
		setThreadCPU(r, func(e harness.ExecutorPlace) float64 {
			if e.Component == "spout" {
				return 0.9
			}
			return spin
		})
	}
	m := &sim.CostModel{}
	if said := measureSpin(m, runs); said != "" {
		t.Fatalf("measured nothing: %s", said)
	}
	mean, sd := 0.0, 0.0
	for _, x := range want {
		mean += x / float64(len(want))
	}
	for _, x := range want {
		sd += (x - mean) * (x - mean) / float64(len(want)-1)
	}
	sd = math.Sqrt(sd)
	tr := m.Transfer
	if math.Abs(tr.IdleSpinCores-mean) > 1e-3*mean || math.Abs(tr.IdleSpinSD-sd) > 1e-3*sd || !tr.IdleSpinPI.Contains(mean) {
		t.Errorf("spin %v (sd %v, interval %+v), want %v (sd %v) inside its interval", tr.IdleSpinCores, tr.IdleSpinSD, tr.IdleSpinPI, mean, sd)
	}
	// Threads that count their idle CPU: what they counted (here 80% of it), not their CPU.
	for _, r := range runs {
		for i := range r.Reports {
			for k, c := range r.Reports[i].CPU {
				r.Reports[i].CPU[k].SpinNs = c.CPUNs * 8 / 10
			}
		}
	}
	m = &sim.CostModel{}
	if said := measureSpin(m, runs); said != "" || math.Abs(m.Transfer.IdleSpinCores-0.8*mean) > 1e-3*mean {
		t.Errorf("counted spin_ns at 80%% of the CPU: spin %v (%s), want %v", m.Transfer.IdleSpinCores, said, 0.8*mean)
	}
	// Every run busy: nothing measured, and said.
	for _, r := range runs {
		r.Diagnosis = &harness.Diagnosis{Nodes: []diagnose.Node{{Host: "sup2", UsedOfQuota: 0.95}}}
	}
	if m := (&sim.CostModel{}); measureSpin(m, runs) == "" || m.Transfer.IdleSpinCores != 0 {
		t.Errorf("every run busy: spin %v, want none and said missing", m.Transfer.IdleSpinCores)
	}
}
