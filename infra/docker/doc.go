// Package docker runs a real Apache Storm cluster in local containers with testcontainers-go, in the
// style of its modules: Run(ctx, opts...) with functional options, wait strategies instead of sleeps,
// and the partial cluster returned with any error so the caller can clean up.
//
// A cluster is a private network with ZooKeeper, Nimbus, a UI (StormlabUI: the subset of Storm UI's
// REST API the harness reads; see package images), N supervisors and optionally the Go scheduler
// service. Each supervisor has its own CPU quota (NanoCPUs) and memory limit with the matching
// supervisor.cpu.capacity (cores*100) and supervisor.memory.capacity.mb (limit minus
// SupervisorReserveMB), its own hostname (storm.local.hostname), worker slots from 6700 and optionally a
// delay on messages between nodes (WithNetworkDelay). Cluster shapes are data (Shapes, Shape).
//
// Cleanup: Ryuk is off (it needs a pulled image), so every container and network carries
// LabelRun=<run id>, LabelAll=true and its owner process (LabelOwnerPID, LabelOwnerStart: pid and start
// time, so a recycled pid is not taken for the owner); Cluster.Terminate removes what the run created,
// also after a failed Run and with a cancelled context. What a process killed with SIGKILL left behind
// is removed by the next Run when it starts (RemoveOrphans, with a one-line note) and by `stormlab
// cleanup`; the containers of a live owner are never touched. The Storm UI is read through package
// stormui (Cluster.UI); daemon logs are data (LogNames, Log). Published
// ports bind to 127.0.0.1 only. Run sets TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 and
// TESTCONTAINERS_RYUK_DISABLED=true when unset, so callers cannot forget them.
//
// Typical use:
//
//	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
//	defer stop()
//	c, err := docker.Run(ctx, docker.WithShape("heterogeneous-4"), docker.WithLogf(log.Printf))
//	defer c.Terminate(context.Background())
//	if err != nil { ... }
package docker
