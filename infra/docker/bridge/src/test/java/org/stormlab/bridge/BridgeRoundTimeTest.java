package org.stormlab.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.ComponentObject;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.NullStruct;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;
import org.apache.storm.scheduler.resource.normalization.ResourceMetrics;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * Benchmark of bridge rounds at 1,000 executors against the real Go
 * scheduler service, on a real Storm {@link Cluster} object, the way Nimbus
 * calls the bridge: one BridgeScheduler for the whole run, a new Cluster each
 * round. Each iteration runs a round that applies a new placement (a newly
 * submitted topology) and then a no-change round (the same topology, placed,
 * on the next round's Cluster). It prints the median of each phase of the
 * STORMLAB-ROUND log line ({@link Round}) for both kinds, and the service's
 * own time per round from its /v1/state, and the first placement round of
 * the JVM alone ("first": cold code, as in a Nimbus that just started).
 *
 * <p>Opt-in, it runs only when enabled:
 * <ul>
 * <li>{@code mvn -o -q test -Dtest=BridgeRoundTimeTest -Dstormlab.bench=true} builds
 *     cmd/stormlab-service with go, starts it on a free 127.0.0.1 port
 *     ({@code -Dstormlab.bench.scheduler}, default kpart) and stops it at the end;</li>
 * <li>{@code STORMLAB_SERVICE_URL=http://127.0.0.1:7071/v1/schedule mvn -o -q test -Dtest=BridgeRoundTimeTest}
 *     uses a running service.</li>
 * </ul>
 * {@code -Dstormlab.bench.warmup=false} turns the bridge's {@link Warmup} off (the "first" row then shows a cold round).
 * {@code -Dstormlab.bench.streams=true} gives the topology a shuffle chain (see {@link #topology}).
 * {@code -Dstormlab.bench.rounds} (default 30) iterations, the first 5 left out as JIT warm-up.
 * It asserts what the rounds did, not how long they took: times depend on the machine's load.
 */
class BridgeRoundTimeTest {
    private static final int EXECUTORS = 1000;
    private static final int WORKERS = 16;
    private static final int WARMUP = 5;
    private static final boolean STREAMS = Boolean.parseBoolean(System.getProperty("stormlab.bench.streams", "false"));

    @Test
    void thousandExecutorRounds() throws Exception {
        String url = System.getenv("STORMLAB_SERVICE_URL");
        boolean start = Boolean.parseBoolean(System.getProperty("stormlab.bench", "false"));
        assumeTrue((url != null && !url.isBlank()) || start,
                "benchmark off: set -Dstormlab.bench=true or STORMLAB_SERVICE_URL");
        String scheduler = System.getProperty("stormlab.bench.scheduler", "kpart");
        int rounds = Integer.parseInt(System.getProperty("stormlab.bench.rounds", "30"));
        assertTrue(rounds > WARMUP, "-Dstormlab.bench.rounds must be more than " + WARMUP);
        Process svc = null;
        try {
            if (url == null || url.isBlank()) {
                int port;
                try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                    port = s.getLocalPort();
                }
                svc = startService(scheduler, port);
                url = "http://127.0.0.1:" + port + "/v1/schedule";
            } else {
                scheduler = "as running";
            }
            run(url, scheduler, rounds);
        } finally {
            if (svc != null) {
                svc.destroy();
                if (!svc.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                    svc.destroyForcibly();
                }
            }
        }
    }

    private void run(String url, String scheduler, int rounds) throws Exception {
        Map<String, Object> conf = Utils.readDefaultConfig();
        Map<String, Object> c = new HashMap<>(conf);
        c.put(BridgeScheduler.CONF_URL, url);
        c.put(BridgeScheduler.CONF_WARMUP, System.getProperty("stormlab.bench.warmup", "true"));
        BridgeScheduler b = new BridgeScheduler();
        b.prepare(c, null); // once, as Nimbus does
        long w0 = System.nanoTime();
        // Nimbus gets its first topology seconds after it starts: the warm-up has ended by then.
        assertTrue(b.awaitWarmup(Duration.ofSeconds(120)), "bridge warm-up did not end in 120 s");
        double warmupMs = (System.nanoTime() - w0) / 1e6;
        Map<String, SupervisorDetails> sups = new HashMap<>();
        for (int n = 0; n < 4; n++) {
            sups.put("sup-" + n, new SupervisorDetails("sup-" + n, "node" + n, null, List.of(6700, 6701, 6702, 6703)));
        }
        List<Round> placed = new ArrayList<>();
        List<Round> unchanged = new ArrayList<>();
        Round first = null;
        long startMs = System.currentTimeMillis();
        for (int r = 0; r < rounds; r++) {
            TopologyDetails td = topology("bench-" + r, conf);
            Topologies tops = new Topologies(td);
            Cluster cluster = new Cluster(new BridgeSchedulerTest.TestNimbus(), new ResourceMetrics(new StormMetricsRegistry()),
                    sups, new HashMap<>(), tops, conf);
            b.schedule(tops, cluster);
            Round placing = b.lastRound();
            assertEquals(1, placing.applied(), placing.logLine());
            assertEquals(0, placing.fallbacks(), placing.logLine());
            assertTrue(cluster.getUnassignedExecutors(td).isEmpty());
            assertTrue(cluster.getStatusMap().get(td.getId()).startsWith("stormlab: placed"), cluster.getStatusMap().toString());
            assertEquals(WORKERS, cluster.getUsedSlotsByTopologyId(td.getId()).size());
            Map<ExecutorDetails, WorkerSlot> where = new HashMap<>(cluster.getAssignmentById(td.getId()).getExecutorToSlot());

            // Nimbus's next round: a new Cluster holding what was assigned.
            Cluster next = new Cluster(new BridgeSchedulerTest.TestNimbus(), new ResourceMetrics(new StormMetricsRegistry()),
                    sups, cluster.getAssignments(), tops, conf);
            b.schedule(tops, next);
            Round same = b.lastRound();
            assertEquals(0, same.fallbacks(), same.logLine());
            assertEquals(where, next.getAssignmentById(td.getId()).getExecutorToSlot(), "a no-change round moved executors");
            if (r == 0) {
                first = placing;
            }
            if (r >= WARMUP) {
                placed.add(placing);
                unchanged.add(same);
            }
        }
        double[] all = serviceMs(url, startMs, rounds);
        double[] service = all == null ? null : java.util.Arrays.copyOfRange(all, 2 * WARMUP, all.length);
        System.out.printf(Locale.ROOT, "STORMLAB-BENCH bridge rounds, %d executors on %d workers, %s, service %s, "
                        + "median of %d rounds after %d warm-up, ms%n",
                EXECUTORS, WORKERS, STREAMS ? "shuffle chain" : "no streams", scheduler, rounds - WARMUP, WARMUP);
        System.out.printf(Locale.ROOT, "STORMLAB-BENCH %-10s %7s %7s %8s %7s %7s %7s %7s %8s %8s%n",
                "round", "total", "cpu", "snapshot", "encode", "http", "decode", "apply", "fallback", "service");
        print("placement", placed, every2(service, 0));
        print("no-change", unchanged, every2(service, 1));
        print("first", List.of(first), all == null ? null : new double[] {all[0]});
        System.out.printf(Locale.ROOT, "STORMLAB-BENCH warm-up after prepare: %.0f ms (0 when off)%n", warmupMs);
    }

    private static void print(String kind, List<Round> rs, double[] service) {
        System.out.printf(Locale.ROOT, "STORMLAB-BENCH %-10s %7.1f %7.1f %8.1f %7.1f %7.1f %7.1f %7.1f %8.1f %8s%n", kind,
                median(rs, Round::totalMs), median(rs, Round::cpuMs), median(rs, Round::snapshotMs),
                median(rs, Round::encodeMs), median(rs, Round::httpMs), median(rs, Round::decodeMs),
                median(rs, Round::applyMs), median(rs, Round::fallbackMs),
                service == null ? "-" : String.format(Locale.ROOT, "%.1f", median(service)));
    }

    static double median(List<Round> rs, ToDoubleFunction<Round> f) {
        return median(rs.stream().mapToDouble(f).toArray());
    }

    static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /**
     * 1,000 single-task executors in four components, 250 each; with
     * -Dstormlab.bench.streams=true a shuffle chain spout -> bolt1 -> bolt2 -> bolt3
     * (the service's executor graph then has 3 x 250 x 250 edges), else no streams.
     */
    private static TopologyDetails topology(String id, Map<String, Object> conf) {
        Map<ExecutorDetails, String> e2c = new HashMap<>();
        String[] comps = {"spout", "bolt1", "bolt2", "bolt3"};
        for (int task = 1; task <= EXECUTORS; task++) {
            e2c.put(new ExecutorDetails(task, task), comps[(task - 1) * comps.length / EXECUTORS]);
        }
        Map<String, Object> tconf = new HashMap<>(conf);
        tconf.put("topology.name", "throughput");
        Map<String, Bolt> bolts = new HashMap<>();
        if (STREAMS) {
            for (int i = 1; i < comps.length; i++) {
                Map<GlobalStreamId, Grouping> in = new HashMap<>();
                in.put(new GlobalStreamId(comps[i - 1], "default"), Grouping.shuffle(new NullStruct()));
                bolts.put(comps[i], new Bolt(ComponentObject.serialized_java(new byte[0]), new ComponentCommon(in, new HashMap<>())));
            }
        }
        return new TopologyDetails(id, tconf, new StormTopology(new HashMap<>(), bolts, new HashMap<>()),
                WORKERS, e2c, "test");
    }

    /**
     * The service's own time (protocol.RoundTime.service_ms) of every round
     * since sinceMs, in order (placement, no-change, placement, ...), or null
     * when its state does not hold exactly the n pairs of rounds (a service
     * that others use too).
     */
    private static double[] serviceMs(String scheduleUrl, long sinceMs, int n) throws IOException {
        URI state = URI.create(scheduleUrl).resolve("/v1/state?since_ms=" + sinceMs);
        HttpURLConnection conn = (HttpURLConnection) state.toURL().openConnection();
        JsonNode times;
        try (var in = conn.getInputStream()) {
            times = Wire.MAPPER.readTree(in).get("round_times");
        }
        if (times == null || times.size() != 2 * n) {
            return null;
        }
        double[] out = new double[2 * n];
        for (int i = 0; i < 2 * n; i++) {
            out[i] = times.get(i).get("service_ms").asDouble();
        }
        return out;
    }

    /** Every other element of v from start, or null for null. */
    private static double[] every2(double[] v, int start) {
        if (v == null) {
            return null;
        }
        double[] out = new double[(v.length - start + 1) / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = v[start + 2 * i];
        }
        return out;
    }

    /** Builds cmd/stormlab-service into target/ and starts it; returns once /v1/health answers. */
    private static Process startService(String scheduler, int port) throws Exception {
        Path root = Path.of("../../..").toAbsolutePath().normalize();
        assertTrue(Files.exists(root.resolve("go.mod")), "no go.mod at " + root + ": run from infra/docker/bridge (mvn -f its pom.xml)");
        Path bin = Path.of("target", "stormlab-service").toAbsolutePath();
        Process build = new ProcessBuilder("go", "build", "-o", bin.toString(), "./cmd/stormlab-service")
                .directory(root.toFile()).inheritIO().start();
        assertEquals(0, build.waitFor(), "go build ./cmd/stormlab-service failed");
        Path log = Path.of("target", "stormlab-service-bench.log").toAbsolutePath();
        Process p = new ProcessBuilder(bin.toString(), "--scheduler", scheduler, "--addr", "127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        URI health = URI.create("http://127.0.0.1:" + port + "/v1/health");
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                HttpURLConnection conn = (HttpURLConnection) health.toURL().openConnection();
                conn.setConnectTimeout(1000);
                if (conn.getResponseCode() == 200) {
                    return p;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IOException("stormlab-service did not answer " + health + " (exit: "
                        + (p.isAlive() ? "still running" : p.exitValue()) + "); its output: " + log);
            }
            Thread.sleep(100); // poll interval while the process starts
        }
    }
}
