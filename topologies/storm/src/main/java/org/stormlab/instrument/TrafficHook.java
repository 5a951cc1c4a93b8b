package org.stormlab.instrument;

import java.util.Map;
import org.apache.storm.generated.Grouping;
import org.apache.storm.hooks.BaseTaskHook;
import org.apache.storm.hooks.info.BoltAckInfo;
import org.apache.storm.hooks.info.BoltExecuteInfo;
import org.apache.storm.hooks.info.BoltFailInfo;
import org.apache.storm.hooks.info.EmitInfo;
import org.apache.storm.hooks.info.SpoutAckInfo;
import org.apache.storm.hooks.info.SpoutFailInfo;
import org.apache.storm.serialization.KryoTupleSerializer;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.TupleImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topology-agnostic task hook: register it for any topology with
 * {@code topology.auto.task.hooks: ["org.stormlab.instrument.TrafficHook"]} (see {@link Instrument#configure}).
 *
 * <p>Storm makes one instance per task. It measures, per task:
 * <ul>
 *   <li>tuples executed per source task ({@code boltExecute}: tuple.getSourceTask() to executingTaskId) -
 *       the task-to-task traffic matrix, the edge weights of the K-PART paper (Jian, Lu, Zhang) and
 *       Network_use of Table 2 of the deadline-aware scheduler paper; tuples from system components (ticks,
 *       metrics) are not traffic between executors and are skipped;</li>
 *   <li>which thread runs the task: the reporter reads that thread's CPU time from ThreadMXBean each
 *       interval (CPU_use of Table 2, the vertex weights of K-PART), which costs nothing per tuple. When
 *       one executor thread runs several tasks, its CPU time is split among them in proportion to their
 *       hook events in the interval;</li>
 *   <li>for every executed tuple carrying {@link Instrument#FIELD_T_START}: processing time, QoS rate and
 *       misses against the component's deadline, and the oldest/newest T_start (Table 2's Time_start and
 *       Time_dline, eq. 1) - in every bolt task, not only sinks. Sink tasks (no downstream subscriber but
 *       system components) also record each tuple's processing time in the worker's histogram;</li>
 *   <li>tuples emitted per stream of the topology's own (not Storm's "__" system streams), exactly
 *       ({@code emit}: Storm calls it for every emit, direct emits included), so a capture of the running
 *       topology knows each stream's rate;</li>
 *   <li>tuple size (ST_size of eqs. 5-6): 1 in {@code stormlab.tuple.size.sample.every} (default 64)
 *       executed and emitted tuples of the topology's own streams (not Storm's "__" system streams) is
 *       serialized with Storm's own KryoTupleSerializer built from the topology conf (so registered Kryo
 *       serializers apply) and its byte length recorded. An emitted tuple
 *       is serialized unanchored: each anchor adds 8-16 bytes on the wire that are not counted;</li>
 *   <li>acked and failed spout tuples and their complete latency ({@code spoutAck}; the latency is only
 *       present for sampled tuples, so set topology.stats.sample.rate to 1.0).</li>
 * </ul>
 * The first hook prepared in a worker JVM starts the {@link Reporter}. No method ever throws: a failure
 * in measurement must not kill the worker; a failed size sample marks sizes as not measured.
 */
public class TrafficHook extends BaseTaskHook {
    private static final Logger LOG = LoggerFactory.getLogger(TrafficHook.class);

    private volatile WorkerStats worker;
    private volatile TaskStats self;
    private TopologyContext context;
    private KryoTupleSerializer serializer;
    private int sampleEvery = Instrument.DEFAULT_SIZE_SAMPLE_EVERY;

    public TrafficHook() {
    }

    @Override
    public void prepare(Map<String, Object> conf, TopologyContext context) {
        try {
            this.context = context;
            Integer port = context.getThisWorkerPort();
            WorkerStats w = Registry.worker(context.getStormId(), port == null ? 0 : port);
            TaskStats t = w.task(context.getThisTaskId());
            String component = context.getThisComponentId();
            t.deadlineMs = (long) Instrument.number(conf, Instrument.CONF_DEADLINE_PREFIX + component, 0);
            t.sink = isSink(context);
            sampleEvery = Math.max(1, (int) Instrument.number(conf, Instrument.CONF_SIZE_SAMPLE_EVERY,
                Instrument.DEFAULT_SIZE_SAMPLE_EVERY));
            w.sizeSampleEvery = sampleEvery;
            try {
                serializer = new KryoTupleSerializer(conf, context);
            } catch (Throwable e) {
                w.sizeFailed = true;
                LOG.warn("stormlab: no tuple serializer for task {}, sizes not measured: {}", context.getThisTaskId(), e.toString());
            }
            self = t;
            worker = w;
            Reporter.ensureStarted(conf);
        } catch (Throwable t) {
            LOG.warn("stormlab instrumentation disabled for task {}: {}", safeTask(context), t.toString());
        }
    }

    /**
     * A task is a sink when it is a bolt and no component other than Storm's system components (ackers,
     * event loggers, metrics consumers: ids starting with "__") subscribes to any of its streams.
     */
    static boolean isSink(TopologyContext context) {
        if (!context.getRawTopology().get_bolts().containsKey(context.getThisComponentId())) {
            return false;
        }
        for (Map<String, Grouping> targets : context.getThisTargets().values()) {
            for (String component : targets.keySet()) {
                if (!component.startsWith("__")) {
                    return false;
                }
            }
        }
        return true;
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
        if (s == null) {
            return;
        }
        s.touch();
        try {
            if (info.stream.startsWith("__")) {
                return;
            }
            s.emitted(info.stream);
            if (s.outSeen++ % sampleEvery != 0) {
                return;
            }
            Tuple t = new TupleImpl(context, info.values, context.getThisComponentId(), info.taskId, info.stream);
            int n = size(t);
            if (n >= 0) {
                s.outSamples.increment();
                s.outBytes.add(n);
            }
        } catch (Throwable t) {
            sizeFailed(t);
        }
    }

    @Override
    public void boltExecute(BoltExecuteInfo info) {
        TaskStats s = self;
        WorkerStats w = worker;
        if (s == null || w == null) {
            return;
        }
        Tuple tuple = info.tuple;
        try {
            s.touch();
            int src = tuple.getSourceTask();
            if (src < 0 || tuple.getSourceComponent().startsWith("__")) {
                return; // system tuples: ticks, metrics
            }
            s.executed(src);
            Fields f = tuple.getFields();
            if (f.contains(Instrument.FIELD_T_START)) {
                long us = s.deadline(tuple.getLongByField(Instrument.FIELD_T_START), Instrument.nowMicros());
                if (s.sink) {
                    w.processing(us);
                }
            }
        } catch (Throwable t) {
            return; // never propagate into the executor loop
        }
        try {
            // Acking bookkeeping (__ack_ack, ...) is not a topology stream: Storm's serializer has no id
            // for it, and it is not the data whose size eqs. 5-6 weigh.
            if (!tuple.getSourceStreamId().startsWith("__") && s.inSeen++ % sampleEvery == 0) {
                int n = size(tuple);
                if (n >= 0) {
                    s.inSamples.increment();
                    s.inBytes.add(n);
                }
            }
        } catch (Throwable t) {
            sizeFailed(t);
        }
    }

    /** Serialized size of t in bytes, -1 without a serializer. */
    private int size(Tuple t) {
        KryoTupleSerializer ser = serializer;
        if (ser == null) {
            return -1;
        }
        synchronized (ser) { // a bolt may emit from a thread of its own
            return ser.serialize(t).length;
        }
    }

    private void sizeFailed(Throwable t) {
        WorkerStats w = worker;
        if (w != null && !w.sizeFailed) {
            w.sizeFailed = true;
            LOG.warn("stormlab: tuple size sample failed, sizes not measured", t);
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
            w.acked();
            Long ms = info.completeLatencyMs;
            if (ms != null && ms >= 0) {
                w.latency(ms);
                if (info.messageId instanceof IntendedId) {
                    // From the intended send time: Storm's latency from the emit plus the send lag.
                    w.latencyIntended(ms + Math.round(Math.max(0, ((IntendedId) info.messageId).lagUs) / 1000.0));
                }
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
        w.failed();
    }
}
