package org.stormlab.bridge;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

/**
 * Runs a round's code on a made-up topology before the first real round.
 *
 * <p>Nimbus places a topology in the first rounds after it starts, when the
 * bridge's code is cold: in the benchmark (BridgeRoundTimeTest) that first
 * round took 0.9-3 s at 1,000 executors, against 30-90 ms warm, spent in
 * class loading and interpretation of Jackson's serializers for the wire
 * records, java.net.http's connection set-up and Storm's Cluster. So the
 * bridge, once prepared, builds snapshots, encodes and decodes JSON, validates
 * and applies placements on a private Cluster of its own (never Nimbus's) for
 * {@link #ROUNDS} rounds of {@link #EXECUTORS} executors, and opens its
 * connection to the service with a GET and a POST to /v1/health (nothing the service records;
 * a service not up yet is ignored). It sends the service no snapshot, so its
 * state and round times hold only real rounds.
 */
final class Warmup {
    static final int EXECUTORS = 1000;
    static final int ROUNDS = 20;
    private static final int SUPERVISORS = 4;
    private static final int PORTS = 4;

    private Warmup() {
    }

    static void run(ServiceClient client) throws Exception {
        client.touch();
        Map<String, Object> conf = Utils.readDefaultConfig();
        Map<ExecutorDetails, String> e2c = new HashMap<>();
        for (int task = 1; task <= EXECUTORS; task++) {
            e2c.put(new ExecutorDetails(task, task), "c" + (task % 4));
        }
        Map<String, Object> tconf = new HashMap<>(conf);
        tconf.put("topology.name", "stormlab-warmup");
        TopologyDetails td = new TopologyDetails("stormlab-warmup", tconf,
                new StormTopology(new HashMap<>(), new HashMap<>(), new HashMap<>()), SUPERVISORS * PORTS, e2c, "stormlab");
        Topologies tops = new Topologies(td);
        Map<String, SupervisorDetails> sups = new HashMap<>();
        List<Integer> ports = new ArrayList<>();
        for (int p = 0; p < PORTS; p++) {
            ports.add(6700 + p);
        }
        for (int n = 0; n < SUPERVISORS; n++) {
            sups.put("warmup-" + n, new SupervisorDetails("warmup-" + n, "warmup" + n, null, ports));
        }
        // The decision: executors dealt round-robin over every slot.
        List<List<Wire.Executor>> per = new ArrayList<>();
        List<Wire.WorkerAssignment> workers = new ArrayList<>();
        for (int i = 0; i < SUPERVISORS * PORTS; i++) {
            per.add(new ArrayList<>());
            workers.add(new Wire.WorkerAssignment("warmup-" + (i / PORTS), 6700 + i % PORTS, per.get(i)));
        }
        for (int task = 1; task <= EXECUTORS; task++) {
            per.get(task % per.size()).add(new Wire.Executor(task, task));
        }
        byte[] answer = Wire.MAPPER.writeValueAsBytes(
                new Wire.Decision("warmup", List.of(new Wire.TopologyDecision(td.getId(), workers)), null));
        for (int r = 0; r < ROUNDS; r++) {
            Cluster cluster = new Cluster(new Nimbus(), new ResourceMetrics(new StormMetricsRegistry()),
                    sups, new HashMap<>(), tops, conf);
            client.encode(Snapshots.build(tops, cluster, System.currentTimeMillis(), 0));
            Wire.Decision d = ServiceClient.decode(answer);
            String err = BridgeScheduler.apply(tops, cluster, d.topologies().get(0), d.scheduler(), false);
            if (err != null) {
                throw new IllegalStateException("warm-up placement rejected: " + err);
            }
            // The next round sees the topology placed: the no-change path.
            Cluster next = new Cluster(new Nimbus(), new ResourceMetrics(new StormMetricsRegistry()),
                    sups, cluster.getAssignments(), tops, conf);
            client.encode(Snapshots.build(tops, next, System.currentTimeMillis(), 0));
            BridgeScheduler.apply(tops, next, d.topologies().get(0), d.scheduler(), false);
            next.getUnassignedExecutors(td);
            next.needsScheduling(td);
        }
    }

    /** Every port of every supervisor is free for scheduling. */
    private static final class Nimbus implements INimbus {
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
}
