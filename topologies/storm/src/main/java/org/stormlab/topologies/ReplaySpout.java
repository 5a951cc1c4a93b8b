package org.stormlab.topologies;

import java.util.List;
import java.util.Map;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.tuple.Values;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replayed spout: the open-loop machinery of {@link PacedSpout} at the captured rate (a schedule fixed at
 * start, constant or seeded Poisson, divided over the component's tasks), each tuple on one of the captured
 * output streams in proportion to their captured rates ({@link StreamMix}), of the captured size
 * ({@link ReplayTuples}), and the captured CPU per emitted tuple spent on the spout's thread ({@link CpuBudget}).
 * A spout whose captured rate is 0 stays idle. Tuples carry a message id, so they are acked and their complete
 * latency is measured.
 */
final class ReplaySpout extends PacedSpout {
    private static final Logger LOG = LoggerFactory.getLogger(ReplaySpout.class);
    private static final long serialVersionUID = 1L;

    private final List<ReplayGraph.Output> outputs;
    private final double cpuUsPerTuple;
    private final CpuBudget.Mode cpuMode;
    private final long seed;
    private final boolean idle;
    private transient ReplayTuples tuples;
    private transient String[] payloads;
    private transient StreamMix mix;
    private transient CpuBudget cpu;
    private transient int current;

    /**
     * @param outputs the streams and their rates (weights of the mix) and sizes; at least one
     * @param openLoop the schedule, or null for a spout that emits nothing (captured rate 0)
     */
    ReplaySpout(List<ReplayGraph.Output> outputs, double cpuUsPerTuple, CpuBudget.Mode cpuMode, long seed, OpenLoop openLoop) {
        super(0, 0);
        if (outputs.isEmpty()) {
            throw new IllegalArgumentException("a replayed spout needs at least one output stream");
        }
        this.outputs = List.copyOf(outputs);
        this.cpuUsPerTuple = cpuUsPerTuple;
        this.cpuMode = cpuMode;
        this.seed = seed;
        this.idle = openLoop == null;
        openLoop(openLoop);
    }

    @Override
    protected void prepare(Map<String, Object> conf, TopologyContext context) {
        long s = ReplayTuples.seed(seed, context.getThisComponentId(), context.getThisTaskIndex());
        tuples = new ReplayTuples(s);
        payloads = new String[outputs.size()];
        double[] weights = new double[outputs.size()];
        for (int i = 0; i < outputs.size(); i++) {
            payloads[i] = ReplayTuples.payload(conf, context, outputs.get(i).stream, outputs.get(i).bytes, s + i);
            weights[i] = outputs.get(i).perS;
        }
        mix = allZero(weights) ? new StreamMix(new double[] {1}) : new StreamMix(weights);
        cpu = new CpuBudget(cpuUsPerTuple, cpuMode, CpuBudget.threadCpuClock());
        if (idle) {
            LOG.info("stormlab replay spout {} task {}: captured rate 0, emits nothing", context.getThisComponentId(),
                context.getThisTaskId());
        }
    }

    private static boolean allZero(double[] w) {
        for (double x : w) {
            if (x > 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void nextTuple() {
        if (!idle) {
            super.nextTuple();
        }
    }

    @Override
    protected Values next(long seq) {
        current = mix.next();
        cpu.onTuple();
        return new Values(tuples.key(), payloads[current]);
    }

    @Override
    protected String stream() {
        return outputs.get(current).stream;
    }

    @Override
    protected long bytes(Values v) {
        return ((String) v.get(1)).length();
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer d) {
        for (ReplayGraph.Output o : outputs) {
            d.declareStream(o.stream, ReplayTuples.FIELDS);
        }
    }
}
