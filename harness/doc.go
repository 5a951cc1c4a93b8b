// Package harness runs one scheduler on a real Storm cluster and measures it: provision -> submit ->
// wait until every executor runs -> open and close the window (the End condition: Timed, a warm-up
// until throughput is steady and a fixed window; or Dataset, a finite dataset processed to its end)
// -> collect -> kill -> tear down, always tearing down.
//
// The roles are apart, Jepsen style: Session starts a cluster, waits until it is idle, exposes the
// daemons' logs as data (logFiles) and closes it; Run is the one run loop; package harness/nemesis disturbs the
// cluster on purpose through a control layer (infra/control: Docker on the harness's own containers,
// SSH on a target's hosts), with one shape for every disturbance: Inject(ctx, fault.Fault) returns the undo.
// The bridge's rounds and fallbacks and the
// scheduler's decisions come from the scheduler service's state endpoint; every run is cross-checked
// against Storm's own statistics (StormCheck). Errors are typed (*RunError with its stage and the
// daemons' last log lines as data) and wrapped.
//
// Measurement is split the etcd-benchmark way: the workers' raw reports (protocol.WorkerReport,
// collected by the scheduler service) and the actual placement read from Nimbus are plain values;
// package harness/measure folds them into a Measurement, cross-checks it with Storm's statistics and
// judges the run (into RunResult.Validity); rendering (package reports) is separate.
//
// Any topology, not only the Java ones under topologies/storm, can be run: usertopo.Topology turns a Flux
// file or a compiled jar into a TopologyRun whose submitted jar carries the instrumentation and whose
// conf switches it on (package harness/usertopo). A topology whose spouts never ack is measured at its sinks
// (Measurement.ThroughputBasis) and its complete latency is reported not measured; a worker left with
// nothing to do (its acker alone on a worker) does not hold the run's start back (see unready).
package harness
