package org.stormlab.topologies;

/**
 * How many tuples a replayed bolt task emits on one output stream per executed tuple, at a fractional ratio
 * (the captured out rate / in rate): an accumulator adds the ratio per executed tuple and emits its whole
 * part, keeping the rest. After n executed tuples exactly floor(n * ratio) (up to floating-point rounding of
 * the running sum, compensated below) have been emitted, whatever the ratio, with no randomness: the same
 * input gives the same output in every run. A ratio of 2.5 emits 2, 3, 2, 3, ...; 0.25 emits once every 4th
 * tuple.
 */
final class EmitRatio {
    private final double ratio;
    private double acc;

    /** @param ratio tuples emitted per executed tuple; finite and >= 0 */
    EmitRatio(double ratio) {
        if (!(ratio >= 0) || Double.isInfinite(ratio)) {
            throw new IllegalArgumentException("emit ratio " + ratio + " must be finite and >= 0");
        }
        this.ratio = ratio;
    }

    /** The tuples to emit for the next executed tuple. */
    int next() {
        acc += ratio;
        // A tiny epsilon keeps sums such as 0.1 * 10 = 0.9999999999999999 from losing a tuple.
        int n = (int) Math.floor(acc + 1e-9);
        acc -= n;
        return n;
    }

    double ratio() {
        return ratio;
    }
}
