package harness

import (
	"math"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// A hand-computed run: tasks 1,2 on node a; task 3 on node b; task 9 is a
// system task (not in the placement). Window 0..10 s.
func TestMeasureHandComputed(t *testing.T) {
	place := Placement{1: "a", 2: "a", 3: "b"}
	capacity := map[string]float64{"a": 100, "b": 200, "c": 100}
	reports := []protocol.WorkerReport{
		{Host: "a", TimeMs: 1000, IntervalS: 5, Acked: 40, WorkerCPUPercent: 50,
			CompleteLatencyMs: []float64{1, 2, 3},
			Traffic:           []protocol.TaskTraffic{{Src: 1, Dst: 2, Count: 30}, {Src: 9, Dst: 2, Count: 1000}},
			Deadlines:         []protocol.TaskDeadline{{Task: 2, Count: 10, Missed: 1, SumProcessingMs: 50, SumQoS: 5}}},
		{Host: "b", TimeMs: 6000, IntervalS: 5, Acked: 60, WorkerCPUPercent: 100,
			CompleteLatencyMs: []float64{4},
			Traffic:           []protocol.TaskTraffic{{Src: 2, Dst: 3, Count: 10}}},
		// Outside the window: ignored.
		{Host: "b", TimeMs: 10000, IntervalS: 5, Acked: 1000, WorkerCPUPercent: 100},
	}
	m := Measure(reports, place, capacity, 0, 10000)
	const tol = 1e-9
	cases := []struct {
		name      string
		got, want float64
	}{
		{"throughput = (40+60)/10 s", m.Throughput, 10},
		{"cut rate = 10/(30+10); system task 9 ignored", m.CutRate, 0.25},
		{"inter-node rate = 10/10 s", m.InterNodeRate, 1},
		{"latency mean = (1+2+3+4)/4", m.LatencyMean, 2.5},
		// node a: 50% of a core for 5 s over a 10 s window = 25% of a core;
		// capacity 100 -> 25% util. node b: 100% for 5 s -> 50% of a core, cap 200 -> 25%.
		{"node a cpu", m.NodeCPU["a"], 25},
		{"node b util", m.NodeUtil["b"], 25},
		{"node c idle", m.NodeUtil["c"], 0},
		// util {25, 25, 0}: mean 50/3, pop. variance ((25-50/3)^2*2+(50/3)^2)/3 = 138.88.., std 11.785..
		{"balance", m.Balance, math.Sqrt((2*math.Pow(25-50.0/3, 2) + math.Pow(50.0/3, 2)) / 3)},
		{"qos rate = 5/10", m.QoSRate, 0.5},
		{"processing ms = 50/10", m.ProcessingMs, 5},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > tol {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if m.DeadlineMisses != 1 || m.Acked != 100 {
		t.Errorf("misses %d acked %d, want 1 and 100", m.DeadlineMisses, m.Acked)
	}
}

func TestSeriesWindows(t *testing.T) {
	reports := []protocol.WorkerReport{{Host: "a", TimeMs: 500, Acked: 10}, {Host: "a", TimeMs: 1500, Acked: 30}}
	s := Series(reports, Placement{}, map[string]float64{"a": 100}, 0, 2000, 1000)
	if len(s) != 2 || s[0].Throughput != 10 || s[1].Throughput != 30 {
		t.Fatalf("series = %+v, want throughputs 10 and 30", s)
	}
}
