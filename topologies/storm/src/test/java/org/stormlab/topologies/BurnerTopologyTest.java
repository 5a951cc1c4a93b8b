package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.storm.Config;
import org.apache.storm.generated.StormTopology;
import org.junit.jupiter.api.Test;
import org.stormlab.instrument.Instrument;

/** The burner topology: one spout of --parallelism tasks, no ackers, instrumented; bad flags refused. */
class BurnerTopologyTest {
    private static StormTopology build(Config conf, String... argv) {
        Args a = BurnerTopology.flags().parse(argv);
        conf.putAll(TopologySetup.config(a));
        return BurnerTopology.build(a, conf);
    }

    @Test
    void oneSpoutNoAckersInstrumented() {
        Config conf = new Config();
        StormTopology t = build(conf, "--parallelism", "3", "--busy-fraction", "0.25", "--conf", "stormlab.nodes=sup1");
        assertEquals(1, t.get_spouts_size());
        assertEquals(0, t.get_bolts_size());
        assertEquals(3, t.get_spouts().get(BurnerTopology.SPOUT).get_common().get_parallelism_hint());
        assertEquals(0, conf.get(Config.TOPOLOGY_ACKER_EXECUTORS));
        assertEquals("sup1", conf.get("stormlab.nodes"));
        // Its worker reports its process CPU like any instrumented worker: that is how its load is seen.
        assertTrue(((List<?>) conf.get(Config.TOPOLOGY_AUTO_TASK_HOOKS)).contains(Instrument.HOOK_CLASS));
    }

    @Test
    void badFlags() {
        for (String[] argv : new String[][] {{"--busy-fraction", "0"}, {"--busy-fraction", "1.5"}, {"--period-ms", "5"}, {"--busy-clock", "tsc"}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> build(new Config(), argv));
            assertTrue(e.getMessage().contains(argv[0]), e.getMessage());
        }
    }

    @Test
    void parsesTheServiceAnswer() {
        assertEquals(0.4, BurnerTopology.BurnSpout.parseBusy("{\"topology\":\"b\",\"busy\":0.4}", 0), 1e-12);
        assertEquals(0.0, BurnerTopology.BurnSpout.parseBusy("{\"topology\":\"b\", \"busy\": 0}", 0.7), 1e-12);
        assertEquals(1.0, BurnerTopology.BurnSpout.parseBusy("{\"busy\":3}", 0), 1e-12); // clamped
        assertEquals(0.7, BurnerTopology.BurnSpout.parseBusy("{\"error\":\"401\"}", 0.7), 1e-12); // kept
        assertEquals(0.7, BurnerTopology.BurnSpout.parseBusy("{\"busy\":\"x\"}", 0.7), 1e-12);
    }

    /** The CPU clock spins for the thread's CPU time asked, within the period: 20 ms of CPU in a 1 s period
     *  of the test thread's CPU time (tolerance +10 ms: the spin checks the clock every 200 us; a thread
     *  descheduled while it spins only takes longer, the period being 50 times the CPU asked), and the call
     *  returns at the period's end. */
    @Test
    void cpuClockSpinsTheThreadsCpuTime() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long t0 = System.nanoTime();
        BurnerTopology.BurnSpout s = new BurnerTopology.BurnSpout(0.02, 1000, false, true);
        s.open(new java.util.HashMap<>(), null, null);
        long cpu0 = mx.getCurrentThreadCpuTime();
        s.nextTuple();
        long usedMs = (mx.getCurrentThreadCpuTime() - cpu0) / 1_000_000;
        assertTrue(usedMs >= 20 && usedMs <= 30, "CPU used " + usedMs + " ms, want 20 ms asked (+10)");
        long wallMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(wallMs >= 1000, "nextTuple returned " + wallMs + " ms after the period began, before its end");
    }
}
