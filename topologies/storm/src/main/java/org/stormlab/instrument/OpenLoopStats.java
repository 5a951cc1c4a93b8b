package org.stormlab.instrument;

import java.util.Map;
import org.apache.storm.task.TopologyContext;

/**
 * What an open-loop spout task tells the instrumentation: each tuple's send lag (actual emit time minus
 * its intended send time) when it is emitted, and how many tuples its schedule has offered so far. The
 * complete latency from the intended time is recorded by the hook when the tuple is acked: Storm's
 * complete latency (from the actual emit) plus the tuple's send lag, carried in its message id
 * ({@link IntendedId}). Both latencies thus come from the same clock and differ exactly by the lag.
 */
public final class OpenLoopStats {
    private final WorkerStats worker;
    private final TaskStats task;

    private OpenLoopStats(WorkerStats worker, TaskStats task) {
        this.worker = worker;
        this.task = task;
    }

    /**
     * The recorder of one spout task, or null when the topology runs without the stormlab hook
     * (--instrumentation off): then nothing is recorded.
     */
    public static OpenLoopStats of(Map<String, Object> conf, TopologyContext context) {
        WorkerStats w = Registry.workerOf(conf, context);
        if (w == null) {
            return null;
        }
        TaskStats t = w.task(context.getThisTaskId());
        t.openLoop = true;
        w.openLoop = true;
        return new OpenLoopStats(w, t);
    }

    /** One tuple emitted lagUs after its intended send time (negative values count as 0). */
    public void emitted(long lagUs) {
        task.emittedTotal.increment();
        worker.sendLag(lagUs);
    }

    /** The number of tuples the task's schedule has made due since the task started. */
    public void offered(long total) {
        task.offeredTotal = total;
    }
}
