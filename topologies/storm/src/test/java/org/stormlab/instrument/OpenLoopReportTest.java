package org.stormlab.instrument;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The open-loop fields of a worker report: present only for open-loop spouts, with hand-computed values. */
class OpenLoopReportTest {
    private static String render(WorkerStats w) {
        return Reporter.render(w, "node-1", 1, 5, 0, 0, id -> -1, new HashMap<>());
    }

    private static Histogram hist(String json, String field) throws Exception {
        Matcher m = Pattern.compile("\"" + field + "\":\"([^\"]*)\"").matcher(json);
        assertTrue(m.find(), field + " in " + json);
        byte[] b = Base64.getDecoder().decode(m.group(1));
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(b), 0);
    }

    @Test
    void closedLoopReportsHaveNoOpenLoopFields() {
        WorkerStats w = new WorkerStats("t", 6700, 10, 1);
        w.task(3);
        String r = render(w);
        assertFalse(r.contains("latency_intended_hist") || r.contains("send_lag_hist") || r.contains("spout_load"), r);
    }

    /**
     * Task 3 offered 5 tuples and emitted 3, with lags 0.4 ms, 1,500 ms and 2,000.6 ms (recorded as 0, 1500
     * and 2001 ms). Two were acked with Storm complete latencies 4 and 6 ms: from the intended time 4 + 0 =
     * 4 and 6 + 1500 = 1506 ms. Totals are cumulative, the histograms interval deltas.
     */
    @Test
    void openLoopFieldsHandComputed() throws Exception {
        WorkerStats w = new WorkerStats("t", 6700, 10, 1);
        TaskStats t = w.task(3);
        t.openLoop = true;
        w.openLoop = true;
        OpenLoopStats s = newStats(w, t);
        s.offered(5);
        s.emitted(400);
        s.emitted(1_500_000);
        s.emitted(2_000_600);
        w.latencyIntended(4 + 0);
        w.latencyIntended(6 + 1500);
        String r = render(w);
        assertTrue(r.contains("\"spout_load\":[{\"task\":3,\"offered_total\":5,\"emitted_total\":3}]"), r);
        Histogram lag = hist(r, "send_lag_hist");
        assertEquals(3, lag.getTotalCount());
        assertEquals(0, lag.getMinValue());
        assertEquals(2001, lag.getMaxValue());
        Histogram intended = hist(r, "latency_intended_hist");
        assertEquals(2, intended.getTotalCount());
        assertEquals(4, intended.getMinValue());
        assertEquals(1506, intended.getMaxValue());
        String second = render(w);
        assertEquals(0, hist(second, "send_lag_hist").getTotalCount(), "histograms are interval deltas");
        assertTrue(second.contains("\"offered_total\":5,\"emitted_total\":3"), "totals are cumulative: " + second);
    }

    private static OpenLoopStats newStats(WorkerStats w, TaskStats t) throws Exception {
        java.lang.reflect.Constructor<OpenLoopStats> c = OpenLoopStats.class.getDeclaredConstructor(WorkerStats.class, TaskStats.class);
        c.setAccessible(true);
        return c.newInstance(w, t);
    }
}
