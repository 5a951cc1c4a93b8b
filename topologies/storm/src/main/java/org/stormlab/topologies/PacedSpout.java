package org.stormlab.topologies;

import java.util.Map;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Values;
import org.stormlab.instrument.Instrument;
import org.stormlab.instrument.IntendedId;
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
 *
 * <p>Open loop ({@link #openLoop}, from --rate): the task follows a send schedule fixed at start
 * ({@link SendSchedule}: constant or seeded Poisson arrivals) instead of the interval. A tuple due is
 * emitted at once however late (up to 1000 per nextTuple call, the rest on the next call), nothing is
 * dropped, and its message id ({@link IntendedId}) carries its send lag, the actual emit time minus the
 * intended send time, from which the hook derives the complete latency from the intended time. When
 * nothing is due nextTuple returns without emitting, and Storm's spout wait strategy sleeps. T_start stays
 * the actual emit time (the deadlines are the bolts' processing times).
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
    /** Tells the reports that this task's share is done (null without the instrumentation). */
    private org.stormlab.instrument.DatasetDone doneStats;
    private transient Offsets offsets;
    private transient Map<String, String> memOffsets;
    private OpenLoop openLoop;
    private transient SendSchedule schedule;
    private transient SendSchedule offeredCursor;
    private transient long nextIntendedNs;
    private transient long nextOfferedNs;
    private transient org.stormlab.instrument.OpenLoopStats openStats;

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
        if (openLoop != null) {
            openSchedule(conf, context, tasks);
        }
        if (myBudget > 0) {
            doneStats = org.stormlab.instrument.DatasetDone.of(conf, context);
            offsets = openOffsets(conf, context);
            resume(offsets.load());
        }
    }

    /** Switches the spout to the open-loop schedule (null: keep the interval); returns this. */
    PacedSpout openLoop(OpenLoop ol) {
        this.openLoop = ol;
        return this;
    }

    private void openSchedule(Map<String, Object> conf, TopologyContext context, int tasks) {
        int index = context.getThisTaskIndex();
        schedule = openLoop.schedule(tasks, index);
        // A second cursor over the same seeded schedule counts the tuples offered so far, also those a
        // spout behind its schedule has not sent yet.
        offeredCursor = openLoop.schedule(tasks, index);
        nextIntendedNs = startNs + schedule.next();
        nextOfferedNs = startNs + offeredCursor.next();
        openStats = org.stormlab.instrument.OpenLoopStats.of(conf, context);
        LOG.info("stormlab spout {} task {}: open loop, {} arrivals at {} tuples/s", context.getThisComponentId(),
            context.getThisTaskId(), openLoop.arrivals.name().toLowerCase(), String.format("%.3f", openLoop.ratePerTask(tasks)));
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
        if (done) {
            markDone();
        }
        if (seq > 0) {
            LOG.info("stormlab spout {} task {} resumed at {} tuples, {} bytes{}", context.getThisComponentId(),
                context.getThisTaskId(), seq, sentBytes, done ? " (done)" : "");
        }
        if (sentBytes != p.bytes()) {
            LOG.warn("stormlab spout {} task {}: saved position has {} bytes, regenerated {}: the generator changed",
                context.getThisComponentId(), context.getThisTaskId(), p.bytes(), sentBytes);
        }
    }

    private void markDone() {
        if (doneStats != null) {
            doneStats.done(seq);
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

    /**
     * The stream of the tuple {@link #next} has just returned; Storm's default stream unless a subclass emits on
     * several (the replay's spouts).
     */
    protected String stream() {
        return org.apache.storm.utils.Utils.DEFAULT_STREAM_ID;
    }

    @Override
    public void nextTuple() {
        if (done) {
            return;
        }
        if (schedule != null) {
            nextOpen();
            return;
        }
        if (intervalNs <= 0) {
            emitCounted(seq);
            return;
        }
        long now = System.nanoTime();
        if (now - nextDue > 10_000_000L && now - nextDue > intervalNs) {
            nextDue = now; // drop a long backlog instead of bursting
        }
        int n = 0;
        while (now >= nextDue && n < 1000 && !done) {
            emitCounted(seq);
            nextDue += intervalNs;
            n++;
        }
    }

    /** Open loop: emits every tuple due by now (at most 1000 per call), never drops. */
    private void nextOpen() {
        long now = System.nanoTime();
        long offered = offeredCursor.count() - 1;
        while (nextOfferedNs <= now) {
            nextOfferedNs = startNs + offeredCursor.next();
            offered++;
        }
        if (openStats != null) {
            openStats.offered(offered);
        }
        int n = 0;
        while (nextIntendedNs <= now && n < 1000 && !done) {
            long lagUs = (System.nanoTime() - nextIntendedNs) / 1000;
            emitCounted(new IntendedId(seq, lagUs));
            if (openStats != null) {
                openStats.emitted(lagUs);
            }
            nextIntendedNs = startNs + schedule.next();
            n++;
        }
    }

    private void emitCounted(Object msgId) {
        Values v = next(seq);
        sentBytes += bytes(v);
        v.add(Instrument.nowMicros());
        collector.emit(stream(), v, msgId);
        seq++;
        if (myBudget > 0 && sentBytes >= myBudget) {
            done = true;
            // Saved before the line is logged: a restart after the line must not log it again.
            offsets.save(seq, sentBytes, true);
            markDone();
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
