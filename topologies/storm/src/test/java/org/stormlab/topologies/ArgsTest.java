package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.storm.Config;
import org.junit.jupiter.api.Test;

class ArgsTest {
    @Test
    void commonConfig() {
        Args a = ThroughputTopology.flags().parse(new String[] {
            "--workers", "2", "--parallelism=3", "--parallelism.bolt2", "5", "--ackers", "4",
            "--worker-heap-mb", "300", "--conf", "topology.debug=true", "--conf", "x.list=[a, b]"});
        Config c = TopologySetup.config(a);
        assertEquals(2, c.get(Config.TOPOLOGY_WORKERS));
        assertEquals(4, c.get(Config.TOPOLOGY_ACKER_EXECUTORS));
        assertEquals("-Xmx300m", c.get(Config.TOPOLOGY_WORKER_CHILDOPTS));
        assertEquals(1.0, c.get(Config.TOPOLOGY_STATS_SAMPLE_RATE));
        assertEquals(List.of("org.stormlab.instrument.TrafficHook"), c.get(Config.TOPOLOGY_AUTO_TASK_HOOKS));
        assertEquals(true, c.get("topology.debug"));
        assertEquals(List.of("a", "b"), c.get("x.list"));
        assertEquals(3, TopologySetup.parallelism(a, "bolt1"));
        assertEquals(5, TopologySetup.parallelism(a, "bolt2"));
    }

    @Test
    void badFlags() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ThroughputTopology.flags().parse(new String[] {"--bogus", "1"}));
        assertTrue(e.getMessage().contains("unknown flag --bogus"), e.getMessage());
        Args a = ThroughputTopology.flags().parse(new String[] {"--parallelism.bolt1", "0"});
        assertThrows(IllegalArgumentException.class, () -> TopologySetup.parallelism(a, "bolt1"));
        Args w = ThroughputTopology.flags().parse(new String[] {"--workers", "x"});
        assertThrows(IllegalArgumentException.class, () -> TopologySetup.config(w));
    }

    @Test
    void exitCodes() {
        assertEquals(2, TopologySetup.run("T", ThroughputTopology.flags(), new String[] {"--nope", "1"}, ThroughputTopology::build));
        assertEquals(0, TopologySetup.run("T", KMeansTopology.flags(), new String[] {"--dry-run"}, KMeansTopology::build));
        assertEquals(0, TopologySetup.run("T", WordCountTopology.flags(), new String[] {"--dry-run"}, WordCountTopology::build));
    }

    @Test
    void textIsSeeded() {
        TextGenerator a = new TextGenerator(7);
        TextGenerator b = new TextGenerator(7);
        for (int i = 0; i < 100; i++) {
            String s = a.sentence();
            assertEquals(s, b.sentence());
            int words = s.split(" ").length;
            assertTrue(words >= 5 && words <= 15, s);
        }
    }

    @Test
    void nearestCentroid() {
        double[][] c = {{0, 0}, {10, 0}, {0, 10}};
        assertEquals(0, KMeansTopology.nearest(c, new double[] {1, 1}));
        assertEquals(1, KMeansTopology.nearest(c, new double[] {9, 2}));
        assertEquals(2, KMeansTopology.nearest(c, new double[] {4, 6}));
    }
}
