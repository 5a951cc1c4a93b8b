package org.stormlab.bridge;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.storm.generated.Bolt;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.Grouping;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.SchedulerAssignment;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;

/** Builds the wire Snapshot from what Nimbus hands the scheduler. */
public final class Snapshots {
    private Snapshots() {
    }

    static Wire.Executor wire(ExecutorDetails e) {
        return new Wire.Executor(e.getStartTask(), e.getEndTask());
    }

    /** Every topology (sorted by id) and every supervisor (sorted by id). */
    public static Wire.Snapshot build(Topologies topologies, Cluster cluster, long timeMs, double prevRoundMs) {
        List<TopologyDetails> tds = new ArrayList<>(topologies.getTopologies());
        tds.sort(Comparator.comparing(TopologyDetails::getId));
        List<Wire.Topology> tops = new ArrayList<>();
        for (TopologyDetails td : tds) {
            tops.add(topology(td, cluster));
        }
        List<SupervisorDetails> sds = new ArrayList<>(cluster.getSupervisors().values());
        sds.sort(Comparator.comparing(SupervisorDetails::getId));
        List<Wire.Supervisor> sups = new ArrayList<>();
        for (SupervisorDetails sd : sds) {
            List<Integer> ports = new ArrayList<>(sd.getAllPorts());
            ports.sort(null);
            List<Integer> free = new ArrayList<>(cluster.getAvailablePorts(sd));
            free.sort(null);
            sups.add(new Wire.Supervisor(sd.getId(), sd.getHost(), sd.getTotalCpu(), sd.getTotalMemory(),
                    ports, free, meta(sd.getSchedulerMeta())));
        }
        return new Wire.Snapshot(timeMs, tops, sups, prevRoundMs);
    }

    static Wire.Topology topology(TopologyDetails td, Cluster cluster) {
        List<Wire.ComponentExecutor> execs = new ArrayList<>();
        List<Map.Entry<ExecutorDetails, String>> entries = new ArrayList<>(td.getExecutorToComponent().entrySet());
        entries.sort(Comparator.comparingInt(en -> en.getKey().getStartTask()));
        for (Map.Entry<ExecutorDetails, String> en : entries) {
            Double mem = td.getTotalMemReqTask(en.getKey()); // null: an executor Storm keeps no resources for
            execs.add(new Wire.ComponentExecutor(wire(en.getKey()), en.getValue(), mem == null ? 0 : mem));
        }
        List<Wire.ExecutorSlot> assignment = new ArrayList<>();
        SchedulerAssignment sa = cluster.getAssignmentById(td.getId());
        if (sa != null) {
            List<Map.Entry<ExecutorDetails, WorkerSlot>> placed = new ArrayList<>(sa.getExecutorToSlot().entrySet());
            placed.sort(Comparator.comparingInt(en -> en.getKey().getStartTask()));
            for (Map.Entry<ExecutorDetails, WorkerSlot> en : placed) {
                assignment.add(new Wire.ExecutorSlot(wire(en.getKey()), en.getValue().getNodeId(), en.getValue().getPort()));
            }
        }
        return new Wire.Topology(td.getId(), td.getName(), td.getNumWorkers(), execs, streams(td.getTopology()),
                assignment, cluster.needsScheduling(td));
    }

    /** Component-level streams from the user topology (system streams are not in it). */
    static List<Wire.Stream> streams(StormTopology st) {
        List<Wire.Stream> out = new ArrayList<>();
        if (st == null || st.get_bolts() == null) {
            return out;
        }
        Map<String, Bolt> bolts = new TreeMap<>(st.get_bolts());
        for (Map.Entry<String, Bolt> b : bolts.entrySet()) {
            if (b.getValue().get_common() == null || b.getValue().get_common().get_inputs() == null) {
                continue;
            }
            for (Map.Entry<GlobalStreamId, Grouping> in : b.getValue().get_common().get_inputs().entrySet()) {
                Grouping g = in.getValue();
                String kind = g == null || g.getSetField() == null ? "" : g.getSetField().getFieldName();
                out.add(new Wire.Stream(in.getKey().get_componentId(), b.getKey(), kind));
            }
        }
        out.sort(Comparator.comparing(Wire.Stream::from).thenComparing(Wire.Stream::to));
        return out;
    }

    static Map<String, String> meta(Object m) {
        if (!(m instanceof Map<?, ?> map) || map.isEmpty()) {
            return null;
        }
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            out.put(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
        }
        return out;
    }

    static int countExecutors(Collection<Wire.Topology> tops) {
        int n = 0;
        for (Wire.Topology t : tops) {
            n += t.executors().size();
        }
        return n;
    }
}
