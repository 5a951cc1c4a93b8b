// Package control is how stormlab acts on a cluster's hosts to disturb it on purpose, the way Jepsen's
// control layer (jepsen.control: a Remote that connects to a node and executes commands on it) lets its
// nemeses act on a test's nodes. A Control offers a few operations — run a command, stop a daemon and
// start it again, pause and resume processes, delay or drop the traffic between two hosts — and says
// which ones it offers as a typed set (Ops). Every operation that changes the cluster returns its undo,
// so a caller always has one shape to heal what it did (inject, then undo).
//
// Two implementations: Docker acts on the harness's own containers (docker exec, stop, start); SSH acts
// on a user's hosts over SSH (golang.org/x/crypto/ssh) with host-key checking always on
// (known_hosts from the target file or ~/.ssh/known_hosts). An operation a Control does not offer, or
// a host it does not reach, fails with *UnsupportedError naming what is missing and where to add it.
//
// What each implementation offers:
//   - Docker: exec, stop and start of a supervisor, ZooKeeper and the scheduler service (their
//     containers), pause (SIGSTOP/SIGCONT), delay. Not drop: the containers here get no NET_ADMIN
//     capability, so nothing in them can filter packets.
//   - SSH: exec, pause and delay on every host of control.ssh.hosts; stop and start of a daemon and
//     drop only where the target file gives their commands (control.ssh.commands), because how a
//     user's hosts run Storm (systemd, supervisord, a script) and filter packets is theirs to say.
//
// Delay works through stormlab's delaying transport (Storm's messaging layer), which re-reads DelayFile
// on the worker's host; it needs that transport on the cluster (stormlab bridge install-files).
package control
