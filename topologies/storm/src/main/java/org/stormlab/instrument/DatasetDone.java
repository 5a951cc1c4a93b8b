package org.stormlab.instrument;

import java.util.Map;
import org.apache.storm.task.TopologyContext;

/**
 * What a dataset spout task tells the instrumentation: that it has emitted its whole share of a finite
 * dataset, and how many tuples that was. The reporter sends it in every report from then on
 * ("spout_done"), so the harness sees the end of a dataset from the workers' reports alone, on any
 * cluster, without reading worker logs.
 */
public final class DatasetDone {
    private final WorkerStats worker;
    private final TaskStats task;

    DatasetDone(WorkerStats worker, TaskStats task) {
        this.worker = worker;
        this.task = task;
    }

    /** The recorder of one spout task, or null when the topology runs without the stormlab hook. */
    public static DatasetDone of(Map<String, Object> conf, TopologyContext context) {
        WorkerStats w = Registry.workerOf(conf, context);
        if (w == null) {
            return null;
        }
        return new DatasetDone(w, w.task(context.getThisTaskId()));
    }

    /** The task has emitted its whole share: tuples in all (also when it resumed done after a restart). */
    public void done(long tuples) {
        task.datasetTuples = tuples;
        worker.datasetDone = true;
    }
}
