package org.stormlab.topologies;

/** Burns CPU for a given time, so components can be given a CPU cost per tuple. */
final class Work {
    private static volatile long sink;

    private Work() {
    }

    /** Spins for about micros microseconds of wall time on the calling thread; 0 returns at once. */
    static void spin(long micros) {
        if (micros <= 0) {
            return;
        }
        long end = System.nanoTime() + micros * 1000;
        long x = sink;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 64; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        sink = x;
    }
}
