// Package native holds Storm's own schedulers as Go models, for the
// simulated cluster: what Nimbus (Apache Storm 2.8, storm-server) would
// assign, given the cluster it sees, a topology and the topology's current
// assignment (the executors that survived a kill keep their slots).
//
//   - storm-even: org.apache.storm.scheduler.EvenScheduler
//     (scheduleTopology, sortSlots).
//   - storm-default: org.apache.storm.scheduler.DefaultScheduler
//     (defaultSchedule, badSlots). It is not plain EvenScheduler: before
//     calling it, it frees the surviving workers whose executor count does
//     not fit an even split of the executors over the workers it can use, so
//     after a kill it may move executors that survived. Isolation is
//     IsolationScheduler's, not DefaultScheduler's; none is modelled.
//   - storm-ras: org.apache.storm.scheduler.resource.ResourceAwareScheduler
//     with DefaultResourceAwareStrategy (BaseResourceAwareStrategy.schedule:
//     ExecSorterByConnectionCount, NodeSorterHostProximity, bound ackers,
//     the backtracking search), for one topology alone on the cluster.
//
// Where Storm's choice follows the iteration order of a java.util.HashMap or
// HashSet, the models reproduce that order from Java's hash functions
// (javaorder.go), so a supervisor's id must be the one Nimbus knows (on a
// real cluster a random UUID, which is why two supervisors with the same
// number of free slots come in an order no host name predicts). Each model's
// doc comment says what else it leaves out.
//
// What Nimbus gives a scheduler after a fault: the supervisors still alive
// (a killed one leaves when its heartbeat times out), with the ports of
// workers that just died hidden for one round (Nimbus.readAllSupervisorDetails;
// HideDeadPorts), and the current assignment without the dead executors.
// EvenScheduler places those only on free slots: on a cluster whose slots the
// topology already filled they stay unassigned until a slot frees (the dead
// port, one round later, or the supervisor's return), and the result lists
// them in Assignment.Unassigned.
package native
