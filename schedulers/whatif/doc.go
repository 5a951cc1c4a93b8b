// Package whatif asks schedulers, in process, where they would place one executor graph on one
// cluster, and measures each placement on the graph's own weights: the share of traffic that crosses
// nodes (the cut rate at node level), each node's CPU load against its capacity, the balance of those
// loads and, when the graph comes with a placement, how many executors would move.
//
// It is a second opinion in seconds before a live run: nothing here runs Storm, so what it cannot
// see (queueing, JVM costs, a scheduler's reaction to measured load) it does not claim. Schedulers
// that need measured load and get none say so in their row instead of placing.
package whatif
