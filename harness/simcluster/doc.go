// Package simcluster is the simulated kind of cluster (--cluster sim:NAME): a harness.Cluster whose
// runs are the discrete-event model of infra/sim, placed by the real schedulers (the Go ones through
// the scheduler service's own code, in process, on the simulated clock; Storm's own through their
// models in schedulers/native), charged by a cost model measured on real runs (MeasureCosts; the
// containers' model ships in costs/), and measured, judged and diagnosed from the workers' reports the
// model writes, as a real cluster's runs are. Every run says it was simulated and what stands behind
// it (harness.Simulated); docs/simulator.md says what the model leaves out.
//
// The named clusters (Names, Lookup) are this project's container shapes, the papers' testbeds
// (kpart-paper, deadline-paper) and larger ones (nodes-16, -64, -256).
package simcluster
