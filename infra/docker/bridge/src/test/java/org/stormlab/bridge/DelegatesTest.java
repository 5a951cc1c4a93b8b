package org.stormlab.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.storm.Config;
import org.apache.storm.Constants;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;
import org.apache.storm.scheduler.resource.normalization.ResourceMetrics;
import org.apache.storm.testing.TestWordCounter;
import org.apache.storm.testing.TestWordSpout;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Per-topology scheduler choice on one Nimbus: the service, EvenScheduler, DefaultScheduler and RAS side by side. */
class DelegatesTest {
    private HttpServer server;
    private final AtomicReference<String> got = new AtomicReference<>();
    private final AtomicInteger posts = new AtomicInteger();

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private String serve(String answer) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/schedule", ex -> {
            posts.incrementAndGet();
            got.set(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] b = answer.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.createContext("/v1/fallback", ex -> {
            ex.getRequestBody().readAllBytes();
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/schedule";
    }

    static final Map<String, Object> CONF = Utils.readDefaultConfig();

    /** A spout -> bolt topology, parallelism 2 each (executors [1 1] [2 2] spout, [3 3] [4 4] bolt), as RAS needs it (resources from the components). */
    static TopologyDetails topology(String id, String scheduler, int workers) {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("spout", new TestWordSpout(), 2);
        b.setBolt("bolt", new TestWordCounter(), 2).shuffleGrouping("spout");
        StormTopology st = b.createTopology();
        Map<String, Object> tconf = new HashMap<>(CONF);
        tconf.put(Config.TOPOLOGY_NAME, id);
        tconf.put(Config.TOPOLOGY_SUBMITTER_USER, "test");
        if (scheduler != null) {
            tconf.put(Delegates.TOPOLOGY_CONF, scheduler);
        }
        Map<ExecutorDetails, String> e2c = new HashMap<>();
        e2c.put(new ExecutorDetails(1, 1), "spout");
        e2c.put(new ExecutorDetails(2, 2), "spout");
        e2c.put(new ExecutorDetails(3, 3), "bolt");
        e2c.put(new ExecutorDetails(4, 4), "bolt");
        return new TopologyDetails(id, tconf, st, workers, e2c, 0, "test");
    }

    /** Supervisors s1, s2, s3 with 4 ports each, 4 cores and 8 GB. */
    static Cluster cluster(Topologies tops) {
        Map<String, SupervisorDetails> sups = new HashMap<>();
        for (String s : List.of("s1", "s2", "s3")) {
            Map<String, Double> res = Map.of(Constants.COMMON_CPU_RESOURCE_NAME, 400.0, Constants.COMMON_TOTAL_MEMORY_RESOURCE_NAME, 8192.0);
            sups.put(s, new SupervisorDetails(s, "host-" + s, null, List.of(6700, 6701, 6702, 6703), res));
        }
        return new Cluster(new BridgeSchedulerTest.TestNimbus(), new ResourceMetrics(new StormMetricsRegistry()), sups, new HashMap<>(), tops, CONF);
    }

    BridgeScheduler bridge(String url, String dflt) {
        Map<String, Object> c = new HashMap<>(CONF);
        c.put(BridgeScheduler.CONF_URL, url);
        c.put(BridgeScheduler.CONF_WARMUP, "false");
        if (dflt != null) {
            c.put(Delegates.CONF_DEFAULT, dflt);
        }
        BridgeScheduler b = new BridgeScheduler();
        b.prepare(c, new StormMetricsRegistry());
        return b;
    }

    // The service places "go" on s1:6700 and s1:6701.
    static final String GO = "{\"scheduler\":\"kpart\",\"topologies\":[{\"id\":\"go\",\"workers\":["
            + "{\"supervisor\":\"s1\",\"port\":6700,\"executors\":[{\"start\":1,\"end\":1},{\"start\":3,\"end\":3}]},"
            + "{\"supervisor\":\"s1\",\"port\":6701,\"executors\":[{\"start\":2,\"end\":2},{\"start\":4,\"end\":4}]}]}]}";

    @Test
    void eachTopologyIsPlacedByTheSchedulerItNames() throws Exception {
        TopologyDetails go = topology("go", "kpart", 2);
        TopologyDetails even = topology("even", "storm-even", 2);
        TopologyDetails dflt = topology("plain", null, 2);
        TopologyDetails ras = topology("ras", "storm-ras", 1);
        Topologies tops = new Topologies(go, even, dflt, ras);
        Cluster c = cluster(tops);
        bridge(serve(GO), null).schedule(tops, c);

        // Only the Go scheduler's topology went to the service.
        Wire.Snapshot snap = Wire.MAPPER.readValue(got.get(), Wire.Snapshot.class);
        assertEquals(List.of("go"), snap.topologies().stream().map(Wire.Topology::id).toList());
        assertEquals(Set.of(new WorkerSlot("s1", 6700), new WorkerSlot("s1", 6701)), Set.copyOf(c.getUsedSlotsByTopologyId("go")));
        assertTrue(c.getStatusMap().get("go").startsWith("stormlab: placed by kpart"), c.getStatusMap().toString());
        // The natives placed theirs, each fully and on slots of its own.
        Set<WorkerSlot> seen = new HashSet<>();
        for (TopologyDetails td : List.of(go, even, dflt, ras)) {
            assertTrue(c.getUnassignedExecutors(td).isEmpty(), td.getId() + " has unassigned executors: " + c.getStatusMap());
            for (WorkerSlot s : c.getUsedSlotsByTopologyId(td.getId())) {
                assertTrue(seen.add(s), "slot " + s + " used twice");
            }
        }
        assertEquals(2, c.getUsedSlotsByTopologyId("even").size());
        assertEquals(2, c.getUsedSlotsByTopologyId("plain").size());
        assertTrue(c.getStatusMap().get("even").startsWith("stormlab: placed by storm-even in Nimbus"), c.getStatusMap().toString());
        assertTrue(c.getStatusMap().get("plain").startsWith("stormlab: placed by storm-default in Nimbus"), c.getStatusMap().toString());
        // RAS sets its own status ("Running - Fully Scheduled by ...").
        assertTrue(c.getStatusMap().get("ras").contains("Fully Scheduled"), c.getStatusMap().toString());
    }

    @Test
    void withoutGoTopologiesTheServiceIsNotAsked() throws Exception {
        TopologyDetails even = topology("even", "storm-even", 2);
        Topologies tops = new Topologies(even);
        Cluster c = cluster(tops);
        bridge(serve(GO), null).schedule(tops, c);
        assertEquals(0, posts.get(), "no POST to the service");
        assertTrue(c.getUnassignedExecutors(even).isEmpty());
    }

    @Test
    void theDefaultNamesWhereUnnamedTopologiesGo() throws Exception {
        // Nimbus conf stormlab.scheduler.default: kpart sends a topology naming none to the service.
        String go = GO.replace("\"id\":\"go\"", "\"id\":\"plain\"");
        TopologyDetails plain = topology("plain", null, 2);
        Topologies tops = new Topologies(plain);
        Cluster c = cluster(tops);
        bridge(serve(go), "kpart").schedule(tops, c);
        assertEquals(1, posts.get());
        assertEquals(Set.of(new WorkerSlot("s1", 6700), new WorkerSlot("s1", 6701)), Set.copyOf(c.getUsedSlotsByTopologyId("plain")));
    }

    @Test
    void aServiceFallbackLeavesNativeTopologiesAlone() throws Exception {
        // The service is down: its topology falls back to EvenScheduler, the RAS one is still RAS's.
        String url = serve(GO);
        stop();
        server = null;
        TopologyDetails go = topology("go", "kpart", 2);
        TopologyDetails ras = topology("ras", "storm-ras", 1);
        Topologies tops = new Topologies(go, ras);
        Cluster c = cluster(tops);
        bridge(url, null).schedule(tops, c);
        assertTrue(c.getStatusMap().get("go").startsWith("stormlab fallback"), c.getStatusMap().toString());
        assertTrue(c.getStatusMap().get("ras").contains("Fully Scheduled"), c.getStatusMap().toString());
        assertTrue(c.getUnassignedExecutors(go).isEmpty() && c.getUnassignedExecutors(ras).isEmpty());
    }

    @Test
    void evenAndDefaultPlaceOnTheNamedNodesOnly() throws Exception {
        // 4 workers on one host (its 4 ports), on two hosts (2 each), and a free topology beside them.
        TopologyDetails one = topology("one", "storm-even", 4);
        one.getConf().put(Delegates.NODES_CONF, "host-s2");
        TopologyDetails two = topology("two", "storm-default", 4);
        two.getConf().put(Delegates.NODES_CONF, List.of("host-s1", " host-s3 "));
        TopologyDetails free = topology("free", "storm-even", 2);
        Topologies tops = new Topologies(one, two, free);
        Cluster c = cluster(tops);
        bridge(serve(GO), null).schedule(tops, c);
        assertEquals(Map.of("host-s2", 4), hosts(c, "one"));
        assertEquals(Map.of("host-s1", 2, "host-s3", 2), hosts(c, "two"));
        assertEquals(2, c.getUsedSlotsByTopologyId("free").size(), "the free topology still gets the slots left");
        assertTrue(c.getStatusMap().get("one").startsWith("stormlab: placed by storm-even"), c.getStatusMap().toString());
    }

    @Test
    void nodesNamingNoSupervisorLeaveTheTopologyUnassigned() throws Exception {
        TopologyDetails lost = topology("lost", "storm-even", 2);
        lost.getConf().put(Delegates.NODES_CONF, "nosuchhost");
        Topologies tops = new Topologies(lost);
        Cluster c = cluster(tops);
        bridge(serve(GO), null).schedule(tops, c);
        assertEquals(4, c.getUnassignedExecutors(lost).size());
        assertTrue(c.getStatusMap().get("lost").contains("no live supervisor on the hosts of stormlab.nodes [nosuchhost]"), c.getStatusMap().toString());
    }

    /** Worker count per host of a topology's slots. */
    static Map<String, Integer> hosts(Cluster c, String id) {
        Map<String, Integer> out = new HashMap<>();
        for (WorkerSlot s : c.getUsedSlotsByTopologyId(id)) {
            out.merge(c.getHost(s.getNodeId()), 1, Integer::sum);
        }
        return out;
    }
}
