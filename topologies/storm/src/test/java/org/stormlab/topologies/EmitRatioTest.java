package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The per-task emit accumulator and the spouts' stream mix: exact counts, no randomness. */
class EmitRatioTest {
    /** After n tuples floor(n * ratio) have been emitted, exactly (reference: the definition). */
    @Test
    void emitsTheRatioExactly() {
        double[] ratios = {0, 0.1, 0.25, 1.0 / 3, 0.5, 1, 2.5, 7.0 / 3, 10};
        for (double r : ratios) {
            EmitRatio e = new EmitRatio(r);
            long sum = 0;
            for (int n = 1; n <= 10_000; n++) {
                int k = e.next();
                assertTrue(k == (int) Math.floor(r) || k == (int) Math.floor(r) + 1, "ratio " + r + ": " + k + " at once");
                sum += k;
                assertEquals(Math.floor(n * r + 1e-6), sum, 0, "ratio " + r + " after " + n);
            }
        }
    }

    @Test
    void patterns() {
        EmitRatio half = new EmitRatio(0.5);
        EmitRatio twoHalf = new EmitRatio(2.5);
        int[] h = new int[6];
        int[] t = new int[4];
        for (int i = 0; i < h.length; i++) {
            h[i] = half.next();
        }
        for (int i = 0; i < t.length; i++) {
            t[i] = twoHalf.next();
        }
        assertArrayEquals(new int[] {0, 1, 0, 1, 0, 1}, h);
        assertArrayEquals(new int[] {2, 3, 2, 3}, t);
        assertThrows(IllegalArgumentException.class, () -> new EmitRatio(-1));
        assertThrows(IllegalArgumentException.class, () -> new EmitRatio(Double.NaN));
    }

    /** Each stream is picked within one of n * share times after n picks (smooth weighted round robin). */
    @Test
    void streamMixKeepsShares() {
        double[] w = {150, 50, 0, 25};
        StreamMix m = new StreamMix(w);
        int[] count = new int[w.length];
        for (int n = 1; n <= 9000; n++) {
            count[m.next()]++;
            for (int i = 0; i < w.length; i++) {
                double want = n * w[i] / 225;
                assertTrue(Math.abs(count[i] - want) <= 1, "stream " + i + " after " + n + ": " + count[i] + ", want " + want);
            }
        }
        assertEquals(0, count[2]);
        assertThrows(IllegalArgumentException.class, () -> new StreamMix(new double[] {0, 0}));
    }
}
