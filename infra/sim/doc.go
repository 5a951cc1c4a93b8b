// Package sim is a discrete-event model of a Storm 2.x cluster running one topology: nodes whose cores
// are shared fairly by the executors busy on them, single-threaded executors with bounded receive
// queues, the three kinds of transfer (within a worker; between workers of a node; between nodes,
// through the sending node's network interface and a link latency), tuple trees acked under
// topology.max.spout.pending, open- and closed-loop spouts, and backpressure that pauses the spouts.
// It measures what the harness measures on a real cluster: acked throughput, complete latency
// (from the intended send time under open loop), each node's CPU use and the share of traffic
// between nodes.
//
// A topology comes from a capture (stormlab capture: FromCaptured, with its per-task CPU and rates),
// placed by any of the real Go schedulers (PlacementOf turns their Assignment into the model's
// workers and nodes).
//
// The model is seeded: one Config and seed give one result, and repetitions differ only by seed (the
// service-time draws, the groupings' choices, the arrival times), so simulated repetitions have a
// spread to compare with real ones.
//
// What is modelled, and what is not yet (the model grows in slices, each checked against queueing
// theory here and against real runs in the experiments):
//   - CPU: egalitarian processor sharing on each node (a busy thread uses at most one core), scaled by
//     the node's relative speed. The ackers are executors of their own (Topology.Ackers, where the
//     scheduler put them, or one per worker as Storm 2 counts them by default) or, without, an ack
//     costs Costs.AckCPU on the bolt that acks.
//     Serialization is charged to the sending executor (Storm 2 serializes in its thread). With
//     Config.Messaging each worker's transfer thread and Netty thread run as threads of their own
//     (threads.go): messages go in frames, one per destination worker and drain, priced per frame, per
//     message and per wake-up of a thread that waited, the deserialization paid by the receiving thread. Without, a message goes by itself,
//     its deserialization charged to the receiving executor, and the threads' work is in
//     Config.WorkerOverhead.
//   - Acking: an acker XORs each ack message's tuple ids into its tree's value, as Storm's does, so a
//     tree completes only when all of its acks are in, whatever order they arrive in.
//   - Backpressure: Storm 2 stops the spouts while a receive queue is full
//     (topology.executor.receive.buffer.size); here every spout of the topology pauses while any
//     executor's queue holds Config.QueueCap tuples or more, and resumes below half of it. Storm
//     propagates backpressure per worker, which this is coarser than.
//   - Workers: each worker's own threads are an overhead sharing its node's cores (Config.WorkerOverhead);
//     Sim.Move places executors anew and Sim.Restart takes a restarted worker's executors down, losing
//     their tuples, whose trees fail at the message timeout (Config.MessageTimeout).
//   - Background load (Sim.SetLoad): threads that share a node's cores with its workers'.
//   - Finite datasets (Component.Dataset: each spout task's share, then done) and the instrumentation's
//     deadline records (Component.Deadline: processing time from the tree's emission at every bolt,
//     the sinks' histogram), so the deadline experiment's runs are measured as on a real cluster.
//   - Not modelled: the topology's own start-up, replays (the project's spouts do not replay), faults
//     other than background load, memory and garbage-collection pauses.
package sim
