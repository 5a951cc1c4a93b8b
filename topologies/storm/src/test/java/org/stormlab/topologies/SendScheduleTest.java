package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;
import org.stormlab.instrument.IntendedId;

/** The open-loop send schedules and the spout that follows one. */
class SendScheduleTest {
    @Test
    void constantRateIsExact() {
        // Tuple k is due at k / rate: 200/s -> every 5 ms; 3/s -> 1/3 s rounded to the ns, no drift.
        SendSchedule s = SendSchedule.constant(200);
        for (int k = 0; k < 1000; k++) {
            assertEquals(k * 5_000_000L, s.next());
        }
        SendSchedule t = SendSchedule.constant(3);
        for (int i = 0; i < 2_999_999; i++) {
            t.next();
        }
        assertEquals(999_999_666_666_667L, t.next(), "tuple 2,999,999 at 3/s: round(2999999e9/3) ns");
    }

    /**
     * Over N = 200,000 arrivals the measured rate N / T_N has a relative standard deviation of 1/sqrt(N) =
     * 0.22% (T_N is Gamma(N, rate)), so a 1% tolerance is 4.5 standard deviations; the gaps of a Poisson
     * process are exponential, coefficient of variation 1 (tolerance 0.02 at this N).
     */
    @Test
    void poissonMeanRateWithinTolerance() {
        final int n = 200_000;
        for (double rate : new double[] {50, 1000, 20_000}) {
            SendSchedule s = SendSchedule.poisson(rate, 42);
            long prev = 0;
            double sum = 0;
            double sumSq = 0;
            long last = 0;
            for (int i = 0; i < n; i++) {
                last = s.next();
                double gap = (last - prev) / 1e9;
                assertTrue(last >= prev, "arrivals in order");
                sum += gap;
                sumSq += gap * gap;
                prev = last;
            }
            double measured = n / (last / 1e9);
            assertEquals(rate, measured, rate * 0.01, "mean rate over " + n + " arrivals at " + rate + "/s");
            double mean = sum / n;
            double cv = Math.sqrt(sumSq / n - mean * mean) / mean;
            assertEquals(1.0, cv, 0.02, "gaps' coefficient of variation at " + rate + "/s");
        }
    }

    @Test
    void sameSeedSameSchedule() {
        SendSchedule a = SendSchedule.poisson(500, 7);
        SendSchedule b = SendSchedule.poisson(500, 7);
        SendSchedule c = SendSchedule.poisson(500, 8);
        boolean differs = false;
        for (int i = 0; i < 10_000; i++) {
            long x = a.next();
            assertEquals(x, b.next());
            differs |= x != c.next();
        }
        assertTrue(differs, "another seed gives another schedule");
        OpenLoop ol = new OpenLoop(1000, false, SendSchedule.Arrivals.POISSON, 1);
        assertNotEquals(ol.schedule(2, 0).next(), ol.schedule(2, 1).next(), "tasks draw from their own streams");
        assertEquals(500, ol.ratePerTask(2), 0, "a topology's rate is divided over its spout tasks");
        assertEquals(1000, new OpenLoop(1000, true, SendSchedule.Arrivals.CONSTANT, 1).ratePerTask(2), 0);
    }

    @Test
    void badRatesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> SendSchedule.constant(0));
        assertThrows(IllegalArgumentException.class, () -> SendSchedule.poisson(Double.NaN, 1));
        assertThrows(IllegalArgumentException.class, () -> SendSchedule.parse("bursty"));
        for (String r : new String[] {"-5", "100001", "NaN"}) {
            Args a = ThroughputTopology.flags().parse(new String[] {"--rate", r});
            assertThrows(IllegalArgumentException.class, () -> OpenLoop.from(a), "--rate " + r);
        }
    }

    @Test
    void openLoopLeavesMaxSpoutPendingUnsetUnlessGiven() {
        Args closed = ThroughputTopology.flags().parse(new String[] {});
        assertEquals(1000, ((Number) TopologySetup.config(closed).get("topology.max.spout.pending")).intValue());
        Args open = ThroughputTopology.flags().parse(new String[] {"--rate", "100"});
        assertEquals(null, TopologySetup.config(open).get("topology.max.spout.pending"));
        Args given = ThroughputTopology.flags().parse(new String[] {"--rate", "100", "--max-spout-pending", "50"});
        assertEquals(50, ((Number) TopologySetup.config(given).get("topology.max.spout.pending")).intValue());
    }

    private static TopologyContext context() {
        return SpoutFixture.context("spout", new ThroughputTopology.ChainSpout(0, 10, 1), new Fields("seq", "payload", "t_start"), "openloop-1-1");
    }

    /**
     * A spout called late sends its whole backlog, nothing dropped (the paced mode drops a backlog over
     * 10 ms), each tuple with its lag; it never sends ahead of its schedule (no busy loop of its own).
     */
    @Test
    void lateSpoutSendsBacklogWithLag() throws Exception {
        PacedSpout s = new ThroughputTopology.ChainSpout(0, 10, 1)
            .openLoop(new OpenLoop(1000, false, SendSchedule.Arrivals.CONSTANT, 1));
        SpoutFixture.Recorder rec = new SpoutFixture.Recorder();
        Map<String, Object> conf = new HashMap<>(Map.of("stormlab.instrumentation", "off"));
        long t0 = System.nanoTime();
        s.open(conf, context(), new SpoutOutputCollector(rec));
        Thread.sleep(100);
        long callNs = System.nanoTime();
        s.nextTuple();
        long spanUs = (System.nanoTime() - callNs) / 1_000; // the call's own time: its last tuple leaves that much later
        long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
        // Due by the call: the tuples at 0, 1, ..., >= 100 ms; at most elapsedMs + 1 of them.
        int n = rec.ids.size();
        assertTrue(n >= 101 && n <= elapsedMs + 1, n + " tuples after " + elapsedMs + " ms at 1000/s");
        IntendedId first = (IntendedId) rec.ids.get(0);
        IntendedId last = (IntendedId) rec.ids.get(n - 1);
        assertEquals(0, first.seq);
        assertEquals(n - 1, last.seq);
        assertTrue(first.lagUs >= 100_000, "the first tuple is sent >= 100 ms after it was due: " + first.lagUs + " µs");
        // Tuple k is due k ms after the first, and leaves at most the call's span after it: its lag is less by
        // (n - 1) ms less that span.
        assertTrue(first.lagUs - last.lagUs >= (n - 1) * 1_000L - spanUs,
            "tuple k is due k ms later, so its lag is ~k ms less: " + first.lagUs + " and " + last.lagUs + " µs over a call of " + spanUs + " µs");
        s.nextTuple();
        long elapsed2Ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(rec.ids.size() <= elapsed2Ms + 1, "never ahead of the schedule: " + rec.ids.size() + " tuples after " + elapsed2Ms + " ms");
    }
}
