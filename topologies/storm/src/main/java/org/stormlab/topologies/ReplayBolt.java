package org.stormlab.topologies;

import java.util.List;
import java.util.Map;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.stormlab.instrument.Instrument;

/**
 * A replayed bolt. Per executed tuple it spends the captured CPU per tuple on its thread ({@link CpuBudget}),
 * emits on each captured output stream at the captured ratio of that stream's rate to the bolt's executed rate
 * ({@link EmitRatio}: a deterministic per-task accumulator, so a ratio of 0.5 emits on every second tuple),
 * anchored to the input and carrying its T_start, with a fresh synthetic key and a payload of the captured
 * size ({@link ReplayTuples}), then acks the input, as WordCount's bolts do, so complete latency is measured.
 */
final class ReplayBolt extends BaseRichBolt {
    private static final long serialVersionUID = 1L;

    private final List<ReplayGraph.Output> outputs;
    private final double[] ratios;
    private final double cpuUsPerTuple;
    private final CpuBudget.Mode cpuMode;
    private final long seed;
    private transient OutputCollector collector;
    private transient EmitRatio[] emit;
    private transient String[] payloads;
    private transient ReplayTuples tuples;
    private transient CpuBudget cpu;

    /** @param ratios tuples emitted on outputs[i] per executed tuple */
    ReplayBolt(List<ReplayGraph.Output> outputs, double[] ratios, double cpuUsPerTuple, CpuBudget.Mode cpuMode, long seed) {
        if (outputs.size() != ratios.length) {
            throw new IllegalArgumentException("one emit ratio per output stream: " + outputs.size() + " streams, " + ratios.length + " ratios");
        }
        this.outputs = List.copyOf(outputs);
        this.ratios = ratios.clone();
        this.cpuUsPerTuple = cpuUsPerTuple;
        this.cpuMode = cpuMode;
        this.seed = seed;
    }

    @Override
    public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
        this.collector = collector;
        long s = ReplayTuples.seed(seed, context.getThisComponentId(), context.getThisTaskIndex());
        tuples = new ReplayTuples(s);
        emit = new EmitRatio[ratios.length];
        payloads = new String[ratios.length];
        for (int i = 0; i < ratios.length; i++) {
            emit[i] = new EmitRatio(ratios[i]);
            payloads[i] = ReplayTuples.payload(conf, context, outputs.get(i).stream, outputs.get(i).bytes, s + i);
        }
        cpu = new CpuBudget(cpuUsPerTuple, cpuMode, CpuBudget.threadCpuClock());
    }

    @Override
    public void execute(Tuple t) {
        cpu.onTuple();
        Object start = t.getFields().contains(Instrument.FIELD_T_START) ? t.getValueByField(Instrument.FIELD_T_START)
            : Instrument.nowMicros();
        for (int i = 0; i < emit.length; i++) {
            for (int n = emit[i].next(); n > 0; n--) {
                collector.emit(outputs.get(i).stream, t, new Values(tuples.key(), payloads[i], start));
            }
        }
        collector.ack(t);
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer d) {
        for (ReplayGraph.Output o : outputs) {
            d.declareStream(o.stream, ReplayTuples.FIELDS);
        }
    }
}
