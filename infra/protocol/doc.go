// Package protocol is the JSON contract between the Java parts running
// inside Storm and the Go scheduler service:
//
//   - the Nimbus-side bridge (IScheduler) POSTs a Snapshot to /v1/schedule
//     every scheduling round and applies the Decision it gets back;
//   - every worker's metrics consumer POSTs a WorkerReport to /v1/metrics
//     (task-to-task tuple counts, per-task CPU time, latencies, deadlines).
//
// The Java side mirrors these types by hand (infra/docker/bridge and
// topologies/storm); field names here are the wire names. Keep both in step.
package protocol
