package org.stormlab.instrument;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.hooks.info.BoltAckInfo;
import org.apache.storm.hooks.info.BoltExecuteInfo;
import org.apache.storm.hooks.info.EmitInfo;
import org.apache.storm.hooks.info.SpoutAckInfo;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.TupleImpl;
import org.apache.storm.tuple.Values;
import org.apache.storm.utils.Utils;

/**
 * The instrumentation's cost per hook event, taken apart: what the observer experiment measures from outside
 * (throughput with the hook on vs off), measured from inside as CPU time of the calling thread. It is a
 * benchmark, not a test (nothing here asserts a speed): {@code make bench-hook} runs it.
 *
 * <p>Each event goes the way Storm 2.8 sends it when a task has a hook: a new info object, then
 * {@code applyOn(context)} calls every registered hook (Storm skips both when a task has no hook, so the
 * uninstrumented arm pays nothing). The contexts are real {@link TopologyContext}s of a three-component chain
 * with an acker, and the hook is prepared through its real {@code prepare}, with its reporter pointed at a
 * closed local port and an interval of an hour, so no report is sent while it runs.
 *
 * <p>Thread CPU time, not wall time, so a busy machine slows the run but does not inflate the figures.
 * Each event kind runs {@code rounds} rounds of {@code n} events after one warm-up round; the median round is
 * reported. The chain's per-tuple figure adds the events one tuple of the Throughput chain causes (counted
 * from Storm's executors: Task.getOutgoingTasks, BoltExecutor, BoltOutputCollectorImpl.ack,
 * SpoutExecutor.ackSpoutMsg, and the acker bolt's own executes, acks and emits).
 */
public final class HookCost {
    static final Fields CHAIN = new Fields("seq", "payload", Instrument.FIELD_T_START);
    static final Fields ACK = new Fields("id", "ack-val");
    static final String ACKER = "__acker";

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) {
            System.err.println("hook-cost: this JVM cannot read thread CPU time; nothing measured");
            System.exit(2);
        }
        threads.setThreadCpuTimeEnabled(true);

        Map<String, Object> conf = new HashMap<>(Utils.readDefaultConfig());
        conf.put(Instrument.CONF_METRICS_URL, "http://127.0.0.1:9/v1/metrics");
        conf.put(Instrument.CONF_REPORT_INTERVAL_SECS, 3600.0);
        conf.put(Instrument.CONF_DEADLINE_PREFIX + "mid", 1000L);
        conf.put(Instrument.CONF_DEADLINE_PREFIX + "sink", 1000L);

        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("spout", new Src());
        b.setBolt("mid", new Bolt(true)).shuffleGrouping("spout");
        b.setBolt("sink", new Bolt(false)).shuffleGrouping("mid");
        b.setBolt(ACKER, new Bolt(true)).shuffleGrouping("spout", "__ack_init").shuffleGrouping("mid", "__ack_ack");
        StormTopology topo = b.createTopology();

        // task ids: 1 spout, 2 mid, 3 sink, 4 acker
        Map<Integer, String> taskToComponent = new HashMap<>(Map.of(1, "spout", 2, "mid", 3, "sink", 4, ACKER));
        Map<String, List<Integer>> componentTasks = new HashMap<>(Map.of("spout", List.of(1), "mid", List.of(2),
            "sink", List.of(3), ACKER, List.of(4)));
        Map<String, Map<String, Fields>> fields = new HashMap<>();
        fields.put("spout", new HashMap<>(Map.of("default", CHAIN, "__ack_init", ACK)));
        fields.put("mid", new HashMap<>(Map.of("default", CHAIN, "__ack_ack", ACK)));
        fields.put("sink", new HashMap<>(Map.of("__ack_ack", ACK)));
        fields.put(ACKER, new HashMap<>(Map.of("__ack_ack", ACK)));

        TopologyContext spout = context(topo, conf, taskToComponent, componentTasks, fields, 1);
        TopologyContext mid = context(topo, conf, taskToComponent, componentTasks, fields, 2);
        TopologyContext sink = context(topo, conf, taskToComponent, componentTasks, fields, 3);
        TopologyContext acker = context(topo, conf, taskToComponent, componentTasks, fields, 4);
        for (TopologyContext c : List.of(spout, mid, sink, acker)) {
            TrafficHook h = new TrafficHook();
            h.prepare(conf, c);
            c.addTaskHook(h);
        }

        // Pools of real tuples, made before timing (making them is Storm's cost in both arms).
        String payload = "x".repeat(100);
        int pool = 1024;
        Tuple[] fromSpout = new Tuple[pool];
        Tuple[] fromMid = new Tuple[pool];
        Tuple[] acks = new Tuple[pool];
        List<List<Object>> values = new ArrayList<>();
        for (int i = 0; i < pool; i++) {
            Values v = new Values((long) i, payload, Instrument.nowMicros());
            values.add(v);
            fromSpout[i] = new TupleImpl(mid, v, "spout", 1, "default");
            fromMid[i] = new TupleImpl(sink, v, "mid", 2, "default");
            acks[i] = new TupleImpl(acker, new Values((long) i, (long) i * 31), "mid", 2, "__ack_ack");
        }
        List<Integer> toSink = List.of(3);
        List<Integer> toSpout = List.of(1);
        Long latency = 5L;

        // Each kind of event with the number of times one tuple of the Throughput chain (spout -> bolt1 ->
        // bolt2 -> bolt3, acking on) causes it, from Storm's executors: 3 chain emits (spout, bolt1, bolt2);
        // 2 inner executes and 1 sink execute; the acker executes 1 __ack_init and 3 __ack_ack; 7 bolt acks
        // (bolts 1-3 and the acker's 4); 5 system emits (the spout's __ack_init, the three bolt acks'
        // __ack_ack, the acker's emitDirect back to the spout: all through Task.getOutgoingTasks); 1 spout ack.
        List<Kind> kinds = List.of(
            new Kind("emit (chain stream, 1 in 64 sized)", 3,
                i -> new EmitInfo(values.get(i & (pool - 1)), "default", 2, toSink).applyOn(mid)),
            new Kind("execute, inner bolt (T_start, QoS)", 2,
                i -> new BoltExecuteInfo(fromSpout[i & (pool - 1)], 2, -1L).applyOn(mid)),
            new Kind("execute, sink bolt (+ histogram)", 1,
                i -> new BoltExecuteInfo(fromMid[i & (pool - 1)], 3, -1L).applyOn(sink)),
            new Kind("execute, acker (traffic only)", 4,
                i -> new BoltExecuteInfo(acks[i & (pool - 1)], 4, -1L).applyOn(acker)),
            new Kind("bolt ack", 7,
                i -> new BoltAckInfo(fromSpout[i & (pool - 1)], 2, -1L).applyOn(mid)),
            new Kind("emit, system stream (__ack_*)", 5,
                i -> new EmitInfo(values.get(i & (pool - 1)), "__ack_ack", 4, toSpout).applyOn(acker)),
            new Kind("spout ack (+ latency histogram)", 1,
                i -> new SpoutAckInfo((long) i, 1, latency).applyOn(spout)));

        System.out.printf(Locale.ROOT, "hook cost per event (thread CPU time; median of %d rounds of %,d events; JVM %s %s)%n",
            rounds, n, System.getProperty("java.vm.name"), System.getProperty("java.version"));
        double tuple = 0;
        for (Kind k : kinds) {
            double ns = measure(threads, k.event(), n, rounds);
            tuple += k.perTuple() * ns;
            System.out.printf(Locale.ROOT, "  %-38s %8.1f ns  x %d per chain tuple%n", k.name(), ns, k.perTuple());
        }
        System.out.printf(Locale.ROOT, "  %-38s %8.2f us%n", "per tuple of the Throughput chain", tuple / 1000);

        // The reporter's own work once per interval: render one report of this worker's 4 tasks.
        WorkerStats w = Registry.worker(spout.getStormId(), spout.getThisWorkerPort());
        Map<Long, Long> last = new HashMap<>();
        double renderNs = measure(threads, i -> Reporter.render(w, "node", i, 5, 0, 0, id -> id, last), 2000, rounds);
        System.out.printf(Locale.ROOT, "  %-38s %8.1f us  once per report interval (5 s)%n", "reporter: render one report", renderNs / 1000);
    }

    interface Event {
        void fire(int i);
    }

    /** One kind of hook event and how often one tuple of the chain causes it. */
    record Kind(String name, int perTuple, Event event) {
    }

    /** Median over rounds of the thread CPU time per event, ns, after one round of warm-up. */
    static double measure(ThreadMXBean threads, Event e, int n, int rounds) {
        double[] per = new double[rounds];
        for (int r = -1; r < rounds; r++) {
            long t0 = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                e.fire(i);
            }
            long t1 = threads.getCurrentThreadCpuTime();
            if (r >= 0) {
                per[r] = (double) (t1 - t0) / n;
            }
        }
        Arrays.sort(per);
        return per[rounds / 2];
    }

    static TopologyContext context(StormTopology topo, Map<String, Object> conf, Map<Integer, String> taskToComponent,
                                   Map<String, List<Integer>> componentTasks, Map<String, Map<String, Fields>> fields, int task) {
        return new TopologyContext(topo, conf, taskToComponent, componentTasks, fields, new HashMap<>(), "hookcost-1-1",
            null, null, task, 6700, new ArrayList<>(List.of(1, 2, 3, 4)), new HashMap<>(), new HashMap<>(), new HashMap<>(),
            new HashMap<>(), new AtomicBoolean(false), null);
    }

    /** Declares the chain's fields and the acking streams; never run. */
    static final class Src extends BaseRichSpout {
        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        }

        @Override
        public void nextTuple() {
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            d.declare(CHAIN);
            d.declareStream("__ack_init", ACK);
        }
    }

    static final class Bolt extends BaseRichBolt {
        private final boolean emits;

        Bolt(boolean emits) {
            this.emits = emits;
        }

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
        }

        @Override
        public void execute(Tuple input) {
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            if (emits) {
                d.declare(CHAIN);
            }
            d.declareStream("__ack_ack", ACK);
        }
    }
}
