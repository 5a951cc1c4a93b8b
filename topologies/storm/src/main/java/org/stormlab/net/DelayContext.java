package org.stormlab.net;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.storm.grouping.Load;
import org.apache.storm.messaging.IConnection;
import org.apache.storm.messaging.TaskMessage;
import org.apache.storm.messaging.netty.BackPressureStatus;
import org.apache.storm.messaging.netty.Context;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storm's Netty messaging with an added delay on messages sent to workers on other hosts: the network
 * delay between nodes that the stormlab cluster emulates. tc netem would do this in the kernel, but the
 * kernels stormlab runs on are built without sch_netem, so the delay lives in the transport instead.
 *
 * <p>Enable with storm.messaging.transport: org.stormlab.net.DelayContext and stormlab.net.delay.ms: N.
 * Messages to the same host (storm.local.hostname, else the container's hostname) are not delayed.
 * Delayed batches are sent in order from one thread per connection; load metrics and back-pressure
 * signals are not delayed.
 *
 * <p>Run-time changes (the harness's delay fault): with stormlab.net.delay.file: PATH (set per topology),
 * every connection to another host is wrapped, and its delay is read from PATH, a file inside the
 * worker's own container with lines "HOST MS" (the delay of messages to HOST), re-read at most every
 * 100 ms on the send path; a host not in the file (or no file) gets stormlab.net.delay.ms. The harness
 * writes the file into the two containers of a pair with docker exec (write, then rename, so a reader
 * never sees half a file) and removes it to restore. A file, not a signal or an RPC: it needs nothing
 * but the container the worker already runs in, so only this harness's own containers are touched, and
 * a worker (re)started during the fault reads the same file. Batches stay in order when the delay drops:
 * a batch is never due before the one sent before it.
 */
public class DelayContext extends Context {
    public static final String DELAY_MS = "stormlab.net.delay.ms";
    public static final String DELAY_FILE = "stormlab.net.delay.file";

    private static final Logger LOG = LoggerFactory.getLogger(DelayContext.class);

    private long delayMs;
    private String localHost;
    private DelayTable table; // null: the fixed delay only

    @Override
    public void prepare(Map<String, Object> conf) {
        super.prepare(conf);
        configure(conf);
    }

    @Override
    public void prepare(Map<String, Object> conf, StormMetricRegistry registry) {
        super.prepare(conf, registry);
        configure(conf);
    }

    private void configure(Map<String, Object> conf) {
        Object d = conf.get(DELAY_MS);
        delayMs = d instanceof Number ? ((Number) d).longValue() : d == null ? 0 : Long.parseLong(d.toString());
        Object f = conf.get(DELAY_FILE);
        if (f != null && !f.toString().isEmpty()) {
            table = new DelayTable(Paths.get(f.toString()));
        }
        Object h = conf.get("storm.local.hostname");
        if (h != null && !h.toString().isEmpty()) {
            localHost = h.toString();
        } else {
            try {
                localHost = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                localHost = "";
            }
        }
    }

    @Override
    public IConnection connect(String stormId, String host, int port, AtomicBoolean[] remoteBpStatus) {
        IConnection c = super.connect(stormId, host, port, remoteBpStatus);
        if (host.equals(localHost)) {
            return c;
        }
        if (table != null) {
            final DelayTable t = table;
            final long base = delayMs;
            return new Delayed(c, () -> t.delayTo(host, base), host + ":" + port);
        }
        if (delayMs <= 0) {
            return c;
        }
        final long fixed = delayMs;
        return new Delayed(c, () -> fixed, host + ":" + port);
    }

    /** The delays of the delay file, by destination host; re-read at most every REFRESH_NS. */
    static final class DelayTable {
        private static final long REFRESH_NS = TimeUnit.MILLISECONDS.toNanos(100);

        private final Path file;
        private volatile Map<String, Long> byHost = Map.of();
        private volatile long nextReadNs = System.nanoTime();

        DelayTable(Path file) {
            this.file = file;
        }

        long delayTo(String host, long base) {
            long now = System.nanoTime();
            if (now - nextReadNs >= 0) {
                synchronized (this) {
                    if (now - nextReadNs >= 0) {
                        nextReadNs = now + REFRESH_NS;
                        Map<String, Long> m = read();
                        if (!m.equals(byHost)) {
                            LOG.info("stormlab delay: delays by destination host now {} (others {} ms)", m, base);
                        }
                        byHost = m;
                    }
                }
            }
            Long d = byHost.get(host);
            return d == null ? base : d;
        }

        private Map<String, Long> read() {
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                return Map.of();
            } catch (IOException e) {
                LOG.warn("stormlab delay: cannot read {}: {}; keeping the previous delays", file, e.toString());
                return byHost;
            }
            Map<String, Long> m = new HashMap<>();
            for (String line : lines) {
                String[] f = line.trim().split("\\s+");
                if (f.length != 2) {
                    continue;
                }
                try {
                    m.put(f[0], Math.max(0, Long.parseLong(f[1])));
                } catch (NumberFormatException e) {
                    LOG.warn("stormlab delay: ignoring line {} of {}", line, file);
                }
            }
            return m;
        }
    }

    static final class Delayed implements IConnection {
        private final IConnection inner;
        private final LongSupplier delayMs;
        private final ScheduledExecutorService timer;
        private long lastDueNs = Long.MIN_VALUE; // guarded by this
        private long maxDelayMs;                 // guarded by this
        private int pending;                     // batches scheduled and not yet sent; guarded by this

        Delayed(IConnection inner, LongSupplier delayMs, String name) {
            this.inner = inner;
            this.delayMs = delayMs;
            this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "stormlab-delay-" + name);
                t.setDaemon(true);
                return t;
            });
        }

        @Override
        public synchronized void send(Iterator<TaskMessage> msgs) {
            long d = delayMs.getAsLong();
            if (d <= 0 && pending == 0) {
                inner.send(msgs);
                return;
            }
            // The caller may reuse the batch after send returns: copy it first.
            List<TaskMessage> batch = new ArrayList<>();
            while (msgs.hasNext()) {
                batch.add(msgs.next());
            }
            if (batch.isEmpty()) {
                return;
            }
            maxDelayMs = Math.max(maxDelayMs, d);
            long now = System.nanoTime();
            long due = now + TimeUnit.MILLISECONDS.toNanos(d);
            if (lastDueNs != Long.MIN_VALUE && due - lastDueNs < 0) {
                due = lastDueNs; // never before the previous batch (same due time: sent in order)
            }
            lastDueNs = due;
            pending++;
            timer.schedule(() -> {
                try {
                    inner.send(batch.iterator());
                } finally {
                    synchronized (this) {
                        pending--;
                    }
                }
            }, due - now, TimeUnit.NANOSECONDS);
        }

        @Override
        public void sendLoadMetrics(Map<Integer, Double> taskToLoad) {
            inner.sendLoadMetrics(taskToLoad);
        }

        @Override
        public void sendBackPressureStatus(BackPressureStatus bpStatus) {
            inner.sendBackPressureStatus(bpStatus);
        }

        @Override
        public Map<Integer, Load> getLoad(Collection<Integer> tasks) {
            return inner.getLoad(tasks);
        }

        @Override
        public int getPort() {
            return inner.getPort();
        }

        @Override
        public void close() {
            timer.shutdown();
            try {
                long wait;
                synchronized (this) {
                    wait = maxDelayMs + 1000;
                }
                timer.awaitTermination(wait, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            inner.close();
        }
    }
}
