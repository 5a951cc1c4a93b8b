package docker

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/stormlab/stormlab/infra/protocol"
)

// roles starts the cluster's containers, one method per role (as testcontainers-go modules do).
type roles struct {
	c     *Cluster
	cfg   *config
	owner Owner
	nw    *testcontainers.DockerNetwork
}

func (r *roles) labels(role string) map[string]string {
	l := map[string]string{LabelRun: r.c.ID, LabelRole: role, LabelAll: "true",
		LabelOwnerPID: strconv.Itoa(r.owner.PID), LabelOwnerStart: r.owner.Start}
	if r.cfg.standing {
		l[LabelStanding] = "true"
	}
	return l
}

// base is what every container of the cluster has: its name, labels, network alias and hostname.
func (r *roles) base(role, alias string) []testcontainers.ContainerCustomizer {
	return []testcontainers.ContainerCustomizer{
		testcontainers.WithName(fmt.Sprintf("stormlab-%s-%s", r.c.ID, alias)),
		testcontainers.WithLabels(r.labels(role)),
		network.WithNetwork([]string{alias}, r.nw),
		testcontainers.WithConfigModifier(func(cc *container.Config) { cc.Hostname = alias }),
	}
}

// waitLog waits for line in the container's log, within the cluster's start timeout.
func (r *roles) waitLog(line string, poll time.Duration) testcontainers.CustomizeRequestOption {
	return testcontainers.WithWaitStrategy(wait.ForLog(line).WithStartupTimeout(r.cfg.timeout).WithPollInterval(poll))
}

func (r *roles) zooKeeper(ctx context.Context) error {
	o := append(r.base(RoleZooKeeper, ZooKeeperAlias), limits(1, ZooKeeperMemoryMB),
		r.waitLog("PrepRequestProcessor (sid:0) started", 100*time.Millisecond))
	if err := r.c.start(ctx, RoleZooKeeper, r.c.Images.ZooKeeper, o...); err != nil {
		return err
	}
	r.c.ZooKeeperUp = time.Now()
	return nil
}

func (r *roles) service(ctx context.Context) error {
	o := append(r.base(RoleService, ServiceAlias), limits(0, ServiceMemoryMB), publish(ServicePort),
		testcontainers.WithCmd(r.cfg.serviceArgs...),
		testcontainers.WithWaitStrategy(wait.ForHTTP(protocol.PathHealth).WithPort(portName(ServicePort)).
			WithStartupTimeout(r.cfg.timeout).WithPollInterval(200*time.Millisecond)))
	return r.c.start(ctx, RoleService, r.cfg.serviceImage, o...)
}

func (r *roles) nimbus(ctx context.Context) error {
	cfg := r.cfg
	// Topology defaults go into Nimbus's storm.yaml: the submitter (run in Nimbus's container) and
	// Nimbus put them into the topology's conf, which overrides the supervisors' storm.yaml.
	conf := stormConf(NimbusAlias, map[string]any{LogWriterOptsConf: LogWriterOpts})
	if cfg.scheduler != "" {
		conf["storm.scheduler"] = cfg.scheduler
	}
	if cfg.service {
		conf[ServiceURLConf] = fmt.Sprintf("http://%s:%d%s", ServiceAlias, ServicePort, protocol.PathSchedule)
	}
	for k, v := range delayConf(cfg.delayMS) {
		conf[k] = v
	}
	for k, v := range cfg.nimbusConf {
		conf[k] = v
	}
	o := append(r.base(RoleNimbus, NimbusAlias), limits(0, NimbusMemoryMB),
		publishAt(NimbusPort, nimbusHostPort(cfg)), confFile(conf), testcontainers.WithCmd("nimbus"),
		r.waitLog("Starting nimbus server", 200*time.Millisecond))
	return r.c.start(ctx, RoleNimbus, r.c.Images.Storm, o...)
}

func (r *roles) ui(ctx context.Context) error {
	o := append(r.base(RoleUI, UIAlias), limits(0, UIMemoryMB), publish(UIPort),
		confFile(stormConf(UIAlias, map[string]any{"ui.port": UIPort})), testcontainers.WithCmd("ui"),
		r.waitLog("stormlab-ui listening", 200*time.Millisecond))
	return r.c.start(ctx, RoleUI, r.c.Images.Storm, o...)
}

func (r *roles) supervisor(ctx context.Context, s SupervisorSpec) error {
	return r.c.startSupervisor(ctx, r.cfg, s, r.base(RoleSupervisor, s.Host))
}

// RoleSupervisor is the role label of supervisor containers (Logs and Exec take the hostname instead).
const RoleSupervisor = "supervisor"

func (c *Cluster) startSupervisor(ctx context.Context, cfg *config, s SupervisorSpec, base []testcontainers.ContainerCustomizer) error {
	extra := map[string]any{
		"supervisor.slots.ports":               s.Ports(),
		"supervisor.cpu.capacity":              s.CapacityCPU(),
		"supervisor.memory.capacity.mb":        float64(s.CapacityMemoryMB()),
		"worker.childopts":                     "-Xmx%HEAP-MEM%m -XX:+UseSerialGC -XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=artifacts/heapdump " + WorkerCDS,
		"supervisor.worker.start.timeout.secs": 120,
	}
	if len(s.Meta) > 0 {
		extra["supervisor.scheduler.meta"] = s.Meta
	}
	conf := stormConf(s.Host, extra)
	for k, v := range delayConf(cfg.delayMS) {
		conf[k] = v
	}
	for k, v := range cfg.supConf {
		conf[k] = v
	}
	o := append(base, limits(s.CPUs, s.MemoryMB), capAdd(CapNice), confFile(conf), testcontainers.WithCmd("supervisor"),
		testcontainers.WithWaitStrategy(wait.ForLog("Starting supervisor with id").WithStartupTimeout(cfg.timeout).WithPollInterval(200*time.Millisecond)))
	if s.LinkMbit > 0 {
		c.mu.Lock()
		c.links[s.Host] = s.LinkMbit
		c.mu.Unlock()
		o = append(o, c.linkHook(s.Host))
	}
	if cfg.ssh != nil {
		sshd, err := c.withSupervisorSSH(cfg.ssh, s.Host)
		if err != nil {
			return fmt.Errorf("%s: sshd: %w", s.Host, err)
		}
		o = append(o, sshd)
	}
	err := c.start(ctx, s.Host, c.Images.Storm, o...)
	c.mu.Lock()
	if ctr := c.containers[s.Host]; ctr != nil {
		c.supervisors = append(c.supervisors, &Supervisor{Spec: s, Container: ctr})
	}
	c.mu.Unlock()
	return err
}

// start runs one container and records it (even when its wait fails) for Terminate. A failure carries
// the last lines of the container's log.
func (c *Cluster) start(ctx context.Context, role, image string, opts ...testcontainers.ContainerCustomizer) error {
	t0 := time.Now()
	ctr, err := testcontainers.Run(ctx, image, opts...)
	c.mu.Lock()
	if ctr != nil {
		c.containers[role] = ctr
		c.order = append(c.order, role)
	}
	c.mu.Unlock()
	if err != nil {
		se := &StartError{Role: role, Err: err}
		if ctr != nil {
			se.Log = tailLogs(context.WithoutCancel(ctx), ctr, 30)
		}
		return se
	}
	c.logf("cluster %s: %s up in %s", c.ID, role, time.Since(t0).Round(time.Millisecond))
	return nil
}
