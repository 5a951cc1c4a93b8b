package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.StormTopology;
import org.junit.jupiter.api.Test;

/** Building the replay of the fixture topologies/testdata/replay-small.json (see ReplayGraphTest). */
class ReplayTopologyTest {
    private static StormTopology build(Config conf, String... extra) {
        String[] base = {"--graph", ReplayGraphTest.SMALL.toString()};
        String[] argv = new String[base.length + extra.length];
        System.arraycopy(base, 0, argv, 0, base.length);
        System.arraycopy(extra, 0, argv, base.length, extra.length);
        Args a = ReplayTopology.flags().parse(argv);
        conf.putAll(TopologySetup.config(a));
        return ReplayTopology.build(a, conf);
    }

    @Test
    void rebuildsTheCapturedGraph() {
        Config conf = new Config();
        StormTopology t = build(conf);
        assertEquals(2, t.get_spouts().get("source").get_common().get_parallelism_hint());
        assertEquals(2, t.get_bolts().get("work").get_common().get_parallelism_hint());
        assertEquals(1, t.get_bolts().get("sink").get_common().get_parallelism_hint());
        Map<GlobalStreamId, Grouping> in = t.get_bolts().get("work").get_common().get_inputs();
        assertTrue(in.get(new GlobalStreamId("source", "default")).is_set_shuffle());
        Grouping g = t.get_bolts().get("sink").get_common().get_inputs().get(new GlobalStreamId("work", "default"));
        assertEquals(java.util.List.of(ReplayTuples.KEY), g.get_fields());
        assertEquals(2, conf.get(Config.TOPOLOGY_WORKERS)); // the capture's placement used 2 workers
        assertFalse(conf.containsKey(Config.TOPOLOGY_MAX_SPOUT_PENDING)); // open loop
        assertEquals(200.0, conf.get(TopologySetup.CONF_OPEN_LOOP_RATE));
        assertEquals("replay-small", conf.get(ReplayTopology.CONF_REPLAY_OF));
    }

    @Test
    void flagsOverride() {
        Config conf = new Config();
        StormTopology t = build(conf, "--workers", "3", "--parallelism.work", "4", "--rate", "500", "--max-spout-pending", "10");
        assertEquals(3, conf.get(Config.TOPOLOGY_WORKERS));
        assertEquals(4, t.get_bolts().get("work").get_common().get_parallelism_hint());
        assertEquals(500.0, conf.get(TopologySetup.CONF_OPEN_LOOP_RATE));
        assertEquals(10, conf.get(Config.TOPOLOGY_MAX_SPOUT_PENDING));
    }

    @Test
    void badInputExits2() throws IOException {
        assertEquals(0, TopologySetup.run("R", ReplayTopology.flags(), new String[] {"--graph", ReplayGraphTest.SMALL.toString(), "--dry-run"},
            ReplayTopology::build));
        assertEquals(0, TopologySetup.run("R", ReplayTopology.flags(), new String[] {"--graph-json", ReplayGraphTest.small(), "--dry-run"},
            ReplayTopology::build));
        String[][] bad = {
            {},
            {"--graph", "/nonexistent/graph.json"},
            {"--graph-json", "{\"vertices\":[],\"edges\":[]}"},
            {"--graph", ReplayGraphTest.SMALL.toString(), "--parallelism", "3"},
            {"--graph", ReplayGraphTest.SMALL.toString(), "--rate", "10", "--rate-per", "task"},
            {"--graph", ReplayGraphTest.SMALL.toString(), "--cpu-mode", "fast"},
        };
        for (String[] argv : bad) {
            String[] a = java.util.Arrays.copyOf(argv, argv.length + 1);
            a[argv.length] = "--dry-run";
            assertEquals(2, TopologySetup.run("R", ReplayTopology.flags(), a, ReplayTopology::build), String.join(" ", argv));
        }
        assertThrows(IllegalArgumentException.class, () -> ReplayTopology.graph(ReplayTopology.flags().parse(new String[] {
            "--graph", "x", "--graph-json", "{}"})));
    }
}
