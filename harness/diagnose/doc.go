// Package diagnose says what limited a run: per node its CPU against its quota, per executor its busy
// fraction (its thread's CPU time over the window), the placement events of the window (workers
// restarted or silent, applied migrations), per node its cgroup's throttling and whether the host
// starved it (cgroup.go), and one bottleneck named by a fixed precedence
// (docs/statistics.md, "What limited a run"). What a run cannot tell is "unknown", never 0.
//
// It reads only what the run loop recorded (the workers' reports, the placement, the scheduler's
// decisions, the measured node CPU, the cgroup samples at the window's ends), so stored runs are
// diagnosed again when read back.
package diagnose
