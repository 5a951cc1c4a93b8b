package org.stormlab.topologies;

import java.util.HashMap;
import java.util.Map;
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
 * The 4-component WordCount of the K-PART paper (000 sec. 4.1: 8 workers, parallelism 4) and the
 * "simple query" of the deadline paper (002 sec. 4): sentence (spout) -shuffle-> split -fields(word)->
 * count -shuffle-> report. Sentences come from the seeded {@link TextGenerator}; --size-mb bounds the
 * text (the papers use 1 GB and 2 GB files), 0 streams forever. Every tuple carries its T_start
 * ({@link Instrument#FIELD_T_START}); deadlines are set per component (--deadline-ms, --deadlines) and
 * every bolt's processing time, QoS rate and misses are recorded by the instrumentation hook.
 */
public final class WordCountTopology {
    public static final String SPOUT = "sentence";
    public static final String SPLIT = "split";
    public static final String COUNT = "count";
    public static final String REPORT = "report";

    private WordCountTopology() {
    }

    public static Args flags() {
        return TopologySetup.commonFlags("WordCountTopology", "wordcount", 8, 4)
            .flag("size-mb", 0.0, "total text over all spout tasks in MB (10^6 bytes); 0 = endless")
            .flag("interval-ms", 0.0, "ms between sentences of one spout task; 0 = as fast as max spout pending allows")
            .flag("work-us", 0, "extra CPU spin per tuple in split and count, microseconds");
    }

    public static StormTopology build(Args a, Config conf) {
        double size = a.number("size-mb");
        double interval = a.number("interval-ms");
        long work = a.longValue("work-us");
        if (size < 0 || interval < 0 || work < 0) {
            throw new IllegalArgumentException("--size-mb, --interval-ms and --work-us must be >= 0");
        }
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout(SPOUT, new SentenceSpout(interval, (long) (size * 1e6), a.longValue("seed")).openLoop(TopologySetup.openLoop(a)),
            TopologySetup.parallelism(a, SPOUT));
        b.setBolt(SPLIT, new SplitBolt(work), TopologySetup.parallelism(a, SPLIT)).shuffleGrouping(SPOUT);
        b.setBolt(COUNT, new CountBolt(work), TopologySetup.parallelism(a, COUNT)).fieldsGrouping(SPLIT, new Fields("word"));
        b.setBolt(REPORT, new Sink(), TopologySetup.parallelism(a, REPORT)).shuffleGrouping(COUNT);
        return b.createTopology();
    }

    public static void main(String[] argv) {
        System.exit(TopologySetup.run("WordCountTopology", flags(), argv, WordCountTopology::build));
    }

    static final class SentenceSpout extends PacedSpout {
        private final long seed;
        private TextGenerator text;

        SentenceSpout(double intervalMs, long budgetBytes, long seed) {
            super(intervalMs, budgetBytes);
            this.seed = seed;
        }

        @Override
        protected void prepare(Map<String, Object> conf, TopologyContext context) {
            text = new TextGenerator(seed * 1_000_003L + context.getThisTaskIndex());
        }

        @Override
        protected Values next(long seq) {
            return new Values(text.sentence());
        }

        @Override
        protected long bytes(Values v) {
            return ((String) v.get(0)).length() + 1;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            d.declare(new Fields("sentence", Instrument.FIELD_T_START));
        }
    }

    static final class SplitBolt extends BaseRichBolt {
        private final long workUs;
        private OutputCollector collector;

        SplitBolt(long workUs) {
            this.workUs = workUs;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple t) {
            Work.spin(workUs);
            Object start = t.getValue(1);
            for (String w : t.getString(0).split(" ")) {
                if (!w.isEmpty()) {
                    collector.emit(t, new Values(w.toLowerCase(), start));
                }
            }
            collector.ack(t);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            d.declare(new Fields("word", Instrument.FIELD_T_START));
        }
    }

    static final class CountBolt extends BaseRichBolt {
        private final long workUs;
        private final Map<String, Long> counts = new HashMap<>();
        private OutputCollector collector;

        CountBolt(long workUs) {
            this.workUs = workUs;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple t) {
            Work.spin(workUs);
            String w = t.getString(0);
            long c = counts.merge(w, 1L, Long::sum);
            collector.emit(t, new Values(w, c, t.getValue(1)));
            collector.ack(t);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            d.declare(new Fields("word", "count", Instrument.FIELD_T_START));
        }
    }

    /**
     * The sink of WordCount and k-means: acks. Processing time, QoS rate and misses of its tuples (which
     * carry T_start) are recorded by the instrumentation hook, as in every other bolt.
     */
    static final class Sink extends BaseRichBolt {
        private OutputCollector collector;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
        }

        @Override
        public void execute(Tuple t) {
            collector.ack(t);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
        }
    }
}
