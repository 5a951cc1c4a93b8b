package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stormlab/stormlab/infra/protocol"
)

// benchSnapshot is a Throughput-style chain of 1,000 executors: spout and
// three bolts with 250 executors each (one task per executor), shuffle
// streams, 4 supervisors x 4 ports, 16 workers, not yet placed.
func benchSnapshot() *protocol.Snapshot {
	comps := []string{"spout", "bolt1", "bolt2", "bolt3"}
	t := protocol.Topology{ID: "throughput-1-1", Name: "throughput", NumWorkers: 16, NeedsScheduling: true}
	task := 1
	for _, c := range comps {
		for i := 0; i < 250; i++ {
			t.Executors = append(t.Executors, protocol.ComponentExecutor{Executor: ex(task, task), Component: c})
			task++
		}
	}
	for i := 0; i+1 < len(comps); i++ {
		t.Streams = append(t.Streams, protocol.Stream{From: comps[i], To: comps[i+1], Grouping: "shuffle"})
	}
	snap := &protocol.Snapshot{Topologies: []protocol.Topology{t}}
	for n := 0; n < 4; n++ {
		ports := []int{6700, 6701, 6702, 6703}
		snap.Supervisors = append(snap.Supervisors, protocol.Supervisor{
			ID: fmt.Sprintf("sup-%d", n), Host: fmt.Sprintf("node%d", n), CPU: 100, MemoryMB: 2048, Ports: ports, FreePorts: ports,
		})
	}
	return snap
}

// benchRound is the service side of one scheduling round: decode the
// snapshot, build the problem, run a trivial scheduler, encode the decision.
func benchRound(b *testing.B, s *Service, body []byte) {
	b.Helper()
	var out bytes.Buffer
	for b.Loop() {
		var snap protocol.Snapshot
		if err := json.Unmarshal(body, &snap); err != nil {
			b.Fatal(err)
		}
		d, err := s.Schedule(context.Background(), &snap)
		if err != nil || len(d.Topologies) != 1 {
			b.Fatalf("decision %+v, err %v", d, err)
		}
		out.Reset()
		if err := json.NewEncoder(&out).Encode(d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRound1000 is the round before any measurement: the graph comes
// from the component streams (3 x 250 x 250 = 187,500 unit edges).
// Target: well under 100 ms, a small part of the scheduling round Nimbus waits on (every 10 s by
// default).
func BenchmarkRound1000(b *testing.B) {
	body, _ := json.Marshal(benchSnapshot())
	s := NewWithScheduler("rr", &roundRobin{})
	b.SetBytes(int64(len(body)))
	benchRound(b, s, body)
}

// BenchmarkRound1000Measured is the same round after 16 workers reported a
// full shuffle traffic matrix (187,500 task pairs) and per-task CPU.
func BenchmarkRound1000Measured(b *testing.B) {
	snap := benchSnapshot()
	body, _ := json.Marshal(snap)
	s := NewWithScheduler("rr", &roundRobin{})
	// Destination task d's executor runs in worker d mod 16.
	reps := make([]protocol.WorkerReport, 16)
	for w := range reps {
		reps[w] = protocol.WorkerReport{Topology: snap.Topologies[0].ID, Host: fmt.Sprintf("node%d", w%4), Port: 6700 + w/4, TimeMs: 1, IntervalS: 10}
	}
	for task := 1; task <= 1000; task++ {
		r := &reps[task%16]
		r.CPU = append(r.CPU, protocol.TaskCPU{Task: task, CPUNs: int64(task) * 1e6})
		if task > 250 {
			lo := (task-1)/250*250 - 249 // first task of the previous component
			for src := lo; src < lo+250; src++ {
				r.Traffic = append(r.Traffic, protocol.TaskTraffic{Src: src, Dst: task, Count: 40})
			}
		}
	}
	for w := range reps {
		if err := s.Report(&reps[w]); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(body)))
	benchRound(b, s, body)
}
