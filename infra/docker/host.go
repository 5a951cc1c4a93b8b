package docker

import (
	"fmt"
	"runtime"
)

// DaemonReserveCores is the CPU this harness counts for the cluster's own daemons (ZooKeeper, Nimbus,
// the UI, the scheduler service), which run without a quota beside the supervisors. A choice: on this
// project's 2-core reference machine, Nimbus and ZooKeeper use a few percent of a core once a topology
// runs, with bursts at submission and rescheduling.
const DaemonReserveCores = 0.5

// Oversubscription says whether supervisors' CPU quotas can all be had at once on a host of hostCores:
// their sum plus DaemonReserveCores against the host's cores. over is "" when they fit, else the
// sentence that says so (with the figures), for the log and a run's manifest.
func Oversubscription(sups []SupervisorSpec, hostCores int) (quota float64, over string) {
	for _, s := range sups {
		quota += s.CPUs
	}
	if need := quota + DaemonReserveCores; need > float64(hostCores) {
		over = fmt.Sprintf("the supervisors' CPU quotas add up to %.2f cores, with %.1f for the daemons %.2f, on a host of %d: "+
			"the nodes cannot all get their quota at once, so a busy run may be host-starved (its measured CPU below its quota)",
			quota, DaemonReserveCores, need, hostCores)
	}
	return quota, over
}

// warnOversubscribed logs, at a cluster's start, that its shape asks more CPU than this host has.
func warnOversubscribed(cfg *config) {
	if _, over := Oversubscription(cfg.supervisors, runtime.NumCPU()); over != "" {
		cfg.logf("cluster %s: %s", cfg.shape, over)
	}
}
