package org.stormlab.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReporterTest {

    /**
     * A fixed worker state rendered twice. Hand computation of the second report (the golden file
     * src/test/resources/worker-report.json, which the Go test in topologies/storm_test.go also decodes
     * strictly into protocol.WorkerReport):
     * - traffic: task 5 executed 2 tuples from task 3 and 1 from task 4; task 6 executed 3 from task 5.
     * - cpu: thread 100 runs tasks 5 and 6 and went from 1.0 ms to 3.0 ms of CPU (delta 2,000,000 ns); the
     *   tasks had 3 and 1 hook events, so 1,500,000 and 500,000 ns. Thread 101 runs task 3: 500 -> 1500 ns.
     * - deadlines on task 6: processing 100 ms and 300 ms against a 200 ms deadline: count 2, missed 1,
     *   sum processing 400, sum QoS 0.5 + 1.5 = 2.
     * - acked 7, failed 1, latency samples 10 and 20.5; worker CPU 37.5%, memory 96.25 MB (given).
     */
    @Test
    void rendersGoldenReport() throws IOException {
        WorkerStats w = new WorkerStats("wordcount-1-1700000000", 6700, 2000);
        TaskStats t3 = w.task(3);
        TaskStats t5 = w.task(5);
        TaskStats t6 = w.task(6);
        t3.threadId = 101;
        t5.threadId = 100;
        t6.threadId = 100;
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
        t6.deadlineCount.add(2);
        t6.deadlineMissed.add(1);
        t6.sumProcessingMs.add(100);
        t6.sumProcessingMs.add(300);
        t6.sumQos.add(0.5);
        t6.sumQos.add(1.5);
        w.acked.add(7);
        w.failed.add(1);
        w.latency(10);
        w.latency(20.5);

        String second = Reporter.render(w, "node-1", 1700000005000L, 5.002, 37.5, 96.25, cpuNow::get, last);
        assertEquals(golden(), second);

        // Counters are deltas: a third report with nothing new is empty.
        String third = Reporter.render(w, "node-1", 1700000010000L, 5, 0, 0, cpuNow::get, last);
        assertTrue(third.contains("\"traffic\":[]"), third);
        assertTrue(third.contains("\"acked\":0"), third);
        assertTrue(third.contains("\"complete_latency_ms\":[]"), third);
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
