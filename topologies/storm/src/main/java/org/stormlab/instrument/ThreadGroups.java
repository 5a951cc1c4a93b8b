package org.stormlab.instrument;

import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The CPU of a worker JVM's Java threads other than its executors', summed by group: a thread's name with
 * each run of digits replaced by '#' ("Netty-server-localhost-6700-worker-1" becomes
 * "Netty-server-localhost-#-worker-#"). A worker's CPU outside its executor threads is the transfer thread
 * handing the tuples its executors serialized for other workers to Netty (one batch per destination), Netty's
 * threads sending and receiving (and deserializing) them,
 * timers and heartbeats, and the JVM's own threads (GC, JIT compilers), which ThreadMXBean does not list:
 * those are what is left of the process CPU (worker_cpu_percent) after the executors and these groups.
 *
 * <p>Why by name: Storm names its threads by role and numbers its instances, so the name without its numbers
 * is the role, and a new Storm release's threads need no table here. A thread seen for the first time counts
 * from that reading (its CPU before is not this interval's), and a thread that ended between two readings
 * loses its last part: both are a few ms in a worker whose threads live as long as it does.
 */
final class ThreadGroups {
    private static final Pattern DIGITS = Pattern.compile("[0-9]+");

    private final Map<Long, Long> last = new HashMap<>();

    /** A thread name's group: its digits taken out. */
    static String group(String threadName) {
        return DIGITS.matcher(threadName).replaceAll("#");
    }

    /**
     * Each group's threads and their CPU in ns since the previous call, sorted by group, over the JVM's live
     * threads less exclude (the executor threads, reported per task). Empty where thread CPU time is not
     * supported.
     */
    Map<String, long[]> sample(ThreadMXBean mx, Set<Long> exclude) {
        Map<String, long[]> out = new TreeMap<>();
        if (!mx.isThreadCpuTimeSupported()) {
            return out;
        }
        Set<Long> seen = new HashSet<>();
        for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds(), 0)) {
            if (info == null || exclude.contains(info.getThreadId())) {
                continue; // ended since the ids were read, or an executor
            }
            long tid = info.getThreadId();
            long now = mx.getThreadCpuTime(tid);
            if (now < 0) {
                continue;
            }
            seen.add(tid);
            Long before = last.put(tid, now);
            long[] g = out.computeIfAbsent(group(info.getThreadName()), k -> new long[2]);
            g[0]++;
            g[1] += before == null ? 0 : Math.max(0, now - before);
        }
        last.keySet().retainAll(seen);
        return out;
    }
}
