package org.stormlab.instrument;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.function.LongUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes one WorkerReport (infra/protocol/protocol.go) per worker every interval to the scheduler
 * service.
 *
 * <p>Why a daemon thread in the worker and not an IMetricsConsumer: a metrics consumer is a separate bolt
 * (one executor somewhere in the cluster) fed through Storm's metrics stream, so it adds executors and
 * traffic that the scheduler would see and place, its data arrive a tick late and batched per task, and
 * it would need the per-task counters to be re-exported as IMetric objects. The daemon thread reads the
 * worker's own counters directly, needs no extra component, works the same for every topology, and
 * keeps the topology graph exactly what the user built. Its data go straight to the service.
 *
 * <p>Failures to POST are counted and logged (the first few, then every 100th), never thrown; a report
 * that could not be sent is dropped (its deltas are lost, not merged into the next one, so the next
 * report's interval is still right).
 */
final class Reporter implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Reporter.class);
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    static final AtomicLong SENT = new AtomicLong();
    static final AtomicLong FAILURES = new AtomicLong();

    private final URI url;
    private final long intervalMs;
    private final String host;
    private final HttpClient http;
    private String authorization; // "Bearer <token>" from stormlab.scheduler.token (the workers' storm.yaml), or null
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final Map<Long, Long> lastThreadCpu = new HashMap<>();
    private final Map<Long, long[]> lastThreadSpin = new HashMap<>();
    private final ThreadGroups threadGroups = new ThreadGroups();
    private long lastProcessCpuNs = -1;
    private long lastWallNs;

    private Reporter(URI url, long intervalMs, String host) {
        this.url = url;
        this.intervalMs = intervalMs;
        this.host = host;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    }

    /**
     * The service's token (the bridge's key too): set in the supervisors' storm.yaml, it reaches the
     * workers' conf without being in the topology's own conf.
     */
    static final String CONF_TOKEN = "stormlab.scheduler.token";

    /** Starts the reporter once per JVM, configured from the first hook's topology conf. */
    static void ensureStarted(Map<String, Object> conf) {
        if (!STARTED.compareAndSet(false, true)) {
            return;
        }
        try {
            String u = Instrument.string(conf, Instrument.CONF_METRICS_URL, Instrument.DEFAULT_METRICS_URL);
            double secs = Instrument.number(conf, Instrument.CONF_REPORT_INTERVAL_SECS, Instrument.DEFAULT_REPORT_INTERVAL_SECS);
            Registry.latencyCap = (int) Instrument.number(conf, Instrument.CONF_LATENCY_SAMPLES, Instrument.DEFAULT_LATENCY_SAMPLES);
            if (secs <= 0) {
                secs = Instrument.DEFAULT_REPORT_INTERVAL_SECS;
            }
            Reporter r = new Reporter(URI.create(u), (long) (secs * 1000), hostName(conf));
            String token = Instrument.string(conf, CONF_TOKEN, "").strip();
            r.authorization = token.isEmpty() ? null : "Bearer " + token;
            if (r.threads.isThreadCpuTimeSupported() && !r.threads.isThreadCpuTimeEnabled()) {
                r.threads.setThreadCpuTimeEnabled(true);
            }
            Thread t = new Thread(r, "stormlab-reporter");
            t.setDaemon(true);
            t.start();
            LOG.info("stormlab reporter started: url={} interval={}s host={}", u, secs, r.host);
        } catch (Throwable e) {
            LOG.warn("stormlab reporter not started: {}", e.toString());
        }
    }

    static String hostName(Map<String, Object> conf) {
        String h = Instrument.string(conf, Instrument.CONF_HOST, "");
        if (h.isEmpty()) {
            h = Instrument.string(conf, "storm.local.hostname", "");
        }
        if (h.isEmpty()) {
            try {
                h = InetAddress.getLocalHost().getCanonicalHostName();
            } catch (Exception e) {
                h = "unknown";
            }
        }
        return h;
    }

    @Override
    public void run() {
        lastWallNs = System.nanoTime();
        lastProcessCpuNs = processCpuNs();
        while (true) {
            try {
                Thread.sleep(intervalMs);
            } catch (InterruptedException e) {
                return;
            }
            try {
                long now = System.nanoTime();
                double intervalS = (now - lastWallNs) / 1e9;
                long cpu = processCpuNs();
                double workerCpu = -1; // not measured unless the JVM gives process CPU time
                if (cpu >= 0 && lastProcessCpuNs >= 0 && intervalS > 0) {
                    workerCpu = 100.0 * (cpu - lastProcessCpuNs) / (now - lastWallNs);
                }
                lastWallNs = now;
                lastProcessCpuNs = cpu;
                Map<String, long[]> groups = otherThreads();
                for (WorkerStats w : Registry.workers()) {
                    String body = report(w, intervalS, workerCpu, groups);
                    post(body);
                    groups = null; // the JVM's other threads go with its first worker's report only
                }
            } catch (Throwable t) {
                fail("build report", t);
            }
        }
    }

    /**
     * Builds one report and resets the worker's counters (the report carries deltas); groups are the JVM's
     * other threads' CPU (ThreadGroups), or null.
     */
    String report(WorkerStats w, double intervalS, double workerCpuPercent, Map<String, long[]> groups) {
        return render(w, host, System.currentTimeMillis(), intervalS, workerCpuPercent, memoryMb(), threads::getThreadCpuTime,
            lastThreadCpu, CountedWait::counts, lastThreadSpin, groups);
    }

    /**
     * The JVM's other threads' CPU (ThreadGroups), or null (counted as a failure) when they cannot be read: the
     * reports then go without them rather than not at all.
     */
    private Map<String, long[]> otherThreads() {
        try {
            return threadGroups.sample(threads, executorThreads());
        } catch (Throwable t) {
            fail("read the thread groups", t);
            return null;
        }
    }

    /** The threads that run this JVM's instrumented tasks. */
    private static Set<Long> executorThreads() {
        Set<Long> ids = new HashSet<>();
        for (WorkerStats w : Registry.workers()) {
            for (TaskStats t : w.tasks.values()) {
                if (t.threadId >= 0) {
                    ids.add(t.threadId);
                }
            }
        }
        return ids;
    }

    /** now less tid's previous reading in last (0 at first sight, never negative); last takes now. */
    private static long delta(Map<Long, Long> last, long tid, long now) {
        Long before = last.put(tid, now);
        return before == null ? 0 : Math.max(0, now - before);
    }

    /**
     * The idle CPU of thread tid since lastSpin's reading, counted and its last parks, its spells and its parks (now
     * from CountedWait.counts, null where not counted), each never negative, the CPU together never more
     * than the thread's CPU over the interval (its clocks are read at different moments); lastSpin takes now.
     */
    private static long[] spinDelta(long[] now, Map<Long, long[]> lastSpin, long tid, long cpuDelta) {
        if (now == null) {
            return null;
        }
        long[] before = lastSpin.put(tid, now);
        if (before == null) {
            return new long[] {0, 0, 0, 0};
        }
        long counted = Math.min(cpuDelta, Math.max(0, now[0] - before[0]));
        long last = Math.min(cpuDelta - counted, Math.max(0, now[1] - before[1]));
        return new long[] {counted, last, Math.max(0, now[2] - before[2]), Math.max(0, now[3] - before[3])};
    }

    /** render without idle-CPU readings (no spin_ns): the form the tests of the other fields use. */
    static String render(WorkerStats w, String host, long timeMs, double intervalS, double workerCpuPercent,
                         double workerMemoryMb, LongUnaryOperator threadCpu, Map<Long, Long> lastCpu) {
        return render(w, host, timeMs, intervalS, workerCpuPercent, workerMemoryMb, threadCpu, lastCpu, id -> null,
            new HashMap<>(), null);
    }

    /**
     * Renders a WorkerReport as JSON and resets the counters it read. Tasks and sources are sorted by id so
     * the output is deterministic. A negative workerCpuPercent or workerMemoryMb means not measured: the
     * field is sent as 0 and named in not_measured. threadCpu gives a thread's CPU time in ns (-1 if unknown); lastCpu holds
     * each thread's previous reading and is updated. threadSpin gives the part of a thread's CPU time spent idle
     * in the wait strategy, counted and the estimate of its uncounted last parks ({@link CountedWait#counts}; null
     * where not counted, and spin_ns, spin_last_ns and spells are left out), lastSpin its previous readings. groups, where not null, are sent as thread_groups: each group's threads and their CPU
     * over the interval (ThreadGroups.sample).
     */
    static String render(WorkerStats w, String host, long timeMs, double intervalS, double workerCpuPercent,
                         double workerMemoryMb, LongUnaryOperator threadCpu, Map<Long, Long> lastCpu,
                         LongFunction<long[]> threadSpin, Map<Long, long[]> lastSpin, Map<String, long[]> groups) {
        List<TaskStats> tasks = new ArrayList<>(w.tasks.values());
        tasks.sort(Comparator.comparingInt(t -> t.task));
        Json j = new Json().beginObject()
            .field("topology", w.topology)
            .field("host", host)
            .field("port", w.port)
            .field("time_ms", timeMs)
            .field("interval_s", intervalS);

        j.beginArray("traffic");
        for (TaskStats t : tasks) {
            List<Integer> sources = new ArrayList<>(t.fromSource.keySet());
            sources.sort(null);
            for (Integer src : sources) {
                long c = t.fromSource.get(src).sumThenReset();
                if (c > 0) {
                    j.beginObject().field("src", src).field("dst", t.task).field("count", c).endObject();
                }
            }
        }
        j.endArray();

        j.beginArray("emits");
        for (TaskStats t : tasks) {
            List<String> streams = new ArrayList<>(t.emitted.keySet());
            streams.sort(null);
            for (String stream : streams) {
                long c = t.emitted.get(stream).sumThenReset();
                if (c > 0) {
                    j.beginObject().field("task", t.task).field("stream", stream).field("count", c).endObject();
                }
            }
        }
        j.endArray();

        j.beginArray("cpu");
        Map<Long, List<TaskStats>> byThread = new TreeMap<>();
        Map<Integer, Long> events = new HashMap<>();
        for (TaskStats t : tasks) {
            events.put(t.task, t.events.sumThenReset());
            if (t.threadId >= 0) {
                byThread.computeIfAbsent(t.threadId, k -> new ArrayList<>()).add(t);
            }
        }
        List<long[]> cpu = new ArrayList<>();
        for (Map.Entry<Long, List<TaskStats>> e : byThread.entrySet()) {
            long tid = e.getKey();
            long now = threadCpu.applyAsLong(tid); // -1 if the thread died or CPU time is unsupported
            if (now < 0) {
                continue;
            }
            // Baseline at first sight: CPU spent before the thread ran a task (prepare) is not counted.
            long delta = delta(lastCpu, tid, now);
            long[] spin = spinDelta(threadSpin.apply(tid), lastSpin, tid, delta);
            List<TaskStats> ts = e.getValue();
            long total = 0;
            for (TaskStats t : ts) {
                total += events.get(t.task);
            }
            for (TaskStats t : ts) {
                double share = total > 0 ? (double) events.get(t.task) / total : 1.0 / ts.size();
                cpu.add(new long[] {t.task, Math.round(delta * share), spin == null ? -1 : Math.round(spin[0] * share),
                    spin == null ? -1 : Math.round(spin[1] * share), spin == null ? -1 : Math.round(spin[2] * share),
                    spin == null ? -1 : Math.round(spin[3] * share)});
            }
        }
        cpu.sort(Comparator.comparingLong(x -> x[0]));
        for (long[] c : cpu) {
            j.beginObject().field("task", c[0]).field("cpu_ns", c[1]);
            if (c[2] >= 0) {
                j.field("spin_ns", c[2]).field("spin_last_ns", c[3]).field("spells", c[4]).field("parks", c[5]);
            }
            j.endObject();
        }
        j.endArray();

        j.beginArray("deadlines");
        for (TaskStats t : tasks) {
            long n = t.deadlineCount.sumThenReset();
            long missed = t.deadlineMissed.sumThenReset();
            double sumP = t.sumProcessingMs.sumThenReset();
            double sumQ = t.sumQos.sumThenReset();
            long startMin = t.startMinMs.getThenReset();
            long startMax = t.startMaxMs.getThenReset();
            if (n > 0) {
                j.beginObject().field("task", t.task).field("count", n).field("missed", missed)
                    .field("sum_processing_ms", sumP).field("sum_qos", sumQ)
                    .field("deadline_ms", t.deadlineMs).field("start_min_ms", startMin).field("start_max_ms", startMax)
                    .field("sink", t.sink).endObject();
            }
        }
        j.endArray();

        j.field("acked", w.acked.sumThenReset());
        j.field("failed", w.failed.sumThenReset());
        j.beginArray("complete_latency_ms");
        for (double v : w.drainLatency()) {
            j.value(v);
        }
        j.endArray();
        List<String> notMeasured = new ArrayList<>();
        if (workerCpuPercent < 0) {
            notMeasured.add("worker_cpu_percent");
        }
        if (workerMemoryMb < 0) {
            notMeasured.add("worker_memory_mb");
        }
        if (!byThread.isEmpty() && cpu.isEmpty()) {
            notMeasured.add("cpu"); // no thread CPU time for any executor thread
        }
        if (w.sizeFailed) {
            notMeasured.add("tuple_sizes");
        }
        j.field("worker_cpu_percent", Math.max(0, workerCpuPercent));
        if (groups != null) {
            j.beginArray("thread_groups");
            for (Map.Entry<String, long[]> g : groups.entrySet()) {
                j.beginObject().field("name", g.getKey()).field("threads", g.getValue()[0])
                    .field("cpu_ns", g.getValue()[1]).endObject();
            }
            j.endArray();
        }
        j.field("worker_memory_mb", Math.max(0, workerMemoryMb));

        j.field("worker_start_ms", w.startMs);
        j.field("acked_total", w.ackedTotal.sum());
        j.field("failed_total", w.failedTotal.sum());
        j.field("latency_hist", w.drainLatencyHist());
        j.field("processing_hist", w.drainProcessingHist());
        if (w.openLoop) {
            openLoop(j, w, tasks);
        }
        if (w.datasetDone) {
            j.beginArray("spout_done");
            for (TaskStats t : tasks) {
                if (t.datasetTuples >= 0) {
                    j.beginObject().field("task", t.task).field("tuples", t.datasetTuples).endObject();
                }
            }
            j.endArray();
        }
        j.beginArray("tuple_sizes");
        for (TaskStats t : tasks) {
            long inS = t.inSamples.sumThenReset();
            long inB = t.inBytes.sumThenReset();
            long outS = t.outSamples.sumThenReset();
            long outB = t.outBytes.sumThenReset();
            if (inS > 0 || outS > 0) {
                j.beginObject().field("task", t.task).field("in_samples", inS).field("in_bytes", inB)
                    .field("out_samples", outS).field("out_bytes", outB).endObject();
            }
        }
        j.endArray();
        j.field("size_sample_every", w.sizeSampleEvery);
        j.beginArray("not_measured");
        for (String f : notMeasured) {
            j.value(f);
        }
        j.endArray();
        return j.endObject().toString();
    }

    /**
     * The open-loop fields: latency from the intended send time and send lag (interval histograms) and
     * each open-loop spout task's offered and emitted totals (since the task started, never reset).
     */
    private static void openLoop(Json j, WorkerStats w, List<TaskStats> tasks) {
        j.field("latency_intended_hist", w.drainIntendedHist());
        j.field("send_lag_hist", w.drainSendLagHist());
        j.beginArray("spout_load");
        for (TaskStats t : tasks) {
            if (t.openLoop) {
                j.beginObject().field("task", t.task).field("offered_total", t.offeredTotal)
                    .field("emitted_total", t.emittedTotal.sum()).endObject();
            }
        }
        j.endArray();
    }

    private void post(String body) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(url)
                .timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
            if (authorization != null) {
                b.header("Authorization", authorization);
            }
            HttpRequest req = b.build();
            HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
            if (resp.statusCode() / 100 != 2) {
                fail("POST " + url, new RuntimeException("HTTP " + resp.statusCode() + ": " + abbreviate(resp.body())));
                return;
            }
            if (SENT.incrementAndGet() == 1) {
                LOG.info("stormlab: first report sent to {}", url);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            fail("POST " + url, t);
        }
    }

    private static void fail(String what, Throwable t) {
        long n = FAILURES.incrementAndGet();
        if (n <= 5 || n % 100 == 0) {
            LOG.warn("stormlab: {} failed ({} failures so far): {}", what, n, t.toString());
        }
    }

    private static String abbreviate(String s) {
        return s == null ? "" : (s.length() > 200 ? s.substring(0, 200) + "..." : s);
    }

    /** Used heap plus non-heap memory of this JVM in MiB (2^20 bytes); -1 if unknown. */
    private static double memoryMb() {
        try {
            java.lang.management.MemoryMXBean m = ManagementFactory.getMemoryMXBean();
            return (m.getHeapMemoryUsage().getUsed() + m.getNonHeapMemoryUsage().getUsed()) / (1024.0 * 1024.0);
        } catch (Throwable t) {
            return -1;
        }
    }

    private static long processCpuNs() {
        try {
            java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.OperatingSystemMXBean) {
                return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
            }
        } catch (Throwable t) {
            // fall through
        }
        return -1;
    }
}
