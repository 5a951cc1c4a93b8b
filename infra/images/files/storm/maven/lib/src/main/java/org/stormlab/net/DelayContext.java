package org.stormlab.net;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.storm.grouping.Load;
import org.apache.storm.messaging.IConnection;
import org.apache.storm.messaging.TaskMessage;
import org.apache.storm.messaging.netty.BackPressureStatus;
import org.apache.storm.messaging.netty.Context;
import org.apache.storm.metrics2.StormMetricRegistry;

/**
 * Storm's Netty messaging with an added delay on messages sent to workers on other hosts: the network
 * delay between nodes that the stormlab cluster emulates. tc netem would do this in the kernel, but the
 * kernels stormlab runs on are built without sch_netem, so the delay lives in the transport instead.
 *
 * <p>Enable with storm.messaging.transport: org.stormlab.net.DelayContext and stormlab.net.delay.ms: N.
 * Messages to the same host (storm.local.hostname, else the container's hostname) are not delayed.
 * Delayed batches are sent in order from one thread per connection; load metrics and back-pressure
 * signals are not delayed.
 */
public class DelayContext extends Context {
    public static final String DELAY_MS = "stormlab.net.delay.ms";

    private long delayMs;
    private String localHost;

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
        if (delayMs <= 0 || host.equals(localHost)) {
            return c;
        }
        return new Delayed(c, delayMs, host + ":" + port);
    }

    static final class Delayed implements IConnection {
        private final IConnection inner;
        private final long delayMs;
        private final ScheduledExecutorService timer;

        Delayed(IConnection inner, long delayMs, String name) {
            this.inner = inner;
            this.delayMs = delayMs;
            this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "stormlab-delay-" + name);
                t.setDaemon(true);
                return t;
            });
        }

        @Override
        public void send(Iterator<TaskMessage> msgs) {
            // The caller may reuse the batch after send returns: copy it first.
            List<TaskMessage> batch = new ArrayList<>();
            while (msgs.hasNext()) {
                batch.add(msgs.next());
            }
            if (batch.isEmpty()) {
                return;
            }
            timer.schedule(() -> inner.send(batch.iterator()), delayMs, TimeUnit.MILLISECONDS);
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
                timer.awaitTermination(delayMs + 1000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            inner.close();
        }
    }
}
