package org.stormlab.topologies;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.LongSupplier;

/**
 * Gives a replayed task a CPU cost per tuple by spinning until its thread's CPU time
 * ({@link ThreadMXBean#getCurrentThreadCpuTime}) has advanced far enough. Thread CPU time, not wall time: a
 * spin that is descheduled (two cores shared by many executors) does not count as work done, so no
 * calibration loop is needed and the cost is the same on a fast or a slow or a busy machine.
 *
 * <p>Two modes:
 * <ul>
 *   <li>{@link Mode#TOTAL} (the default): the thread's whole CPU time per tuple is the target. That is what a
 *       capture measured (the instrumentation reads each executor thread's CPU time and divides by the tuples
 *       it executed), and it includes Storm's own per-tuple work and the executor's idle polling (its wait
 *       strategy parks and wakes between tuples), which the replayed topology pays again. So the budget is
 *       cumulative: at the n-th tuple the thread spins until its CPU time since the first tuple reaches
 *       n x target, and whatever Storm spent between tuples is subtracted from the spin. When Storm's own cost
 *       exceeds the target (a component that did next to nothing), no spin happens and the replay costs what
 *       Storm costs; the credit so built up is capped at {@link #MAX_CREDIT_TUPLES} tuples' worth, so a burst
 *       of overhead (a GC, a long idle spell) is not paid back by many tuples without work.</li>
 *   <li>{@link Mode#EXTRA}: spin the target on every tuple, on top of Storm's own cost (what a captured
 *       figure means if it was the user code's CPU alone).</li>
 * </ul>
 * Without thread CPU time (a JVM that does not support it) the spin falls back to wall time, which over-counts
 * on a busy machine; {@link #threadCpuClock} says so with null.
 */
final class CpuBudget {
    /** How the target is met; see the class comment. */
    enum Mode { TOTAL, EXTRA }

    /** The most CPU credit (Storm's overhead beyond the target) carried forward, in tuples' worth of target. */
    static final long MAX_CREDIT_TUPLES = 50;

    private static volatile long sink;

    private final long targetNs;
    private final Mode mode;
    private final LongSupplier cpuNs;
    private long base = -1;
    private long tuples;

    /**
     * @param targetUs CPU per tuple, µs (0: none)
     * @param cpuNs the thread's CPU clock, ns ({@link #threadCpuClock}), or null for wall time
     */
    CpuBudget(double targetUs, Mode mode, LongSupplier cpuNs) {
        if (!(targetUs >= 0) || Double.isInfinite(targetUs)) {
            throw new IllegalArgumentException("CPU per tuple " + targetUs + " µs must be finite and >= 0");
        }
        this.targetNs = Math.round(targetUs * 1000);
        this.mode = cpuNs == null ? Mode.EXTRA : mode;
        this.cpuNs = cpuNs == null ? System::nanoTime : cpuNs;
    }

    /** Parses --cpu-mode: total or extra. */
    static Mode parseMode(String s) {
        switch (s) {
            case "total":
                return Mode.TOTAL;
            case "extra":
                return Mode.EXTRA;
            default:
                throw new IllegalArgumentException("--cpu-mode is \"" + s + "\": use total or extra");
        }
    }

    /**
     * The current thread's CPU clock (ns), switching thread CPU time measurement on if it is off; null when the
     * JVM cannot measure it.
     */
    static LongSupplier threadCpuClock() {
        ThreadMXBean t = ManagementFactory.getThreadMXBean();
        if (!t.isCurrentThreadCpuTimeSupported()) {
            return null;
        }
        if (!t.isThreadCpuTimeEnabled()) {
            t.setThreadCpuTimeEnabled(true);
        }
        return t::getCurrentThreadCpuTime;
    }

    /** Spends this tuple's CPU; returns the ns spun (by the clock). */
    long onTuple() {
        if (targetNs == 0) {
            return 0;
        }
        long now = cpuNs.getAsLong();
        if (mode == Mode.EXTRA) {
            return spinUntil(cpuNs, now + targetNs) - now;
        }
        if (base < 0) {
            base = now;
        }
        tuples++;
        long due = base + tuples * targetNs;
        long credit = now - due;
        long maxCredit = MAX_CREDIT_TUPLES * targetNs;
        if (credit > maxCredit) {
            base += credit - maxCredit;
            due = base + tuples * targetNs;
        }
        if (now >= due) {
            return 0;
        }
        return spinUntil(cpuNs, due) - now;
    }

    /** Spins until clock reads at least until; returns the last reading. */
    static long spinUntil(LongSupplier clock, long until) {
        long x = sink;
        long now = clock.getAsLong();
        while (now < until) {
            for (int i = 0; i < 64; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            now = clock.getAsLong();
        }
        sink = x;
        return now;
    }
}
