package org.stormlab.bridge;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.EvenScheduler;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.IScheduler;
import org.apache.storm.scheduler.SchedulerAssignment;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nimbus-side scheduler that asks the Go scheduler service for placements.
 *
 * <p>Each round it POSTs a snapshot of the topologies the service places, and all supervisors, to
 * {@code stormlab.scheduler.url} and applies the decision: for each topology
 * in it, validate (see {@link Plan}), free the topology's slots and assign
 * the new workers. Topologies the service leaves out stay as they are. When
 * the service is unreachable, answers an invalid decision or reports an error,
 * executors still without a slot are placed by Storm's EvenScheduler and the
 * fallback is recorded: a log line with {@code STORMLAB-FALLBACK}, the
 * topology's status in the UI, and a POST to /v1/fallback. Each round logs
 * {@code STORMLAB-ROUND <ms> ms} (snapshot to decision applied) with the
 * time of each phase and the round's CPU time (see {@link Round}).
 *
 * <p>Each topology names its scheduler in its topology conf ({@code stormlab.scheduler}):
 * Storm's own (storm-even, storm-default, storm-ras) run in process on the
 * topology's share of the cluster, any other name goes to the service; a topology
 * naming none gets {@code stormlab.scheduler.default} (Nimbus conf; default
 * storm-default, Nimbus's own behaviour). See {@link Delegates}.
 *
 * <p>Settings (Nimbus conf, else environment): {@code stormlab.scheduler.url}
 * / STORMLAB_SCHEDULER_URL (default http://scheduler-service:7070/v1/schedule),
 * {@code stormlab.scheduler.timeout.ms} / STORMLAB_SCHEDULER_TIMEOUT_MS (default 2000),
 * {@code stormlab.scheduler.warmup} / STORMLAB_SCHEDULER_WARMUP (default true: see {@link Warmup}),
 * {@code stormlab.scheduler.token} / STORMLAB_SCHEDULER_TOKEN (sent as a bearer token; needed by a
 * service bound to a non-loopback address).
 */
public class BridgeScheduler implements IScheduler {
    private static final Logger LOG = LoggerFactory.getLogger(BridgeScheduler.class);

    public static final String CONF_URL = "stormlab.scheduler.url";
    public static final String CONF_TIMEOUT_MS = "stormlab.scheduler.timeout.ms";
    public static final String DEFAULT_URL = "http://scheduler-service:7070/v1/schedule";
    public static final long DEFAULT_TIMEOUT_MS = 2000;
    public static final String CONF_WARMUP = "stormlab.scheduler.warmup";
    public static final String CONF_TOKEN = "stormlab.scheduler.token";

    private ServiceClient client;
    private Delegates delegates;
    private double prevRoundMs;
    private volatile Round lastRound;
    private final CountDownLatch warmedUp = new CountDownLatch(1);

    @Override
    public void prepare(Map<String, Object> conf, StormMetricsRegistry metricsRegistry) {
        String url = setting(conf, CONF_URL, "STORMLAB_SCHEDULER_URL", DEFAULT_URL);
        long timeout = DEFAULT_TIMEOUT_MS;
        String t = setting(conf, CONF_TIMEOUT_MS, "STORMLAB_SCHEDULER_TIMEOUT_MS", null);
        if (t != null) {
            try {
                timeout = Long.parseLong(t.trim());
            } catch (NumberFormatException e) {
                LOG.warn("STORMLAB {}={} is not a number of milliseconds; using {}", CONF_TIMEOUT_MS, t, timeout);
            }
        }
        client = new ServiceClient(URI.create(url), Duration.ofMillis(timeout),
                setting(conf, CONF_TOKEN, "STORMLAB_SCHEDULER_TOKEN", null));
        delegates = new Delegates(conf, metricsRegistry);
        LOG.info("STORMLAB bridge ready: service {} timeout {} ms; topologies naming no {} go to {}",
                url, timeout, Delegates.TOPOLOGY_CONF, delegates.defaultName());
        String w = setting(conf, CONF_WARMUP, "STORMLAB_SCHEDULER_WARMUP", "true");
        if (Boolean.parseBoolean(w.trim())) {
            startWarmup();
        } else {
            warmedUp.countDown();
        }
    }

    /**
     * Runs {@link Warmup} on a daemon thread, so Nimbus's start is not held
     * up; a round that comes before it ends is correct, only slower.
     */
    private void startWarmup() {
        ServiceClient c = client;
        Thread t = new Thread(() -> {
            long t0 = System.nanoTime();
            try {
                Warmup.run(c);
                LOG.info("STORMLAB bridge warm-up done in {} ms", String.format("%.0f", (System.nanoTime() - t0) / 1e6));
            } catch (Throwable e) { // a failed warm-up costs only time in the first round
                LOG.warn("STORMLAB bridge warm-up failed ({}); the first rounds will be slower", e.toString());
            } finally {
                warmedUp.countDown();
            }
        }, "stormlab-bridge-warmup");
        t.setDaemon(true);
        t.start();
    }

    /** Waits for the warm-up to end; false on timeout. */
    boolean awaitWarmup(Duration d) throws InterruptedException {
        return warmedUp.await(d.toMillis(), TimeUnit.MILLISECONDS);
    }

    static String setting(Map<String, Object> conf, String key, String env, String dflt) {
        Object v = conf == null ? null : conf.get(key);
        if (v != null && !String.valueOf(v).isBlank()) {
            return String.valueOf(v);
        }
        String e = System.getenv(env);
        if (e != null && !e.isBlank()) {
            return e;
        }
        return dflt;
    }

    @Override
    public Map<String, Map<String, Double>> config() {
        return delegates == null ? new HashMap<>() : delegates.config();
    }

    /**
     * Places each topology with the scheduler it names (see {@link Delegates}): the
     * Go service's topologies first, then each native scheduler's on its own view.
     */
    @Override
    public void schedule(Topologies topologies, Cluster cluster) {
        if (client == null) {
            prepare(null, null);
        }
        for (Map.Entry<String, List<TopologyDetails>> g : delegates.group(topologies).entrySet()) {
            if (g.getKey().equals(Delegates.SERVICE)) {
                scheduleByService(new Topologies(byId(g.getValue())), cluster);
            } else {
                scheduleNative(g.getKey(), g.getValue(), cluster);
            }
        }
    }

    private static Map<String, TopologyDetails> byId(List<TopologyDetails> tds) {
        Map<String, TopologyDetails> m = new HashMap<>();
        for (TopologyDetails td : tds) {
            m.put(td.getId(), td);
        }
        return m;
    }

    /** Runs a native scheduler in process on its topologies; a topology it placed says so in its status. */
    private void scheduleNative(String name, List<TopologyDetails> tds, Cluster cluster) {
        List<TopologyDetails> needed = new ArrayList<>();
        for (TopologyDetails td : tds) {
            if (cluster.needsScheduling(td)) {
                needed.add(td);
            }
        }
        if (needed.isEmpty() && !Delegates.RAS.equals(name)) {
            return; // Even and Default place only topologies that need it; RAS keeps its own statuses
        }
        try {
            delegates.schedule(name, tds, cluster);
        } catch (RuntimeException e) {
            LOG.warn("STORMLAB-DELEGATE {} failed: {}", name, e.toString(), e);
            for (TopologyDetails td : tds) {
                cluster.setStatus(td.getId(), "stormlab: " + name + " failed in Nimbus: " + e);
            }
            return;
        }
        for (TopologyDetails td : needed) {
            if (cluster.getUnassignedExecutors(td).isEmpty()) {
                if (!Delegates.RAS.equals(name)) {
                    cluster.setStatus(td.getId(), "stormlab: placed by " + name + " in Nimbus on "
                            + cluster.getUsedSlotsByTopologyId(td.getId()).size() + " worker(s)");
                }
                LOG.info("STORMLAB-DELEGATE topology={} scheduler={} workers={}", td.getId(), name,
                        cluster.getUsedSlotsByTopologyId(td.getId()));
            }
        }
    }

    /** One round with the Go service for the topologies it places. */
    private void scheduleByService(Topologies topologies, Cluster cluster) {
        if (topologies.getTopologies().isEmpty()) {
            return; // nothing to place; do not depend on the service being up yet
        }
        Round.Clock clock = new Round.Clock();
        int executors = 0;
        int applied = 0;
        Map<String, String> failed = new LinkedHashMap<>(); // topology id -> reason
        String roundError = null;
        try {
            Wire.Snapshot snap = Snapshots.build(topologies, cluster, System.currentTimeMillis(), prevRoundMs);
            executors = Snapshots.countExecutors(snap.topologies());
            clock.enter(Round.Phase.ENCODE);
            byte[] body = client.encode(snap);
            clock.enter(Round.Phase.HTTP);
            byte[] answer = client.post(body);
            clock.enter(Round.Phase.DECODE);
            Wire.Decision d = ServiceClient.decode(answer);
            clock.enter(Round.Phase.APPLY);
            if (d.errors() != null) {
                for (Wire.TopologyError e : d.errors()) {
                    failed.put(e.id(), "service error: " + e.error());
                }
            }
            if (d.topologies() != null) {
                for (Wire.TopologyDecision td : d.topologies()) {
                    String err = apply(topologies, cluster, td, d.scheduler());
                    if (err == null) {
                        applied++;
                    } else {
                        failed.put(td.id(), "invalid decision: " + err);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            roundError = "interrupted while waiting for the service";
        } catch (Exception e) {
            roundError = "service " + client.scheduleUri() + " unusable: " + e;
        }
        clock.enter(Round.Phase.FALLBACK);
        int fallbacks = fallBack(topologies, cluster, failed, roundError);
        Round round = clock.done(topologies.getTopologies().size(), executors, applied, fallbacks);
        prevRoundMs = round.totalMs();
        lastRound = round;
        LOG.info(round.logLine());
    }

    /** The last round's times (what the STORMLAB-ROUND line logged), or null before the first. */
    Round lastRound() {
        return lastRound;
    }

    /** Applies one topology decision; returns why it was rejected, or null. */
    static String apply(Topologies topologies, Cluster cluster, Wire.TopologyDecision td, String scheduler) {
        return apply(topologies, cluster, td, scheduler, true);
    }

    /** As above; log false leaves out the STORMLAB-APPLY line (the warm-up's made-up rounds). */
    static String apply(Topologies topologies, Cluster cluster, Wire.TopologyDecision td, String scheduler, boolean log) {
        TopologyDetails t = td.id() == null ? null : topologies.getById(td.id());
        if (t == null) {
            return "unknown topology " + td.id();
        }
        Map<String, Set<Integer>> ports = new HashMap<>();
        for (SupervisorDetails sd : cluster.getSupervisors().values()) {
            ports.put(sd.getId(), sd.getAllPorts());
        }
        Set<WorkerSlot> others = new HashSet<>(cluster.getUsedSlots());
        others.removeAll(cluster.getUsedSlotsByTopologyId(t.getId()));
        Plan plan;
        try {
            plan = Plan.validate(td, t.getExecutors(), ports, others);
        } catch (Plan.InvalidDecision e) {
            return e.getMessage();
        }
        SchedulerAssignment cur = cluster.getAssignmentById(t.getId());
        if (cur != null && plan.sameAs(cur.getExecutorToSlot())) {
            return null;
        }
        try {
            cluster.freeSlots(new ArrayList<>(cluster.getUsedSlotsByTopologyId(t.getId())));
            for (Map.Entry<WorkerSlot, List<ExecutorDetails>> e : plan.slots.entrySet()) {
                cluster.assign(e.getKey(), t.getId(), e.getValue());
            }
        } catch (RuntimeException e) {
            return "Storm refused the assignment: " + e.getMessage();
        }
        cluster.setStatus(t.getId(), "stormlab: placed by " + scheduler + " on " + plan.slots.size() + " worker(s)");
        if (log) {
            LOG.info("STORMLAB-APPLY topology={} scheduler={} workers={}", t.getId(), scheduler, plan.slots.keySet());
        }
        return null;
    }

    /**
     * Records failures and lets EvenScheduler place every executor still
     * without a slot. Returns the number of fallbacks recorded.
     */
    private int fallBack(Topologies topologies, Cluster cluster, Map<String, String> failed, String roundError) {
        int n = 0;
        boolean needEven = false;
        for (TopologyDetails t : topologies.getTopologies()) {
            boolean unassigned = !cluster.getUnassignedExecutors(t).isEmpty();
            String reason = failed.get(t.getId());
            if (reason == null && roundError != null && (unassigned || cluster.needsScheduling(t))) {
                reason = roundError;
            }
            if (reason == null && unassigned) {
                reason = "service gave no placement for a topology with unassigned executors";
            }
            if (reason == null) {
                continue;
            }
            needEven |= unassigned;
            n++;
            record(cluster, t.getId(), reason);
        }
        if (roundError != null && n == 0) {
            n++;
            record(cluster, null, roundError);
        }
        if (needEven) {
            // on the service's topologies only: others belong to the schedulers they name
            Delegates.onView(topologies.getTopologies(), cluster, EvenScheduler::scheduleTopologiesEvenly);
        }
        return n;
    }

    private void record(Cluster cluster, String topologyId, String reason) {
        LOG.warn("STORMLAB-FALLBACK {} (topology {})", reason, topologyId == null ? "-" : topologyId);
        if (topologyId != null) {
            cluster.setStatus(topologyId, "stormlab fallback: " + reason);
        }
        client.reportFallback(new Wire.Fallback(System.currentTimeMillis(), topologyId, reason));
    }
}
