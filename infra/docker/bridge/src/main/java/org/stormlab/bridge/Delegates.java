package org.stormlab.bridge;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.DefaultScheduler;
import org.apache.storm.scheduler.EvenScheduler;
import org.apache.storm.scheduler.SupervisorDetails;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
import org.apache.storm.scheduler.WorkerSlot;
import org.apache.storm.scheduler.resource.ResourceAwareScheduler;
import org.apache.storm.utils.Utils;

/**
 * Per-topology scheduler choice: each topology names its scheduler in its
 * topology conf ({@link #TOPOLOGY_CONF}, e.g. {@code --conf stormlab.scheduler=storm-ras}
 * or {@code storm jar ... -c stormlab.scheduler=kpart}). The names of Storm's own
 * schedulers ({@link #EVEN}, {@link #DEFAULT}, {@link #RAS}) are run in process on a
 * view of the cluster that holds only their topologies; any other name is a Go
 * scheduler and goes to the service. A topology naming none gets
 * {@link #CONF_DEFAULT} from Nimbus's conf, by default {@link #DEFAULT}: what Nimbus
 * does without a storm.scheduler.
 *
 * <p>The view is a {@link SubsetCluster}, a copy of the cluster as Storm's own
 * SingleTopologyCluster makes one for RAS: it holds every topology and assignment (so
 * slots and resources other topologies use are taken), but its {@code getTopologies()}
 * and so {@code needsSchedulingTopologies()} list only the subset, so EvenScheduler, DefaultScheduler and
 * ResourceAwareScheduler (which all iterate those) place only their own topologies
 * and RAS evicts only among its own. The view's assignments and statuses are then
 * copied back ({@code Cluster.updateFrom}).
 *
 * <p>A topology may also name the supervisor hosts its workers may use ({@link #NODES_CONF}, e.g.
 * {@code --conf stormlab.nodes=sup1,sup2}): Storm's EvenScheduler and DefaultScheduler then place it
 * on a view whose free slots are those hosts' only, one view per topology. It is how an experiment
 * asks for "4 workers on n nodes" on a cluster it did not build (a user's): EvenScheduler itself
 * spreads over every free slot. RAS and the Go schedulers ignore it (they choose nodes by design); a
 * list naming no live supervisor leaves the topology unassigned, with a status saying so.
 *
 * <p>Differences from running Storm's scheduler as storm.scheduler itself: Nimbus
 * decides a few things at submission from storm.scheduler alone (ServerUtils.isRas):
 * under the bridge a RAS topology gets Nimbus's default acker and event-logger counts
 * (one per worker) instead of RAS's estimated worker count, and
 * nimbus.slots.perTopology is checked for it. RAS is prepared once, on first use,
 * with Nimbus's conf.
 */
final class Delegates {
    /** The topology conf key naming a topology's scheduler. */
    static final String TOPOLOGY_CONF = "stormlab.scheduler";
    /** The topology conf key listing the supervisor hosts (comma-separated, or a list) Even and Default may use. */
    static final String NODES_CONF = "stormlab.nodes";
    /** Nimbus conf key: the scheduler of topologies that name none. */
    static final String CONF_DEFAULT = "stormlab.scheduler.default";

    static final String EVEN = "storm-even";
    static final String DEFAULT = "storm-default";
    static final String RAS = "storm-ras";
    /** The group of topologies the Go service places. */
    static final String SERVICE = "service";

    private final Map<String, Object> conf;
    private final StormMetricsRegistry metrics;
    private final String fallbackName;
    private ResourceAwareScheduler ras;

    Delegates(Map<String, Object> conf, StormMetricsRegistry metrics) {
        this.conf = conf;
        this.metrics = metrics;
        String d = conf == null ? null : str(conf.get(CONF_DEFAULT));
        this.fallbackName = d == null ? DEFAULT : d;
    }

    /** The scheduler for topologies naming none. */
    String defaultName() {
        return fallbackName;
    }

    static boolean isNative(String name) {
        return EVEN.equals(name) || DEFAULT.equals(name) || RAS.equals(name);
    }

    /** The name a topology chose, or the default. */
    String chosen(TopologyDetails td) {
        String n = td.getConf() == null ? null : str(td.getConf().get(TOPOLOGY_CONF));
        return n == null ? fallbackName : n;
    }

    /**
     * Groups topologies by who places them: {@link #SERVICE} for Go schedulers, else
     * the native name. Groups in a fixed order (service first, then by name).
     */
    Map<String, List<TopologyDetails>> group(Topologies topologies) {
        Map<String, List<TopologyDetails>> natives = new TreeMap<>();
        List<TopologyDetails> service = new ArrayList<>();
        for (TopologyDetails td : topologies.getTopologies()) {
            String n = chosen(td);
            if (isNative(n)) {
                natives.computeIfAbsent(n, k -> new ArrayList<>()).add(td);
            } else {
                service.add(td);
            }
        }
        Map<String, List<TopologyDetails>> out = new LinkedHashMap<>();
        if (!service.isEmpty()) {
            out.put(SERVICE, service);
        }
        out.putAll(natives);
        return out;
    }

    /** Runs a native scheduler on the subset's view of cluster. */
    void schedule(String name, Collection<TopologyDetails> subset, Cluster cluster) {
        switch (name) {
            case EVEN:
                onNodes(subset, cluster, EvenScheduler::scheduleTopologiesEvenly);
                break;
            case DEFAULT:
                onNodes(subset, cluster, DefaultScheduler::defaultSchedule);
                break;
            case RAS:
                ResourceAwareScheduler r = ras();
                onView(subset, cluster, r::schedule);
                break;
            default:
                throw new IllegalArgumentException("not a native scheduler: " + name);
        }
    }

    private synchronized ResourceAwareScheduler ras() {
        if (ras == null) {
            Map<String, Object> c = conf != null ? conf : Utils.readDefaultConfig();
            ResourceAwareScheduler r = new ResourceAwareScheduler();
            r.prepare(c, metrics != null ? metrics : new StormMetricsRegistry());
            ras = r;
        }
        return ras;
    }

    /** The user resource pools of RAS once prepared (IScheduler.config), else none. */
    synchronized Map<String, Map<String, Double>> config() {
        return ras == null ? new HashMap<>() : ras.config();
    }

    /**
     * Runs fn on one view for the topologies of subset that name no nodes, and on a view of
     * its own, limited to the named hosts' slots, for each that does.
     */
    static void onNodes(Collection<TopologyDetails> subset, Cluster cluster, BiConsumer<Topologies, Cluster> fn) {
        List<TopologyDetails> free = new ArrayList<>();
        for (TopologyDetails td : subset) {
            Set<String> hosts = nodes(td);
            if (hosts == null) {
                free.add(td);
                continue;
            }
            onView(List.of(td), cluster, hosts, fn);
            if (!cluster.getUnassignedExecutors(td).isEmpty() && !anyHost(cluster, hosts)) {
                cluster.setStatus(td.getId(), "stormlab: no live supervisor on the hosts of " + NODES_CONF + " " + hosts);
            }
        }
        if (!free.isEmpty()) {
            onView(free, cluster, null, fn);
        }
    }

    /** The hosts a topology's stormlab.nodes names, or null when it names none. */
    static Set<String> nodes(TopologyDetails td) {
        Object v = td.getConf() == null ? null : td.getConf().get(NODES_CONF);
        if (v == null) {
            return null;
        }
        Collection<?> items = v instanceof Collection ? (Collection<?>) v : List.of(String.valueOf(v).split(","));
        Set<String> out = new TreeSet<>();
        for (Object o : items) {
            String h = str(o);
            if (h != null) {
                out.add(h);
            }
        }
        return out.isEmpty() ? null : out;
    }

    private static boolean anyHost(Cluster cluster, Set<String> hosts) {
        for (SupervisorDetails s : cluster.getSupervisors().values()) {
            if (hosts.contains(s.getHost())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs fn on a view of cluster whose topologies are subset's (every assignment
     * stays in it), then copies the view's assignments and statuses back.
     */
    static void onView(Collection<TopologyDetails> subset, Cluster cluster, BiConsumer<Topologies, Cluster> fn) {
        onView(subset, cluster, null, fn);
    }

    /** As onView, with free slots only on hosts (all when null). */
    static void onView(Collection<TopologyDetails> subset, Cluster cluster, Set<String> hosts, BiConsumer<Topologies, Cluster> fn) {
        Map<String, TopologyDetails> m = new HashMap<>();
        for (TopologyDetails td : subset) {
            m.put(td.getId(), td);
        }
        Topologies view = new Topologies(m);
        SubsetCluster vc = new SubsetCluster(cluster, view, hosts);
        fn.accept(view, vc);
        cluster.updateFrom(vc);
    }

    /**
     * A copy of a cluster (all topologies and assignments, as Storm's SingleTopologyCluster
     * copies it) that lists only some topologies: getTopologies, and with it
     * needsSchedulingTopologies, which Storm's schedulers iterate. The copy must hold every
     * topology, not only the subset: Cluster drops the assignments of topologies it does not
     * know, and the subset's scheduler would then take their slots.
     */
    static final class SubsetCluster extends Cluster {
        private final Topologies subset;
        private final Set<String> hosts; // null: every host's free slots

        SubsetCluster(Cluster src, Topologies subset, Set<String> hosts) {
            super(src);
            this.subset = subset;
            this.hosts = hosts;
        }

        @Override
        public Topologies getTopologies() {
            return subset == null ? super.getTopologies() : subset; // null while the copy is built
        }

        /** Limited to hosts: the free slots EvenScheduler (and DefaultScheduler through it) place on. */
        @Override
        public List<WorkerSlot> getAvailableSlots() {
            List<WorkerSlot> all = super.getAvailableSlots();
            if (hosts == null) {
                return all;
            }
            List<WorkerSlot> out = new ArrayList<>();
            for (WorkerSlot s : all) {
                if (hosts.contains(getHost(s.getNodeId()))) {
                    out.add(s);
                }
            }
            return out;
        }
    }

    private static String str(Object o) {
        if (o == null) {
            return null;
        }
        String s = String.valueOf(o).trim();
        return s.isEmpty() ? null : s;
    }
}
