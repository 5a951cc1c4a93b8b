package org.stormlab.topologies;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The part of a captured topology file (format 1, written by {@code stormlab capture}; docs/graph-format.md,
 * "Captured topologies") that {@link ReplayTopology} rebuilds: the components with their parallelism, rates,
 * CPU per tuple and tuple size, the streams with their groupings and rates, and the number of workers the
 * placement used. The per-task graph ({@code vertices}, {@code edges}) is not needed and is ignored.
 *
 * <p>Parsed with Gson (shaded and relocated into the topology jar), at submit time only: the spouts and bolts
 * carry their own figures, serialized with the topology, so no worker parses JSON.
 *
 * <p>Derived figures, all per second over all of a component's tasks:
 * <ul>
 *   <li>the tuples a component emits on one stream ({@link #outputs}): the largest of its subscriptions'
 *       {@code tuples_per_s} (a subscription's rate is what its source emits on the stream, as stormlab capture
 *       records it; every subscriber of a stream sees the same rate);</li>
 *   <li>the tuples a bolt executes ({@link #inRate}): its {@code execute_per_s}, or when that is 0 the sum of
 *       its subscriptions' {@code tuples_per_s}, an all-grouped one's times the bolt's parallelism (every task
 *       executes every tuple);</li>
 *   <li>a spout's offered rate ({@link #spoutRate}): its {@code emit_per_s}, or when that is 0 the sum of its
 *       output streams' rates;</li>
 *   <li>the serialized size of a stream's tuples: the largest {@code bytes_per_tuple} of its subscriptions,
 *       else the component's {@code tuple_bytes}, else {@link #DEFAULT_TUPLE_BYTES}.</li>
 * </ul>
 * Errors are IllegalArgumentExceptions naming the problem and the fix (the main exits 2 on them).
 */
final class ReplayGraph {
    /** The newest captured file format this parser reads. */
    static final int FORMAT = 1;
    /**
     * Serialized size of a tuple, bytes, when the file does not know it (0): a short text tuple, about
     * what WordCount's word tuples measure with the instrumentation.
     */
    static final double DEFAULT_TUPLE_BYTES = 64;

    /** Groupings the replay builds; anything else becomes SHUFFLE with a warning. */
    enum Grouping { SHUFFLE, FIELDS, ALL, GLOBAL, LOCAL_OR_SHUFFLE, NONE }

    /** One spout or bolt of the file. */
    static final class Component {
        final String name;
        final boolean spout;
        final int parallelism;
        final double emitPerS;
        final double executePerS;
        final double cpuUsPerTuple;
        final double tupleBytes;

        Component(String name, boolean spout, int parallelism, double emitPerS, double executePerS, double cpuUsPerTuple,
                  double tupleBytes) {
            this.name = name;
            this.spout = spout;
            this.parallelism = parallelism;
            this.emitPerS = emitPerS;
            this.executePerS = executePerS;
            this.cpuUsPerTuple = cpuUsPerTuple;
            this.tupleBytes = tupleBytes;
        }
    }

    /** One subscription: {@code to} reads stream {@code stream} of {@code from}. */
    static final class Subscription {
        final String from;
        final String to;
        final String stream;
        final Grouping grouping;
        final String groupingName;
        final double tuplesPerS;
        final double bytesPerTuple;

        Subscription(String from, String to, String stream, String groupingName, double tuplesPerS, double bytesPerTuple) {
            this.from = from;
            this.to = to;
            this.stream = stream;
            this.groupingName = groupingName;
            this.grouping = grouping(groupingName);
            this.tuplesPerS = tuplesPerS;
            this.bytesPerTuple = bytesPerTuple;
        }
    }

    /** An output stream of a component: its id, the tuples/s the component emits on it and their size. */
    static final class Output implements Serializable {
        private static final long serialVersionUID = 1L;
        final String stream;
        final double perS;
        final double bytes;

        Output(String stream, double perS, double bytes) {
            this.stream = stream;
            this.perS = perS;
            this.bytes = bytes;
        }
    }

    final String topology;
    final List<Component> components;
    final List<Subscription> streams;
    /** Distinct workers ("host:port") of the capture's placement; 0 when the file has none. */
    final int workers;
    private final Map<String, Component> byName = new LinkedHashMap<>();

    private ReplayGraph(String topology, List<Component> components, List<Subscription> streams, int workers) {
        this.topology = topology;
        this.components = Collections.unmodifiableList(components);
        this.streams = Collections.unmodifiableList(streams);
        this.workers = workers;
        for (Component c : components) {
            byName.put(c.name, c);
        }
    }

    /** Parses and checks a captured topology file's JSON. */
    static ReplayGraph parse(String json) {
        JsonObject root;
        try {
            JsonElement e = JsonParser.parseString(json);
            if (!e.isJsonObject()) {
                throw new IllegalArgumentException("the captured topology is not a JSON object: capture one with stormlab capture");
            }
            root = e.getAsJsonObject();
        } catch (JsonParseException e) {
            throw new IllegalArgumentException("the captured topology is not valid JSON: " + e.getMessage());
        }
        if (root.has("format")) {
            int f = (int) number(root, "format", "the file");
            if (f > FORMAT) {
                throw new IllegalArgumentException("captured file format " + f + " is newer than this stormlab reads ("
                    + FORMAT + "): upgrade stormlab");
            }
        }
        if (!root.has("components") || !root.has("streams")) {
            throw new IllegalArgumentException("not a captured topology (it has no \"components\" and \"streams\"; a plain "
                + "graph file?): capture one with stormlab capture");
        }
        List<Component> comps = components(array(root, "components", "the file"));
        ReplayGraph g = new ReplayGraph(topologyName(root), comps, subscriptions(array(root, "streams", "the file")), workers(root));
        g.check();
        return g;
    }

    private static String topologyName(JsonObject root) {
        JsonElement p = root.get("provenance");
        if (p != null && p.isJsonObject() && p.getAsJsonObject().has("topology")) {
            return string(p.getAsJsonObject(), "topology", "provenance");
        }
        return "";
    }

    private static int workers(JsonObject root) {
        JsonElement p = root.get("placement");
        if (p == null || p.isJsonNull()) {
            return 0;
        }
        if (!p.isJsonObject()) {
            throw new IllegalArgumentException("\"placement\" must be an object of task id -> \"host:port\"");
        }
        Set<String> w = new HashSet<>();
        for (Map.Entry<String, JsonElement> e : p.getAsJsonObject().entrySet()) {
            w.add(e.getValue().getAsString());
        }
        return w.size();
    }

    private static List<Component> components(JsonArray a) {
        if (a.isEmpty()) {
            throw new IllegalArgumentException("not a captured topology (\"components\" is empty): capture one with stormlab capture");
        }
        List<Component> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < a.size(); i++) {
            JsonObject o = object(a.get(i), "component " + i);
            String name = string(o, "name", "component " + i);
            String where = "component \"" + name + "\"";
            String kind = string(o, "kind", where);
            if (name.isEmpty() || name.startsWith("__")) {
                throw new IllegalArgumentException("component " + i + " is named \"" + name + "\": give every component a name "
                    + "not starting with \"__\" (Storm's own)");
            }
            if (!seen.add(name)) {
                throw new IllegalArgumentException(where + " is listed twice: component names must be unique");
            }
            if (!kind.equals("spout") && !kind.equals("bolt")) {
                throw new IllegalArgumentException(where + " has kind \"" + kind + "\": use spout or bolt");
            }
            double p = number(o, "parallelism", where);
            if (p < 1 || p != Math.rint(p)) {
                throw new IllegalArgumentException(where + " has parallelism " + fmt(p) + ": it must be a whole number >= 1");
            }
            out.add(new Component(name, kind.equals("spout"), (int) p, optional(o, "emit_per_s", where),
                optional(o, "execute_per_s", where), optional(o, "cpu_us_per_tuple", where), optional(o, "tuple_bytes", where)));
        }
        return out;
    }

    private static List<Subscription> subscriptions(JsonArray a) {
        List<Subscription> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            JsonObject o = object(a.get(i), "stream " + i);
            String where = "stream " + i;
            String stream = o.has("stream") ? string(o, "stream", where) : "default";
            String grouping = o.has("grouping") ? string(o, "grouping", where) : "shuffle";
            out.add(new Subscription(string(o, "from", where), string(o, "to", where), stream.isEmpty() ? "default" : stream,
                grouping, optional(o, "tuples_per_s", where), optional(o, "bytes_per_tuple", where)));
        }
        return out;
    }

    /** Checks the streams against the components and that something flows. */
    private void check() {
        for (Subscription s : streams) {
            String where = "stream " + s.from + " -> " + s.to;
            if (!byName.containsKey(s.from)) {
                throw new IllegalArgumentException(where + " starts at unknown component \"" + s.from + "\": add it to \"components\"");
            }
            Component to = byName.get(s.to);
            if (to == null) {
                throw new IllegalArgumentException(where + " ends at unknown component \"" + s.to + "\": add it to \"components\"");
            }
            if (to.spout) {
                throw new IllegalArgumentException(where + " ends at spout \"" + s.to + "\": only bolts subscribe to streams");
            }
        }
        double offered = 0;
        for (Component c : components) {
            offered += c.spout ? spoutRate(c.name) : 0;
        }
        if (spouts().isEmpty()) {
            throw new IllegalArgumentException("the captured topology has no spout: a replay needs one to offer load");
        }
        if (!(offered > 0)) {
            throw new IllegalArgumentException("every spout of the captured topology emits 0 tuples/s: nothing to replay "
                + "(was the topology idle during the capture? capture it again under load)");
        }
    }

    /** The spouts, in file order. */
    List<Component> spouts() {
        List<Component> out = new ArrayList<>();
        for (Component c : components) {
            if (c.spout) {
                out.add(c);
            }
        }
        return out;
    }

    Component component(String name) {
        return byName.get(name);
    }

    /** The subscriptions of bolt {@code to}, in file order. */
    List<Subscription> inputs(String to) {
        List<Subscription> out = new ArrayList<>();
        for (Subscription s : streams) {
            if (s.to.equals(to)) {
                out.add(s);
            }
        }
        return out;
    }

    /** The streams component {@code from} emits on, in order of first appearance (see the class comment). */
    List<Output> outputs(String from) {
        Map<String, double[]> rate = new LinkedHashMap<>(); // stream -> {tuples/s, bytes}
        for (Subscription s : streams) {
            if (!s.from.equals(from)) {
                continue;
            }
            double[] r = rate.computeIfAbsent(s.stream, k -> new double[2]);
            r[0] = Math.max(r[0], s.tuplesPerS);
            r[1] = Math.max(r[1], s.bytesPerTuple);
        }
        Component c = byName.get(from);
        List<Output> out = new ArrayList<>();
        for (Map.Entry<String, double[]> e : rate.entrySet()) {
            out.add(new Output(e.getKey(), e.getValue()[0], tupleBytes(e.getValue()[1], c)));
        }
        return out;
    }

    private static double tupleBytes(double stream, Component c) {
        if (stream > 0) {
            return stream;
        }
        return c.tupleBytes > 0 ? c.tupleBytes : DEFAULT_TUPLE_BYTES;
    }

    /** The tuples/s bolt {@code name} executes (see the class comment). */
    double inRate(String name) {
        Component c = byName.get(name);
        if (c.executePerS > 0) {
            return c.executePerS;
        }
        double sum = 0;
        for (Subscription s : inputs(name)) {
            sum += s.grouping == Grouping.ALL ? s.tuplesPerS * c.parallelism : s.tuplesPerS;
        }
        return sum;
    }

    /** The tuples/s spout {@code name} offers (see the class comment). */
    double spoutRate(String name) {
        Component c = byName.get(name);
        if (c.emitPerS > 0) {
            return c.emitPerS;
        }
        double sum = 0;
        for (Output o : outputs(name)) {
            sum += o.perS;
        }
        return sum;
    }

    /** What the replay does with the file's groupings it cannot rebuild, one line each. */
    List<String> warnings() {
        List<String> out = new ArrayList<>();
        for (Subscription s : streams) {
            if (s.grouping == Grouping.SHUFFLE && !s.groupingName.equals("shuffle")) {
                out.add("stream " + s.from + " -> " + s.to + " (" + s.stream + ") has grouping \"" + s.groupingName
                    + "\", which the replay cannot rebuild: it is replayed as shuffle");
            }
        }
        return out;
    }

    /** The replay's grouping for a file's grouping name: custom, direct and unknown ones become SHUFFLE. */
    static Grouping grouping(String name) {
        switch (name) {
            case "fields":
                return Grouping.FIELDS;
            case "all":
                return Grouping.ALL;
            case "global":
                return Grouping.GLOBAL;
            case "local_or_shuffle":
                return Grouping.LOCAL_OR_SHUFFLE;
            case "none":
                return Grouping.NONE;
            default:
                return Grouping.SHUFFLE;
        }
    }

    private static JsonObject object(JsonElement e, String where) {
        if (e == null || !e.isJsonObject()) {
            throw new IllegalArgumentException(where + " is not a JSON object");
        }
        return e.getAsJsonObject();
    }

    private static JsonArray array(JsonObject o, String key, String where) {
        JsonElement e = o.get(key);
        if (e == null || !e.isJsonArray()) {
            throw new IllegalArgumentException(where + ": \"" + key + "\" must be a JSON array");
        }
        return e.getAsJsonArray();
    }

    private static String string(JsonObject o, String key, String where) {
        JsonElement e = o.get(key);
        if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
            throw new IllegalArgumentException(where + ": \"" + key + "\" must be a string");
        }
        return e.getAsString();
    }

    private static double number(JsonObject o, String key, String where) {
        JsonElement e = o.get(key);
        if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
            throw new IllegalArgumentException(where + ": \"" + key + "\" must be a number");
        }
        return e.getAsDouble();
    }

    /** A rate or size: 0 when absent, else a finite number >= 0. */
    private static double optional(JsonObject o, String key, String where) {
        if (!o.has(key) || o.get(key).isJsonNull()) {
            return 0;
        }
        double v = number(o, key, where);
        if (!(v >= 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(where + " has " + key + " " + fmt(v) + ": it must be finite and >= 0");
        }
        return v;
    }

    private static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
