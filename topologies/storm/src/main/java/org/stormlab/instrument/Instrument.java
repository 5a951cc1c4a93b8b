package org.stormlab.instrument;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.task.TopologyContext;

/**
 * Public face of the instrumentation: configuration keys, the tuple field that carries T_start,
 * {@link #configure} to switch it on for any topology, and {@link #nowMicros}, the clock of T_start.
 *
 * <p>Deadlines (the deadline-aware scheduler paper, "Dynamic Task Scheduling Scheme for Processing
 * Real-Time Stream Data in Storm Environments", Table 2 and eq. 1): a spout puts the tuple's T_start, its
 * emit time in epoch microseconds, into the field {@link #FIELD_T_START}; bolts copy it into the tuples
 * they emit. The topology sets a deadline T_dline per component (task class) with
 * {@code stormlab.deadline.ms.<component>}. The hook of every bolt task then records, for each executed
 * tuple carrying the field, its processing time (the time the task finished executing it minus T_start),
 * the QoS rate (processing time / T_dline) and misses (processing time &gt; T_dline).
 */
public final class Instrument {
    /** Where workers POST their WorkerReport JSON. */
    public static final String CONF_METRICS_URL = "stormlab.metrics.url";
    public static final String DEFAULT_METRICS_URL = "http://scheduler-service:7070/v1/metrics";
    /** Seconds between reports (a double; default 5). */
    public static final String CONF_REPORT_INTERVAL_SECS = "stormlab.report.interval.secs";
    public static final double DEFAULT_REPORT_INTERVAL_SECS = 5;
    /** Maximum complete-latency samples per report (reservoir sample; default 2000). */
    public static final String CONF_LATENCY_SAMPLES = "stormlab.latency.samples";
    public static final int DEFAULT_LATENCY_SAMPLES = 2000;
    /** Host name put in reports; default storm.local.hostname, then the machine's host name. */
    public static final String CONF_HOST = "stormlab.host";
    /** Prefix of the per-component deadline keys: {@code stormlab.deadline.ms.<component>} = ms (T_dline). */
    public static final String CONF_DEADLINE_PREFIX = "stormlab.deadline.ms.";
    /**
     * Tuple sizes are sampled on 1 in N tuples per task, executed and emitted separately (default 64; the
     * first tuple of each task is always sampled).
     */
    public static final String CONF_SIZE_SAMPLE_EVERY = "stormlab.tuple.size.sample.every";
    public static final int DEFAULT_SIZE_SAMPLE_EVERY = 64;
    /** The tuple field holding T_start: the spout's emit time, epoch microseconds (a long). */
    public static final String FIELD_T_START = "t_start_us";

    /** Histogram layout, the same as infra/protocol/hist.go: lowest 1, 3 significant digits. */
    static final int HIST_DIGITS = 3;
    /** Highest complete latency, ms (one hour); larger values are clamped. */
    static final long LATENCY_HIST_HIGHEST = 3_600_000L;
    /** Highest processing time, µs (one hour). */
    static final long PROCESSING_HIST_HIGHEST = 3_600_000_000L;

    public static final String HOOK_CLASS = TrafficHook.class.getName();
    /** The bolt wait strategy an instrumented topology runs with unless it sets its own. */
    public static final String WAIT_CLASS = CountedWait.class.getName();

    private Instrument() {
    }

    /**
     * Registers the hook on a topology conf (keeping hooks already there), sets the stats sample rate
     * to 1.0 so every acked tuple carries its complete latency, and, unless the topology chose one, runs
     * its bolts (the ackers too) with {@link CountedWait}: Storm's default wait strategy, counting the CPU
     * its threads spend idle.
     */
    @SuppressWarnings("unchecked")
    public static void configure(Config conf, String metricsUrl, double intervalSecs) {
        List<String> hooks = new ArrayList<>();
        Object existing = conf.get(Config.TOPOLOGY_AUTO_TASK_HOOKS);
        if (existing instanceof List) {
            hooks.addAll((List<String>) existing);
        }
        if (!hooks.contains(HOOK_CLASS)) {
            hooks.add(HOOK_CLASS);
        }
        conf.put(Config.TOPOLOGY_AUTO_TASK_HOOKS, hooks);
        conf.put(Config.TOPOLOGY_STATS_SAMPLE_RATE, 1.0);
        conf.put(CONF_INSTRUMENTATION, "on");
        // Storm's default bolt wait strategy, counting its idle CPU (spin_ns); a topology's own is kept
        conf.putIfAbsent(Config.TOPOLOGY_BOLT_WAIT_STRATEGY, WAIT_CLASS);
        if (metricsUrl != null && !metricsUrl.isEmpty()) {
            conf.put(CONF_METRICS_URL, metricsUrl);
        }
        if (intervalSecs > 0) {
            conf.put(CONF_REPORT_INTERVAL_SECS, intervalSecs);
        }
    }

    /**
     * Conf key recording whether the hook is on ("on" or "off"), for the record in the topology conf; the
     * hook itself is switched by {@link #configure} or {@link #configureOff}.
     */
    public static final String CONF_INSTRUMENTATION = "stormlab.instrumentation";

    /**
     * The uninstrumented twin of {@link #configure}: no hook (so no reporter thread, no histograms, no
     * size samples) but the same stats sample rate 1.0, so Storm's own counters - the yardstick both arms
     * of the observer-effect experiment are measured with - cost the same in both. Spouts still put T_start
     * into their tuples: that field is part of the topologies' data, not of the hook.
     */
    @SuppressWarnings("unchecked")
    public static void configureOff(Config conf) {
        Object existing = conf.get(Config.TOPOLOGY_AUTO_TASK_HOOKS);
        if (existing instanceof List) {
            List<String> hooks = new ArrayList<>((List<String>) existing);
            hooks.remove(HOOK_CLASS);
            conf.put(Config.TOPOLOGY_AUTO_TASK_HOOKS, hooks);
        }
        conf.put(Config.TOPOLOGY_STATS_SAMPLE_RATE, 1.0);
        conf.put(CONF_INSTRUMENTATION, "off");
    }

    /** Sets the deadline T_dline (ms) of one component's tasks. */
    public static void setDeadline(Config conf, String component, long deadlineMs) {
        conf.put(CONF_DEADLINE_PREFIX + component, deadlineMs);
    }

    /**
     * The clock of T_start: epoch time in microseconds (the system clock, so spouts and bolts on other
     * workers of the same machine or of clock-synchronised machines agree).
     */
    public static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /** Reports sent and failed so far in this JVM (for tests and logs). */
    public static long reportsSent() {
        return Reporter.SENT.get();
    }

    public static long reportFailures() {
        return Reporter.FAILURES.get();
    }

    static String string(Map<String, Object> conf, String key, String def) {
        Object v = conf == null ? null : conf.get(key);
        return v == null ? def : v.toString();
    }

    static double number(Map<String, Object> conf, String key, double def) {
        Object v = conf == null ? null : conf.get(key);
        if (v instanceof Number) {
            return ((Number) v).doubleValue();
        }
        if (v != null) {
            try {
                return Double.parseDouble(v.toString());
            } catch (NumberFormatException e) {
                return def;
            }
        }
        return def;
    }
}
