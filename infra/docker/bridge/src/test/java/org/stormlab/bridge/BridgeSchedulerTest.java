package org.stormlab.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.INimbus;
import org.apache.storm.scheduler.IScheduler;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;
import org.apache.storm.scheduler.resource.normalization.ResourceMetrics;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BridgeSchedulerTest {
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** A fake scheduler service answering a fixed body; records the last request. */
    private String serve(int status, String answer, AtomicReference<String> got) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/schedule", ex -> {
            got.set(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] b = answer.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status, b.length);
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

    static final class TestNimbus implements INimbus {
        @Override
        public void prepare(Map<String, Object> conf, String dir) {
        }

        @Override
        public Collection<WorkerSlot> allSlotsAvailableForScheduling(Collection<SupervisorDetails> sups, Topologies t, Set<String> ids) {
            List<WorkerSlot> out = new ArrayList<>();
            for (SupervisorDetails s : sups) {
                for (int p : s.getAllPorts()) {
                    out.add(new WorkerSlot(s.getId(), p));
                }
            }
            return out;
        }

        @Override
        public void assignSlots(Topologies t, Map<String, Collection<WorkerSlot>> slots) {
        }

        @Override
        public String getHostName(Map<String, SupervisorDetails> sups, String id) {
            return sups.get(id).getHost();
        }

        @Override
        public IScheduler getForcedScheduler() {
            return null;
        }
    }

    /** One topology "t1" with executors [1 1] spout, [2 2] [3 3] bolt, [4 4] __acker; supervisors s1, s2 with 2 ports each. */
    static final class World {
        final Map<String, Object> conf = Utils.readDefaultConfig();
        final TopologyDetails td;
        final Topologies topologies;
        final Cluster cluster;

        World() {
            this(Map.of());
        }

        /** extra: topology conf entries besides the name and the scheduler. */
        World(Map<String, Object> extra) {
            Map<ExecutorDetails, String> e2c = new HashMap<>();
            e2c.put(new ExecutorDetails(1, 1), "spout");
            e2c.put(new ExecutorDetails(2, 2), "bolt");
            e2c.put(new ExecutorDetails(3, 3), "bolt");
            e2c.put(new ExecutorDetails(4, 4), "__acker");
            Map<String, Object> tconf = new HashMap<>(conf);
            tconf.put("topology.name", "chain");
            tconf.put(Delegates.TOPOLOGY_CONF, "test"); // a Go scheduler: the service places it
            tconf.putAll(extra);
            td = new TopologyDetails("t1", tconf, new StormTopology(new HashMap<>(), new HashMap<>(), new HashMap<>()), 2, e2c, "test");
            topologies = new Topologies(td);
            Map<String, SupervisorDetails> sups = new HashMap<>();
            sups.put("s1", new SupervisorDetails("s1", "host1", null, List.of(6700, 6701)));
            sups.put("s2", new SupervisorDetails("s2", "host2", null, List.of(6700, 6701)));
            cluster = new Cluster(new TestNimbus(), new ResourceMetrics(new StormMetricsRegistry()), sups, new HashMap<>(), topologies, conf);
        }

        BridgeScheduler bridge(String url) {
            Map<String, Object> c = new HashMap<>(conf);
            c.put(BridgeScheduler.CONF_URL, url);
            c.put(BridgeScheduler.CONF_TIMEOUT_MS, 1000);
            c.put(BridgeScheduler.CONF_WARMUP, "false"); // WarmupTest covers it; keeps these tests quick
            BridgeScheduler b = new BridgeScheduler();
            b.prepare(c, null);
            return b;
        }
    }

    // The service's answer as the Go service encodes it (field names of infra/protocol).
    static final String GOOD = "{\"scheduler\":\"test\",\"topologies\":[{\"id\":\"t1\",\"workers\":["
            + "{\"supervisor\":\"s1\",\"port\":6701,\"executors\":[{\"start\":1,\"end\":1},{\"start\":2,\"end\":2}]},"
            + "{\"supervisor\":\"s2\",\"port\":6700,\"executors\":[{\"start\":3,\"end\":3},{\"start\":4,\"end\":4}]}]}],"
            + "\"future_field\":1}";

    @Test
    void appliesTheServicesPlacement() throws Exception {
        World w = new World();
        AtomicReference<String> got = new AtomicReference<>();
        w.bridge(serve(200, GOOD, got)).schedule(w.topologies, w.cluster);

        Map<ExecutorDetails, WorkerSlot> placed = w.cluster.getAssignmentById("t1").getExecutorToSlot();
        assertEquals(new WorkerSlot("s1", 6701), placed.get(new ExecutorDetails(1, 1)));
        assertEquals(new WorkerSlot("s1", 6701), placed.get(new ExecutorDetails(2, 2)));
        assertEquals(new WorkerSlot("s2", 6700), placed.get(new ExecutorDetails(3, 3)));
        assertEquals(new WorkerSlot("s2", 6700), placed.get(new ExecutorDetails(4, 4)));
        assertTrue(w.cluster.getStatusMap().get("t1").startsWith("stormlab: placed by test"));

        Wire.Snapshot snap = Wire.MAPPER.readValue(got.get(), Wire.Snapshot.class);
        assertEquals(1, snap.topologies().size());
        Wire.Topology t = snap.topologies().get(0);
        assertEquals(4, t.executors().size());
        assertEquals("__acker", t.executors().get(3).component());
        assertEquals(2, t.numWorkers());
        assertTrue(t.needsScheduling());
        assertEquals(List.of(6700, 6701), snap.supervisors().get(0).freePorts());
        assertTrue(got.get().contains("\"num_workers\":2") && got.get().contains("\"memory_mb\""), got.get());
        // Storm's default memory per component (defaults.yaml: 128 MB on-heap, 0 off-heap).
        assertEquals(128.0, t.executors().get(0).memoryMb(), 1e-9);
    }

    @Test
    void sendsTheMemoryATopologyDeclares() throws Exception {
        World w = new World(Map.of("topology.component.resources.onheap.memory.mb", 64.0));
        AtomicReference<String> got = new AtomicReference<>();
        w.bridge(serve(200, GOOD, got)).schedule(w.topologies, w.cluster);
        Wire.Topology t = Wire.MAPPER.readValue(got.get(), Wire.Snapshot.class).topologies().get(0);
        for (Wire.ComponentExecutor e : t.executors()) {
            assertEquals(64.0, e.memoryMb(), 1e-9, e.component());
        }
    }

    @Test
    void movesARunningTopologyAndSkipsAnUnchangedOne() throws Exception {
        World w = new World();
        AtomicReference<String> got = new AtomicReference<>();
        BridgeScheduler b = w.bridge(serve(200, GOOD, got));
        b.schedule(w.topologies, w.cluster);
        // Same answer again: nothing changes.
        b.schedule(w.topologies, w.cluster);
        assertEquals(2, w.cluster.getUsedSlotsByTopologyId("t1").size());
        Wire.Snapshot snap = Wire.MAPPER.readValue(got.get(), Wire.Snapshot.class);
        assertEquals(4, snap.topologies().get(0).assignment().size());
        // The service moves everything to one slot on s2.
        String moved = "{\"scheduler\":\"test\",\"topologies\":[{\"id\":\"t1\",\"workers\":[{\"supervisor\":\"s2\",\"port\":6701,"
                + "\"executors\":[{\"start\":1,\"end\":1},{\"start\":2,\"end\":2},{\"start\":3,\"end\":3},{\"start\":4,\"end\":4}]}]}]}";
        stop();
        w.bridge(serve(200, moved, got)).schedule(w.topologies, w.cluster);
        assertEquals(Set.of(new WorkerSlot("s2", 6701)), Set.copyOf(w.cluster.getUsedSlotsByTopologyId("t1")));
    }

    @Test
    void fallsBackToEvenWhenTheServiceIsDown() throws Exception {
        World w = new World();
        AtomicReference<String> got = new AtomicReference<>();
        String url = serve(200, GOOD, got);
        stop(); // port now closed
        server = null;
        w.bridge(url).schedule(w.topologies, w.cluster);
        assertTrue(w.cluster.getUnassignedExecutors(w.td).isEmpty(), "EvenScheduler placed every executor");
        assertTrue(w.cluster.getStatusMap().get("t1").startsWith("stormlab fallback: service"), w.cluster.getStatusMap().toString());
    }

    @Test
    void fallsBackOnAnInvalidDecision() throws Exception {
        World w = new World();
        String missing = "{\"scheduler\":\"test\",\"topologies\":[{\"id\":\"t1\",\"workers\":[{\"supervisor\":\"s1\",\"port\":6700,"
                + "\"executors\":[{\"start\":1,\"end\":1}]}]}]}";
        w.bridge(serve(200, missing, new AtomicReference<>())).schedule(w.topologies, w.cluster);
        assertTrue(w.cluster.getUnassignedExecutors(w.td).isEmpty());
        String status = w.cluster.getStatusMap().get("t1");
        assertTrue(status.contains("invalid decision") && status.contains("not placed"), status);
    }

    @Test
    void fallsBackOnAServiceError() throws Exception {
        World w = new World();
        String err = "{\"scheduler\":\"test\",\"topologies\":[],\"errors\":[{\"id\":\"t1\",\"error\":\"impossible cluster\"}]}";
        w.bridge(serve(200, err, new AtomicReference<>())).schedule(w.topologies, w.cluster);
        assertTrue(w.cluster.getUnassignedExecutors(w.td).isEmpty());
        assertTrue(w.cluster.getStatusMap().get("t1").contains("impossible cluster"));
    }

    @Test
    void fallsBackOnBadJsonAndHttpErrors() throws Exception {
        for (Object[] c : new Object[][] {{200, "{not json"}, {500, "{\"error\":\"boom\"}"}}) {
            World w = new World();
            w.bridge(serve((int) c[0], (String) c[1], new AtomicReference<>())).schedule(w.topologies, w.cluster);
            stop();
            server = null;
            assertTrue(w.cluster.getUnassignedExecutors(w.td).isEmpty());
            assertTrue(w.cluster.getStatusMap().get("t1").startsWith("stormlab fallback"));
        }
    }

    // ---- Plan validation on plain values ----

    static final Set<ExecutorDetails> EXECS = Set.of(new ExecutorDetails(1, 1), new ExecutorDetails(2, 3));
    static final Map<String, Set<Integer>> PORTS = Map.of("a", Set.of(6700, 6701), "b", Set.of(6700));

    static Wire.TopologyDecision decision(Wire.WorkerAssignment... ws) {
        return new Wire.TopologyDecision("t", List.of(ws));
    }

    static Wire.WorkerAssignment worker(String sup, int port, int... startEnd) {
        List<Wire.Executor> es = new ArrayList<>();
        for (int i = 0; i < startEnd.length; i += 2) {
            es.add(new Wire.Executor(startEnd[i], startEnd[i + 1]));
        }
        return new Wire.WorkerAssignment(sup, port, es);
    }

    @Test
    void planAcceptsACompletePlacement() throws Exception {
        Plan p = Plan.validate(decision(worker("a", 6701, 1, 1), worker("b", 6700, 2, 3), worker("a", 6700)), EXECS, PORTS, Set.of());
        assertEquals(2, p.slots.size(), "the empty worker is skipped");
        assertTrue(p.sameAs(Map.of(new ExecutorDetails(1, 1), new WorkerSlot("a", 6701), new ExecutorDetails(2, 3), new WorkerSlot("b", 6700))));
        assertTrue(!p.sameAs(Map.of(new ExecutorDetails(1, 1), new WorkerSlot("a", 6700), new ExecutorDetails(2, 3), new WorkerSlot("b", 6700))));
    }

    @Test
    void planRejectsBadDecisions() {
        Object[][] cases = {
            {decision(worker("a", 6700, 1, 1)), "not placed"},
            {decision(worker("a", 6700, 1, 1, 2, 3, 1, 1)), "placed twice"},
            {decision(worker("a", 6700, 1, 1, 2, 3, 9, 9)), "not in topology"},
            {decision(worker("c", 6700, 1, 1, 2, 3)), "unknown supervisor"},
            {decision(worker("b", 6701, 1, 1, 2, 3)), "has no port"},
            {decision(worker("a", 6700, 1, 1), worker("a", 6700, 2, 3)), "two workers"},
            {decision(worker("b", 6700, 1, 1, 2, 3)), "another topology"},
            {new Wire.TopologyDecision("t", null), "no workers"},
        };
        for (Object[] c : cases) {
            Plan.InvalidDecision e = assertThrows(Plan.InvalidDecision.class,
                    () -> Plan.validate((Wire.TopologyDecision) c[0], EXECS, PORTS, Set.of(new WorkerSlot("b", 6700))));
            assertTrue(e.getMessage().contains((String) c[1]), e.getMessage() + " should say " + c[1]);
        }
    }

    @Test
    void wireReadsWhatTheGoServiceWrites() throws Exception {
        Wire.Decision d = Wire.MAPPER.readValue(GOOD, Wire.Decision.class);
        assertEquals("test", d.scheduler());
        assertNull(d.errors());
        assertEquals(2, d.topologies().get(0).workers().size());
        assertEquals(new Wire.Executor(2, 2), d.topologies().get(0).workers().get(0).executors().get(1));
        assertNotNull(Wire.MAPPER.writeValueAsString(new Wire.Fallback(1, null, "x")));
        assertEquals("{\"time_ms\":1,\"reason\":\"x\"}", Wire.MAPPER.writeValueAsString(new Wire.Fallback(1, null, "x")));
    }
}
