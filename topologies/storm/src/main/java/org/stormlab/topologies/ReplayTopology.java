package org.stormlab.topologies;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.storm.Config;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.topology.BoltDeclarer;
import org.apache.storm.topology.TopologyBuilder;

/**
 * Replays a captured topology (a file written by {@code stormlab capture}) live: a generic topology with the
 * captured components, parallelism, groupings, rates, CPU per tuple and tuple sizes, in the spirit of Storm's
 * own storm-loadgen GenLoad (examples/storm-loadgen), but open loop and measured by stormlab's
 * instrumentation like every other topology here.
 *
 * <ul>
 *   <li>One {@link ReplaySpout} per captured spout, its parallelism as captured, offering the captured emit
 *       rate open loop (the shared --rate/--arrivals machinery; --rate R scales every spout so that they offer
 *       R tuples/s together, 0 = the captured rates). Max spout pending stays unset unless given, as for every
 *       open-loop run.</li>
 *   <li>One {@link ReplayBolt} per captured bolt, its parallelism as captured, subscribed with the captured
 *       groupings: shuffle, fields (on the synthetic key field), all, global, local_or_shuffle and none as
 *       such; custom, direct and unknown groupings are replayed as shuffle (the replay has neither the user's
 *       grouping class nor the emitting code that picks direct targets) and a warning is printed.</li>
 *   <li>CPU per tuple, emit ratios and tuple sizes: see {@link CpuBudget}, {@link EmitRatio},
 *       {@link ReplayTuples}; the derived rates: {@link ReplayGraph}.</li>
 *   <li>--workers defaults to the number of workers in the capture's placement (4 when it has none);
 *       --parallelism.COMPONENT overrides one component's captured parallelism.</li>
 * </ul>
 *
 * <p>The captured file reaches the main as --graph FILE (read at submit time, where the main runs) or as
 * --graph-json JSON (the file's text itself: stormlab run passes it so, since its submitter may run in a
 * container that does not see the file). Only the submitter parses it: each spout and bolt carries its own
 * figures, serialized with the topology. The captured topology's name goes into the topology conf
 * ({@link #CONF_REPLAY_OF}).
 */
public final class ReplayTopology {
    /** Topology conf key: the name of the captured topology this run replays. */
    public static final String CONF_REPLAY_OF = "stormlab.replay.of";
    /** --workers when neither the flag nor the capture's placement gives it. */
    static final int DEFAULT_WORKERS = 4;

    private ReplayTopology() {
    }

    public static Args flags() {
        return TopologySetup.commonFlags("ReplayTopology", "replay", DEFAULT_WORKERS, 1)
            .flag("graph", "", "the captured topology file (stormlab capture), read at submit time")
            .flag("graph-json", "", "the captured topology's JSON itself, instead of --graph")
            .flag("cpu-mode", "total", "total: each task's thread spends the captured CPU per tuple in all (Storm's own "
                + "per-tuple cost included, as the capture measured it); extra: spin the captured CPU on top of Storm's cost");
    }

    /** Reads the captured topology from --graph or --graph-json. */
    static ReplayGraph graph(Args a) {
        String file = a.string("graph");
        String json = a.string("graph-json");
        if (file.isEmpty() == json.isEmpty()) {
            throw new IllegalArgumentException("give the captured topology as --graph FILE or --graph-json JSON (one of them)");
        }
        if (!file.isEmpty()) {
            try {
                json = Files.readString(Path.of(file));
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read --graph " + file + ": " + e);
            }
        }
        return ReplayGraph.parse(json);
    }

    public static StormTopology build(Args a, Config conf) {
        ReplayGraph g = graph(a);
        if (a.optional("parallelism") != null) {
            throw new IllegalArgumentException("--parallelism does not apply to a replay (each component keeps its captured "
                + "parallelism): use --parallelism.COMPONENT");
        }
        for (String w : g.warnings()) {
            System.err.println("ReplayTopology: warning: " + w);
        }
        if (a.optional("workers") == null && g.workers > 0) {
            conf.setNumWorkers(g.workers);
        }
        if (a.optional("max-spout-pending") == null) {
            conf.remove(Config.TOPOLOGY_MAX_SPOUT_PENDING); // open loop: pending would cap the offered rate
        }
        CpuBudget.Mode mode = CpuBudget.parseMode(a.string("cpu-mode"));
        double scale = scale(a, g);
        conf.put(TopologySetup.CONF_OPEN_LOOP_RATE, total(g) * scale);
        conf.put(TopologySetup.CONF_OPEN_LOOP_ARRIVALS, a.string("arrivals"));
        conf.put(CONF_REPLAY_OF, g.topology);
        long seed = a.longValue("seed");
        SendSchedule.Arrivals arrivals = SendSchedule.parse(a.string("arrivals"));
        TopologyBuilder b = new TopologyBuilder();
        for (ReplayGraph.Component c : g.spouts()) {
            double rate = g.spoutRate(c.name) * scale;
            OpenLoop ol = rate > 0 ? new OpenLoop(rate, false, arrivals, seed + 31L * c.name.hashCode()) : null;
            b.setSpout(c.name, new ReplaySpout(spoutOutputs(g, c), c.cpuUsPerTuple, mode, seed, ol), parallelism(a, c));
        }
        for (ReplayGraph.Component c : g.components) {
            if (!c.spout) {
                addBolt(b, a, g, c, mode, seed);
            }
        }
        return b.createTopology();
    }

    /** The factor on every spout's captured rate: --rate over the captured total, or 1 without --rate. */
    private static double scale(Args a, ReplayGraph g) {
        double total = total(g);
        if (total > OpenLoop.MAX_RATE) {
            throw new IllegalArgumentException(String.format("the captured spouts offer %.1f tuples/s together, above %d, the most "
                + "the spouts can generate: give --rate to scale them down", total, (long) OpenLoop.MAX_RATE));
        }
        OpenLoop ol = OpenLoop.from(a); // checks --rate's bounds and --rate-per
        if (ol == null) {
            return 1;
        }
        if (ol.perTask) {
            throw new IllegalArgumentException("--rate-per task does not apply to a replay: --rate is what all its spouts offer together");
        }
        return ol.rate / total;
    }

    private static double total(ReplayGraph g) {
        double t = 0;
        for (ReplayGraph.Component c : g.spouts()) {
            t += g.spoutRate(c.name);
        }
        return t;
    }

    /** A spout's output streams; one default stream when no bolt subscribes to it. */
    private static List<ReplayGraph.Output> spoutOutputs(ReplayGraph g, ReplayGraph.Component c) {
        List<ReplayGraph.Output> out = g.outputs(c.name);
        if (out.isEmpty()) {
            double bytes = c.tupleBytes > 0 ? c.tupleBytes : ReplayGraph.DEFAULT_TUPLE_BYTES;
            out = List.of(new ReplayGraph.Output("default", 0, bytes));
        }
        return out;
    }

    private static void addBolt(TopologyBuilder b, Args a, ReplayGraph g, ReplayGraph.Component c, CpuBudget.Mode mode, long seed) {
        List<ReplayGraph.Output> outs = g.outputs(c.name);
        double in = g.inRate(c.name);
        double[] ratios = new double[outs.size()];
        List<String> zero = new ArrayList<>();
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = in > 0 ? outs.get(i).perS / in : 0;
            if (in <= 0 && outs.get(i).perS > 0) {
                zero.add(outs.get(i).stream);
            }
        }
        if (!zero.isEmpty()) {
            System.err.println("ReplayTopology: warning: bolt " + c.name + " executed 0 tuples/s in the capture but emitted on "
                + zero + ": it emits nothing in the replay");
        }
        BoltDeclarer d = b.setBolt(c.name, new ReplayBolt(outs, ratios, c.cpuUsPerTuple, mode, seed), parallelism(a, c));
        for (ReplayGraph.Subscription s : g.inputs(c.name)) {
            subscribe(d, s);
        }
    }

    /** Subscribes with the replay's grouping for s (custom, direct and unknown ones: shuffle). */
    static void subscribe(BoltDeclarer d, ReplayGraph.Subscription s) {
        switch (s.grouping) {
            case FIELDS:
                d.fieldsGrouping(s.from, s.stream, new org.apache.storm.tuple.Fields(ReplayTuples.KEY));
                break;
            case ALL:
                d.allGrouping(s.from, s.stream);
                break;
            case GLOBAL:
                d.globalGrouping(s.from, s.stream);
                break;
            case LOCAL_OR_SHUFFLE:
                d.localOrShuffleGrouping(s.from, s.stream);
                break;
            case NONE:
                d.noneGrouping(s.from, s.stream);
                break;
            default:
                d.shuffleGrouping(s.from, s.stream);
        }
    }

    /** The captured parallelism, or --parallelism.NAME when given. */
    private static int parallelism(Args a, ReplayGraph.Component c) {
        return a.optional("parallelism." + c.name) != null ? TopologySetup.parallelism(a, c.name) : c.parallelism;
    }

    public static void main(String[] argv) {
        System.exit(TopologySetup.run("ReplayTopology", flags(), argv, ReplayTopology::build));
    }
}
