package org.stormlab.bridge;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * Wall time of one bridge round by phase, and the CPU time of the thread
 * that ran it, in milliseconds. The phases: snapshot (Storm's view to wire
 * records), encode (JSON), http (request sent to answer read, which holds
 * the service's own time), decode (JSON), apply (validate and assign) and
 * fallback (the per-topology check and, when needed, EvenScheduler). CPU is
 * the calling thread's only, so it is what Nimbus spends on the round itself;
 * -1 when the JVM cannot measure thread CPU time.
 */
public record Round(double totalMs, double cpuMs, double snapshotMs, double encodeMs, double httpMs,
                    double decodeMs, double applyMs, double fallbackMs,
                    int topologies, int executors, int applied, int fallbacks) {

    /** The STORMLAB-ROUND log line, without the logger's prefix. */
    public String logLine() {
        return String.format(Locale.ROOT,
                "STORMLAB-ROUND %.1f ms topologies=%d executors=%d applied=%d fallbacks=%d"
                        + " cpu=%.1f snapshot=%.1f encode=%.1f http=%.1f decode=%.1f apply=%.1f fallback=%.1f",
                totalMs, topologies, executors, applied, fallbacks,
                cpuMs, snapshotMs, encodeMs, httpMs, decodeMs, applyMs, fallbackMs);
    }

    /** The phases of a round, in order. */
    enum Phase { SNAPSHOT, ENCODE, HTTP, DECODE, APPLY, FALLBACK }

    /**
     * Collects phase times while a round runs. {@link #enter} closes the
     * running phase, so after a failure the time spent so far stays with the
     * phase that failed.
     */
    static final class Clock {
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        private static final boolean CPU = THREADS.isCurrentThreadCpuTimeSupported();

        private final long start = System.nanoTime();
        private final long cpuStart = cpuNow();
        private final double[] ms = new double[Phase.values().length];
        private Phase running = Phase.SNAPSHOT;
        private long since = start;

        private static long cpuNow() {
            if (!CPU) {
                return -1;
            }
            try {
                return THREADS.getCurrentThreadCpuTime();
            } catch (UnsupportedOperationException e) {
                return -1;
            }
        }

        /** Closes the running phase and starts p. */
        void enter(Phase p) {
            long now = System.nanoTime();
            ms[running.ordinal()] += (now - since) / 1e6;
            since = now;
            running = p;
        }

        Round done(int topologies, int executors, int applied, int fallbacks) {
            enter(running);
            long end = since;
            long c = cpuNow();
            double cpu = cpuStart < 0 || c < 0 ? -1 : (c - cpuStart) / 1e6;
            return new Round((end - start) / 1e6, cpu, ms[0], ms[1], ms[2], ms[3], ms[4], ms[5],
                    topologies, executors, applied, fallbacks);
        }
    }
}
