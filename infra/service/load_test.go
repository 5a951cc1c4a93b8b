package service

import (
	"math"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// TestTaskInputs checks the deadline-aware scheduler's per-task inputs
// (Table 2, eqs. 1 and 5-6) on hand-made reports of topology t1 (placed():
// tasks 1 spout, 2 and 3 bolts, 4 acker).
//
// Worker h1:6700 reports its 10 s interval ending at 20,000 ms, so the
// monitor's clock starts at 10,000 ms. Task 3's oldest tuple of the
// interval was emitted at 18,500 ms -> T_start 8,500 ms on that clock; its
// component deadline is 300 ms. Task 2 is older (12,000 -> 2,000) with
// 200 ms. Tuple sizes: task 3 executed 4 sampled tuples of 400 bytes in
// all (mean 100) and emitted 2 of 50 (ignored: input wins); spout task 1
// executed none and emitted 3 of 270 bytes (mean 90).
func TestTaskInputs(t *testing.T) {
	m := newMeasurements()
	m.add(&protocol.WorkerReport{
		Topology: "t1", Host: "h1", Port: 6700, TimeMs: 20_000, IntervalS: 10,
		CPU: []protocol.TaskCPU{{Task: 1, CPUNs: 1e9}},
		Deadlines: []protocol.TaskDeadline{
			{Task: 3, Count: 5, SumProcessingMs: 50, SumQoS: 50.0 / 300, DeadlineMs: 300, StartMinMs: 18_500, StartMaxMs: 19_900, Sink: true},
			{Task: 2, Count: 5, SumProcessingMs: 50, SumQoS: 0.25, DeadlineMs: 200, StartMinMs: 12_000, StartMaxMs: 19_000},
		},
		TupleSizes: []protocol.TaskTupleSize{
			{Task: 3, InSamples: 4, InBytes: 400, OutSamples: 2, OutBytes: 50},
			{Task: 1, OutSamples: 3, OutBytes: 270},
		},
	})
	snap := placed()
	tp := &snap.Topologies[0]
	ix, err := newExecIndex(tp)
	if err != nil {
		t.Fatal(err)
	}
	if now := m.monitorNowMs("t1", 21_000); now != 11_000 {
		t.Errorf("monitor now = %d, want 21,000 - 10,000 = 11,000", now)
	}
	tl := taskLoad(tp, ix, m.rates("t1"))
	// Vertices by first task: 0=[1], 1=[2], 2=[3], 3=[4].
	cases := []struct {
		name      string
		got, want float64
	}{
		{"task 3 T_start", float64(tl[2].StartMs), 8_500},
		{"task 3 deadline", tl[2].DeadlineMs, 300},
		{"task 3 tuple size (input)", tl[2].TupleSize, 100},
		{"task 2 T_start", float64(tl[1].StartMs), 2_000},
		{"task 2 deadline", tl[1].DeadlineMs, 200},
		{"task 2 tuple size (none sampled)", tl[1].TupleSize, 0},
		{"spout tuple size (output)", tl[0].TupleSize, 90},
		{"spout T_start (executes no tuple)", float64(tl[0].StartMs), 0},
		{"spout cpu = 1 s / 10 s", tl[0].CPU, 10},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestLoadTableSkipsUnmeasured: a worker that could not measure its CPU or
// memory contributes nothing to those columns (not a measured zero), and
// node performance is never filled with received tuples.
func TestLoadTableSkipsUnmeasured(t *testing.T) {
	m := newMeasurements()
	m.add(&protocol.WorkerReport{Topology: "t1", Host: "h1", Port: 6700, TimeMs: 10_000, IntervalS: 10,
		WorkerCPUPercent: 40, WorkerMemoryMB: 100,
		Traffic: []protocol.TaskTraffic{{Src: 1, Dst: 3, Count: 1000}}})
	m.add(&protocol.WorkerReport{Topology: "t1", Host: "h1", Port: 6701, TimeMs: 10_000, IntervalS: 10,
		WorkerCPUPercent: 0, WorkerMemoryMB: 0,
		NotMeasured: []string{protocol.FieldWorkerCPU, protocol.FieldWorkerMemory}})
	rows := m.nodeLoad(placed())
	if len(rows) != 2 {
		t.Fatalf("rows = %+v", rows)
	}
	// s1 (host h1): 40 % of a 100 % node; memory 2048 - 100.
	if rows[0].CPUUsed != 40 || rows[0].MemoryFreeMB != 1948 || rows[0].CPUThroughput != 0 {
		t.Errorf("s1 row = %+v, want cpu 40, free 1948, throughput unset", rows[0])
	}
}
