package org.stormlab.instrument;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import org.junit.jupiter.api.Test;

/** The spout_done field: absent until a dataset task is done, then in every report (cumulative). */
class DatasetDoneReportTest {
    private static String render(WorkerStats w) {
        return Reporter.render(w, "node-1", 1, 5, 0, 0, id -> -1, new HashMap<>());
    }

    @Test
    void doneTasksAreReportedInEveryReport() {
        WorkerStats w = new WorkerStats("t", 6700, 10, 1);
        TaskStats t3 = w.task(3);
        w.task(4);
        assertFalse(render(w).contains("spout_done"), "no task done yet");
        new DatasetDone(w, t3).done(42);
        String want = "\"spout_done\":[{\"task\":3,\"tuples\":42}]";
        assertTrue(render(w).contains(want), "first report after done");
        assertTrue(render(w).contains(want), "the next report too: the field is not a delta");
    }
}
