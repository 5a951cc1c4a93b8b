package harness

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// TestLoadDiagnoses: a kept run is diagnosed when read back, from its own records: sup1 used 49 of its
// 50 (percent of a core), so its node is the bottleneck (98% of 0.50 core).
func TestLoadDiagnoses(t *testing.T) {
	r := &RunResult{TopologyID: "t-1", MeasureFrom: 0, MeasureTo: 10_000,
		Measurement: Measurement{Throughput: 1, NodeCPU: map[string]float64{"sup1": 49}, NodeUtil: map[string]float64{"sup1": 98}},
		Executors:   []ExecutorPlace{{Component: "split", Start: 1, End: 2, Host: "sup1", Port: 6700}},
		Reports: []protocol.WorkerReport{{Topology: "t-1", Host: "sup1", Port: 6700, TimeMs: 5_000, IntervalS: 5, CPU: []protocol.TaskCPU{{Task: 1, CPUNs: 1e9}}},
			{Topology: "t-1", Host: "sup1", Port: 6700, TimeMs: 10_000, IntervalS: 5, CPU: []protocol.TaskCPU{{Task: 1, CPUNs: 1e9}}}},
	}
	dir := t.TempDir()
	if err := Save(dir, r); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := got.Diagnosis; d == nil || d.Rule != "node at its quota" || !strings.Contains(d.Bottleneck, "sup1 CPU 98% of 0.50 core") {
		t.Errorf("diagnosis %+v: want sup1 at its quota", d)
	}
}
