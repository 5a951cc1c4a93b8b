package org.stormlab.instrument;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one task, written by the task's executor thread (through the hook) and drained by the
 * reporter thread. All counters are cumulative-then-reset: the reporter reads them with sumThenReset /
 * getThenReset, so a report holds deltas.
 */
final class TaskStats {
    final int task;
    /** source task -> tuples of that source executed by this task. */
    final Map<Integer, LongAdder> fromSource = new ConcurrentHashMap<>();
    /** Hook events seen on this task in the interval; used to split an executor thread's CPU among its tasks. */
    final LongAdder events = new LongAdder();
    /** Id of the executor thread that runs this task, -1 until the first hook event. */
    volatile long threadId = -1;

    /** T_dline of this task's component, ms; 0 = none set (then QoS and misses are not recorded). */
    volatile long deadlineMs;
    /** The task's component has no downstream subscriber other than system components. */
    volatile boolean sink;

    final LongAdder deadlineCount = new LongAdder();
    final LongAdder deadlineMissed = new LongAdder();
    final DoubleAdder sumProcessingMs = new DoubleAdder();
    final DoubleAdder sumQos = new DoubleAdder();
    /** Oldest and newest T_start (epoch ms) of the tuples executed in the interval. */
    final LongAccumulator startMinMs = new LongAccumulator(Math::min, Long.MAX_VALUE);
    final LongAccumulator startMaxMs = new LongAccumulator(Math::max, Long.MIN_VALUE);

    /** Tuples emitted per stream of the topology's own (not Storm's "__" system streams). */
    final Map<String, LongAdder> emitted = new ConcurrentHashMap<>();

    /** Sampled serialized sizes: tuples executed (in) and emitted (out). */
    final LongAdder inSamples = new LongAdder();
    final LongAdder inBytes = new LongAdder();
    final LongAdder outSamples = new LongAdder();
    final LongAdder outBytes = new LongAdder();
    /** Open-loop spout tasks only: tuples offered by the schedule and emitted, since the task started. */
    volatile boolean openLoop;
    volatile long offeredTotal;
    final LongAdder emittedTotal = new LongAdder();
    /** Dataset spout tasks only: the tuples of the task's whole share once it is done, else -1. */
    volatile long datasetTuples = -1;

    /** Tuples seen for sampling; written by the executor thread only. */
    long inSeen;
    long outSeen;

    TaskStats(int task) {
        this.task = task;
    }

    /** Marks the calling thread as this task's executor thread (cheap after the first call). */
    void touch() {
        long id = Thread.currentThread().getId();
        if (threadId != id) {
            threadId = id;
        }
        events.increment();
    }

    void executed(int source) {
        LongAdder a = fromSource.get(source);
        if (a == null) {
            a = fromSource.computeIfAbsent(source, k -> new LongAdder());
        }
        a.increment();
    }

    void emitted(String stream) {
        LongAdder a = emitted.get(stream);
        if (a == null) {
            a = emitted.computeIfAbsent(stream, k -> new LongAdder());
        }
        a.increment();
    }

    /**
     * Records one executed tuple with T_start startUs, finished at nowUs: processing time = now - T_start
     * (ms), QoS rate = processing / T_dline, a miss when processing &gt; T_dline. Returns the processing
     * time in µs (at least 0: clocks of two JVMs may disagree by a little).
     */
    long deadline(long startUs, long nowUs) {
        long us = Math.max(0, nowUs - startUs);
        double ms = us / 1000.0;
        deadlineCount.increment();
        sumProcessingMs.add(ms);
        long d = deadlineMs;
        if (d > 0) {
            sumQos.add(ms / d);
            if (ms > d) {
                deadlineMissed.increment();
            }
        }
        long startMs = Math.floorDiv(startUs, 1000);
        startMinMs.accumulate(startMs);
        startMaxMs.accumulate(startMs);
        return us;
    }
}
