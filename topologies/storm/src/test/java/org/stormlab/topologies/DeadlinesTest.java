package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.generated.StormTopology;
import org.junit.jupiter.api.Test;
import org.stormlab.instrument.Instrument;

class DeadlinesTest {
    private static Map<String, Long> deadlines(Args flags, TopologySetup.Builder b, Config conf, String... argv) {
        Args a = flags.parse(argv);
        StormTopology t = b.build(a, conf);
        return TopologySetup.applyDeadlines(a, conf, t);
    }

    /**
     * Staged deadlines by hand: WordCount is sentence -> split (depth 1) -> count (2) -> report (3), so with
     * 900 ms the bolts get 300, 600, 900. k-means: assign 1, update 2 (its centroid stream back to assign
     * does not change assign's depth), sink 3.
     */
    @Test
    void stagedByDepth() {
        Config conf = new Config();
        assertEquals(Map.of("split", 300L, "count", 600L, "report", 900L),
            deadlines(WordCountTopology.flags(), WordCountTopology::build, conf, "--deadline-ms", "900"));
        assertEquals(300L, conf.get(Instrument.CONF_DEADLINE_PREFIX + "split"));
        assertEquals(Map.of("assign", 300L, "update", 600L, "sink", 900L),
            deadlines(KMeansTopology.flags(), KMeansTopology::build, new Config(), "--deadline-ms", "900"));
        assertEquals(Map.of("bolt1", 333L, "bolt2", 667L, "bolt3", 1000L),
            deadlines(ThroughputTopology.flags(), ThroughputTopology::build, new Config()));
    }

    @Test
    void uniformAndOverride() {
        assertEquals(Map.of("split", 500L, "count", 500L, "report", 50L),
            deadlines(WordCountTopology.flags(), WordCountTopology::build, new Config(),
                "--deadline-ms", "500", "--deadlines", "uniform", "--deadline-ms.report", "50"));
    }

    @Test
    void badDeadlines() {
        assertThrows(IllegalArgumentException.class,
            () -> deadlines(WordCountTopology.flags(), WordCountTopology::build, new Config(), "--deadline-ms", "0"));
        assertThrows(IllegalArgumentException.class,
            () -> deadlines(WordCountTopology.flags(), WordCountTopology::build, new Config(), "--deadlines", "random"));
        assertThrows(IllegalArgumentException.class,
            () -> deadlines(WordCountTopology.flags(), WordCountTopology::build, new Config(), "--deadline-ms.split", "-3"));
    }
}
