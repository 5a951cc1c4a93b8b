package org.stormlab.bridge;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.storm.scheduler.ExecutorDetails;
import org.apache.storm.scheduler.WorkerSlot;

/**
 * A validated placement of one topology: slot -> executors. Validation is
 * separate from Storm's Cluster so it can be tested on plain values.
 */
public final class Plan {
    /** Slots in the order the service listed them. */
    public final Map<WorkerSlot, List<ExecutorDetails>> slots;

    private Plan(Map<WorkerSlot, List<ExecutorDetails>> slots) {
        this.slots = slots;
    }

    /** Raised for a decision that must not be applied; the message says why. */
    public static final class InvalidDecision extends Exception {
        InvalidDecision(String msg) {
            super(msg);
        }
    }

    /**
     * Checks a decision: every executor of the topology exactly once, only
     * known executors, every slot on a known supervisor port, no slot twice,
     * no slot held by another topology. Workers without executors are skipped.
     *
     * @param executors        the topology's executors
     * @param ports            supervisor id -> its ports
     * @param occupiedByOthers slots that other topologies hold now
     */
    public static Plan validate(Wire.TopologyDecision d, Set<ExecutorDetails> executors,
                                Map<String, Set<Integer>> ports, Set<WorkerSlot> occupiedByOthers)
            throws InvalidDecision {
        if (d.workers() == null || d.workers().isEmpty()) {
            throw new InvalidDecision("decision for " + d.id() + " has no workers");
        }
        Map<WorkerSlot, List<ExecutorDetails>> slots = new LinkedHashMap<>();
        Set<ExecutorDetails> seen = new HashSet<>();
        for (Wire.WorkerAssignment w : d.workers()) {
            if (w.executors() == null || w.executors().isEmpty()) {
                continue;
            }
            Set<Integer> p = w.supervisor() == null ? null : ports.get(w.supervisor());
            if (p == null) {
                throw new InvalidDecision("worker on unknown supervisor " + w.supervisor());
            }
            if (!p.contains(w.port())) {
                throw new InvalidDecision("supervisor " + w.supervisor() + " has no port " + w.port());
            }
            WorkerSlot slot = new WorkerSlot(w.supervisor(), w.port());
            if (slots.containsKey(slot)) {
                throw new InvalidDecision("slot " + slot + " is used by two workers");
            }
            if (occupiedByOthers.contains(slot)) {
                throw new InvalidDecision("slot " + slot + " is held by another topology");
            }
            List<ExecutorDetails> list = new ArrayList<>();
            for (Wire.Executor e : w.executors()) {
                if (e == null) {
                    throw new InvalidDecision("null executor on slot " + slot);
                }
                ExecutorDetails ed = new ExecutorDetails(e.start(), e.end());
                if (!executors.contains(ed)) {
                    throw new InvalidDecision("executor [" + e.start() + " " + e.end() + "] is not in topology " + d.id());
                }
                if (!seen.add(ed)) {
                    throw new InvalidDecision("executor [" + e.start() + " " + e.end() + "] is placed twice");
                }
                list.add(ed);
            }
            slots.put(slot, list);
        }
        if (seen.size() != executors.size()) {
            Set<ExecutorDetails> missing = new HashSet<>(executors);
            missing.removeAll(seen);
            throw new InvalidDecision(missing.size() + " executor(s) of " + d.id() + " not placed, e.g. " + missing.iterator().next());
        }
        return new Plan(slots);
    }

    /** True when this plan puts every executor where current has it. */
    public boolean sameAs(Map<ExecutorDetails, WorkerSlot> current) {
        if (current == null) {
            return false;
        }
        Map<ExecutorDetails, WorkerSlot> mine = new HashMap<>();
        for (Map.Entry<WorkerSlot, List<ExecutorDetails>> e : slots.entrySet()) {
            for (ExecutorDetails ed : e.getValue()) {
                mine.put(ed, e.getKey());
            }
        }
        return mine.equals(current);
    }
}
