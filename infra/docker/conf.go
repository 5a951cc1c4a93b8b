package docker

import (
	"bytes"
	"fmt"
	"net/netip"
	"strconv"

	"github.com/moby/moby/api/types/container"
	mnetwork "github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	"go.yaml.in/yaml/v3"
)

// DelayTransport is the Storm messaging transport that adds the emulated network delay; DelayConf is
// its storm.yaml key (milliseconds). See WithNetworkDelay. The transport ships in stormlab's topology
// jars (and in the jar the harness submits for a user topology), so a worker finds it on its classpath
// on any cluster.
const (
	DelayTransport = "org.stormlab.net.DelayContext"
	DelayConf      = "stormlab.net.delay.ms"
)

// delayConf selects the delaying transport for workers. It goes into Nimbus's storm.yaml (topology
// configurations start from it) and every supervisor's (workers read the supervisor's conf under the
// topology's).
func delayConf(ms int) map[string]any {
	if ms <= 0 {
		return nil
	}
	return map[string]any{"storm.messaging.transport": DelayTransport, DelayConf: ms}
}

func limits(cpus float64, memMB int) testcontainers.CustomizeRequestOption {
	return testcontainers.WithHostConfigModifier(func(h *container.HostConfig) {
		if cpus > 0 {
			h.NanoCPUs = int64(cpus * 1e9)
		}
		h.Memory = int64(memMB) << 20
		h.MemorySwap = h.Memory // no swap beyond the limit
	})
}

// CapNice is the capability a supervisor container gets so that background load can raise its burner's
// CFS weight inside the container's cgroup (renice to a negative nice; harness/nemesis): Docker's
// default set lacks it, and without it root in the container may only lower priorities. It lets the
// container's processes reorder their own priorities (nice, scheduling policy, CPU affinity); the
// container's CPU quota still bounds everything in it.
const CapNice = "SYS_NICE"

// capAdd adds a Linux capability to the container (host-config changes chain).
func capAdd(c string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithHostConfigModifier(func(h *container.HostConfig) { h.CapAdd = append(h.CapAdd, c) })
}

func portName(p int) string { return fmt.Sprintf("%d/tcp", p) }

// publish exposes a port on 127.0.0.1 only (an ephemeral host port). Images have no EXPOSE, so nothing
// else is published.
func publish(port int) testcontainers.CustomizeRequestOption { return publishAt(port, 0) }

// nimbusHostPort is Nimbus's host port: fixed for a standing cluster, else ephemeral (0).
func nimbusHostPort(cfg *config) int {
	if cfg.standing {
		return StandingNimbusPort
	}
	return 0
}

// publishAt exposes a port on 127.0.0.1:hostPort (0: an ephemeral one).
func publishAt(port, hostPort int) testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		req.ExposedPorts = append(req.ExposedPorts, portName(port))
		prev := req.HostConfigModifier
		req.HostConfigModifier = func(h *container.HostConfig) {
			if prev != nil {
				prev(h)
			}
			if h.PortBindings == nil {
				h.PortBindings = mnetwork.PortMap{}
			}
			h.PortBindings[mnetwork.MustParsePort(portName(port))] = []mnetwork.PortBinding{{HostIP: netip.MustParseAddr("127.0.0.1"), HostPort: strconv.Itoa(hostPort)}}
		}
		return nil
	}
}

// ExecutorStatsConf is the storm.yaml key of how often workers report executor statistics to Nimbus
// (RPC heartbeats); ExecutorStatsSecs is the value every node gets. Every run reads Storm's statistics
// fresh at both ends of its window (the cross-check) and waits for the next reading each time, so the
// period is paid twice per run: 1 s (it was 3 s) costs Nimbus one small RPC per worker per second.
const (
	ExecutorStatsConf = "executor.metrics.frequency.secs"
	ExecutorStatsSecs = 1
)

// LogWriterOptsConf is the JVM options of the process that starts each worker and pipes its output to
// the worker's log (Storm's default: -Xmx64m); LogWriterOpts is the value every topology gets. It
// starts before its worker on the same fraction of a core: C1 only makes it start sooner, and its
// work is not what is measured (the worker keeps its own JIT settings).
const (
	LogWriterOptsConf = "topology.worker.logwriter.childopts"
	LogWriterOpts     = "-Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 " + WorkerCDS
)

// WorkerCDS maps the storm image's class-data archive of lib-worker/ (built with the image: see its
// Dockerfile) into worker and LogWriter JVMs: they skip loading and verifying those classes, which on a
// fraction of a core is most of a worker's start (the results log has the measured effect). A JVM that
// cannot map it (another image) runs without it.
const WorkerCDS = "-XX:SharedArchiveFile=/opt/storm/worker.jsa"

// supervisorPace makes a supervisor act on a changed assignment sooner than Storm's defaults (3 s
// between slot checks, 3 s from a worker's kill signal to its forced kill, a heartbeat every 5 s; the
// heartbeat carries the used slots that a run's end waits to see free): every
// run waits for its workers to start and, after the kill, to be gone, and these waits are most of a
// short run's overhead. Only timing changes: what runs where is still Nimbus's assignment.
var supervisorPace = map[string]any{
	"supervisor.monitor.frequency.secs":     1,
	"supervisor.worker.shutdown.sleep.secs": 1,
	"supervisor.heartbeat.frequency.secs":   1,
}

// stormConf is the per-node storm.yaml: cluster addresses, local dir and hostname, plus extra entries.
func stormConf(host string, extra map[string]any) map[string]any {
	conf := map[string]any{
		"storm.zookeeper.servers": []string{ZooKeeperAlias},
		"nimbus.seeds":            []string{NimbusAlias},
		"storm.local.dir":         "/var/storm",
		"storm.local.hostname":    host,
		// Workers send executor statistics to Nimbus every this many seconds (Storm's default, 60 s,
		// leaves Nimbus's numbers a minute old; the harness cross-checks its figures against them).
		ExecutorStatsConf: ExecutorStatsSecs,
	}
	for k, v := range supervisorPace {
		conf[k] = v
	}
	for k, v := range extra {
		conf[k] = v
	}
	return conf
}

// confFile writes the storm.yaml into the container before it starts.
func confFile(conf map[string]any) testcontainers.CustomizeRequestOption {
	data, err := yaml.Marshal(conf)
	return func(req *testcontainers.GenericContainerRequest) error {
		if err != nil {
			return fmt.Errorf("storm.yaml: %w", err)
		}
		req.Files = append(req.Files, testcontainers.ContainerFile{
			Reader: bytes.NewReader(data), ContainerFilePath: StormHome + "/conf/storm.yaml", FileMode: 0o644,
		})
		return nil
	}
}
