package sim

import (
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stormlab/stormlab/infra/protocol"
)

// Deadlines are what one bolt executor saw, over an interval, of the tuples it executed, as the
// instrumentation's hook records them (protocol.TaskDeadline): each tuple's processing time is the
// time the executor finished it less its T_start (its tree's emission), a miss one above the
// component's Deadline. Times in seconds of simulated time.
type Deadlines struct {
	Count, Missed      int64
	SumProcessingS     float64 // sum of processing times
	SumQoS             float64 // sum of processing time / deadline (0 without a deadline)
	StartMin, StartMax float64 // T_start of the oldest and newest tuple executed
	Sink               bool    // the component sends to no other (its times are end to end)
}

// deadlineTally is an executor's deadline records since the last Take.
type deadlineTally struct {
	d    Deadlines
	proc *hdrhistogram.Histogram // sinks: processing time, µs (the workers' layout)
}

// executed records one executed tuple of bolt e with T_start start, finished at now (batch tuples).
func (t *deadlineTally) executed(e *executor, start, now float64, batch int64) {
	p := max(0, now-start)
	d := &t.d
	if d.Count == 0 || start < d.StartMin {
		d.StartMin = start
	}
	d.StartMax = max(d.StartMax, start)
	d.Count += batch
	d.SumProcessingS += p * float64(batch)
	if dl := e.comp.Deadline; dl > 0 {
		d.SumQoS += p / dl * float64(batch)
		if p > dl {
			d.Missed += batch
		}
	}
	if len(e.comp.Streams) == 0 {
		d.Sink = true
		if t.proc == nil {
			t.proc = protocol.NewHistogram(protocol.ProcessingHistHighest)
		}
		_ = t.proc.RecordValues(int64(math.Round(p*1e6)), batch)
	}
}

// datasetDone says whether dataset spout e has emitted its whole share.
func (e *executor) datasetDone() bool {
	return e.comp.Dataset > 0 && e.emittedAll >= e.comp.Dataset
}

// InFlight is the tuple trees emitted and neither acked nor failed yet, over every spout (trees a
// restart made its spout forget are not counted: they are never acked nor failed).
func (x *Sim) InFlight() int64 {
	n := int64(0)
	for _, e := range x.s.execs {
		if e.comp.Spout {
			n += int64(e.pending)
		}
	}
	return n * x.s.batch
}

// Sizes are an executor's tuples executed and emitted over an interval with their serialized bytes
// (the sender's Component.Bytes), as the instrumentation samples them (protocol.TaskTupleSize), here
// every tuple: acks are not counted.
type Sizes struct {
	In, InBytes, Out, OutBytes int64
}

// sized counts one executed tuple of e (of bytes; none for a spout's emission) and its outs.
func (t *tally) sized(e *executor, in tuple, outs int) {
	if !e.comp.Spout {
		t.sizes.In++
		t.sizes.InBytes += int64(in.bytes)
	}
	t.sizes.Out += int64(outs)
	t.sizes.OutBytes += int64(outs) * int64(e.comp.Bytes)
}
