package org.stormlab.topologies;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.StormSubmitter;
import org.apache.storm.generated.StormTopology;
import org.stormlab.instrument.Instrument;

/**
 * The flags every topology shares and the topology conf they turn into: instrumentation hook (or, with
 * --instrumentation off, none), stats sample rate 1.0 (either way), acking, worker heap, number of workers, message timeout and max spout pending.
 * Also the submit step of every main class.
 */
public final class TopologySetup {
    /** Line printed on stdout after a successful submit, followed by the topology name. */
    public static final String SUBMITTED = "submitted topology ";
    /** For the record in the topology conf: the open-loop rate (tuples/s, per --rate-per) and arrivals. */
    public static final String CONF_OPEN_LOOP_RATE = "stormlab.openloop.rate";
    public static final String CONF_OPEN_LOOP_ARRIVALS = "stormlab.openloop.arrivals";

    private TopologySetup() {
    }

    /** Declares the shared flags; defaults for name, workers and parallelism differ per topology. */
    public static Args commonFlags(String program, String name, int workers, int parallelism) {
        return new Args(program)
            .flag("name", name, "topology name")
            .flag("workers", workers, "number of worker processes (topology.workers)")
            .flag("parallelism", parallelism, "executors per component")
            .prefix("parallelism.", "executors of one component, overrides --parallelism")
            .flag("ackers", -1, "acker executors; -1 = one per worker (Storm's default), 0 = acking off")
            .flag("worker-heap-mb", 256, "worker JVM -Xmx in MB (topology.worker.childopts)")
            .flag("worker-childopts", "", "extra JVM options for workers")
            .flag("message-timeout-secs", 30, "topology.message.timeout.secs")
            .flag("max-spout-pending", 1000, "topology.max.spout.pending per spout task; 0 = unlimited; with --rate "
                + "unset (unlimited) unless given")
            .flag("rate", 0.0, "open loop: tuples/s the spouts offer on a schedule fixed at start, whatever the "
                + "topology keeps up with (overrides --interval-ms); 0 = closed loop")
            .flag("rate-per", "topology", "with --rate: topology (divided over the spout tasks) or task")
            .flag("arrivals", "constant", "with --rate: constant or poisson (seeded by --seed)")
            .flag("metrics-url", Instrument.DEFAULT_METRICS_URL, "where workers POST reports (stormlab.metrics.url)")
            .flag("report-interval-secs", Instrument.DEFAULT_REPORT_INTERVAL_SECS, "seconds between reports")
            .flag("instrumentation", "on", "on: every task runs the stormlab hook and every worker its reporter; "
                + "off: neither (Storm's own counters only, to measure the hook's own cost)")
            .flag("seed", 1, "seed of every generator in the topology")
            .flag("deadline-ms", 1000, "end-to-end deadline of a tuple, ms after its T_start (the sinks' deadline)")
            .flag("deadlines", "staged", "per-component deadlines: staged (a bolt at depth i of n from the spouts gets "
                + "deadline-ms*i/n) or uniform (every bolt gets deadline-ms)")
            .prefix("deadline-ms.", "deadline of one component in ms, overrides --deadlines")
            .flag("nimbus", "", "Nimbus host(s), comma separated (nimbus.seeds); empty = storm.yaml / localhost")
            .flag("dry-run", false, "build and print the topology and conf, do not submit");
    }

    /** The open-loop settings of the spouts, or null for the closed loop (--rate 0). */
    static OpenLoop openLoop(Args a) {
        return OpenLoop.from(a);
    }

    /** Parallelism of one component: --parallelism.NAME if given, else --parallelism; at least 1. */
    public static int parallelism(Args a, String component) {
        String v = a.optional("parallelism." + component);
        int p;
        if (v != null) {
            try {
                p = Integer.parseInt(v.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--parallelism." + component + " must be an integer, got \"" + v + "\"");
            }
        } else {
            p = a.integer("parallelism");
        }
        if (p < 1) {
            throw new IllegalArgumentException("parallelism of " + component + " is " + p + ": it must be >= 1");
        }
        return p;
    }

    /** Builds the topology conf from the shared flags. */
    public static Config config(Args a) {
        int workers = a.integer("workers");
        if (workers < 1) {
            throw new IllegalArgumentException("--workers is " + workers + ": it must be >= 1");
        }
        int heap = a.integer("worker-heap-mb");
        if (heap < 64) {
            throw new IllegalArgumentException("--worker-heap-mb is " + heap + ": use at least 64");
        }
        Config conf = new Config();
        conf.setNumWorkers(workers);
        int ackers = a.integer("ackers");
        if (ackers >= 0) {
            conf.setNumAckers(ackers);
        }
        conf.setMessageTimeoutSecs(a.integer("message-timeout-secs"));
        int pending = a.integer("max-spout-pending");
        OpenLoop ol = OpenLoop.from(a);
        // Open loop: max spout pending would stop the spout when as many tuples are unacked, so it would
        // cap the offered rate; it stays unset (Storm's default, unlimited) unless given explicitly.
        boolean capped = ol == null || a.optional("max-spout-pending") != null;
        if (pending > 0 && capped) {
            conf.setMaxSpoutPending(pending);
        }
        if (ol != null) {
            conf.put(CONF_OPEN_LOOP_RATE, ol.rate);
            conf.put(CONF_OPEN_LOOP_ARRIVALS, ol.arrivals.name().toLowerCase());
        }
        String childopts = ("-Xmx" + heap + "m " + a.string("worker-childopts")).trim();
        conf.put(Config.TOPOLOGY_WORKER_CHILDOPTS, childopts);
        String instrumentation = a.string("instrumentation");
        switch (instrumentation) {
            case "on":
                Instrument.configure(conf, a.string("metrics-url"), a.number("report-interval-secs"));
                break;
            case "off":
                Instrument.configureOff(conf);
                break;
            default:
                throw new IllegalArgumentException("--instrumentation is \"" + instrumentation + "\": use on or off");
        }
        String nimbus = a.string("nimbus");
        if (!nimbus.isEmpty()) {
            conf.put(Config.NIMBUS_SEEDS, Arrays.asList(nimbus.split(",")));
        }
        for (String kv : a.confs()) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--conf \"" + kv + "\" must look like key=value");
            }
            conf.put(kv.substring(0, eq), parseValue(kv.substring(eq + 1)));
        }
        return conf;
    }

    /**
     * Sets the deadline T_dline of every bolt component (Instrument.CONF_DEADLINE_PREFIX + component) from
     * --deadline-ms, --deadlines and --deadline-ms.COMPONENT. The deadline-aware scheduler paper gives its
     * tasks different deadlines (its Figs. 4-6 examples); "staged" does the same for a pipeline: a bolt at
     * depth i (fewest stream hops from a spout) of a topology whose deepest bolt is at depth n must be done
     * with a tuple within deadline-ms * i / n of the tuple's T_start, so the sinks get the whole end-to-end
     * deadline and earlier stages proportionally less. Returns the deadlines set, by component.
     */
    public static Map<String, Long> applyDeadlines(Args a, Config conf, StormTopology topology) {
        long total = a.longValue("deadline-ms");
        if (total <= 0) {
            throw new IllegalArgumentException("--deadline-ms is " + total + ": it must be > 0");
        }
        String mode = a.string("deadlines");
        if (!mode.equals("staged") && !mode.equals("uniform")) {
            throw new IllegalArgumentException("--deadlines is \"" + mode + "\": use staged or uniform");
        }
        Map<String, Integer> depth = depths(topology);
        int n = 1;
        for (int d : depth.values()) {
            n = Math.max(n, d);
        }
        Map<String, Long> out = new java.util.TreeMap<>();
        for (String bolt : new java.util.TreeSet<>(topology.get_bolts().keySet())) {
            long d;
            String v = a.optional("deadline-ms." + bolt);
            if (v != null) {
                try {
                    d = Long.parseLong(v.trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--deadline-ms." + bolt + " must be an integer, got \"" + v + "\"");
                }
                if (d <= 0) {
                    throw new IllegalArgumentException("--deadline-ms." + bolt + " is " + d + ": it must be > 0");
                }
            } else if (mode.equals("uniform") || !depth.containsKey(bolt)) {
                d = total;
            } else {
                d = Math.max(1, Math.round((double) total * depth.get(bolt) / n));
            }
            Instrument.setDeadline(conf, bolt, d);
            out.put(bolt, d);
        }
        return out;
    }

    /** Fewest stream hops from any spout to each bolt (breadth-first; cycles such as k-means' are fine). */
    static Map<String, Integer> depths(StormTopology t) {
        Map<String, java.util.List<String>> next = new java.util.HashMap<>();
        t.get_bolts().forEach((id, b) -> b.get_common().get_inputs().keySet()
            .forEach(g -> next.computeIfAbsent(g.get_componentId(), k -> new java.util.ArrayList<>()).add(id)));
        Map<String, Integer> depth = new java.util.HashMap<>();
        java.util.ArrayDeque<String> queue = new java.util.ArrayDeque<>();
        for (String s : new java.util.TreeSet<>(t.get_spouts().keySet())) {
            depth.put(s, 0);
            queue.add(s);
        }
        while (!queue.isEmpty()) {
            String c = queue.poll();
            for (String b : next.getOrDefault(c, java.util.List.of())) {
                if (!depth.containsKey(b)) {
                    depth.put(b, depth.get(c) + 1);
                    queue.add(b);
                }
            }
        }
        t.get_spouts().keySet().forEach(depth::remove);
        return depth;
    }

    /** Conf values from the command line: integers, doubles and booleans as such, lists as [a,b]. */
    static Object parseValue(String v) {
        if (v.equals("true") || v.equals("false")) {
            return Boolean.parseBoolean(v);
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            // not an integer
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            // not a number
        }
        if (v.startsWith("[") && v.endsWith("]")) {
            List<String> items = Arrays.asList(v.substring(1, v.length() - 1).split(","));
            return items.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
        }
        return v;
    }

    /**
     * Submits (or, with --dry-run, prints) the topology. Returns the process exit code: 0 on success,
     * 1 with a message on stderr on failure.
     */
    public static int submit(Args a, Config conf, StormTopology topology) {
        String name = a.string("name");
        if (a.bool("dry-run")) {
            System.out.println("topology " + name);
            for (Map.Entry<String, ?> e : new java.util.TreeMap<>(conf).entrySet()) {
                System.out.println("  conf " + e.getKey() + " = " + e.getValue());
            }
            topology.get_spouts().forEach((id, s) -> System.out.println("  spout " + id + " x" + s.get_common().get_parallelism_hint()));
            topology.get_bolts().forEach((id, b) -> System.out.println("  bolt " + id + " x" + b.get_common().get_parallelism_hint()
                + " inputs " + b.get_common().get_inputs().keySet()));
            return 0;
        }
        try {
            StormSubmitter.submitTopology(name, conf, topology);
            System.out.println(SUBMITTED + name);
            return 0;
        } catch (Throwable t) {
            System.err.println("submit topology " + name + ": " + t);
            Throwable c = t.getCause();
            while (c != null) {
                System.err.println("  caused by: " + c);
                c = c.getCause();
            }
            return 1;
        }
    }

    /** Shared main body: parse, build, submit; prints usage on bad flags. */
    public static int run(String program, Args flags, String[] argv, Builder builder) {
        try {
            flags.parse(argv);
            if (flags.helpRequested()) {
                System.out.print(flags.usage());
                return 0;
            }
            Config conf = config(flags);
            StormTopology topology = builder.build(flags, conf);
            applyDeadlines(flags, conf, topology);
            return submit(flags, conf, topology);
        } catch (IllegalArgumentException e) {
            System.err.println(program + ": " + e.getMessage());
            return 2;
        }
    }

    /** Builds a topology from parsed flags; may add to the conf. */
    public interface Builder {
        StormTopology build(Args flags, Config conf);
    }
}
