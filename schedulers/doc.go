// Package schedulers holds every Storm scheduler of the project as pure Go
// (no I/O): the problem a scheduler gets (executor graph, cluster, measured
// load, current assignment), the assignment it returns, the partition
// metrics of the K-PART paper, and an explicit, immutable list of schedulers
// by name (List, New).
//
// Two interfaces: Scheduler places executors on worker slots of nodes;
// Partitioner splits a graph into k parts. Graph-partition schedulers
// implement both (PartitionScheduler turns a partition into an assignment
// with SpreadSlots). Dynamic rescheduling is the separate small interface
// Dynamic. Each scheduler's doc comment names its paper and section and the
// choices made where the paper is vague.
package schedulers
