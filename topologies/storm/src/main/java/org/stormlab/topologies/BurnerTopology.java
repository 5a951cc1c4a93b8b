package org.stormlab.topologies;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.storm.Config;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichSpout;
import org.stormlab.instrument.Instrument;

/**
 * Background CPU load as a Storm topology, for the runs "under CPU usage 20/50/80%" of Choi, Jeon, Lim, Bok
 * and Yoo, "Dynamic Task Scheduling Scheme for Processing Real-Time Stream Data in Storm Environments" (2021).
 * Being a topology, it runs on any Storm cluster, with no access to the hosts: the harness submits one per
 * supervisor with {@code stormlab.nodes} naming that host, so the bridge places its executors there.
 *
 * <p>One spout component, "burn", of --parallelism tasks and no ackers, emitting nothing. Each task is busy
 * (a spin on wall time) for --busy-fraction of every --period-ms and sleeps the rest, inside nextTuple. So a
 * topology of k tasks offers k x busy-fraction cores of busy looping: an offered load, as the shell loops
 * that it replaces were. When the node's CPU is short, the kernel shares it between the spinning threads and
 * the measured run's tasks, which is what the paper's "CPU usage" setting does to them. What the burner
 * really used is in its worker's own reports (process CPU), which the scheduler service adds to the node's
 * CPU use.
 *
 * <p>By default wall time bounds a spin. With --busy-clock cpu, thread CPU time does: a task spins until it has
 * used its busy share of the period's CPU (or the period ends). A container's CPU quota stops all of its
 * threads once spent, so a wall-time spin loses the throttled part of its period and a saturated node gave the
 * burner a tenth of its level; the CPU clock makes the load its level of CPU, the definition the harness
 * records it by (the harness also raises the burner's threads' CFS weight, where the node allows).
 *
 * <p>With --busy-from-service the burner starts idle and each task asks the scheduler service every
 * {@link BurnSpout#POLL_MS} ms how busy to be (GET /v1/burn?topology=NAME, beside the reports' URL, with
 * their token): a straggler fault then switches a running burner on and off within that time, instead of
 * waiting for a worker JVM to start (tens of seconds on a busy small node).
 */
public final class BurnerTopology {
    public static final String SPOUT = "burn";

    private BurnerTopology() {
    }

    public static Args flags() {
        return TopologySetup.commonFlags("BurnerTopology", "stormlab-burner", 1, 1)
            .flag("busy-fraction", 0.5, "share of every period each task spins, in (0, 1]")
            .flag("period-ms", 100, "duty-cycle period, ms")
            .flag("busy-clock", "wall", "what bounds a task's spin: wall (time) or cpu (the thread's CPU time)")
            .flag("busy-from-service", false, "start idle and poll the scheduler service for the busy fraction "
                + "(GET /v1/burn?topology=NAME)");
    }

    public static StormTopology build(Args a, Config conf) {
        double busy = a.number("busy-fraction");
        int period = a.integer("period-ms");
        if (!(busy > 0 && busy <= 1)) {
            throw new IllegalArgumentException("--busy-fraction is " + busy + ": it must be in (0, 1]");
        }
        if (period < 10 || period > 10_000) {
            throw new IllegalArgumentException("--period-ms is " + period + ": use 10 to 10000");
        }
        String clock = a.string("busy-clock");
        if (!clock.equals("wall") && !clock.equals("cpu")) {
            throw new IllegalArgumentException("--busy-clock is " + clock + ": use wall or cpu");
        }
        conf.setNumAckers(0); // it emits nothing; an acker would only take CPU and memory
        TopologyBuilder b = new TopologyBuilder();
        BurnSpout spout = new BurnSpout(busy, period, a.bool("busy-from-service"), clock.equals("cpu"));
        b.setSpout(SPOUT, spout, TopologySetup.parallelism(a, SPOUT));
        return b.createTopology();
    }

    public static void main(String[] argv) {
        System.exit(TopologySetup.run("BurnerTopology", flags(), argv, BurnerTopology::build));
    }

    /** Spins busyFraction of every period inside nextTuple, sleeps the rest. */
    static final class BurnSpout extends BaseRichSpout {
        /** How often a --busy-from-service task asks the service for its busy fraction. */
        static final long POLL_MS = 500;
        /** The busy field of the service's answer; a regular expression because the answer is one flat
         *  object and the topology jar carries no JSON reader. */
        private static final Pattern BUSY = Pattern.compile("\"busy\"\\s*:\\s*([0-9.eE+-]+)");

        private final double initialBusy;
        private final int periodMs;
        private final boolean fromService;
        private final boolean cpuClock;
        private volatile double busyFraction;
        private long periodStart;
        private transient ThreadMXBean threads;

        BurnSpout(double busyFraction, int periodMs, boolean fromService, boolean cpuClock) {
            this.initialBusy = busyFraction;
            this.periodMs = periodMs;
            this.fromService = fromService;
            this.cpuClock = cpuClock;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            if (cpuClock) {
                threads = ManagementFactory.getThreadMXBean();
            }
            periodStart = System.nanoTime();
            busyFraction = fromService ? 0 : initialBusy;
            if (fromService) {
                startPoller(conf);
            }
        }

        /** Starts the daemon thread that keeps busyFraction at what the service says. */
        private void startPoller(Map<String, Object> conf) {
            String metrics = String.valueOf(conf.getOrDefault(Instrument.CONF_METRICS_URL, Instrument.DEFAULT_METRICS_URL));
            String name = String.valueOf(conf.get(Config.TOPOLOGY_NAME));
            URI uri = URI.create(metrics).resolve("/v1/burn?topology=" + URLEncoder.encode(name, StandardCharsets.UTF_8));
            Object token = conf.get("stormlab.scheduler.token");
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            Thread t = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    busyFraction = poll(http, uri, token == null ? "" : token.toString().strip(), busyFraction);
                    try {
                        Thread.sleep(POLL_MS);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "stormlab-burn-poll");
            t.setDaemon(true);
            t.start();
        }

        /** The busy fraction the service gives at uri, or last when it cannot be read (kept, not reset). */
        static double poll(HttpClient http, URI uri, String token, double last) {
            try {
                HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET();
                if (!token.isEmpty()) {
                    b.header("Authorization", "Bearer " + token);
                }
                HttpResponse<String> resp = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
                return resp.statusCode() == 200 ? parseBusy(resp.body(), last) : last;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return last;
            } catch (Exception e) {
                return last;
            }
        }

        /** The busy field of an answer, clamped to [0, 1]; last when absent or malformed. */
        static double parseBusy(String body, double last) {
            Matcher m = BUSY.matcher(body);
            if (!m.find()) {
                return last;
            }
            try {
                return Math.max(0, Math.min(1, Double.parseDouble(m.group(1))));
            } catch (NumberFormatException e) {
                return last;
            }
        }

        @Override
        public void nextTuple() {
            long period = periodMs * 1_000_000L;
            long now = System.nanoTime();
            if (now - periodStart >= period) {
                // A late call (a GC, a descheduled thread) starts a new period; the lost busy time is not
                // made up, so the load never exceeds its share.
                periodStart += ((now - periodStart) / period) * period;
            }
            if (cpuClock) {
                spinCpu(Math.round(busyFraction * period), periodStart + period);
            } else {
                Work.spin(Math.round(busyFraction * periodMs * 1000) - (now - periodStart) / 1000);
            }
            long sleepNs = periodStart + period - System.nanoTime();
            if (sleepNs > 0) {
                try {
                    Thread.sleep(sleepNs / 1_000_000, (int) (sleepNs % 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // the worker is shutting down
                }
            }
            periodStart += period;
        }

        /** Spins until this thread has used cpuNs of CPU time since the call, or until the wall clock reaches
         *  endNanos (a period's CPU not given in it is not made up). */
        private void spinCpu(long cpuNs, long endNanos) {
            long until = threads.getCurrentThreadCpuTime() + cpuNs;
            while (cpuNs > 0 && System.nanoTime() < endNanos && threads.getCurrentThreadCpuTime() < until) {
                Work.spin(200);
            }
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
        }
    }
}
