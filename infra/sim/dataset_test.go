package sim

import (
	"math"
	"testing"
)

// TestDatasetAndDeadlines: a spout with a dataset of 100 tuples stops after them and says it is done,
// and its bolt records each tuple as the instrumentation does. Closed loop with one tree in flight,
// the spout's 1 ms and the bolt's 2 ms deterministic on nodes of their own and free transfers: each
// tuple's processing time at the bolt (a sink) is exactly 2 ms after its T_start (stamped as the spout
// emits, after its 1 ms), so against a deadline of 1.6 ms every tuple misses (QoS 1.25 each), against 5
// ms none (QoS 0.4). Batches of 10 count the same tuples, each batch 20 ms (its service times summed: the
// batch's latency resolution). The histogram's 3 significant digits bound its median to 0.1%.
func TestDatasetAndDeadlines(t *testing.T) {
	for _, c := range []struct {
		deadline, qos float64
		missed        int64
		batch         int
	}{{1.6e-3, 1.25, 100, 1}, {5e-3, 0.4, 0, 1}, {50e-3, 0.4, 0, 10}} {
		cfg := chain(Dist{Mean: 1e-3}, Dist{Mean: 2e-3}, 0, 1)
		cfg.Topology.Components[0].Dataset = 100
		cfg.Topology.Components[1].Deadline = c.deadline
		cfg.Batch = c.batch
		if c.batch > 1 {
			cfg.Topology.MaxSpoutPending = c.batch // one batch in flight
		}
		x, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		x.Advance(10)
		counts := x.Take()
		spout, bolt := counts[0], counts[1]
		if !spout.Done || spout.Emitted != 100 || spout.Acked != 100 || x.InFlight() != 0 {
			t.Errorf("%+v: spout done %v, emitted %d, acked %d, %d in flight: want done after 100, all acked", c, spout.Done, spout.Emitted, spout.Acked, x.InFlight())
		}
		d := bolt.Deadlines
		// The bolt's 2 ms: T_start is stamped as the spout emits, after its 1 ms (PacedSpout puts
		// Instrument.nowMicros() into the tuple just before collector.emit). A batch's times are summed.
		wantProc := 2e-3 * float64(c.batch)
		if d.Count != 100 || d.Missed != c.missed || !d.Sink || math.Abs(d.SumProcessingS-100*wantProc) > 1e-9 ||
			math.Abs(d.SumQoS-100*wantProc/c.deadline) > 1e-9 {
			t.Errorf("%+v: deadline records %+v: want 100 tuples of %v s each, %d missed", c, d, wantProc, c.missed)
		}
		if math.Abs(d.SumQoS/100-c.qos) > 1e-9 {
			t.Errorf("%+v: mean QoS %v, want %v", c, d.SumQoS/100, c.qos)
		}
		if p := bolt.Processing; p == nil || p.TotalCount() != 100 || math.Abs(float64(p.ValueAtQuantile(50))-wantProc*1e6) > wantProc*1e6*1e-3 {
			t.Errorf("%+v: processing histogram %v: want 100 values at %v µs", c, p, wantProc*1e6)
		}
		if d.StartMin < 0 || d.StartMax <= d.StartMin || d.StartMax > 100*3e-3*float64(c.batch) { // a tree every 3 ms
			t.Errorf("%+v: T_start from %v to %v s: want the first and last tuple's emission", c, d.StartMin, d.StartMax)
		}
	}
}
