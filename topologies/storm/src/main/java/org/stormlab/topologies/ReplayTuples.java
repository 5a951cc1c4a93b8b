package org.stormlab.topologies;

import java.util.Map;
import java.util.SplittableRandom;
import org.apache.storm.serialization.KryoTupleSerializer;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.TupleImpl;
import org.apache.storm.tuple.Values;
import org.stormlab.instrument.Instrument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tuples of a replayed topology: (key, payload, T_start). The key is synthetic, drawn uniformly from
 * {@link #KEYS} short strings by a seeded generator per task, so a fields grouping (on "key") spreads tuples
 * evenly over its targets; the captured key skew, if any, is not reproduced. The payload is a fixed string of
 * letters per task and stream, sized so that the whole tuple serializes to the captured bytes per tuple: its
 * length comes from serializing a sample tuple with Storm's own KryoTupleSerializer in the worker (the
 * instrumentation measures sizes the same way), so the key, T_start and Storm's header are accounted for.
 */
final class ReplayTuples {
    private static final Logger LOG = LoggerFactory.getLogger(ReplayTuples.class);

    /** The replay's tuple fields; fields groupings group on {@link #KEY}. */
    static final String KEY = "key";
    static final Fields FIELDS = new Fields(KEY, "payload", Instrument.FIELD_T_START);
    /** Distinct synthetic keys. */
    static final int KEYS = 1024;
    /**
     * Serialized bytes of a tuple besides its payload, used when the worker cannot serialize a sample: about
     * what Storm 2.8's KryoTupleSerializer writes for this tuple shape (task id, stream id, empty message id,
     * a short key and the T_start long).
     */
    static final int FALLBACK_OVERHEAD = 24;

    private final SplittableRandom random;

    ReplayTuples(long seed) {
        random = new SplittableRandom(seed);
    }

    /** The next synthetic key. */
    String key() {
        return "k" + random.nextInt(KEYS);
    }

    /** A stable per-task seed: the topology seed, the component's name and the task index. */
    static long seed(long seed, String component, int taskIndex) {
        return seed * 1_000_003L + 31L * component.hashCode() + 7919L * taskIndex;
    }

    /**
     * The payload that makes a tuple on stream (emitted by this task) serialize to about bytes (rounded); empty
     * when bytes is at most the tuple's other fields.
     */
    static String payload(Map<String, Object> conf, TopologyContext context, String stream, double bytes, long seed) {
        long want = Math.round(bytes);
        String probe = "k" + (KEYS - 1);
        int empty = size(conf, context, stream, probe, "");
        if (empty < 0) {
            return letters((int) Math.max(0, want - FALLBACK_OVERHEAD), seed);
        }
        int n = (int) Math.max(0, want - empty);
        String p = letters(n, seed);
        int got = size(conf, context, stream, probe, p);
        if (got > 0 && got != want) { // the string's length prefix grows with it: correct once
            p = letters((int) Math.max(0, n - (got - want)), seed);
        }
        return p;
    }

    /** Serialized size of a sample tuple, -1 when it cannot be serialized here. */
    private static int size(Map<String, Object> conf, TopologyContext context, String stream, String key, String payload) {
        try {
            KryoTupleSerializer ser = new KryoTupleSerializer(conf, context);
            Values v = new Values(key, payload, Instrument.nowMicros());
            return ser.serialize(new TupleImpl(context, v, context.getThisComponentId(), context.getThisTaskId(), stream)).length;
        } catch (Throwable t) {
            LOG.warn("stormlab replay: cannot serialize a sample tuple of {} to size its payload, assuming {} bytes of header: {}",
                context.getThisComponentId(), FALLBACK_OVERHEAD, t.toString());
            return -1;
        }
    }

    static String letters(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('a' + r.nextInt(26)));
        }
        return sb.toString();
    }
}
