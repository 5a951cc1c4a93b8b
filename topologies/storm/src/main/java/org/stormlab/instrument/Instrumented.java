package org.stormlab.instrument;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;

/**
 * Runs any topology's main class (a user's compiled topology, or Flux's {@code org.apache.storm.flux.Flux})
 * with stormlab's instrumentation switched on through the topology conf, without a change to the user's
 * code: it puts the hook ({@link TrafficHook} in {@code topology.auto.task.hooks}), the stats sample rate
 * 1.0 and the reporter's settings into the system property {@code storm.options}, which
 * {@code StormSubmitter.submitTopology} merges over the conf the main built (the same way {@code storm jar -c
 * key=value} does), then calls the main class's {@code main} in this JVM.
 *
 * <p>Flags, in any order (each takes one value): {@code --main CLASS} (required), {@code --arg A}
 * (repeatable: the main's arguments, in order), {@code --metrics-url URL}, {@code --report-interval-secs S},
 * {@code --keep-hook CLASS} (repeatable: the topology's own task hooks, kept beside ours, since
 * {@code storm.options} replaces the conf's list), {@code --expect-name NAME} (the name the harness expects: a
 * main that submits under another name has its topology killed and fails, see {@link NameCheck}),
 * {@code --conf key=value} (repeatable; the value is read as JSON by Storm, else as a string). Bad flags exit 2.
 */
public final class Instrumented {
    private Instrumented() {
    }

    public static void main(String[] args) throws Throwable {
        Parsed p;
        try {
            p = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("Instrumented: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.setProperty("storm.options", stormOptions(p.conf));
        Method main;
        try {
            main = Class.forName(p.main).getMethod("main", String[].class);
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            System.err.println("Instrumented: no main(String[]) in class " + p.main + " on the classpath: " + e);
            System.exit(2);
            return;
        }
        if (!Modifier.isStatic(main.getModifiers())) {
            System.err.println("Instrumented: " + p.main + ".main is not static");
            System.exit(2);
        }
        try {
            main.invoke(null, (Object) p.args.toArray(new String[0]));
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The parsed flags: the main class, its arguments and the conf entries to merge. */
    static final class Parsed {
        String main;
        final List<String> args = new ArrayList<>();
        final Map<String, String> conf = new LinkedHashMap<>();
    }

    static Parsed parse(String[] args) {
        Parsed p = new Parsed();
        List<String> hooks = new ArrayList<>();
        String url = null;
        String interval = null;
        Map<String, String> extra = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            String v = args[i + 1];
            switch (args[i]) {
                case "--main" -> p.main = v;
                case "--arg" -> p.args.add(v);
                case "--metrics-url" -> url = v;
                case "--report-interval-secs" -> interval = v;
                case "--keep-hook" -> hooks.add(v);
                case "--expect-name" -> {
                    extra.put(Config.STORM_TOPOLOGY_SUBMISSION_NOTIFIER_PLUGIN, NameCheck.class.getName());
                    extra.put(NameCheck.CONF_EXPECT_NAME, v);
                }
                case "--conf" -> {
                    int eq = v.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--conf \"" + v + "\" must look like key=value");
                    }
                    extra.put(v.substring(0, eq), v.substring(eq + 1));
                }
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        if (p.main == null || p.main.isEmpty()) {
            throw new IllegalArgumentException("--main CLASS is required");
        }
        if (!hooks.contains(Instrument.HOOK_CLASS)) {
            hooks.add(Instrument.HOOK_CLASS);
        }
        p.conf.put(Config.TOPOLOGY_AUTO_TASK_HOOKS, jsonStrings(hooks));
        p.conf.put(Config.TOPOLOGY_STATS_SAMPLE_RATE, "1.0");
        p.conf.put(Instrument.CONF_INSTRUMENTATION, "on");
        if (url != null && !url.isEmpty()) {
            p.conf.put(Instrument.CONF_METRICS_URL, url);
        }
        if (interval != null && !interval.isEmpty()) {
            p.conf.put(Instrument.CONF_REPORT_INTERVAL_SECS, interval);
        }
        p.conf.putAll(extra);
        return p;
    }

    /** A JSON array of strings (class names need no escaping beyond quotes and backslashes). */
    static String jsonStrings(List<String> xs) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < xs.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append('"').append(xs.get(i).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return b.append(']').toString();
    }

    /**
     * The storm.options value: key=value entries, each URL-encoded (Storm URL-decodes each entry before
     * splitting it at the first '='), joined by commas, so values holding commas or brackets survive.
     */
    static String stormOptions(Map<String, String> conf) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> e : conf.entrySet()) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(URLEncoder.encode(e.getKey() + "=" + e.getValue(), StandardCharsets.UTF_8));
        }
        return b.toString();
    }
}
