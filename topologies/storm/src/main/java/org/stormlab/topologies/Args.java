package org.stormlab.topologies;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command-line flags: {@code --key value} or {@code --key=value}. Every flag must be declared with a
 * default and a help line; an unknown flag is an error that lists the known ones. Flags declared as
 * prefixes (e.g. {@code parallelism.}) accept any suffix ({@code --parallelism.split 8}). {@code --conf}
 * may be given several times.
 */
public final class Args {
    private final String program;
    private final Map<String, String> defaults = new LinkedHashMap<>();
    private final Map<String, String> help = new LinkedHashMap<>();
    private final List<String> prefixes = new ArrayList<>();
    private final Map<String, String> values = new LinkedHashMap<>();
    private final List<String> confs = new ArrayList<>();
    private boolean helpRequested;

    public Args(String program) {
        this.program = program;
    }

    public Args flag(String name, Object def, String text) {
        defaults.put(name, String.valueOf(def));
        help.put(name, text);
        return this;
    }

    public Args prefix(String prefix, String text) {
        prefixes.add(prefix);
        help.put(prefix + "<component>", text);
        return this;
    }

    /** Parses argv; throws IllegalArgumentException with a message naming the bad flag and the fix. */
    public Args parse(String[] argv) {
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (a.equals("-h") || a.equals("--help")) {
                helpRequested = true;
                continue;
            }
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument \"" + a + "\": flags look like --name value\n" + usage());
            }
            String key = a.substring(2);
            String value;
            int eq = key.indexOf('=');
            if (eq >= 0) {
                value = key.substring(eq + 1);
                key = key.substring(0, eq);
            } else if (key.equals("dry-run")) {
                value = "true";
            } else {
                if (i + 1 >= argv.length) {
                    throw new IllegalArgumentException("flag --" + key + " needs a value");
                }
                value = argv[++i];
            }
            if (key.equals("conf")) {
                confs.add(value);
                continue;
            }
            if (!defaults.containsKey(key) && !hasPrefix(key)) {
                throw new IllegalArgumentException("unknown flag --" + key + "\n" + usage());
            }
            values.put(key, value);
        }
        return this;
    }

    private boolean hasPrefix(String key) {
        for (String p : prefixes) {
            if (key.startsWith(p) && key.length() > p.length()) {
                return true;
            }
        }
        return false;
    }

    public boolean helpRequested() {
        return helpRequested;
    }

    public String usage() {
        StringBuilder sb = new StringBuilder("usage: " + program + " [flags]\n");
        for (Map.Entry<String, String> e : help.entrySet()) {
            String def = defaults.get(e.getKey());
            sb.append(String.format("  --%-28s %s%s%n", e.getKey(), e.getValue(), def == null ? "" : " (default " + def + ")"));
        }
        sb.append(String.format("  --%-28s %s%n", "conf key=value", "extra topology conf entry; repeatable"));
        return sb.toString();
    }

    public String string(String key) {
        String v = values.get(key);
        return v != null ? v : defaults.get(key);
    }

    /** A prefixed flag's value, or null when not given. */
    public String optional(String key) {
        return values.get(key);
    }

    public int integer(String key) {
        String v = string(key);
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException | NullPointerException e) {
            throw new IllegalArgumentException("--" + key + " must be an integer, got \"" + v + "\"");
        }
    }

    public long longValue(String key) {
        String v = string(key);
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException | NullPointerException e) {
            throw new IllegalArgumentException("--" + key + " must be an integer, got \"" + v + "\"");
        }
    }

    public double number(String key) {
        String v = string(key);
        try {
            double d = Double.parseDouble(v.trim());
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException | NullPointerException e) {
            throw new IllegalArgumentException("--" + key + " must be a number, got \"" + v + "\"");
        }
    }

    public boolean bool(String key) {
        return Boolean.parseBoolean(string(key));
    }

    public List<String> confs() {
        return confs;
    }
}
