package org.stormlab.bridge;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.apache.storm.metric.StormMetricsRegistry;
import org.apache.storm.scheduler.Cluster;
import org.apache.storm.scheduler.DefaultScheduler;
import org.apache.storm.scheduler.EvenScheduler;
import org.apache.storm.scheduler.Topologies;
import org.apache.storm.scheduler.TopologyDetails;
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
                onView(subset, cluster, EvenScheduler::scheduleTopologiesEvenly);
                break;
            case DEFAULT:
                onView(subset, cluster, DefaultScheduler::defaultSchedule);
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
     * Runs fn on a view of cluster whose topologies are subset's (every assignment
     * stays in it), then copies the view's assignments and statuses back.
     */
    static void onView(Collection<TopologyDetails> subset, Cluster cluster, BiConsumer<Topologies, Cluster> fn) {
        Map<String, TopologyDetails> m = new HashMap<>();
        for (TopologyDetails td : subset) {
            m.put(td.getId(), td);
        }
        Topologies view = new Topologies(m);
        SubsetCluster vc = new SubsetCluster(cluster, view);
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

        SubsetCluster(Cluster src, Topologies subset) {
            super(src);
            this.subset = subset;
        }

        @Override
        public Topologies getTopologies() {
            return subset == null ? super.getTopologies() : subset; // null while the copy is built
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
