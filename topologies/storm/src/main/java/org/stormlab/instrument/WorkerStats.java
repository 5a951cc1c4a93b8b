package org.stormlab.instrument;

import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Everything measured in one worker (one topology on one port). In a real cluster a worker JVM holds
 * exactly one of these; in LocalCluster several workers share a JVM, so the registry keys them by
 * (topology id, port) and the reporter sends one report per key.
 */
final class WorkerStats {
    final String topology;
    final int port;
    final Map<Integer, TaskStats> tasks = new ConcurrentHashMap<>();
    final LongAdder acked = new LongAdder();
    final LongAdder failed = new LongAdder();

    private final int latencyCap;
    private final Object latencyLock = new Object();
    private double[] latency;
    private long latencySeen;
    private final Random reservoirRandom = new Random(1);

    WorkerStats(String topology, int port, int latencyCap) {
        this.topology = topology;
        this.port = port;
        this.latencyCap = Math.max(1, latencyCap);
        this.latency = new double[this.latencyCap];
    }

    TaskStats task(int id) {
        TaskStats t = tasks.get(id);
        if (t == null) {
            t = tasks.computeIfAbsent(id, TaskStats::new);
        }
        return t;
    }

    /**
     * Adds one complete-latency sample. Reservoir sampling (Vitter's algorithm R) keeps a uniform sample of
     * at most latencyCap values per interval, so percentiles stay unbiased when the ack rate is high.
     */
    void latency(double ms) {
        synchronized (latencyLock) {
            latencySeen++;
            if (latencySeen <= latencyCap) {
                latency[(int) (latencySeen - 1)] = ms;
            } else {
                long j = (long) (reservoirRandom.nextDouble() * latencySeen);
                if (j < latencyCap) {
                    latency[(int) j] = ms;
                }
            }
        }
    }

    /** Returns the interval's latency sample and starts a new interval. */
    double[] drainLatency() {
        synchronized (latencyLock) {
            int n = (int) Math.min(latencySeen, latencyCap);
            double[] out = java.util.Arrays.copyOf(latency, n);
            latencySeen = 0;
            return out;
        }
    }
}
