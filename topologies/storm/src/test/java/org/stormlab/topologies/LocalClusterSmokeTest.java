package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.storm.Config;
import org.apache.storm.LocalCluster;
import org.apache.storm.generated.StormTopology;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Runs the three topologies and a replay of topologies/testdata/replay-small.json at once in LocalCluster (2 workers each, so tuples cross workers and are
 * serialized) with the instrumentation pushing to an HTTP server in the test, and checks that each
 * topology's reports carry acked tuples, task-to-task traffic, CPU and latency samples, deadline records
 * with component deadlines from a sink, sampled tuple sizes, and the latency histogram with the totals. Takes ~30 s; skip with -DskipLocalCluster=true.
 */
class LocalClusterSmokeTest {
    private static final Pattern ACKED = Pattern.compile("\"acked\":(\\d+)");
    /** A deadline record with a component deadline set (every bolt has one: --deadlines staged). */
    private static final Pattern DEADLINE = Pattern.compile("\"deadline_ms\":[1-9]");

    @Test
    void topologiesAreInstrumented() throws Exception {
        Assumptions.assumeFalse(Boolean.getBoolean("skipLocalCluster"), "skipLocalCluster set");
        List<String> bodies = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/metrics", ex -> {
            bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/metrics";
        String[] common = {"--workers", "2", "--parallelism", "2", "--metrics-url", url, "--report-interval-secs", "1",
            "--worker-heap-mb", "128",
            // serialize every tuple and require Kryo registrations, as a real cluster does
            "--conf", "topology.testing.always.try.serialize=true", "--conf", "topology.skip.missing.kryo.registrations=false"};
        try (LocalCluster cluster = new LocalCluster.Builder().withSupervisors(2).withPortsPerSupervisor(4).build()) {
            submit(cluster, "tp", ThroughputTopology.flags(), ThroughputTopology::build, common, "--interval-ms", "2");
            submit(cluster, "wc", WordCountTopology.flags(), WordCountTopology::build, common, "--interval-ms", "2");
            submit(cluster, "km", KMeansTopology.flags(), KMeansTopology::build, common, "--interval-ms", "2");
            // The replay keeps the captured parallelism (no --parallelism) and runs open loop.
            submit(cluster, "rp", ReplayTopology.flags(), ReplayTopology::build, new String[] {"--workers", "2", "--metrics-url", url,
                "--report-interval-secs", "1", "--worker-heap-mb", "128", "--conf", "topology.testing.always.try.serialize=true",
                "--conf", "topology.skip.missing.kryo.registrations=false"}, "--graph", ReplayGraphTest.SMALL.toString());
            long deadline = System.currentTimeMillis() + 90_000;
            while (System.currentTimeMillis() < deadline
                && !(good(bodies, "tp-", true) && good(bodies, "wc-", true) && good(bodies, "km-", true) && good(bodies, "rp-", true))) {
                Thread.sleep(500);
            }
            for (String t : new String[] {"tp", "wc", "km", "rp"}) {
                cluster.killTopology(t);
            }
        } finally {
            server.stop(0);
        }
        // Thread CPU ("cpu") may be missing in a report sent after a topology was killed (its executor
        // threads are gone); sizes, process CPU and memory must always be measured.
        for (String b : bodies) {
            for (String f : new String[] {"tuple_sizes", "worker_cpu_percent", "worker_memory_mb"}) {
                assertTrue(!Pattern.compile("\"not_measured\":\\[[^\\]]*\"" + f + "\"").matcher(b).find(),
                    "a worker could not measure " + f + ": " + b);
            }
        }
        for (String t : new String[] {"tp-", "wc-", "km-", "rp-"}) {
            assertTrue(good(bodies, t, true), "no complete report for " + t + " among " + bodies.size() + " reports; last: "
                + (bodies.isEmpty() ? "" : bodies.get(bodies.size() - 1)));
        }
        checkReplaySizes(bodies);
    }

    private static final Pattern OUT_SIZE = Pattern.compile("\\{\"task\":(\\d+),\"in_samples\":\\d+,\"in_bytes\":\\d+,"
        + "\"out_samples\":(\\d+),\"out_bytes\":(\\d+)\\}");

    /**
     * The replay's emitted tuples serialize to the fixture's sizes: 100 bytes from the spout, 80 from bolt work
     * (topologies/testdata/replay-small.json), within 2 bytes (the payload's length prefix; the measurement is
     * the instrumentation's own, Storm's KryoTupleSerializer).
     */
    private static void checkReplaySizes(List<String> bodies) {
        int seen = 0;
        for (String b : bodies) {
            if (!b.startsWith("{\"topology\":\"rp-")) {
                continue;
            }
            Matcher m = OUT_SIZE.matcher(b);
            while (m.find()) {
                long n = Long.parseLong(m.group(2));
                if (n == 0) {
                    continue;
                }
                double mean = (double) Long.parseLong(m.group(3)) / n;
                assertTrue(Math.abs(mean - 100) <= 2 || Math.abs(mean - 80) <= 2, "replay task " + m.group(1) + " emits tuples of "
                    + mean + " bytes, want 100 or 80 (+-2)");
                seen++;
            }
        }
        assertTrue(seen > 0, "no emitted tuple sizes in the replay's reports");
    }

    private static void submit(LocalCluster cluster, String name, Args flags, TopologySetup.Builder b, String[] common,
                               String... extra) throws Exception {
        String[] argv = new String[common.length + extra.length + 2];
        argv[0] = "--name";
        argv[1] = name;
        System.arraycopy(common, 0, argv, 2, common.length);
        System.arraycopy(extra, 0, argv, 2 + common.length, extra.length);
        Args a = flags.parse(argv);
        Config conf = TopologySetup.config(a);
        StormTopology topo = b.build(a, conf);
        TopologySetup.applyDeadlines(a, conf, topo);
        cluster.submitTopology(name, conf, topo);
    }

    private static boolean good(List<String> bodies, String topologyPrefix, boolean deadlines) {
        boolean acked = false;
        boolean traffic = false;
        boolean cpu = false;
        boolean latency = false;
        boolean dl = !deadlines;
        boolean sizes = false;
        boolean hist = false;
        for (String b : bodies) {
            if (!b.startsWith("{\"topology\":\"" + topologyPrefix)) {
                continue;
            }
            Matcher m = ACKED.matcher(b);
            acked |= m.find() && Long.parseLong(m.group(1)) > 0;
            traffic |= b.contains("\"traffic\":[{");
            cpu |= Pattern.compile("\"cpu_ns\":[1-9]").matcher(b).find();
            latency |= b.contains("\"complete_latency_ms\":[") && !b.contains("\"complete_latency_ms\":[]");
            dl |= b.contains("\"deadlines\":[{") && b.contains("\"sink\":true") && DEADLINE.matcher(b).find();
            sizes |= Pattern.compile("\"in_bytes\":[1-9]").matcher(b).find();
            hist |= b.contains("\"latency_hist\":\"") && b.contains("\"acked_total\":") && b.contains("\"worker_start_ms\":1");
        }
        return acked && traffic && cpu && latency && dl && sizes && hist;
    }
}
