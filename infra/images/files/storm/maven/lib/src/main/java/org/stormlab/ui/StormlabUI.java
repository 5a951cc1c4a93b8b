package org.stormlab.ui;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.BoltStats;
import org.apache.storm.generated.ComponentCommon;
import org.apache.storm.generated.ClusterSummary;
import org.apache.storm.generated.ExecutorSpecificStats;
import org.apache.storm.generated.ExecutorStats;
import org.apache.storm.generated.ExecutorSummary;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.KillOptions;
import org.apache.storm.generated.Nimbus;
import org.apache.storm.generated.NotAliveException;
import org.apache.storm.generated.SpoutSpec;
import org.apache.storm.generated.SpoutStats;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.SupervisorSummary;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.generated.TopologySummary;
import org.apache.storm.utils.NimbusClient;
import org.apache.storm.utils.Utils;

/**
 * A small stand-in for Storm UI's REST API, serving the subset of /api/v1 that the stormlab harness
 * reads. Storm's own UI lives in storm-webapp, which is not published to Maven Central, so an image
 * assembled from Maven jars cannot run it. Field names follow Storm UI where an equivalent exists
 * (UIHelpers); everything is read from Nimbus over Thrift with a fresh client per request, so the server
 * survives Nimbus restarts.
 *
 * <p>Endpoints: GET /api/v1/cluster/summary, /api/v1/supervisor/summary, /api/v1/topology/summary,
 * /api/v1/topology/{id} (with "executors": one entry per executor with host, port and all-time counts),
 * /api/v1/topology/{id}/visualization (each component's type and inputs with their grouping, as
 * Storm UI's; plus ":fields", the grouping fields, which Storm UI does not give),
 * /api/v1/topology/{id}/component/{component} (executorStats, inputStats, outputStats: all-time, Storm's
 * "__" streams left out, as Storm UI's without sys=true), POST /api/v1/topology/{id}/kill/{waitSecs}.
 * Listens on ui.port (default 8080).
 */
public final class StormlabUI {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ALL_TIME = ":all-time";

    private final Map<String, Object> conf;

    private StormlabUI(Map<String, Object> conf) {
        this.conf = conf;
    }

    public static void main(String[] args) throws IOException {
        Map<String, Object> conf = Utils.readStormConfig();
        int port = ((Number) conf.getOrDefault("ui.port", 8080)).intValue();
        StormlabUI ui = new StormlabUI(conf);
        HttpServer server = HttpServer.create(new InetSocketAddress(port), 64);
        server.createContext("/api/v1/", ui::handle);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
        System.out.println("stormlab-ui listening on port " + port);
    }

    private interface Call {
        Object apply(Nimbus.Iface nimbus) throws Exception;
    }

    private Object withNimbus(Call call) throws Exception {
        try (NimbusClient client = NimbusClient.getConfiguredClient(conf)) {
            return call.apply(client.getClient());
        }
    }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        String[] p = path.replaceAll("/+$", "").split("/");
        // p = ["", "api", "v1", ...]
        int status = 200;
        Object body;
        try {
            String method = ex.getRequestMethod();
            if (p.length == 5 && p[3].equals("cluster") && p[4].equals("summary")) {
                body = withNimbus(StormlabUI::clusterSummary);
            } else if (p.length == 5 && p[3].equals("cluster") && p[4].equals("configuration")) {
                // Nimbus's own configuration, as Storm UI serves it (e.g. storm.scheduler: is the bridge installed?).
                body = withNimbus(n -> JSON.readValue(n.getNimbusConf(), Map.class));
            } else if (p.length == 5 && p[3].equals("supervisor") && p[4].equals("summary")) {
                body = withNimbus(StormlabUI::supervisorSummary);
            } else if (p.length == 5 && p[3].equals("topology") && p[4].equals("summary")) {
                body = withNimbus(StormlabUI::topologySummary);
            } else if (p.length == 5 && p[3].equals("topology")) {
                String id = decode(p[4]);
                body = withNimbus(n -> topology(n, id));
            } else if (p.length == 6 && p[3].equals("topology") && p[5].equals("visualization")) {
                String id = decode(p[4]);
                body = withNimbus(n -> visualization(n, id));
            } else if (p.length == 7 && p[3].equals("topology") && p[5].equals("component")) {
                String id = decode(p[4]);
                String comp = decode(p[6]);
                body = withNimbus(n -> component(n, id, comp));
                if (body == null) {
                    status = 404;
                    body = error("topology " + id + " has no component " + comp);
                }
            } else if (p.length >= 6 && p[3].equals("topology") && p[5].equals("kill")) {
                if (!method.equals("POST")) {
                    status = 405;
                    body = error("use POST to kill a topology");
                } else {
                    String id = decode(p[4]);
                    int wait = p.length > 6 ? Integer.parseInt(p[6]) : 0;
                    body = withNimbus(n -> kill(n, id, wait));
                }
            } else {
                status = 404;
                body = error("no such endpoint: " + path);
            }
        } catch (NotAliveException e) {
            status = 404;
            body = error("topology not alive: " + e.get_msg());
        } catch (Exception e) {
            status = 500;
            body = error(e.toString());
        }
        byte[] out = JSON.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, out.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(out);
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static Map<String, Object> error(String msg) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("error", msg);
        return m;
    }

    private static Object clusterSummary(Nimbus.Iface n) throws Exception {
        ClusterSummary c = n.getClusterInfo();
        int slotsTotal = 0;
        int slotsUsed = 0;
        for (SupervisorSummary s : c.get_supervisors()) {
            slotsTotal += s.get_num_workers();
            slotsUsed += s.get_num_used_workers();
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("supervisors", c.get_supervisors_size());
        m.put("topologies", c.get_topologies_size());
        m.put("slotsTotal", slotsTotal);
        m.put("slotsUsed", slotsUsed);
        m.put("slotsFree", slotsTotal - slotsUsed);
        return m;
    }

    private static Object supervisorSummary(Nimbus.Iface n) throws Exception {
        List<Object> sups = new ArrayList<>();
        for (SupervisorSummary s : n.getClusterInfo().get_supervisors()) {
            Map<String, Object> m = new LinkedHashMap<>();
            Map<String, Double> total = s.get_total_resources();
            m.put("id", s.get_supervisor_id());
            m.put("host", s.get_host());
            m.put("uptimeSeconds", s.get_uptime_secs());
            m.put("slotsTotal", s.get_num_workers());
            m.put("slotsUsed", s.get_num_used_workers());
            m.put("slotsFree", s.get_num_workers() - s.get_num_used_workers());
            m.put("totalMem", total == null ? 0.0 : total.getOrDefault("memory.mb", 0.0));
            m.put("totalCpu", total == null ? 0.0 : total.getOrDefault("cpu.pcore.percent", 0.0));
            m.put("usedMem", s.get_used_mem());
            m.put("usedCpu", s.get_used_cpu());
            m.put("version", s.get_version());
            m.put("totalResources", total);
            sups.add(m);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("supervisors", sups);
        return m;
    }

    private static Map<String, Object> topologyFields(TopologySummary t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", t.get_id());
        m.put("name", t.get_name());
        m.put("status", t.get_status());
        m.put("uptimeSeconds", t.get_uptime_secs());
        m.put("tasksTotal", t.get_num_tasks());
        m.put("workersTotal", t.get_num_workers());
        m.put("executorsTotal", t.get_num_executors());
        m.put("schedulerInfo", t.get_sched_status());
        return m;
    }

    private static Object topologySummary(Nimbus.Iface n) throws Exception {
        List<Object> tops = new ArrayList<>();
        for (TopologySummary t : n.getClusterInfo().get_topologies()) {
            tops.add(topologyFields(t));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("topologies", tops);
        return m;
    }

    private static Object topology(Nimbus.Iface n, String id) throws Exception {
        TopologyInfo info = n.getTopologyInfo(id);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", info.get_id());
        m.put("name", info.get_name());
        m.put("status", info.get_status());
        m.put("uptimeSeconds", info.get_uptime_secs());
        m.put("schedulerInfo", info.get_sched_status());
        List<Object> execs = new ArrayList<>();
        for (ExecutorSummary e : info.get_executors()) {
            execs.add(executor(e));
        }
        m.put("executorsTotal", execs.size());
        m.put("executors", execs);
        return m;
    }

    /** One executor with its placement and all-time counters summed over streams. */
    private static Map<String, Object> executor(ExecutorSummary e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("component", e.get_component_id());
        m.put("taskStart", e.get_executor_info().get_task_start());
        m.put("taskEnd", e.get_executor_info().get_task_end());
        m.put("host", e.get_host());
        m.put("port", e.get_port());
        m.put("uptimeSeconds", e.get_uptime_secs());
        ExecutorStats st = e.get_stats();
        if (st == null) {
            return m;
        }
        m.put("emitted", sumLong(st.get_emitted()));
        m.put("transferred", sumLong(st.get_transferred()));
        ExecutorSpecificStats sp = st.get_specific();
        if (sp != null && sp.is_set_spout()) {
            SpoutStats s = sp.get_spout();
            m.put("type", "spout");
            m.put("acked", sumLong(s.get_acked()));
            m.put("failed", sumLong(s.get_failed()));
            m.put("completeLatency", weighted(s.get_complete_ms_avg(), s.get_acked()));
        } else if (sp != null && sp.is_set_bolt()) {
            BoltStats b = sp.get_bolt();
            m.put("type", "bolt");
            m.put("acked", sumLong(b.get_acked()));
            m.put("failed", sumLong(b.get_failed()));
            m.put("executed", sumLong(b.get_executed()));
            m.put("executeLatency", weighted(b.get_execute_ms_avg(), b.get_executed()));
            m.put("processLatency", weighted(b.get_process_ms_avg(), b.get_acked()));
        }
        return m;
    }

    private static <K> long sumLong(Map<String, Map<K, Long>> byWindow) {
        if (byWindow == null || !byWindow.containsKey(ALL_TIME)) {
            return 0;
        }
        long sum = 0;
        for (Long v : byWindow.get(ALL_TIME).values()) {
            sum += v == null ? 0 : v;
        }
        return sum;
    }

    /** Average of per-stream averages weighted by per-stream counts (all-time window). */
    private static <K> double weighted(Map<String, Map<K, Double>> avg, Map<String, Map<K, Long>> counts) {
        if (avg == null || counts == null || !avg.containsKey(ALL_TIME) || !counts.containsKey(ALL_TIME)) {
            return 0;
        }
        double total = 0;
        long n = 0;
        Map<K, Long> c = counts.get(ALL_TIME);
        for (Map.Entry<K, Double> en : avg.get(ALL_TIME).entrySet()) {
            Long k = c.get(en.getKey());
            if (k != null && en.getValue() != null) {
                total += en.getValue() * k;
                n += k;
            }
        }
        return n == 0 ? 0 : total / n;
    }

    /**
     * Storm UI's visualization data (UIHelpers.getVisualizationData): component id -> ":type" and ":inputs"
     * (":component", ":stream", ":grouping": the Thrift grouping's field name), from the user topology
     * (no system components or streams), plus ":fields" for fields groupings (empty = global grouping).
     */
    private static Object visualization(Nimbus.Iface n, String id) throws Exception {
        StormTopology topo = n.getUserTopology(id);
        Map<String, Object> out = new TreeMap<>();
        for (Map.Entry<String, SpoutSpec> e : topo.get_spouts().entrySet()) {
            out.put(e.getKey(), visComponent("spout", e.getValue().get_common()));
        }
        for (Map.Entry<String, Bolt> e : topo.get_bolts().entrySet()) {
            out.put(e.getKey(), visComponent("bolt", e.getValue().get_common()));
        }
        return out;
    }

    private static Map<String, Object> visComponent(String type, ComponentCommon common) {
        List<Object> inputs = new ArrayList<>();
        for (Map.Entry<GlobalStreamId, Grouping> in : common.get_inputs().entrySet()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put(":component", in.getKey().get_componentId());
            m.put(":stream", in.getKey().get_streamId());
            Grouping g = in.getValue();
            m.put(":grouping", g.getSetField().getFieldName());
            if (g.is_set_fields()) {
                m.put(":fields", g.get_fields());
            }
            inputs.add(m);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(":type", type);
        m.put(":inputs", inputs);
        return m;
    }

    /**
     * Storm UI's component page (UIHelpers.getComponentPage), all-time window: "componentType",
     * "executors", "tasks", "executorStats" (id "[start-end]", host, port, uptimeSeconds, emitted,
     * transferred, and for bolts executed and executeLatency), "inputStats" (bolts: per input stream,
     * executed) and "outputStats" (per stream, emitted and transferred). Null if there is no such
     * component.
     */
    private static Object component(Nimbus.Iface n, String id, String comp) throws Exception {
        TopologyInfo info = n.getTopologyInfo(id);
        List<ExecutorSummary> execs = new ArrayList<>();
        for (ExecutorSummary e : info.get_executors()) {
            if (e.get_component_id().equals(comp)) {
                execs.add(e);
            }
        }
        if (execs.isEmpty()) {
            return null;
        }
        execs.sort((a, b) -> Integer.compare(a.get_executor_info().get_task_start(), b.get_executor_info().get_task_start()));
        String type = "spout";
        int tasks = 0;
        List<Object> stats = new ArrayList<>();
        Map<String, long[]> outputs = new TreeMap<>();
        Map<String, Map<String, Object>> inputs = new TreeMap<>();
        for (ExecutorSummary e : execs) {
            tasks += e.get_executor_info().get_task_end() - e.get_executor_info().get_task_start() + 1;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", "[" + e.get_executor_info().get_task_start() + "-" + e.get_executor_info().get_task_end() + "]");
            m.put("host", e.get_host());
            m.put("port", e.get_port());
            m.put("uptimeSeconds", e.get_uptime_secs());
            ExecutorStats st = e.get_stats();
            if (st != null) {
                m.put("emitted", userSum(st.get_emitted()));
                m.put("transferred", userSum(st.get_transferred()));
                addStreams(outputs, st.get_emitted(), 0);
                addStreams(outputs, st.get_transferred(), 1);
                ExecutorSpecificStats sp = st.get_specific();
                if (sp != null && sp.is_set_bolt()) {
                    type = "bolt";
                    BoltStats b = sp.get_bolt();
                    m.put("executed", sumLong(b.get_executed()));
                    m.put("executeLatency", weighted(b.get_execute_ms_avg(), b.get_executed()));
                    addInputs(inputs, b.get_executed());
                }
            }
            stats.add(m);
        }
        List<Object> out = new ArrayList<>();
        for (Map.Entry<String, long[]> o : outputs.entrySet()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("stream", o.getKey());
            m.put("emitted", o.getValue()[0]);
            m.put("transferred", o.getValue()[1]);
            out.add(m);
        }
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("id", comp);
        page.put("topologyId", id);
        page.put("componentType", type);
        page.put("executors", execs.size());
        page.put("tasks", tasks);
        page.put("window", ALL_TIME);
        page.put("executorStats", stats);
        page.put("inputStats", new ArrayList<>(inputs.values()));
        page.put("outputStats", out);
        return page;
    }

    /** All-time count over the topology's own streams (not Storm's "__" ones). */
    private static long userSum(Map<String, Map<String, Long>> byWindow) {
        if (byWindow == null || !byWindow.containsKey(ALL_TIME)) {
            return 0;
        }
        long sum = 0;
        for (Map.Entry<String, Long> e : byWindow.get(ALL_TIME).entrySet()) {
            if (!e.getKey().startsWith("__") && e.getValue() != null) {
                sum += e.getValue();
            }
        }
        return sum;
    }

    private static void addStreams(Map<String, long[]> acc, Map<String, Map<String, Long>> byWindow, int slot) {
        if (byWindow == null || !byWindow.containsKey(ALL_TIME)) {
            return;
        }
        for (Map.Entry<String, Long> e : byWindow.get(ALL_TIME).entrySet()) {
            if (!e.getKey().startsWith("__") && e.getValue() != null) {
                acc.computeIfAbsent(e.getKey(), k -> new long[2])[slot] += e.getValue();
            }
        }
    }

    private static void addInputs(Map<String, Map<String, Object>> acc, Map<String, Map<GlobalStreamId, Long>> byWindow) {
        if (byWindow == null || !byWindow.containsKey(ALL_TIME)) {
            return;
        }
        for (Map.Entry<GlobalStreamId, Long> e : byWindow.get(ALL_TIME).entrySet()) {
            GlobalStreamId g = e.getKey();
            if (g.get_componentId().startsWith("__") || g.get_streamId().startsWith("__") || e.getValue() == null) {
                continue;
            }
            Map<String, Object> m = acc.computeIfAbsent(g.get_componentId() + "\0" + g.get_streamId(), k -> {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("component", g.get_componentId());
                x.put("stream", g.get_streamId());
                x.put("executed", 0L);
                return x;
            });
            m.put("executed", (Long) m.get("executed") + e.getValue());
        }
    }

    private static Object kill(Nimbus.Iface n, String id, int wait) throws Exception {
        // Nimbus kills by name; the REST path carries the id, as Storm UI's does.
        String name = id;
        for (TopologySummary t : n.getClusterInfo().get_topologies()) {
            if (t.get_id().equals(id) || t.get_name().equals(id)) {
                name = t.get_name();
            }
        }
        KillOptions opts = new KillOptions();
        opts.set_wait_secs(wait);
        n.killTopologyWithOpts(name, opts);
        Map<String, Object> m = new TreeMap<>();
        m.put("topologyOperation", "kill");
        m.put("topologyId", id);
        m.put("status", "success");
        return m;
    }
}
