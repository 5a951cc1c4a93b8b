package org.stormlab.instrument;

/**
 * A minimal JSON writer for the report: objects, arrays, strings, numbers. Hand-written on purpose: the
 * report is a fixed shape, and shading a JSON library into every topology jar risks clashing with the
 * versions on Storm's worker classpath (storm-client ships its own shaded copies, which are not API).
 */
final class Json {
    private final StringBuilder sb = new StringBuilder(4096);
    private boolean needComma;

    Json beginObject() {
        comma();
        sb.append('{');
        needComma = false;
        return this;
    }

    Json endObject() {
        sb.append('}');
        needComma = true;
        return this;
    }

    Json beginArray(String name) {
        key(name);
        sb.append('[');
        needComma = false;
        return this;
    }

    Json endArray() {
        sb.append(']');
        needComma = true;
        return this;
    }

    Json field(String name, String value) {
        key(name);
        string(value);
        needComma = true;
        return this;
    }

    Json field(String name, long value) {
        key(name);
        sb.append(value);
        needComma = true;
        return this;
    }

    Json field(String name, double value) {
        key(name);
        number(value);
        needComma = true;
        return this;
    }

    Json field(String name, boolean value) {
        key(name);
        sb.append(value);
        needComma = true;
        return this;
    }

    /** Appends a string as an array element. */
    Json value(String value) {
        comma();
        string(value);
        needComma = true;
        return this;
    }

    /** Appends a bare number as an array element. */
    Json value(double value) {
        comma();
        number(value);
        needComma = true;
        return this;
    }

    private void number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            sb.append('0'); // JSON has no NaN/Inf; a bad sample must not break the whole report
        } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            sb.append((long) v);
        } else {
            sb.append(v);
        }
    }

    private void key(String name) {
        comma();
        string(name);
        sb.append(':');
    }

    private void comma() {
        if (needComma) {
            sb.append(',');
            needComma = false;
        }
    }

    private void string(String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    @Override
    public String toString() {
        return sb.toString();
    }
}
