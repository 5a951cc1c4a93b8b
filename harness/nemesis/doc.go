// Package nemesis disturbs a cluster on purpose (Jepsen's word): the faults of a measurement window,
// background CPU load and stragglers (burner topologies), and killing worker JVMs left behind, all
// injected the same way, Inject(ctx, fault.Fault) returning the undo.
//
// It is apart from the run loop (package harness) so that what a fault does to a cluster reads in one
// place, and the loop only schedules faults: it makes a Nemesis with New from the cluster's control
// layer (infra/control) and the cluster's Storm as a small interface (Storm), and calls CheckControl
// before a run, PrepareStragglers before its topology is submitted and Inject at each fault's time.
// The package imports nothing of harness.
package nemesis
