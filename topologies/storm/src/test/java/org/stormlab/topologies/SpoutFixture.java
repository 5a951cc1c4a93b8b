package org.stormlab.topologies;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.spout.ISpoutOutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.IRichSpout;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.Utils;

/** Drives one spout task outside Storm: a collector that records and a one-task context. */
final class SpoutFixture {
    private SpoutFixture() {}

    /** Records what a spout emits: each tuple and its message id. */
    static final class Recorder implements ISpoutOutputCollector {
        final List<List<Object>> tuples = new ArrayList<>();
        final List<Object> ids = new ArrayList<>();

        /** The tuples' first values as strings (the sentences of a sentence spout). */
        List<String> firsts() {
            List<String> out = new ArrayList<>();
            for (List<Object> t : tuples) {
                out.add((String) t.get(0));
            }
            return out;
        }

        @Override
        public List<Integer> emit(String stream, List<Object> tuple, Object messageId) {
            tuples.add(tuple);
            ids.add(messageId);
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

    /** The context of task 1, the only task of the spout component, declaring fields on "default". */
    static TopologyContext context(String component, IRichSpout spout, Fields fields, String stormId) {
        TopologyBuilder b = new TopologyBuilder();
        b.setSpout(component, spout);
        StormTopology topo = b.createTopology();
        Map<String, Object> conf = new HashMap<>(Utils.readDefaultConfig());
        Map<String, Map<String, Fields>> declared = new HashMap<>();
        declared.put(component, new HashMap<>(Map.of("default", fields)));
        return new TopologyContext(topo, conf, new HashMap<>(Map.of(1, component)), new HashMap<>(Map.of(component, List.of(1))),
            declared, new HashMap<>(), stormId, null, null, 1, 6700, new ArrayList<>(List.of(1)), new HashMap<>(),
            new HashMap<>(), new HashMap<>(), new HashMap<>(), new AtomicBoolean(false), null);
    }
}
