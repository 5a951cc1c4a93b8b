package org.stormlab.topologies;

import java.util.Map;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Values;
import org.stormlab.instrument.Instrument;
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
 *
 * <p>A bounded task (budget > 0) keeps its position in the dataset ({@link Offsets}): a task whose
 * worker restarts regenerates the tuples it had emitted without sending them (generation is seeded,
 * so the stream is the same) and goes on from there, and a task that had finished stays finished
 * and does not log its done line again. Subclasses generate values in {@link #next}; this class
 * appends the T_start field and emits.
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
    private transient Offsets offsets;
    private transient Map<String, String> memOffsets;

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
        if (myBudget > 0) {
            offsets = openOffsets(conf, context);
            resume(offsets.load());
        }
    }

    /** Tests: keep positions in mem instead of the cluster's ZooKeeper. */
    PacedSpout keepOffsetsIn(Map<String, String> mem) {
        this.memOffsets = mem;
        return this;
    }

    private Offsets openOffsets(Map<String, Object> conf, TopologyContext context) {
        if (memOffsets != null) {
            return Offsets.inMemory(memOffsets, context.getStormId(), context.getThisTaskId());
        }
        return Offsets.open(conf, context.getStormId(), context.getThisTaskId());
    }

    /** Regenerates the tuples of a saved position without emitting them. */
    private void resume(Offsets.Position p) {
        while (seq < p.tuples()) {
            sentBytes += bytes(next(seq));
            seq++;
        }
        done = p.done();
        if (seq > 0) {
            LOG.info("stormlab spout {} task {} resumed at {} tuples, {} bytes{}", context.getThisComponentId(),
                context.getThisTaskId(), seq, sentBytes, done ? " (done)" : "");
        }
        if (sentBytes != p.bytes()) {
            LOG.warn("stormlab spout {} task {}: saved position has {} bytes, regenerated {}: the generator changed",
                context.getThisComponentId(), context.getThisTaskId(), p.bytes(), sentBytes);
        }
    }

    /** Subclass set-up (generators seeded by task index). */
    protected abstract void prepare(Map<String, Object> conf, TopologyContext context);

    /**
     * The values of tuple seq (0, 1, ...), without the T_start field. Called once per seq, in order,
     * also for tuples regenerated on resume, so a seeded generator yields the same stream.
     */
    protected abstract Values next(long seq);

    /** The size of a tuple's values in bytes, counted against the budget. */
    protected abstract long bytes(Values v);

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
        Values v = next(seq);
        sentBytes += bytes(v);
        v.add(Instrument.nowMicros());
        collector.emit(v, seq);
        seq++;
        if (myBudget > 0 && sentBytes >= myBudget) {
            done = true;
            // Saved before the line is logged: a restart after the line must not log it again.
            offsets.save(seq, sentBytes, true);
            LOG.info("stormlab spout {} task {} done: {} tuples, {} bytes in {} s", context.getThisComponentId(),
                context.getThisTaskId(), seq, sentBytes, String.format("%.1f", (System.nanoTime() - startNs) / 1e9));
        } else if (offsets != null) {
            offsets.save(seq, sentBytes, false);
        }
    }

    @Override
    public void close() {
        if (offsets != null) {
            offsets.close();
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
