package org.stormlab.topologies;

import java.util.SplittableRandom;

/**
 * The open-loop send schedule of one spout task, fixed at start: the intended send times of its tuples
 * as offsets (ns) from the task's start. Constant: tuple k at k / rate exactly (computed from k, so no
 * rounding error accumulates). Poisson: exponential gaps of mean 1 / rate drawn from a seeded generator,
 * so the same seed gives the same schedule. The schedule does not depend on when tuples are actually
 * sent: a spout that falls behind sends late (its send lag grows) but the offered load stays the one
 * stated, which is what avoids coordinated omission (the approach of the OpenMessaging Benchmark, whose
 * publish latency counts from the intended send time).
 */
final class SendSchedule {
    /** Arrival processes. */
    enum Arrivals { CONSTANT, POISSON }

    private final Arrivals arrivals;
    private final double ratePerSec;
    private final SplittableRandom random;
    private long k;
    private double poissonS;

    private SendSchedule(Arrivals arrivals, double ratePerSec, long seed) {
        if (!(ratePerSec > 0) || Double.isInfinite(ratePerSec)) {
            throw new IllegalArgumentException("send rate " + ratePerSec + " must be a positive number");
        }
        this.arrivals = arrivals;
        this.ratePerSec = ratePerSec;
        this.random = new SplittableRandom(seed);
    }

    static SendSchedule constant(double ratePerSec) {
        return new SendSchedule(Arrivals.CONSTANT, ratePerSec, 0);
    }

    static SendSchedule poisson(double ratePerSec, long seed) {
        return new SendSchedule(Arrivals.POISSON, ratePerSec, seed);
    }

    static SendSchedule of(Arrivals a, double ratePerSec, long seed) {
        return a == Arrivals.POISSON ? poisson(ratePerSec, seed) : constant(ratePerSec);
    }

    /** Parses "constant" or "poisson"; anything else is an error naming both. */
    static Arrivals parse(String s) {
        switch (s) {
            case "constant":
                return Arrivals.CONSTANT;
            case "poisson":
                return Arrivals.POISSON;
            default:
                throw new IllegalArgumentException("--arrivals is \"" + s + "\": use constant or poisson");
        }
    }

    /**
     * The intended send time of the next tuple, ns from the start, and advances. The first tuple of a
     * constant schedule is due at 0; the first Poisson arrival after one exponential gap.
     */
    long next() {
        long i = k++;
        if (arrivals == Arrivals.CONSTANT) {
            return Math.round(i * 1e9 / ratePerSec);
        }
        // 1 - U lies in (0, 1], so the log is finite.
        poissonS += -Math.log(1.0 - random.nextDouble()) / ratePerSec;
        return Math.round(poissonS * 1e9);
    }

    /** Tuples handed out so far by {@link #next}. */
    long count() {
        return k;
    }
}
