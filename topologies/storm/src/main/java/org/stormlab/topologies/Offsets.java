package org.stormlab.topologies;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.storm.Config;
import org.apache.storm.shade.org.apache.curator.framework.CuratorFramework;
import org.apache.storm.shade.org.apache.zookeeper.KeeperException;
import org.apache.storm.utils.CuratorUtils;
import org.apache.storm.utils.ObjectReader;
import org.apache.storm.utils.ZookeeperAuthInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a dataset spout task keeps its position in the dataset, so a worker restart (a scheduler
 * moving the task, a killed worker) resumes the dataset instead of emitting it again from the start.
 * This is what a replayable source does with its committed offsets (a Kafka spout): without it, a
 * dynamic scheduler that migrates executors makes its own dataset longer with every migration, and a
 * dataset run may never end.
 *
 * <p>The position lives in the cluster's own ZooKeeper (the workers' storm.zookeeper.servers), at
 * /stormlab/spout-offsets/TOPOLOGY-ID/TASK-ID, as "tuples bytes done". It is saved at most every
 * {@link #SAVE_EVERY_MS} and when the task finishes, so a restart re-emits at most the tuples of the
 * last interval (at-least-once, like a source whose offsets are committed periodically). The nodes are
 * a few bytes per spout task and run; they are not removed when the topology is killed (Nimbus removes
 * only its own paths), which on a standing cluster leaves them under /stormlab for an operator to drop.
 *
 * <p>If ZooKeeper cannot be reached within {@link #CONNECT_MS}, the store is disabled (logged): the
 * task then restarts its share from the beginning, as before.
 */
final class Offsets implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Offsets.class);

    static final long SAVE_EVERY_MS = 250;
    static final int CONNECT_MS = 5000;

    /** A saved position: tuples emitted, their bytes, and whether the task had finished. */
    record Position(long tuples, long bytes, boolean done) {
        static final Position START = new Position(0, 0, false);

        String encode() {
            return tuples + " " + bytes + " " + (done ? 1 : 0);
        }

        static Position decode(String s) {
            String[] f = s.trim().split(" ");
            if (f.length != 3) {
                throw new IllegalArgumentException("spout offset \"" + s + "\": want \"tuples bytes done\"");
            }
            return new Position(Long.parseLong(f[0]), Long.parseLong(f[1]), f[2].equals("1"));
        }
    }

    private final CuratorFramework zk; // null: disabled, or kept in mem
    private final Map<String, String> mem; // tests: positions kept in memory instead of ZooKeeper
    private final String path;
    private long lastSaveMs;
    private boolean warned;

    private Offsets(CuratorFramework zk, String path) {
        this(zk, null, path);
    }

    private Offsets(CuratorFramework zk, Map<String, String> mem, String path) {
        this.zk = zk;
        this.mem = mem;
        this.path = path;
    }

    /** A store that keeps positions in mem (tests: a worker restart without a cluster). */
    static Offsets inMemory(Map<String, String> mem, String topologyId, int taskId) {
        return new Offsets(null, mem, "/stormlab/spout-offsets/" + topologyId + "/" + taskId);
    }

    /** Opens the store of one spout task; never throws (a store that cannot connect is disabled). */
    static Offsets open(Map<String, Object> conf, String topologyId, int taskId) {
        String path = "/stormlab/spout-offsets/" + topologyId + "/" + taskId;
        CuratorFramework zk = null;
        try {
            @SuppressWarnings("unchecked")
            List<String> servers = (List<String>) conf.get(Config.STORM_ZOOKEEPER_SERVERS);
            Object port = conf.get(Config.STORM_ZOOKEEPER_PORT);
            if (servers == null || servers.isEmpty() || port == null) {
                LOG.warn("stormlab spout offsets: no storm.zookeeper.servers/port in the worker conf; a restarted task emits its share again");
                return new Offsets(null, path);
            }
            zk = CuratorUtils.newCuratorStarted(conf, servers, ObjectReader.getInt(port), "", new ZookeeperAuthInfo(conf), null);
            if (!zk.blockUntilConnected(CONNECT_MS, TimeUnit.MILLISECONDS)) {
                LOG.warn("stormlab spout offsets: ZooKeeper {} not reached in {} ms; a restarted task emits its share again", servers, CONNECT_MS);
                zk.close();
                return new Offsets(null, path);
            }
            return new Offsets(zk, path);
        } catch (Exception e) {
            LOG.warn("stormlab spout offsets disabled: {}", e.toString());
            if (zk != null) {
                zk.close();
            }
            return new Offsets(null, path);
        } catch (LinkageError e) {
            // A cluster whose worker classpath lacks storm-client's shaded Curator: run without offsets.
            LOG.warn("stormlab spout offsets disabled: {}", e.toString());
            return new Offsets(null, path);
        }
    }

    /** The saved position, or START when there is none (or the store is disabled). */
    Position load() {
        if (mem != null) {
            String v = mem.get(path);
            return v == null ? Position.START : Position.decode(v);
        }
        if (zk == null) {
            return Position.START;
        }
        try {
            byte[] b = zk.getData().forPath(path);
            return Position.decode(new String(b, StandardCharsets.UTF_8));
        } catch (KeeperException.NoNodeException e) {
            return Position.START;
        } catch (Exception e) {
            LOG.warn("stormlab spout offsets: reading {} failed, starting the share from the beginning: {}", path, e.toString());
            return Position.START;
        }
    }

    /**
     * Saves the position (tuples, bytes, done) if SAVE_EVERY_MS passed since the last save, and always
     * when the task is done. Called for every tuple: nothing is allocated unless it saves.
     */
    void save(long tuples, long bytes, boolean done) {
        long now = System.currentTimeMillis();
        if ((zk == null && mem == null) || (!done && now - lastSaveMs < SAVE_EVERY_MS)) {
            return;
        }
        lastSaveMs = now;
        Position p = new Position(tuples, bytes, done);
        if (mem != null) {
            mem.put(path, p.encode());
            return;
        }
        byte[] b = p.encode().getBytes(StandardCharsets.UTF_8);
        try {
            if (zk.checkExists().forPath(path) == null) {
                zk.create().creatingParentsIfNeeded().forPath(path, b);
            } else {
                zk.setData().forPath(path, b);
            }
        } catch (Exception e) {
            if (!warned) {
                warned = true; // once: a ZooKeeper outage must not flood the worker log
                LOG.warn("stormlab spout offsets: saving {} failed: {}", path, e.toString());
            }
        }
    }

    @Override
    public void close() {
        if (zk != null) {
            zk.close();
        }
    }
}
