package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.spout.ISpoutOutputCollector;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * A bounded spout task whose worker restarts goes on from its saved position instead of emitting its
 * share again (PacedSpout with Offsets; the store is kept in memory here, in ZooKeeper on a cluster).
 */
class ResumeTest {
    private static final long BUDGET = 20_000; // bytes: a few hundred sentences
    private static final long SEED = 7;

    /** Records the emitted sentences and message ids of one spout incarnation. */
    static final class Recorder implements ISpoutOutputCollector {
        final List<String> sentences = new ArrayList<>();
        final List<Long> ids = new ArrayList<>();

        @Override
        public List<Integer> emit(String stream, List<Object> tuple, Object messageId) {
            sentences.add((String) tuple.get(0));
            ids.add((Long) messageId);
            return List.of();
        }

        @Override
        public void emitDirect(int taskId, String stream, List<Object> tuple, Object messageId) {}

        @Override
        public long getPendingCount() {
            return 0;
        }

        @Override
        public void flush() {}

        @Override
        public void reportError(Throwable error) {}
    }

    private static TopologyContext context() {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout("sentence", new WordCountTopology.SentenceSpout(0, BUDGET, SEED));
        StormTopology topo = b.createTopology();
        Map<String, Object> conf = new HashMap<>(Utils.readDefaultConfig());
        Map<String, Map<String, Fields>> fields = new HashMap<>();
        fields.put("sentence", new HashMap<>(Map.of("default", new Fields("sentence", "t_start"))));
        return new TopologyContext(topo, conf, new HashMap<>(Map.of(1, "sentence")), new HashMap<>(Map.of("sentence", List.of(1))),
            fields, new HashMap<>(), "resume-1-1", null, null, 1, 6700, new ArrayList<>(List.of(1)), new HashMap<>(),
            new HashMap<>(), new HashMap<>(), new HashMap<>(), new AtomicBoolean(false), null);
    }

    /** Opens a new incarnation of the task over the shared store and emits up to n tuples. */
    private static Recorder run(Map<String, String> store, int n, boolean pauseBeforeLast) throws InterruptedException {
        PacedSpout s = new WordCountTopology.SentenceSpout(0, BUDGET, SEED).keepOffsetsIn(store);
        Recorder rec = new Recorder();
        TopologyContext ctx = context();
        s.open(new HashMap<>(), ctx, new SpoutOutputCollector(rec));
        for (int i = 0; i < n; i++) {
            if (pauseBeforeLast && i == n - 1) {
                Thread.sleep(Offsets.SAVE_EVERY_MS + 50); // so the last emit saves the position
            }
            s.nextTuple();
        }
        s.close();
        return rec;
    }

    @Test
    void restartedTaskResumesInsteadOfStartingOver() throws Exception {
        Recorder whole = run(new HashMap<>(), 1_000_000, false);
        int total = whole.sentences.size();
        assertTrue(total > 200 && total < 5000, "budget gives " + total + " tuples");

        Map<String, String> store = new HashMap<>();
        int cut = total / 3;
        Recorder first = run(store, cut, true); // the worker dies after cut tuples, its last emit saved
        Recorder second = run(store, 1_000_000, false);
        Recorder third = run(store, 1000, false); // restarted after it finished: nothing more

        // The second incarnation starts at the saved position (the first's cut) and ends with the budget.
        assertEquals(cut, second.ids.get(0));
        assertEquals(total - cut, second.sentences.size());
        assertEquals(whole.sentences.subList(cut, total), second.sentences, "the resumed stream is the uninterrupted one");
        assertEquals(whole.sentences.subList(0, cut), first.sentences);
        assertEquals(0, third.sentences.size(), "a finished task stays finished");
    }

    @Test
    void positionsRoundTrip() {
        Offsets.Position p = new Offsets.Position(123, 4567, true);
        assertEquals(p, Offsets.Position.decode(p.encode()));
        assertEquals(Offsets.Position.START, Offsets.inMemory(new HashMap<>(), "t", 1).load());
    }
}
