// Package clusterref is the one value that says where cluster runs happen, parsed once where the
// program starts (the CLI's --cluster flag; under go test, the test settings) and passed down as a
// value: containers started for the run (of a shape), or an existing Storm cluster through its target
// file. Experiments read it from their Env; nothing passes it through the process environment.
//
// Syntax of the flag value:
//
//	containers           containers started for the run, in each experiment's (or command's) own shape
//	containers:SHAPE     containers of a named shape (stormlab run, capacity, whatif)
//	SHAPE                the same, e.g. heterogeneous-2
//	target:FILE          an existing Storm cluster described by a target file (docs/own-cluster.md)
//	KIND:ARG             another kind of cluster, known to the registry of kinds (harness/clusters)
package clusterref
