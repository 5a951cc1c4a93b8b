// Package diagnose says what limited a run: per node its CPU against its quota, per executor its busy
// fraction (its thread's CPU time over the window), the placement events of the window (workers
// restarted or silent, applied migrations), and one bottleneck named by a fixed precedence
// (docs/statistics.md, "What limited a run"). What a run cannot tell is "unknown", never 0.
//
// It reads only what the run loop already recorded (the workers' reports, the placement, the
// scheduler's decisions, the measured node CPU), so stored runs are diagnosed again when read back.
package diagnose
