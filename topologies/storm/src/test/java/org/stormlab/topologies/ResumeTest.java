package org.stormlab.topologies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Fields;
import org.junit.jupiter.api.Test;

/**
 * A bounded spout task whose worker restarts goes on from its saved position instead of emitting its
 * share again (PacedSpout with Offsets; the store is kept in memory here, in ZooKeeper on a cluster).
 */
class ResumeTest {
    private static final long BUDGET = 20_000; // bytes: a few hundred sentences
    private static final long SEED = 7;

    private static TopologyContext context() {
        return SpoutFixture.context("sentence", new WordCountTopology.SentenceSpout(0, BUDGET, SEED), new Fields("sentence", "t_start"), "resume-1-1");
    }

    /** Opens a new incarnation of the task over the shared store and emits up to n tuples. */
    private static SpoutFixture.Recorder run(Map<String, String> store, int n, boolean pauseBeforeLast) throws InterruptedException {
        PacedSpout s = new WordCountTopology.SentenceSpout(0, BUDGET, SEED).keepOffsetsIn(store);
        SpoutFixture.Recorder rec = new SpoutFixture.Recorder();
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
        SpoutFixture.Recorder whole = run(new HashMap<>(), 1_000_000, false);
        int total = whole.firsts().size();
        assertTrue(total > 200 && total < 5000, "budget gives " + total + " tuples");

        Map<String, String> store = new HashMap<>();
        int cut = total / 3;
        SpoutFixture.Recorder first = run(store, cut, true); // the worker dies after cut tuples, its last emit saved
        SpoutFixture.Recorder second = run(store, 1_000_000, false);
        SpoutFixture.Recorder third = run(store, 1000, false); // restarted after it finished: nothing more

        // The second incarnation starts at the saved position (the first's cut) and ends with the budget.
        assertEquals(cut, (Long) second.ids.get(0));
        assertEquals(total - cut, second.firsts().size());
        assertEquals(whole.firsts().subList(cut, total), second.firsts(), "the resumed stream is the uninterrupted one");
        assertEquals(whole.firsts().subList(0, cut), first.firsts());
        assertEquals(0, third.firsts().size(), "a finished task stays finished");
    }

    @Test
    void positionsRoundTrip() {
        Offsets.Position p = new Offsets.Position(123, 4567, true);
        assertEquals(p, Offsets.Position.decode(p.encode()));
        assertEquals(Offsets.Position.START, Offsets.inMemory(new HashMap<>(), "t", 1).load());
    }
}
