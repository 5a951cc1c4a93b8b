package org.stormlab.topologies;

import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichSpout;

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
 * <p>Wall time, not thread CPU time, bounds a spin: under contention a CPU-time target would make the
 * burner hold on to the CPU longer, which is a harsher load than the paper's settings describe.
 */
public final class BurnerTopology {
    public static final String SPOUT = "burn";

    private BurnerTopology() {
    }

    public static Args flags() {
        return TopologySetup.commonFlags("BurnerTopology", "stormlab-burner", 1, 1)
            .flag("busy-fraction", 0.5, "share of every period each task spins, in (0, 1]")
            .flag("period-ms", 100, "duty-cycle period, ms");
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
        conf.setNumAckers(0); // it emits nothing; an acker would only take CPU and memory
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout(SPOUT, new BurnSpout(busy, period), TopologySetup.parallelism(a, SPOUT));
        return b.createTopology();
    }

    public static void main(String[] argv) {
        System.exit(TopologySetup.run("BurnerTopology", flags(), argv, BurnerTopology::build));
    }

    /** Spins busyFraction of every period inside nextTuple, sleeps the rest. */
    static final class BurnSpout extends BaseRichSpout {
        private final double busyFraction;
        private final int periodMs;
        private long periodStart;

        BurnSpout(double busyFraction, int periodMs) {
            this.busyFraction = busyFraction;
            this.periodMs = periodMs;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            periodStart = System.nanoTime();
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
            long busyUs = Math.round(busyFraction * periodMs * 1000) - (now - periodStart) / 1000;
            Work.spin(busyUs);
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

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
        }
    }
}
