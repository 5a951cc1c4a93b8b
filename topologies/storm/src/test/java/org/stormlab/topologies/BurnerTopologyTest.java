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
        for (String[] argv : new String[][] {{"--busy-fraction", "0"}, {"--busy-fraction", "1.5"}, {"--period-ms", "5"}}) {
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
}
