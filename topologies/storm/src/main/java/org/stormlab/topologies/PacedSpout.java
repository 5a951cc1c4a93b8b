package org.stormlab.topologies;

import java.util.Map;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.base.BaseRichSpout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A spout that emits one tuple every intervalMs (0 = as fast as max spout pending lets it) and stops
 * after a byte budget (0 = never). Every tuple is emitted with a message id so it is acked and its
 * complete latency measured. Failed tuples are not replayed: the experiments count failures instead
 * (the hook reports them), which keeps the generated stream the same for every scheduler.
 *
 * <p>Pacing keeps a schedule of due times and emits the tuples that are due, so rates above the spout
 * wait strategy's sleep granularity (1 ms) still hold on average; a backlog longer than 10 ms is
 * dropped rather than sent as a burst.
 */
public abstract class PacedSpout extends BaseRichSpout {
    private static final Logger LOG = LoggerFactory.getLogger(PacedSpout.class);

    private final double intervalMs;
    private final long budgetBytes;
    protected SpoutOutputCollector collector;
    protected TopologyContext context;
    private long intervalNs;
    private long nextDue;
    private long seq;
    private long myBudget;
    private long sentBytes;
    private long startNs;
    private boolean done;

    /**
     * @param intervalMs time between tuples of one spout task, in ms; 0 = no pacing
     * @param budgetBytes total bytes over all tasks of the spout; each task sends its share; 0 = endless
     */
    protected PacedSpout(double intervalMs, long budgetBytes) {
        this.intervalMs = intervalMs;
        this.budgetBytes = budgetBytes;
    }

    @Override
    public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        this.collector = collector;
        this.context = context;
        this.intervalNs = (long) (intervalMs * 1e6);
        int tasks = context.getComponentTasks(context.getThisComponentId()).size();
        this.myBudget = budgetBytes <= 0 ? 0 : Math.max(1, budgetBytes / tasks);
        this.startNs = System.nanoTime();
        this.nextDue = startNs;
        prepare(conf, context);
    }

    /** Subclass set-up (generators seeded by task index). */
    protected abstract void prepare(Map<String, Object> conf, TopologyContext context);

    /** Emits one tuple with the given message id; returns its size in bytes (for the budget). */
    protected abstract long emitOne(long messageId);

    @Override
    public void nextTuple() {
        if (done) {
            return;
        }
        if (intervalNs <= 0) {
            emitCounted();
            return;
        }
        long now = System.nanoTime();
        if (now - nextDue > 10_000_000L && now - nextDue > intervalNs) {
            nextDue = now; // drop a long backlog instead of bursting
        }
        int n = 0;
        while (now >= nextDue && n < 1000 && !done) {
            emitCounted();
            nextDue += intervalNs;
            n++;
        }
    }

    private void emitCounted() {
        long bytes = emitOne(seq++);
        sentBytes += bytes;
        if (myBudget > 0 && sentBytes >= myBudget) {
            done = true;
            LOG.info("stormlab spout {} task {} done: {} tuples, {} bytes in {} s", context.getThisComponentId(),
                context.getThisTaskId(), seq, sentBytes, String.format("%.1f", (System.nanoTime() - startNs) / 1e9));
        }
    }

    @Override
    public void ack(Object msgId) {
        // counted by the instrumentation hook
    }

    @Override
    public void fail(Object msgId) {
        // not replayed, see class comment
    }
}
