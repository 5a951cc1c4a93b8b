package org.stormlab.instrument;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.task.TopologyContext;

/**
 * Public face of the instrumentation: configuration keys, {@link #configure} to switch it on for any
 * topology, and {@link #deadline} for sinks that see tuples carrying an emit time and a deadline.
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

    public static final String HOOK_CLASS = TrafficHook.class.getName();

    private Instrument() {
    }

    /**
     * Registers the hook on a topology conf (keeping hooks already there) and sets the stats sample rate
     * to 1.0 so every acked tuple carries its complete latency.
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
        if (metricsUrl != null && !metricsUrl.isEmpty()) {
            conf.put(CONF_METRICS_URL, metricsUrl);
        }
        if (intervalSecs > 0) {
            conf.put(CONF_REPORT_INTERVAL_SECS, intervalSecs);
        }
    }

    /**
     * Records one tuple that reached a sink: processing time = now - emitMs, QoS rate = processing /
     * deadline, a miss when processing > deadline. Returns the processing time in ms. Never throws.
     */
    public static double deadline(TopologyContext context, long emitMs, long deadlineMs) {
        double processing = Math.max(0, System.currentTimeMillis() - emitMs);
        try {
            Integer port = context.getThisWorkerPort();
            TaskStats t = Registry.worker(context.getStormId(), port == null ? 0 : port).task(context.getThisTaskId());
            t.deadlineCount.increment();
            t.sumProcessingMs.add(processing);
            if (deadlineMs > 0) {
                t.sumQos.add(processing / deadlineMs);
                if (processing > deadlineMs) {
                    t.deadlineMissed.increment();
                }
            }
        } catch (Throwable e) {
            // measurement must never fail the tuple
        }
        return processing;
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
