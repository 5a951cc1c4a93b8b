package org.stormlab.instrument;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.storm.policy.IWaitStrategy;
import org.apache.storm.policy.WaitStrategyProgressive;

/**
 * Storm's progressive wait strategy (the bolt default: a thousand parks, then sleeps) that also counts the
 * CPU its thread spends idle, so a report can give a bolt's (and an acker's) CPU for tuples apart from its
 * spinning between them ({@link #spinNs}). A thread's CPU time holds both, and how much it spins depends on
 * its node, not its work: without this the two are read as one.
 *
 * <p>A spell of idling is the run of idle calls between two tuples (Storm's executor passes an idle counter
 * of 0 to the first). The CPU counted is from the first call's entry to the last call's entry: the last
 * park, and the poll that finds the tuple, go uncounted (one park of some tens to a hundred a spell at a
 * tuple every few milliseconds, more of it where tuples come closer). One thread CPU clock read per call
 * (ThreadMXBean, clock_gettime of the thread's clock) is what the counting adds. It relies on Storm's
 * counter rising from 0 through a spell: with the progressive levels 1 and 2 set to 0 counts every call
 * starts a spell and nothing is counted.
 */
public final class CountedWait implements IWaitStrategy {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Idle CPU so far (ns) per thread id, for the reporter; a thread registers on its first idle call. */
    private static final Map<Long, AtomicLong> SPIN = new ConcurrentHashMap<>();

    private final WaitStrategyProgressive inner = new WaitStrategyProgressive();
    private AtomicLong spin; // this executor's thread's counter; one executor, one thread
    private long lastEntry = -1;

    @Override
    public void prepare(Map<String, Object> conf, WaitSituation situation) {
        inner.prepare(conf, situation);
    }

    @Override
    public int idle(int idleCounter) throws InterruptedException {
        long now = THREADS.getCurrentThreadCpuTime();
        if (spin == null) {
            spin = SPIN.computeIfAbsent(Thread.currentThread().getId(), k -> new AtomicLong());
        }
        if (idleCounter > 0 && lastEntry >= 0 && now >= lastEntry) {
            spin.addAndGet(now - lastEntry);
        }
        lastEntry = now;
        return inner.idle(idleCounter);
    }

    /** The idle CPU (ns) thread tid has counted so far, or -1 if it never idled in this strategy. */
    public static long spinNs(long tid) {
        AtomicLong a = SPIN.get(tid);
        return a == null ? -1 : a.get();
    }
}
