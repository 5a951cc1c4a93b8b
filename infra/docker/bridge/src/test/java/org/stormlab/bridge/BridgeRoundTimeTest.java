package org.stormlab.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.resource.normalization.ResourceMetrics;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * One bridge round for 1,000 executors against a running Go scheduler
 * service (snapshot -> HTTP -> decision -> validated and applied on a real
 * Storm Cluster object). Runs only when STORMLAB_SERVICE_URL names the
 * service's /v1/schedule, e.g.
 * {@code stormlab-service --scheduler even --addr 127.0.0.1:7071} and
 * {@code STORMLAB_SERVICE_URL=http://127.0.0.1:7071/v1/schedule mvn test}.
 */
class BridgeRoundTimeTest {
    @Test
    void thousandExecutorRound() {
        String url = System.getenv("STORMLAB_SERVICE_URL");
        assumeTrue(url != null && !url.isBlank(), "STORMLAB_SERVICE_URL not set");
        Map<String, Object> conf = Utils.readDefaultConfig();
        int rounds = 20;
        double best = Double.MAX_VALUE;
        double sum = 0;
        for (int r = 0; r < rounds; r++) {
            Map<ExecutorDetails, String> e2c = new HashMap<>();
            String[] comps = {"spout", "bolt1", "bolt2", "bolt3"};
            for (int task = 1; task <= 1000; task++) {
                e2c.put(new ExecutorDetails(task, task), comps[(task - 1) / 250]);
            }
            Map<String, Object> tconf = new HashMap<>(conf);
            tconf.put("topology.name", "throughput");
            TopologyDetails td = new TopologyDetails("big-" + r, tconf,
                    new StormTopology(new HashMap<>(), new HashMap<>(), new HashMap<>()), 16, e2c, "test");
            Topologies tops = new Topologies(td);
            Map<String, SupervisorDetails> sups = new HashMap<>();
            for (int n = 0; n < 4; n++) {
                sups.put("sup-" + n, new SupervisorDetails("sup-" + n, "node" + n, null, List.of(6700, 6701, 6702, 6703)));
            }
            Cluster cluster = new Cluster(new BridgeSchedulerTest.TestNimbus(), new ResourceMetrics(new StormMetricsRegistry()),
                    sups, new HashMap<>(), tops, conf);
            Map<String, Object> c = new HashMap<>(conf);
            c.put(BridgeScheduler.CONF_URL, url);
            BridgeScheduler b = new BridgeScheduler();
            b.prepare(c, null);
            long t0 = System.nanoTime();
            b.schedule(tops, cluster);
            double ms = (System.nanoTime() - t0) / 1e6;
            assertTrue(cluster.getUnassignedExecutors(td).isEmpty());
            assertTrue(cluster.getStatusMap().get(td.getId()).startsWith("stormlab: placed"), cluster.getStatusMap().toString());
            assertEquals(16, cluster.getUsedSlotsByTopologyId(td.getId()).size());
            if (r >= 5) { // after JIT warm-up
                best = Math.min(best, ms);
                sum += ms;
            }
        }
        System.out.printf("STORMLAB bridge round, 1000 executors: mean %.1f ms, best %.1f ms (rounds 6..%d)%n",
                sum / (rounds - 5), best, rounds);
    }
}
