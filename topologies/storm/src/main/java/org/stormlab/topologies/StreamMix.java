package org.stormlab.topologies;

/**
 * Picks the stream of each tuple a replayed spout emits, so that the streams get their captured shares of the
 * spout's tuples: smooth weighted round robin (each pick adds every stream's share to its credit, picks the
 * stream with the most credit and takes 1 from it), the scheme nginx balances upstreams with. Deterministic,
 * and after n picks every stream has been picked within one of n * share times.
 */
final class StreamMix {
    private final double[] share;
    private final double[] credit;

    /** @param weights one weight per stream, finite and >= 0, at least one > 0 */
    StreamMix(double[] weights) {
        double sum = 0;
        for (double w : weights) {
            if (!(w >= 0) || Double.isInfinite(w)) {
                throw new IllegalArgumentException("stream weight " + w + " must be finite and >= 0");
            }
            sum += w;
        }
        if (!(sum > 0)) {
            throw new IllegalArgumentException("stream weights are all 0: give at least one stream a rate");
        }
        share = new double[weights.length];
        for (int i = 0; i < weights.length; i++) {
            share[i] = weights[i] / sum;
        }
        credit = new double[weights.length];
    }

    /** The index of the next tuple's stream. */
    int next() {
        int best = 0;
        for (int i = 0; i < share.length; i++) {
            credit[i] += share[i];
            if (credit[i] > credit[best]) {
                best = i;
            }
        }
        credit[best] -= 1;
        return best;
    }
}
