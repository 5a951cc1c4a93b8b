// Package capture records a topology that runs on a Storm cluster (a target file) as a
// topologies.Captured: its components, tasks, parallelism and stream groupings, the CPU and tuple
// rates of every task and task pair over a time window, and where each task ran. It is the job of
// Storm's own storm-loadgen CaptureLoad (examples/storm-loadgen), which reads the topology's structure
// and Storm's statistics from Nimbus; here the structure comes from the Storm UI's REST API (the
// topology's visualization data and component pages) and the rates from one of two sources:
//
//   - instrumented (exact): the stormlab task hook's worker reports, read from the scheduler
//     service, give each task's thread CPU time, the tuples each task executed from each source task
//     and the tuples each task emitted per stream, over the window;
//   - storm-ui (estimated), when no report of the topology arrives (a topology run without stormlab's
//     instrumentation): Storm's own all-time counters, read at both ends of the window, give
//     per-stream and per-executor rates; tuples are spread over the task pairs each grouping connects
//     and a bolt's CPU is estimated by its busy time (tuples executed times execute latency). Storm
//     counts a sample of the tuples (topology.stats.sample.rate, 5% by default) and scales up, so
//     these rates are estimates in steps of 1/rate per executor. Nimbus holds the counters as the
//     workers last sent them, every executor.metrics.frequency.secs (60 s by default, 1 s on
//     stormlab's containers): counts are divided by the growth of the executors' uptimes, which
//     Storm stamps with the statistics, and a window in which a component's statistics did not
//     refresh is refused (on a default Storm, capture for well over 60 s).
//
// Capture only reads: it changes nothing on the cluster.
package capture
