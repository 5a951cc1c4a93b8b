// Package service is the Go scheduler service that Storm's Nimbus calls
// through the bridge (infra/docker/bridge, a Java IScheduler).
//
// Each scheduling round the bridge POSTs a protocol.Snapshot to
// /v1/schedule; the service turns every topology into a schedulers.Problem
// (one graph vertex per executor, weights from the measured load), runs the
// chosen scheduler and answers a protocol.Decision with the new placement of
// the topologies it wants to change. The workers' metrics consumers POST
// protocol.WorkerReport to /v1/metrics; the service keeps the load table
// (per node and per executor) and the accumulated traffic matrix from them.
// The harness reads everything back from GET /v1/state and /v1/reports.
//
// Choices where the papers and Storm leave room, in one place:
//   - A topology is "placed for the first time" (Scheduler.Schedule) when
//     some executor of it has no slot. Storm's own needs-scheduling flag is
//     also true when fewer workers than requested are in use, which a
//     partitioning scheduler may choose; treating that as a first placement
//     would recompute the placement every round.
//   - A running topology is given to Dynamic.Reschedule at most once per
//     reschedule period (default 30 s, counted from its last decision) and
//     the answer is sent only when apply is true and the placement differs.
//   - Vertex weight = measured CPU of the executor's tasks (percent of one
//     core) over the newest report of each worker; before any measurement 1
//     per executor; an executor without a measurement while others have one
//     gets their mean. Edge weight = measured tuples/s between executors;
//     before any traffic is measured, weight 1 between every executor pair
//     of each component stream.
//   - Worker reports older than three report intervals (at least 30 s)
//     before the topology's newest report no longer count for the load
//     table, so a moved worker's old numbers fade out.
//   - The per-task monitor's clock (Load.NowMs, "Now" of eq. 1 in
//     002_39f4f6839cbfd73d.txt) counts milliseconds since the topology's
//     earliest reported interval began; every task's T_start is 0 on it.
//     Per-task memory and tuple size are not measured (TaskLoad.MemoryMB and
//     TupleSize stay 0: the schedulers use their defaults).
package service
