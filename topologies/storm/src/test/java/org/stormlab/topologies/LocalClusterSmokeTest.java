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
 * Runs the Throughput topology in LocalCluster with the instrumentation pushing to an HTTP server in the
 * test, and checks that reports arrive with acked tuples, traffic between tasks and latency samples.
 * Skip with -DskipLocalCluster=true.
 */
class LocalClusterSmokeTest {
    private static final Pattern ACKED = Pattern.compile("\"acked\":(\\d+)");

    @Test
    void throughputTopologyIsInstrumented() throws Exception {
        Assumptions.assumeFalse(Boolean.getBoolean("skipLocalCluster"), "skipLocalCluster set");
        List<String> bodies = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/metrics", ex -> {
            bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        server.start();
        try (LocalCluster cluster = new LocalCluster()) {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/metrics";
            Args a = ThroughputTopology.flags().parse(new String[] {
                "--workers", "1", "--interval-ms", "2", "--metrics-url", url, "--report-interval-secs", "1"});
            Config conf = TopologySetup.config(a);
            StormTopology topo = ThroughputTopology.build(a, conf);
            cluster.submitTopology("smoke", conf, topo);
            long deadline = System.currentTimeMillis() + 60_000;
            while (System.currentTimeMillis() < deadline && !good(bodies)) {
                Thread.sleep(500);
            }
            cluster.killTopology("smoke");
        } finally {
            server.stop(0);
        }
        assertTrue(good(bodies), "no report with acked tuples, traffic and latency; got " + bodies.size() + " reports: "
            + (bodies.isEmpty() ? "" : bodies.get(bodies.size() - 1)));
    }

    private static boolean good(List<String> bodies) {
        for (String b : bodies) {
            Matcher m = ACKED.matcher(b);
            if (m.find() && Long.parseLong(m.group(1)) > 0 && b.contains("\"traffic\":[{") && b.contains("\"complete_latency_ms\":[")
                && !b.contains("\"complete_latency_ms\":[]") && b.contains("\"cpu\":[{")) {
                System.out.println("smoke report: " + b.substring(0, Math.min(600, b.length())));
                return true;
            }
        }
        return false;
    }
}
