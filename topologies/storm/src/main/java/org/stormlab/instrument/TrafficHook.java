package org.stormlab.instrument;

import java.util.Map;
import org.apache.storm.hooks.BaseTaskHook;
import org.apache.storm.hooks.info.BoltAckInfo;
import org.apache.storm.hooks.info.BoltExecuteInfo;
import org.apache.storm.hooks.info.BoltFailInfo;
import org.apache.storm.hooks.info.EmitInfo;
import org.apache.storm.hooks.info.SpoutAckInfo;
import org.apache.storm.hooks.info.SpoutFailInfo;
import org.apache.storm.task.TopologyContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topology-agnostic task hook: register it for any topology with
 * {@code topology.auto.task.hooks: ["org.stormlab.instrument.TrafficHook"]} (see {@link Instrument#configure}).
 *
 * <p>Storm makes one instance per task. It counts
 * <ul>
 *   <li>tuples executed by this task per source task ({@code boltExecute}: tuple.getSourceTask() to
 *       executingTaskId) - the task-to-task traffic matrix; tuples from the system task (id -1: ticks,
 *       metrics ticks) are not traffic between executors and are skipped;</li>
 *   <li>acked and failed spout tuples and their complete latency ({@code spoutAck}; the latency is only
 *       present for sampled tuples, so set topology.stats.sample.rate to 1.0);</li>
 *   <li>which thread runs the task: the reporter reads that thread's CPU time from ThreadMXBean each
 *       interval, which costs nothing per tuple (reading it in every hook call would cost a system call per
 *       tuple). When one executor thread runs several tasks, its CPU time is split among them in proportion
 *       to their hook events in the interval.</li>
 * </ul>
 * The first hook prepared in a worker JVM starts the {@link Reporter}. No method ever throws: a failure
 * in measurement must not kill the worker.
 */
public class TrafficHook extends BaseTaskHook {
    private static final Logger LOG = LoggerFactory.getLogger(TrafficHook.class);

    private volatile WorkerStats worker;
    private volatile TaskStats self;

    public TrafficHook() {
    }

    @Override
    public void prepare(Map<String, Object> conf, TopologyContext context) {
        try {
            Integer port = context.getThisWorkerPort();
            WorkerStats w = Registry.worker(context.getStormId(), port == null ? 0 : port);
            self = w.task(context.getThisTaskId());
            worker = w;
            Reporter.ensureStarted(conf);
        } catch (Throwable t) {
            LOG.warn("stormlab instrumentation disabled for task {}: {}", safeTask(context), t.toString());
        }
    }

    private static Object safeTask(TopologyContext context) {
        try {
            return context.getThisTaskId();
        } catch (Throwable t) {
            return "?";
        }
    }

    @Override
    public void emit(EmitInfo info) {
        TaskStats s = self;
        if (s != null) {
            s.touch();
        }
    }

    @Override
    public void boltExecute(BoltExecuteInfo info) {
        TaskStats s = self;
        if (s == null) {
            return;
        }
        try {
            s.touch();
            int src = info.tuple.getSourceTask();
            if (src >= 0) {
                s.executed(src);
            }
        } catch (Throwable t) {
            // never propagate into the executor loop
        }
    }

    @Override
    public void boltAck(BoltAckInfo info) {
        TaskStats s = self;
        if (s != null) {
            s.touch();
        }
    }

    @Override
    public void boltFail(BoltFailInfo info) {
        TaskStats s = self;
        if (s != null) {
            s.touch();
        }
    }

    @Override
    public void spoutAck(SpoutAckInfo info) {
        WorkerStats w = worker;
        TaskStats s = self;
        if (w == null || s == null) {
            return;
        }
        try {
            s.touch();
            w.acked.increment();
            Long ms = info.completeLatencyMs;
            if (ms != null && ms >= 0) {
                w.latency(ms);
            }
        } catch (Throwable t) {
            // never propagate
        }
    }

    @Override
    public void spoutFail(SpoutFailInfo info) {
        WorkerStats w = worker;
        TaskStats s = self;
        if (w == null || s == null) {
            return;
        }
        s.touch();
        w.failed.increment();
    }
}
