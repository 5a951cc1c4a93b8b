package org.stormlab.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ThreadGroupsTest {

    /** Names of Storm 2.8 worker threads (a worker's thread dump) and their groups. */
    @Test
    void groupsByNameWithoutNumbers() {
        for (String[] c : new String[][] {
            {"Netty-server-localhost-6700-worker-1", "Netty-server-localhost-#-worker-#"},
            {"Worker-Transfer", "Worker-Transfer"},
            {"Thread-23-split-executor[5, 5]", "Thread-#-split-executor[#, #]"},
            {"client-worker-12", "client-worker-#"},
        }) {
            assertEquals(c[1], ThreadGroups.group(c[0]), c[0]);
        }
    }

    /**
     * Three threads named "stormlab-burn-1" to "-3" burn at least 20 ms of CPU each between two samples, and the
     * third is excluded (as an executor's thread is). The group has 2 threads whose CPU over the interval is at
     * least what they measured on their own clocks, and less than that plus the excluded one's 20 ms (the
     * burners do next to nothing outside their burn). The first sample counts every thread from that reading: 0.
     */
    @Test
    void sumsAGroupsCpuSinceTheLastSample() throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(3);
        CountDownLatch done = new CountDownLatch(3);
        CountDownLatch end = new CountDownLatch(1);
        long[] burned = new long[3];
        Thread[] ts = new Thread[3];
        for (int i = 0; i < 3; i++) {
            int k = i;
            ts[i] = new Thread(() -> {
                try {
                    started.countDown();
                    go.await();
                    long from = mx.getCurrentThreadCpuTime();
                    while (mx.getCurrentThreadCpuTime() - from < 20_000_000L) {
                        Math.sqrt(from); // burn
                    }
                    burned[k] = mx.getCurrentThreadCpuTime() - from;
                    done.countDown();
                    end.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "stormlab-burn-" + (i + 1));
            ts[i].start();
        }
        started.await();
        ThreadGroups g = new ThreadGroups();
        Set<Long> self = Set.of(ts[2].getId());
        Map<String, long[]> first = g.sample(mx, self);
        assertEquals(0, first.get("stormlab-burn-#")[1], "first sight counts from its reading");
        go.countDown();
        done.await();
        Map<String, long[]> second = g.sample(mx, self);
        end.countDown();
        for (Thread t : ts) {
            t.join();
        }
        long[] burn = second.get("stormlab-burn-#");
        assertEquals(2, burn[0], "threads in the group");
        long want = burned[0] + burned[1];
        assertTrue(burn[1] >= want && burn[1] < want + burned[2],
            "group CPU " + burn[1] + " ns, burned " + burned[0] + " + " + burned[1] + " (excluded " + burned[2] + ")");
    }
}
