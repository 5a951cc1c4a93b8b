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
// The harness reads everything back from GET /v1/state and /v1/reports;
// GET /metrics serves the same state to Prometheus (prom.go), read at
// scrape time from the service's own registry.
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
//     After an applied change it waits, in addition, until every worker of
//     the new placement has reported one period (at least 10 s) of work
//     after the change and after its own (re)start (at most 2 min plus one
//     period), so no decision answers the restart of a JVM rather than the
//     placement (settled in service.go).
//   - Vertex weight = measured CPU of the executor's tasks (percent of one
//     core) over the newest report of each worker; before any measurement 1
//     per executor; an executor without a measurement while others have one
//     gets their mean. Edge weight = measured tuples/s between executors;
//     before any traffic is measured, weight 1 between every executor pair
//     of each component stream.
//   - Worker reports older than three report intervals (at least 30 s)
//     before the topology's newest report no longer count for the load
//     table, so a moved worker's old numbers fade out.
//   - The per-task monitor's clock (Load.NowMs, "Now" of eq. 1 of Dynamic
//     Task Scheduling Scheme for Real-Time Stream Data in Storm) counts
//     milliseconds since the topology's earliest reported interval began;
//     T_start, deadlines, tuple sizes and memory come from the workers'
//     reports where they send them (see load.go).
//   - Node performance (the load table's CPU_avg-th) is capacity, never
//     load: cores(n) x R, cores from the supervisor's CPU quota and R the
//     measured tuples per busy core-second (see loadTable in problem.go).
//   - CPU_use of a node is the whole node's CPU when a fresh NodeReport
//     came in (POST /v1/nodes: workers plus anything else, e.g. background
//     load), else the sum of the topology workers' own CPU.
//   - Every decision is recorded in the state's decisions list: kind,
//     applied or not, the predicted partition metrics, and, for schedulers
//     that explain themselves (schedulers.Explainer: every Dynamic one and
//     rstorm), the typed schedulers.Decision (why, trigger, estimates,
//     migrations). Inputs the workers did not report are named in the
//     record's not_measured (and the decision's): a claim resting on them is
//     inconclusive, never computed on a silent zero.
//   - The scheduler and its options (schedulers.Options as JSON) are set at
//     start (stormlab-service --options) and may be replaced between runs
//     (POST /v1/scheduler), so one cluster can serve several schedulers.
package service
