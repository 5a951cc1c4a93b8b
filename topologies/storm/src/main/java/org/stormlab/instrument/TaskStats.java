package org.stormlab.instrument;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one task, written by the task's executor thread (through the hook or a sink's
 * {@link Instrument#deadline} call) and drained by the reporter thread. All counters are
 * cumulative-then-reset: the reporter reads them with sumThenReset, so a report holds deltas.
 */
final class TaskStats {
    final int task;
    /** source task -> tuples of that source executed by this task. */
    final Map<Integer, LongAdder> fromSource = new ConcurrentHashMap<>();
    /** Hook events seen on this task in the interval; used to split an executor thread's CPU among its tasks. */
    final LongAdder events = new LongAdder();
    /** Id of the executor thread that runs this task, -1 until the first hook event. */
    volatile long threadId = -1;

    final LongAdder deadlineCount = new LongAdder();
    final LongAdder deadlineMissed = new LongAdder();
    // Sums of doubles need a lock-free accumulator; DoubleAdder keeps the hot path cheap.
    final java.util.concurrent.atomic.DoubleAdder sumProcessingMs = new java.util.concurrent.atomic.DoubleAdder();
    final java.util.concurrent.atomic.DoubleAdder sumQos = new java.util.concurrent.atomic.DoubleAdder();

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
}
