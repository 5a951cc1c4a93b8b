// Package hostspeed measures what a second of CPU buys on this machine now. Cost models and
// throughput both count in CPU-seconds, yet on a shared host the same thread CPU time does more or
// less work from hour to hour (another tenant on the sibling hyperthread, the clock
// frequency): two runs with the same placement and the same CPU per thread carried tuples a third
// apart. A fixed probe, timed by its own thread's CPU clock, sampled through a run's window, gives each
// run that figure, so a slow host is named instead of guessed. Carrying a cost model measured in one hour
// to another by it (as CEPSim, on CloudSim, carries costs as instructions and machines as MIPS) is not
// done yet: the one measured relation is not proportional (docs/results-log.md).
//
// The probe runs in the harness's process, so it reads the host the harness runs on: on containers,
// the host of every node; on a target, not the nodes' machines (the run loop leaves it out there).
package hostspeed
