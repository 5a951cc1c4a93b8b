package org.stormlab.instrument;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.storm.task.TopologyContext;

/** The JVM-wide table of {@link WorkerStats}, keyed by topology id and worker port. */
final class Registry {
    private static final Map<String, WorkerStats> WORKERS = new ConcurrentHashMap<>();
    static volatile int latencyCap = 2000;

    private Registry() {
    }

    /**
     * The stats of the worker running a task of context, or null when the topology runs without the
     * stormlab hook (--instrumentation off): then a spout records nothing.
     */
    static WorkerStats workerOf(Map<String, Object> conf, TopologyContext context) {
        if (!"on".equals(Instrument.string(conf, Instrument.CONF_INSTRUMENTATION, "on"))) {
            return null;
        }
        Integer port = context.getThisWorkerPort();
        return worker(context.getStormId(), port == null ? 0 : port);
    }

    static WorkerStats worker(String topology, int port) {
        String key = topology + ":" + port;
        WorkerStats w = WORKERS.get(key);
        if (w == null) {
            w = WORKERS.computeIfAbsent(key, k -> new WorkerStats(topology, port, latencyCap));
        }
        return w;
    }

    static Collection<WorkerStats> workers() {
        return WORKERS.values();
    }
}
