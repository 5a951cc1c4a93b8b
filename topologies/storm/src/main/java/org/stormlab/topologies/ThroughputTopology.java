package org.stormlab.topologies;

import java.util.Map;
import java.util.Random;
import org.apache.storm.Config;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.stormlab.instrument.Instrument;

/**
 * The Throughput Test topology of the K-PART paper (Jian, Lu, Zhang, sec. 2.1): a chain of four
 * components, spout -> bolt1 -> bolt2 -> bolt3, shuffle grouping, acking on; the spout emits one tuple
 * every 5 ms by default, parallelism 1 and 4 workers (so 1 + 3 + 4 ackers = 8 executors, as in the paper).
 * Each tuple carries a sequence number, a payload of random printable bytes and its T_start
 * ({@link Instrument#FIELD_T_START}), so every bolt's processing time is measured against its deadline.
 */
public final class ThroughputTopology {
    public static final String SPOUT = "spout";
    public static final String[] BOLTS = {"bolt1", "bolt2", "bolt3"};

    private ThroughputTopology() {
    }

    public static Args flags() {
        return TopologySetup.commonFlags("ThroughputTopology", "throughput", 4, 1)
            .flag("interval-ms", 5.0, "ms between tuples of one spout task; 0 = unpaced")
            .flag("payload-bytes", 100, "payload size of each tuple")
            .flag("work-us", 0, "CPU spin per tuple in every bolt, microseconds");
    }

    public static StormTopology build(Args a, Config conf) {
        double interval = a.number("interval-ms");
        int payload = a.integer("payload-bytes");
        long work = a.longValue("work-us");
        if (interval < 0 || payload < 0 || work < 0) {
            throw new IllegalArgumentException("--interval-ms, --payload-bytes and --work-us must be >= 0");
        }
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout(SPOUT, new ChainSpout(interval, payload, a.longValue("seed")).openLoop(TopologySetup.openLoop(a)), TopologySetup.parallelism(a, SPOUT));
        String prev = SPOUT;
        for (int i = 0; i < BOLTS.length; i++) {
            b.setBolt(BOLTS[i], new ChainBolt(work, i == BOLTS.length - 1), TopologySetup.parallelism(a, BOLTS[i]))
                .shuffleGrouping(prev);
            prev = BOLTS[i];
        }
        return b.createTopology();
    }

    public static void main(String[] argv) {
        System.exit(TopologySetup.run("ThroughputTopology", flags(), argv, ThroughputTopology::build));
    }

    static final class ChainSpout extends PacedSpout {
        private final int payloadBytes;
        private final long seed;
        private String payload;

        ChainSpout(double intervalMs, int payloadBytes, long seed) {
            super(intervalMs, 0);
            this.payloadBytes = payloadBytes;
            this.seed = seed;
        }

        @Override
        protected void prepare(Map<String, Object> conf, TopologyContext context) {
            Random r = new Random(seed * 1_000_003L + context.getThisTaskIndex());
            StringBuilder sb = new StringBuilder(payloadBytes);
            for (int i = 0; i < payloadBytes; i++) {
                sb.append((char) ('a' + r.nextInt(26)));
            }
            payload = sb.toString();
        }

        @Override
        protected Values next(long seq) {
            return new Values(seq, payload);
        }

        @Override
        protected long bytes(Values v) {
            return payloadBytes + 16;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            d.declare(new Fields("seq", "payload", Instrument.FIELD_T_START));
        }
    }

    static final class ChainBolt extends BaseRichBolt {
        private final long workUs;
        private final boolean last;
        private OutputCollector collector;

        ChainBolt(long workUs, boolean last) {
            this.workUs = workUs;
            this.last = last;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple t) {
            Work.spin(workUs);
            if (!last) {
                collector.emit(t, new Values(t.getValue(0), t.getValue(1), t.getValue(2)));
            }
            collector.ack(t);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            if (!last) {
                d.declare(new Fields("seq", "payload", Instrument.FIELD_T_START));
            }
        }
    }
}
