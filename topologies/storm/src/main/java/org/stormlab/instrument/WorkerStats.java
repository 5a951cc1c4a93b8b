package org.stormlab.instrument;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.Deflater;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Everything measured in one worker (one topology on one port). In a real cluster a worker JVM holds
 * exactly one of these; in LocalCluster several workers share a JVM, so the registry keys them by
 * (topology id, port) and the reporter sends one report per key.
 */
final class WorkerStats {
    final String topology;
    final int port;
    /** When these counters started (epoch ms): the worker's incarnation in reports. */
    final long startMs;
    final Map<Integer, TaskStats> tasks = new ConcurrentHashMap<>();
    final LongAdder acked = new LongAdder();
    final LongAdder failed = new LongAdder();
    /** Since startMs, never reset. */
    final LongAdder ackedTotal = new LongAdder();
    final LongAdder failedTotal = new LongAdder();
    /** A tuple could not be serialized for its size: sizes are reported as not measured from then on. */
    volatile boolean sizeFailed;
    /** 1 in N tuples per task has its size sampled (set by the hooks from the topology conf). */
    volatile int sizeSampleEvery = Instrument.DEFAULT_SIZE_SAMPLE_EVERY;

    /**
     * Complete latency (ms) of every acked spout tuple and processing time (µs) of every tuple executed
     * by a sink task, as interval histograms. A Recorder takes values from many threads without locks
     * and hands over the interval's histogram atomically.
     */
    private final Recorder latencyHist = new Recorder(1, Instrument.LATENCY_HIST_HIGHEST, Instrument.HIST_DIGITS);
    private final Recorder processingHist = new Recorder(1, Instrument.PROCESSING_HIST_HIGHEST, Instrument.HIST_DIGITS);
    private Histogram latencyReuse;
    /**
     * Open-loop spouts only ({@link OpenLoopStats}): complete latency from the intended send time (ms) and
     * send lag (ms), same layout as the complete latency. Reported only when openLoop is set, so closed-loop
     * reports are unchanged.
     */
    volatile boolean openLoop;
    /** Some task of this worker finished its dataset share ({@link DatasetDone}); reported as spout_done. */
    volatile boolean datasetDone;
    private final Recorder intendedHist = new Recorder(1, Instrument.LATENCY_HIST_HIGHEST, Instrument.HIST_DIGITS);
    private final Recorder sendLagHist = new Recorder(1, Instrument.LATENCY_HIST_HIGHEST, Instrument.HIST_DIGITS);
    private Histogram intendedReuse;
    private Histogram sendLagReuse;
    private Histogram processingReuse;

    private final int latencyCap;
    private final Object latencyLock = new Object();
    private double[] latency;
    private long latencySeen;
    private final Random reservoirRandom = new Random(1);

    WorkerStats(String topology, int port, int latencyCap) {
        this(topology, port, latencyCap, System.currentTimeMillis());
    }

    WorkerStats(String topology, int port, int latencyCap, long startMs) {
        this.topology = topology;
        this.port = port;
        this.startMs = startMs;
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

    void acked() {
        acked.increment();
        ackedTotal.increment();
    }

    void failed() {
        failed.increment();
        failedTotal.increment();
    }

    /**
     * Adds one complete-latency value: to the histogram (every value) and to the reservoir sample kept
     * for the service's latency time series. Reservoir sampling (Vitter's algorithm R) keeps a uniform
     * sample of at most latencyCap values per interval.
     */
    void latency(double ms) {
        latencyHist.recordValue(clamp(Math.round(ms), Instrument.LATENCY_HIST_HIGHEST));
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

    /** Adds one complete latency from the intended send time, ms. */
    void latencyIntended(long ms) {
        intendedHist.recordValue(clamp(ms, Instrument.LATENCY_HIST_HIGHEST));
    }

    /** Adds one send lag, µs (recorded in ms, rounded, like the complete latency). */
    void sendLag(long us) {
        sendLagHist.recordValue(clamp(Math.round(us / 1000.0), Instrument.LATENCY_HIST_HIGHEST));
    }

    /** The interval's latency-from-intended histogram, encoded; starts a new interval. */
    String drainIntendedHist() {
        intendedReuse = intendedHist.getIntervalHistogram(intendedReuse);
        return encode(intendedReuse);
    }

    /** The interval's send-lag histogram, encoded; starts a new interval. */
    String drainSendLagHist() {
        sendLagReuse = sendLagHist.getIntervalHistogram(sendLagReuse);
        return encode(sendLagReuse);
    }

    /** Adds one processing time of a tuple at a sink task, µs. */
    void processing(long us) {
        processingHist.recordValue(clamp(us, Instrument.PROCESSING_HIST_HIGHEST));
    }

    private static long clamp(long v, long highest) {
        return v < 0 ? 0 : Math.min(v, highest);
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

    /** The interval's complete-latency histogram, encoded (see {@link #encode}); starts a new interval. */
    String drainLatencyHist() {
        latencyReuse = latencyHist.getIntervalHistogram(latencyReuse);
        return encode(latencyReuse);
    }

    /** The interval's processing-time histogram, encoded; starts a new interval. */
    String drainProcessingHist() {
        processingReuse = processingHist.getIntervalHistogram(processingReuse);
        return encode(processingReuse);
    }

    /**
     * HdrHistogram's V2 compressed encoding (encodeIntoCompressedByteBuffer, zlib), base64: what
     * hdrhistogram-go's Decode reads (infra/protocol/hist.go).
     */
    static String encode(Histogram h) {
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity() + 64);
        int n = h.encodeIntoCompressedByteBuffer(buf, Deflater.DEFAULT_COMPRESSION);
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), n));
    }
}
