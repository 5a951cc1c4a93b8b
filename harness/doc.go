// Package harness runs one scheduler on a real Storm cluster and measures it:
// provision -> submit -> wait until every executor runs -> warm up -> measure
// -> collect -> kill -> tear down, always tearing down.
//
// Measurement is split the etcd-benchmark way: the workers' raw reports
// (protocol.WorkerReport, collected by the scheduler service) and the actual
// placement read from Nimbus are plain values; Measure folds them into a
// Measurement; judging (Check) and rendering (package reports) are separate.
package harness
