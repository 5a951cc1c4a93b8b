package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** The CPU burn of the replay's components. */
class CpuBudgetTest {
    /**
     * Burning X µs advances the thread's CPU time by at least X and at most X + 20% + 200 µs. The upper
     * tolerance covers the last spin round and the clock reads (well under a µs each on Linux) and a timer
     * interrupt or JIT compilation charged to the thread; it is not a property of the machine's speed, since
     * thread CPU time does not advance while the thread is descheduled.
     */
    @Test
    void burnAdvancesThreadCpu() {
        LongSupplier cpu = CpuBudget.threadCpuClock();
        assertNotNull(cpu, "this JVM measures thread CPU time");
        for (double us : new double[] {50, 300, 1000, 5000}) {
            CpuBudget b = new CpuBudget(us, CpuBudget.Mode.EXTRA, cpu);
            long before = cpu.getAsLong();
            b.onTuple();
            long spent = cpu.getAsLong() - before;
            long x = Math.round(us * 1000);
            assertTrue(spent >= x, us + " µs: thread CPU advanced " + spent + " ns, want >= " + x);
            assertTrue(spent <= x * 1.2 + 200_000, us + " µs: thread CPU advanced " + spent + " ns, want <= " + (x * 1.2 + 200_000));
        }
    }

    /** A clock the test moves: each read advances it by step ns (the spin's own cost). */
    static final class FakeClock implements LongSupplier {
        long now;
        long step = 1000;

        @Override
        public long getAsLong() {
            now += step;
            return now;
        }
    }

    /**
     * TOTAL mode: the thread's CPU per tuple is the target, whatever Storm spent between tuples, as long as that
     * is less than the target; more overhead is carried as credit, at most MAX_CREDIT_TUPLES tuples' worth.
     */
    @Test
    void totalModeSubtractsOverhead() {
        FakeClock c = new FakeClock();
        CpuBudget b = new CpuBudget(300, CpuBudget.Mode.TOTAL, c);
        long start = c.now;
        for (int i = 0; i < 100; i++) {
            c.now += 120_000; // Storm's own cost between tuples: 120 µs
            b.onTuple();
        }
        // 100 tuples at 300 µs: 30 ms of thread CPU in all, within the last spin step and the first tuple's base.
        assertEquals(30_000_000, c.now - start, 120_000 + 2 * c.step);

        // Overhead above the target: nothing is spun, and the credit is capped.
        FakeClock d = new FakeClock();
        CpuBudget e = new CpuBudget(300, CpuBudget.Mode.TOTAL, d);
        e.onTuple();
        for (int i = 0; i < 1000; i++) {
            d.now += 1_000_000; // 1 ms of overhead per tuple
            assertEquals(0, e.onTuple());
        }
        // Back to 100 µs of overhead: spinning resumes after at most MAX_CREDIT_TUPLES tuples.
        int idle = 0;
        while (true) {
            d.now += 100_000;
            if (e.onTuple() > 0) {
                break;
            }
            idle++;
        }
        long maxIdle = CpuBudget.MAX_CREDIT_TUPLES * 300 / (300 - 100) + 1;
        assertTrue(idle <= maxIdle, idle + " tuples without a spin, want <= " + maxIdle);
    }

    @Test
    void zeroTargetNeverSpins() {
        FakeClock c = new FakeClock();
        CpuBudget b = new CpuBudget(0, CpuBudget.Mode.TOTAL, c);
        assertEquals(0, b.onTuple());
        assertEquals(0, c.now);
    }
}
