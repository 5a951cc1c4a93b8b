package org.stormlab.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.policy.IWaitStrategy;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

class CountedWaitTest {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Burns about ms of this thread's CPU (what a tuple's work is to the strategy). */
    private static void burn(long ms) {
        long until = THREADS.getCurrentThreadCpuTime() + ms * 1_000_000;
        while (THREADS.getCurrentThreadCpuTime() < until) {
            Thread.onSpinWait();
        }
    }

    /**
     * Two spells of idling with 20 ms of work before, between and after them (each work at counter 0, as
     * Storm's executor resets it on a tuple): the count holds the idle calls' CPU, never the work's. The
     * thread's CPU over the test bounds it above; the 60 ms of work is outside it. No timing is asserted
     * beyond those sums: the idle calls' own CPU depends on the machine.
     */
    @Test
    void countsIdleCpuNotWork() throws InterruptedException {
        CountedWait w = new CountedWait();
        w.prepare(Utils.readDefaultConfig(), IWaitStrategy.WaitSituation.BOLT_WAIT); // Storm's defaults.yaml
        long tid = Thread.currentThread().getId();
        long before = Math.max(0, CountedWait.spinNs(tid)); // the count is per thread: another test's may be in it
        long start = THREADS.getCurrentThreadCpuTime();
        burn(20);
        int c = 0;
        for (int i = 0; i < 200; i++) {
            c = w.idle(c);
        }
        long afterFirst = CountedWait.spinNs(tid) - before;
        burn(20); // a tuple: the next spell starts at counter 0
        c = 0;
        for (int i = 0; i < 200; i++) {
            c = w.idle(c);
        }
        burn(20);
        c = w.idle(0); // the next spell's first call: the work before it is not idle
        long spun = CountedWait.spinNs(tid) - before;
        long cpu = THREADS.getCurrentThreadCpuTime() - start;
        assertTrue(afterFirst > 0, "first spell counted nothing");
        assertTrue(spun > afterFirst, "second spell counted nothing");
        assertTrue(spun <= cpu - 55_000_000L, "counted " + spun + " ns of " + cpu + " ns with 60 ms of work");
        assertEquals(spun, CountedWait.spinNs(tid) - before, "a read changes nothing");
    }

    /**
     * A spell's last park is not in the count: the next spell's first call adds the thread's mean CPU per
     * counted park for it, when the spell ended in a park, and nothing when it ended at its first call (no
     * park) or in a sleep (Storm's level 3, here after 3 parks). Bounds, not timings: the mean park holds at
     * most the counted CPU over the 198 counted parks of a 200-call spell.
     */
    @Test
    void estimatesTheLastParks() throws InterruptedException {
        Map<String, Object> conf = Utils.readDefaultConfig();
        CountedWait w = new CountedWait();
        w.prepare(conf, IWaitStrategy.WaitSituation.BOLT_WAIT);
        long tid = Thread.currentThread().getId();
        long[] before = counts(tid);
        int c = 0;
        for (int i = 0; i < 200; i++) {
            c = w.idle(c);
        }
        long[] mid = counts(tid);
        assertEquals(before[1], mid[1], "a spell's last park is added when the next spell starts");
        assertEquals(before[3] + 199, mid[3], "a 200-call spell parks at each call after its first (level 1)");
        w.idle(0); // a tuple came; the next spell starts
        long[] after = counts(tid);
        assertEquals(mid[2] + 1, after[2], "a spell's start counted once");
        long counted = mid[0] - before[0];
        long last = after[1] - mid[1];
        assertTrue(last > 0, "no last park estimated");
        assertTrue(last * 198 <= counted, "last park " + last + " ns over a mean of the counted " + counted + " ns");
        w.idle(0); // the spell ended at its first call: no park to add
        assertEquals(after[1], counts(tid)[1], "a spell without a park added one");

        conf.put(Config.TOPOLOGY_BOLT_WAIT_PROGRESSIVE_LEVEL2_COUNT, 3);
        CountedWait s = new CountedWait();
        s.prepare(conf, IWaitStrategy.WaitSituation.BOLT_WAIT);
        c = 0;
        for (int i = 0; i < 6; i++) { // 1 call, 3 parks, 2 sleeps
            c = s.idle(c);
        }
        long[] slept = counts(tid);
        s.idle(0);
        assertEquals(slept[1], counts(tid)[1], "a spell that ended in sleep added a park");
    }

    private static long[] counts(long tid) {
        long[] c = CountedWait.counts(tid);
        return c == null ? new long[] {0, 0, 0, 0} : c;
    }

    /** Instrumenting runs the bolts with the counting strategy, unless the topology chose its own. */
    @Test
    void instrumentingSetsTheStrategy() {
        Config conf = new Config();
        Instrument.configure(conf, "", 5);
        assertEquals(CountedWait.class.getName(), conf.get(Config.TOPOLOGY_BOLT_WAIT_STRATEGY));
        Config own = new Config();
        own.put(Config.TOPOLOGY_BOLT_WAIT_STRATEGY, "org.apache.storm.policy.WaitStrategyPark");
        Instrument.configure(own, "", 5);
        assertEquals("org.apache.storm.policy.WaitStrategyPark", own.get(Config.TOPOLOGY_BOLT_WAIT_STRATEGY));
    }

    /** A thread that never idled in the strategy has no count. */
    @Test
    void unknownThreadHasNoCount() {
        assertEquals(-1, CountedWait.spinNs(-12345));
    }
}
