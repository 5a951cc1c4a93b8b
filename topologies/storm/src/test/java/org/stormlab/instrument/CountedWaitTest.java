package org.stormlab.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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
