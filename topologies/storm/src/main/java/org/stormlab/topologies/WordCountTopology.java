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
 * text (the papers use 1 GB and 2 GB files), 0 streams forever. Every tuple carries its emit time and
 * its deadline; the report sink records processing time, QoS rate and misses through
 * {@link Instrument#deadline}.
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
            .flag("deadline-ms", 1000, "deadline of every tuple, ms after its emit time")
            .flag("work-us", 0, "extra CPU spin per tuple in split and count, microseconds");
    }

    public static StormTopology build(Args a, Config conf) {
        double size = a.number("size-mb");
        double interval = a.number("interval-ms");
        long deadline = a.longValue("deadline-ms");
        long work = a.longValue("work-us");
        if (size < 0 || interval < 0 || deadline <= 0 || work < 0) {
            throw new IllegalArgumentException("--size-mb, --interval-ms and --work-us must be >= 0 and --deadline-ms > 0");
        }
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout(SPOUT, new SentenceSpout(interval, (long) (size * 1e6), a.longValue("seed"), deadline),
            TopologySetup.parallelism(a, SPOUT));
        b.setBolt(SPLIT, new SplitBolt(work), TopologySetup.parallelism(a, SPLIT)).shuffleGrouping(SPOUT);
        b.setBolt(COUNT, new CountBolt(work), TopologySetup.parallelism(a, COUNT)).fieldsGrouping(SPLIT, new Fields("word"));
        b.setBolt(REPORT, new DeadlineSink(), TopologySetup.parallelism(a, REPORT)).shuffleGrouping(COUNT);
        return b.createTopology();
    }

    public static void main(String[] argv) {
        System.exit(TopologySetup.run("WordCountTopology", flags(), argv, WordCountTopology::build));
    }

    static final class SentenceSpout extends PacedSpout {
        private final long seed;
        private final long deadlineMs;
        private TextGenerator text;

        SentenceSpout(double intervalMs, long budgetBytes, long seed, long deadlineMs) {
            super(intervalMs, budgetBytes);
            this.seed = seed;
            this.deadlineMs = deadlineMs;
        }

        @Override
        protected void prepare(Map<String, Object> conf, TopologyContext context) {
            text = new TextGenerator(seed * 1_000_003L + context.getThisTaskIndex());
        }

        @Override
        protected long emitOne(long id) {
            String s = text.sentence();
            collector.emit(new Values(s, System.currentTimeMillis(), deadlineMs), id);
            return s.length() + 1;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            d.declare(new Fields("sentence", "emit_ms", "deadline_ms"));
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
            Object emit = t.getValue(1);
            Object deadline = t.getValue(2);
            for (String w : t.getString(0).split(" ")) {
                if (!w.isEmpty()) {
                    collector.emit(t, new Values(w.toLowerCase(), emit, deadline));
                }
            }
            collector.ack(t);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            d.declare(new Fields("word", "emit_ms", "deadline_ms"));
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
            collector.emit(t, new Values(w, c, t.getValue(1), t.getValue(2)));
            collector.ack(t);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            d.declare(new Fields("word", "count", "emit_ms", "deadline_ms"));
        }
    }

    /**
     * The sink of WordCount and k-means: the last two fields of every input tuple are emit_ms and
     * deadline_ms; it records processing time and QoS rate per task and acks.
     */
    static final class DeadlineSink extends BaseRichBolt {
        private OutputCollector collector;
        private TopologyContext context;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.context = context;
        }

        @Override
        public void execute(Tuple t) {
            int n = t.size();
            Instrument.deadline(context, t.getLong(n - 2), t.getLong(n - 1));
            collector.ack(t);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
        }
    }
}
