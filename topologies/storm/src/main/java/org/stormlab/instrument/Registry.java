package org.stormlab.instrument;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The JVM-wide table of {@link WorkerStats}, keyed by topology id and worker port. */
final class Registry {
    private static final Map<String, WorkerStats> WORKERS = new ConcurrentHashMap<>();
    static volatile int latencyCap = 2000;

    private Registry() {
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
