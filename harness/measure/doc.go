// Package measure turns a run's records into figures and a judgement, apart from the run loop that
// gathers them (package harness), so that each can be read and tested on its own:
//
//   - Window and Series fold the workers' raw reports (protocol.WorkerReport) and the placement read
//     from Nimbus (Placement) into a Measurement: throughput, latency, CPU, cut rate, deadlines, open
//     loop (openloop.go). A metric not delivered is named in NotMeasured with the reason, never a zero.
//   - SteadyNow is the warm-up's test on the newest report intervals; SteadySpan re-judges a part of a
//     window; FaultRecovery is how throughput came through a fault (Recovery).
//   - CrossCheck compares a Measurement with Storm's own statistics (Snapshot, read by FreshSnapshot at
//     the window's ends), with a latency tolerance from the window's edges (crosscheck_latency.go).
//   - Judge is the one place a run's Validity is computed, from its Records.
//
// The package reads Storm's UI and the reports as values; it imports nothing of the run loop, which
// imports it (harness names its records, e.g. harness.Measurement = measure.Measurement).
package measure
