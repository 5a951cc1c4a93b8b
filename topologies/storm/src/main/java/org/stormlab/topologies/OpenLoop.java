package org.stormlab.topologies;

import java.io.Serializable;

/**
 * The open-loop settings of a topology's spouts (--rate, --rate-per, --arrivals), or none: with --rate 0
 * (the default) the spouts keep their paced or unpaced closed loop exactly as before.
 */
final class OpenLoop implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * The highest rate accepted, tuples/s (per topology, or per task with --rate-per task). A stated bound,
     * not a measured one: a spout task emits at most 1000 tuples per nextTuple call and Storm's spout wait
     * strategy sleeps 1 ms between empty calls, so above this the schedule is not what a spout task can
     * follow on the containers' cores.
     */
    static final double MAX_RATE = 100_000;

    final double rate;
    final boolean perTask;
    final SendSchedule.Arrivals arrivals;
    final long seed;

    OpenLoop(double rate, boolean perTask, SendSchedule.Arrivals arrivals, long seed) {
        this.rate = rate;
        this.perTask = perTask;
        this.arrivals = arrivals;
        this.seed = seed;
    }

    /** The settings from parsed flags, or null when --rate is 0 (closed loop). */
    static OpenLoop from(Args a) {
        double rate = a.number("rate");
        if (rate == 0) {
            return null;
        }
        if (rate < 0 || rate > MAX_RATE) {
            throw new IllegalArgumentException("--rate is " + rate + ": give a rate in tuples/s above 0 and at most "
                + (long) MAX_RATE + " (0 = closed loop, the default)");
        }
        String per = a.string("rate-per");
        if (!per.equals("topology") && !per.equals("task")) {
            throw new IllegalArgumentException("--rate-per is \"" + per + "\": use topology or task");
        }
        return new OpenLoop(rate, per.equals("task"), SendSchedule.parse(a.string("arrivals")), a.longValue("seed"));
    }

    /** One spout task's rate: the topology's rate divided over the component's tasks, or the rate itself. */
    double ratePerTask(int tasks) {
        return perTask ? rate : rate / Math.max(1, tasks);
    }

    /** The schedule of one task: each task draws from its own seeded stream. */
    SendSchedule schedule(int tasks, int taskIndex) {
        return SendSchedule.of(arrivals, ratePerTask(tasks), seed * 1_000_003L + 7919L * taskIndex + 17);
    }
}
