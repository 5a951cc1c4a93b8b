package org.stormlab.instrument;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.storm.Config;
import org.apache.storm.policy.IWaitStrategy;
import org.apache.storm.policy.WaitStrategyProgressive;
import org.apache.storm.utils.ObjectReader;

/**
 * Storm's progressive wait strategy (the bolt default: a thousand parks, then sleeps) that also counts the
 * CPU its thread spends idle, so a report can give a bolt's (and an acker's) CPU for tuples apart from its
 * spinning between them ({@link #counts}). A thread's CPU time holds both, and how much it spins depends on
 * its node, not its work: without this the two are read as one.
 *
 * <p>A spell of idling is the run of idle calls between two tuples (Storm's executor passes an idle counter
 * of 0 to the first). The CPU counted is from the first call's entry to the last call's entry: the last
 * park, and the poll that finds the tuple, cannot be told from the tuple's work here (the strategy is not
 * called again before the work). Where tuples come every few parks that last park is most of the spell, so
 * it is estimated apart: each spell that ended in a park adds the thread's mean CPU per counted park so far
 * (the last park is a whole park: a producer does not unpark a waiting bolt, its parkNanos(1) runs out).
 * One thread CPU clock read per call (ThreadMXBean, clock_gettime of the thread's clock) is what the
 * counting adds. It relies on Storm's counter rising from 0 through a spell: with the progressive levels 1
 * and 2 set to 0 counts every call starts a spell and nothing is counted.
 */
public final class CountedWait implements IWaitStrategy {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Idle CPU so far (ns) per thread id, for the reporter; a thread registers on its first idle call. */
    private static final Map<Long, Counts> SPIN = new ConcurrentHashMap<>();

    /**
     * A thread's idle CPU so far: counted, and the estimate of its spells' uncounted last parks; and its
     * spells (how often it found nothing to do).
     */
    private static final class Counts {
        final AtomicLong counted = new AtomicLong();
        final AtomicLong lastParks = new AtomicLong();
        final AtomicLong spells = new AtomicLong();
        final AtomicLong parks = new AtomicLong();
    }

    private final WaitStrategyProgressive inner = new WaitStrategyProgressive();
    private Counts spin; // this executor's thread's counts; one executor, one thread
    private long lastEntry = -1;
    private int lastCounter = -1; // the counter the previous call was given
    private int level1;           // calls of a spell before its parks (Storm's level 1)
    private int level2;           // its parks (level 2); sleeps follow
    private long parkNs;          // CPU of the counted intervals that held a park, and their number
    private long parks;

    @Override
    public void prepare(Map<String, Object> conf, WaitSituation situation) {
        inner.prepare(conf, situation);
        boolean spout = situation == WaitSituation.SPOUT_WAIT;
        boolean bp = situation == WaitSituation.BACK_PRESSURE_WAIT;
        level1 = ObjectReader.getInt(conf.get(spout ? Config.TOPOLOGY_SPOUT_WAIT_PROGRESSIVE_LEVEL1_COUNT
            : bp ? Config.TOPOLOGY_BACKPRESSURE_WAIT_PROGRESSIVE_LEVEL1_COUNT : Config.TOPOLOGY_BOLT_WAIT_PROGRESSIVE_LEVEL1_COUNT));
        level2 = ObjectReader.getInt(conf.get(spout ? Config.TOPOLOGY_SPOUT_WAIT_PROGRESSIVE_LEVEL2_COUNT
            : bp ? Config.TOPOLOGY_BACKPRESSURE_WAIT_PROGRESSIVE_LEVEL2_COUNT : Config.TOPOLOGY_BOLT_WAIT_PROGRESSIVE_LEVEL2_COUNT));
    }

    @Override
    public int idle(int idleCounter) throws InterruptedException {
        long now = THREADS.getCurrentThreadCpuTime();
        if (spin == null) {
            spin = SPIN.computeIfAbsent(Thread.currentThread().getId(), k -> new Counts());
        }
        if (idleCounter > 0 && lastEntry >= 0 && now >= lastEntry) {
            long d = now - lastEntry;
            spin.counted.addAndGet(d);
            if (parked(lastCounter)) {
                parkNs += d;
                parks++;
            }
        } else if (idleCounter == 0 && parked(lastCounter) && parks > 0) {
            spin.lastParks.addAndGet(parkNs / parks); // the previous spell ended in a park, uncounted
        }
        if (idleCounter == 0) {
            spin.spells.incrementAndGet();
        }
        if (parked(idleCounter)) {
            spin.parks.incrementAndGet();
        }
        lastEntry = now;
        lastCounter = idleCounter;
        return inner.idle(idleCounter);
    }

    /** Whether a call given counter c parked (Storm's level 2). */
    private boolean parked(int c) {
        return c >= level1 && c < level1 + level2;
    }

    /**
     * The idle CPU (ns) thread tid has counted so far, the estimate of its spells' uncounted last parks, its
     * spells and its parks (each a parkNanos(1): a timer's wake-up), or null if it never idled in this strategy.
     */
    public static long[] counts(long tid) {
        Counts c = SPIN.get(tid);
        return c == null ? null : new long[] {c.counted.get(), c.lastParks.get(), c.spells.get(), c.parks.get()};
    }

    /** The idle CPU (ns) thread tid has counted so far, or -1 if it never idled in this strategy. */
    public static long spinNs(long tid) {
        long[] c = counts(tid);
        return c == null ? -1 : c[0];
    }
}
