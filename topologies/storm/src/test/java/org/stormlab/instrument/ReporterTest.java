package org.stormlab.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ReporterTest {

    /**
     * A fixed worker state rendered twice. Hand computation of the second report (the golden file
     * src/test/resources/worker-report.json, which the Go test in topologies/storm_test.go also decodes
     * strictly into protocol.WorkerReport, decoding its histograms too):
     * - traffic: task 5 executed 2 tuples from task 3 and 1 from task 4; task 6 executed 3 from task 5.
     * - cpu: thread 100 runs tasks 5 and 6 and went from 1.0 ms to 3.0 ms of CPU (delta 2,000,000 ns); the
     *   tasks had 3 and 1 hook events, so 1,500,000 and 500,000 ns. Thread 101 runs task 3: 500 -> 1500 ns.
     * - deadlines on task 6 (a sink, deadline 200 ms): T_start 1,700,000,004,000,000 us done 100 ms later,
     *   and T_start 1,700,000,003,700,000 us done 300 ms later: count 2, missed 1, sum processing 400,
     *   sum QoS 0.5 + 1.5 = 2, T_start oldest 1,700,000,003,700 ms and newest 1,700,000,004,000 ms.
     * - acked 7 (total 7 since the worker started at 1,699,999,990,000 ms), failed 1, latency samples 10 and
     *   20.5 (the histogram holds 10 and 21, rounded to whole ms); processing histogram 100,000 and
     *   300,000 us (task 6's two tuples); worker CPU 37.5%, memory 96.25 MB (given).
     * - tuple sizes (sampled 1 in 64): task 5 executed 2 sampled tuples of 320 bytes in all and emitted one of
     *   90; task 3 emitted one of 60.
     * - emits: task 3 emitted 3 tuples on "default"; task 5 emitted 2 on "default" and 1 on "words".
     * - thread groups (given): the transfer thread 250,000 ns, two Netty server threads 125,000 ns.
     */
    @Test
    void rendersGoldenReport() throws IOException {
        WorkerStats w = new WorkerStats("wordcount-1-1700000000", 6700, 2000, 1_699_999_990_000L);
        TaskStats t3 = w.task(3);
        TaskStats t5 = w.task(5);
        TaskStats t6 = w.task(6);
        t3.threadId = 101;
        t5.threadId = 100;
        t6.threadId = 100;
        t6.deadlineMs = 200;
        t6.sink = true;
        Map<Long, Long> cpuNow = new HashMap<>(Map.of(100L, 1_000_000L, 101L, 500L));
        Map<Long, Long> last = new HashMap<>();

        String first = Reporter.render(w, "node-1", 1, 5, 0, 0, cpuNow::get, last);
        assertTrue(first.contains("\"cpu\":[{\"task\":3,\"cpu_ns\":0},{\"task\":5,\"cpu_ns\":0},{\"task\":6,\"cpu_ns\":0}]"), first);

        cpuNow.put(100L, 3_000_000L);
        cpuNow.put(101L, 1500L);
        t5.executed(3);
        t5.executed(3);
        t5.executed(4);
        t6.executed(5);
        t6.executed(5);
        t6.executed(5);
        t5.events.add(3);
        t6.events.add(1);
        t3.events.add(9);
        w.processing(t6.deadline(1_700_000_004_000_000L, 1_700_000_004_100_000L));
        w.processing(t6.deadline(1_700_000_003_700_000L, 1_700_000_004_000_000L));
        for (int i = 0; i < 7; i++) {
            w.acked();
        }
        w.failed();
        w.latency(10);
        w.latency(20.5);
        t5.inSamples.add(2);
        t5.inBytes.add(320);
        t5.outSamples.add(1);
        t5.outBytes.add(90);
        t3.outSamples.add(1);
        t3.outBytes.add(60);
        for (String stream : new String[] {"default", "default", "default"}) {
            t3.emitted(stream);
        }
        t5.emitted("words");
        t5.emitted("default");
        t5.emitted("default");

        Map<String, long[]> groups = new java.util.TreeMap<>(Map.of("Worker-Transfer", new long[] {1, 250_000},
            "Netty-server-localhost-#-worker-#", new long[] {2, 125_000}));
        String second = Reporter.render(w, "node-1", 1700000005000L, 5.002, 37.5, 96.25, cpuNow::get, last, id -> null,
            new HashMap<>(), groups);
        assertEquals(golden(), second);

        // Counters are deltas, the totals are not: a third report with nothing new is empty but for
        // acked_total. Memory unknown (-1) is named in not_measured and sent as 0.
        String third = Reporter.render(w, "node-1", 1700000010000L, 5, 0, -1, cpuNow::get, last);
        assertTrue(third.contains("\"traffic\":[]"), third);
        assertTrue(third.contains("\"emits\":[]"), third);
        assertTrue(third.contains("\"acked\":0"), third);
        assertTrue(third.contains("\"acked_total\":7"), third);
        assertTrue(third.contains("\"complete_latency_ms\":[]"), third);
        assertTrue(third.contains("\"tuple_sizes\":[]"), third);
        assertTrue(third.contains("\"worker_memory_mb\":0"), third);
        assertTrue(third.contains("\"not_measured\":[\"worker_memory_mb\"]"), third);
    }

    /**
     * Idle CPU (CountedWait's counts) is reported per task beside its CPU, split as the CPU is, and never
     * more than the thread's CPU over the interval. By hand: thread 100 (tasks 5 and 6, 3 and 1 events)
     * went 0 -> 2,000,000 ns of CPU, 0 -> 800,000 ns counted idle and 0 -> 400,000 ns of last parks:
     * 600,000 and 200,000 ns counted, 300,000 and 100,000 ns last, 0 -> 40 spells: 30 and 10, and 0 -> 400 parks: 300
     * and 100. Thread 101 (task 3) counted 0 -> 5,000 ns
     * idle over 1,000 ns of CPU (its clocks read at different moments): capped at 1,000, leaving its last
     * parks 0. A thread that never idled in the strategy (null) has neither field.
     */
    @Test
    void reportsIdleCpuApart() {
        WorkerStats w = new WorkerStats("t", 6700, 2000, 1);
        w.task(3).threadId = 101;
        w.task(5).threadId = 100;
        w.task(6).threadId = 100;
        w.task(7).threadId = 102;
        Map<Long, Long> cpu = new HashMap<>(Map.of(100L, 0L, 101L, 0L, 102L, 0L));
        Map<Long, long[]> spin = new HashMap<>(Map.of(100L, new long[] {0, 0, 0, 0}, 101L, new long[] {0, 0, 0, 0}));
        Map<Long, Long> lastCpu = new HashMap<>();
        Map<Long, long[]> lastSpin = new HashMap<>();
        Reporter.render(w, "n", 1, 5, 0, 0, cpu::get, lastCpu, spin::get, lastSpin, null);
        cpu.putAll(Map.of(100L, 2_000_000L, 101L, 1_000L, 102L, 7_000L));
        spin.putAll(Map.of(100L, new long[] {800_000, 400_000, 40, 400}, 101L, new long[] {5_000, 2_000, 3, 0}));
        w.task(5).events.add(3);
        w.task(6).events.add(1);
        String r = Reporter.render(w, "n", 2, 5, 0, 0, cpu::get, lastCpu, spin::get, lastSpin, null);
        assertTrue(r.contains("\"cpu\":[{\"task\":3,\"cpu_ns\":1000,\"spin_ns\":1000,\"spin_last_ns\":0,\"spells\":3,\"parks\":0},"
            + "{\"task\":5,\"cpu_ns\":1500000,\"spin_ns\":600000,\"spin_last_ns\":300000,\"spells\":30,\"parks\":300},"
            + "{\"task\":6,\"cpu_ns\":500000,\"spin_ns\":200000,\"spin_last_ns\":100000,\"spells\":10,\"parks\":100},"
            + "{\"task\":7,\"cpu_ns\":7000}]"), r);
    }

    /** The encoding decodes back to the same histogram (V2 compressed, base64). */
    @Test
    void histogramEncodingRoundTrips() throws Exception {
        Histogram h = new Histogram(1, Instrument.LATENCY_HIST_HIGHEST, Instrument.HIST_DIGITS);
        for (long v = 0; v < 5000; v += 7) {
            h.recordValue(v);
        }
        h.recordValue(Instrument.LATENCY_HIST_HIGHEST);
        byte[] raw = Base64.getDecoder().decode(WorkerStats.encode(h));
        Histogram back = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(raw), 0);
        assertEquals(h, back);
        assertEquals(1, back.getLowestDiscernibleValue());
        assertEquals(Instrument.LATENCY_HIST_HIGHEST, back.getHighestTrackableValue());
    }

    /** Processing time is never negative, and a task without a deadline records no QoS or miss. */
    @Test
    void deadlineWithoutDeadlineAndClockSkew() {
        TaskStats t = new TaskStats(1);
        assertEquals(0, t.deadline(2_000, 1_000)); // skew: the emitting JVM's clock was ahead
        assertEquals(1, t.deadlineCount.sum());
        assertEquals(0, t.sumQos.sum());
        assertEquals(0, t.deadlineMissed.sum());
    }

    private static String golden() throws IOException {
        try (InputStream in = ReporterTest.class.getResourceAsStream("/worker-report.json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
    }

    @Test
    void latencyReservoirIsCapped() {
        WorkerStats w = new WorkerStats("t", 1, 10);
        for (int i = 0; i < 1000; i++) {
            w.latency(i);
        }
        double[] s = w.drainLatency();
        assertEquals(10, s.length);
        for (double v : s) {
            assertTrue(v >= 0 && v < 1000, "sample out of range: " + v);
        }
        assertEquals(0, w.drainLatency().length);
    }

    @Test
    void jsonEscapesAndNonFinite() {
        String s = new Json().beginObject().field("a", "q\"\\\n\u0001").field("b", Double.NaN).field("c", 1.5).endObject().toString();
        assertEquals("{\"a\":\"q\\\"\\\\\\n\\u0001\",\"b\":0,\"c\":1.5}", s);
    }
}
