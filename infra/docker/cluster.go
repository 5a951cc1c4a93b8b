package docker

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	mnetwork "github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"
	"go.yaml.in/yaml/v3"

	"github.com/stormlab/stormlab/infra/images"
	"github.com/stormlab/stormlab/infra/protocol"
	"github.com/stormlab/stormlab/infra/stormui"
)

// Labels on every container and network a Run creates.
const (
	LabelRun  = "stormlab.run"  // the run id
	LabelRole = "stormlab.role" // zookeeper, nimbus, ui, service, supervisor
	LabelAll  = "stormlab"      // "true" on everything, for RemoveLeftovers
	// The owning process: its pid and its start time (clock ticks since boot, /proc/<pid>/stat field
	// 22), so that a recycled pid is not taken for the owner. See RemoveOrphans.
	LabelOwnerPID   = "stormlab.owner.pid"
	LabelOwnerStart = "stormlab.owner.start"
	// LabelStanding is "true" on a standing cluster (WithStanding): kept when its owner is gone.
	LabelStanding = "stormlab.standing"
)

// Network aliases and ports inside the cluster network.
const (
	ZooKeeperAlias = "zookeeper"
	NimbusAlias    = "nimbus"
	UIAlias        = "ui"
	ServiceAlias   = "scheduler-service"
	ServicePort    = 7070
	NimbusPort     = 6627
	UIPort         = 8080
	// ServiceURLConf is the Nimbus storm.yaml key that tells the bridge scheduler (BridgeScheduler.CONF_URL)
	// where to POST its snapshots.
	ServiceURLConf = "stormlab.scheduler.url"
	// StormHome is the storm.home inside the storm image.
	StormHome = "/opt/storm"
)

// Roles of the cluster's containers, for Logs and Exec.
const (
	RoleZooKeeper = "zookeeper"
	RoleNimbus    = "nimbus"
	RoleUI        = "ui"
	RoleService   = "service"
)

// Supervisor is a running supervisor node.
type Supervisor struct {
	Spec      SupervisorSpec
	Container *testcontainers.DockerContainer
}

// Host is the supervisor's hostname (storm.local.hostname).
func (s *Supervisor) Host() string { return s.Spec.Host }

// Cluster is a running Storm cluster. Run returns it even on error, partially built, so that the caller
// can Terminate it.
type Cluster struct {
	ID     string
	Shape  string
	Images images.Set

	mu          sync.Mutex
	network     *testcontainers.DockerNetwork
	containers  map[string]*testcontainers.DockerContainer // by role (supervisors by host)
	order       []string                                   // roles in start order
	supervisors []*Supervisor
	logf        func(string, ...any)
	lock        *os.File // machine-wide cluster lock, released by Terminate
	ssh         *sshKeys // WithSSH, else nil

	// ZooKeeperUp is when ZooKeeper answered; Registered when Nimbus saw every supervisor. Their
	// difference is the cluster start time the project targets (< 30 s).
	ZooKeeperUp, Registered time.Time
}

// StartDuration is the time from ZooKeeper up to all supervisors registered (0 until both happened).
func (c *Cluster) StartDuration() time.Duration {
	if c.ZooKeeperUp.IsZero() || c.Registered.IsZero() {
		return 0
	}
	return c.Registered.Sub(c.ZooKeeperUp)
}

// setEnv makes testcontainers-go reach mapped ports on loopback (this machine has /.dockerenv, so it
// would otherwise use the default gateway) and keeps it from starting Ryuk, which needs a pulled image
// and would reap a standing cluster when its process exits. testcontainers-go reads these settings only
// from the environment (once, at its first use), so they cannot be passed per call; a value the caller
// set (the Makefile and .ci/run set both) wins, and the defaults are applied once per process.
func setEnv() {
	envOnce.Do(func() {
		for k, v := range map[string]string{"TESTCONTAINERS_HOST_OVERRIDE": "127.0.0.1", "TESTCONTAINERS_RYUK_DISABLED": "true"} {
			if os.Getenv(k) == "" {
				os.Setenv(k, v)
			}
		}
	})
}

var envOnce sync.Once

// StartError is a container of the cluster that did not start: its role (the hostname for a
// supervisor), the cause (wrapped) and the last lines of its log, if the container was created.
type StartError struct {
	Role string
	Err  error
	Log  string
}

func (e *StartError) Error() string {
	msg := fmt.Sprintf("start %s: %v", e.Role, e.Err)
	if e.Log != "" {
		msg += "\n--- last lines of the " + e.Role + " log ---\n" + e.Log
	}
	return msg
}

func (e *StartError) Unwrap() error { return e.Err }

// Run builds (or finds) the images and starts a cluster: network, ZooKeeper, the scheduler service (if
// asked), Nimbus, UI and the supervisors, each with its wait strategy, then waits until Nimbus lists
// every supervisor. On error the partial cluster is returned with it: always call Terminate. A
// container that did not start is a *StartError in the error's chain.
func Run(ctx context.Context, opts ...Option) (*Cluster, error) {
	setEnv()
	cfg, err := configure(opts)
	if err != nil {
		return nil, fmt.Errorf("storm cluster: %w", err)
	}
	lock, err := machineLock(ctx, cfg.logf)
	if err != nil {
		return nil, fmt.Errorf("storm cluster: %w", err)
	}
	// Leftovers of runs whose process died (SIGKILL, crash) go before this run starts; a live owner's
	// are never touched.
	if _, err := RemoveOrphans(ctx, cfg.logf); err != nil {
		machineUnlock(lock)
		return nil, fmt.Errorf("storm cluster: %w", err)
	}
	c := &Cluster{ID: cfg.runID, Shape: cfg.shape, containers: map[string]*testcontainers.DockerContainer{}, logf: cfg.logf, lock: lock, ssh: cfg.ssh}
	if err := c.run(ctx, cfg); err != nil {
		return c, fmt.Errorf("storm cluster: %w", err)
	}
	return c, nil
}

// configure applies the options to the defaults and draws a run id if none was given.
func configure(opts []Option) (*config, error) {
	cfg := defaults()
	for _, o := range opts {
		if err := o(cfg); err != nil {
			return nil, err
		}
	}
	if cfg.runID == "" {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("run id: %w", err)
		}
		cfg.runID = hex.EncodeToString(b[:])
	}
	return cfg, nil
}

// run starts the roles in order: ZooKeeper and the service first (Nimbus needs the one, the bridge in
// Nimbus the other), then Nimbus, UI and supervisors together (supervisors need only ZooKeeper).
func (c *Cluster) run(ctx context.Context, cfg *config) error {
	if err := c.resolveImages(ctx, cfg); err != nil {
		return err
	}
	r := &roles{c: c, cfg: cfg, owner: selfOwner()}
	nw, err := network.New(ctx, network.WithLabels(r.labels("network")))
	if err != nil {
		return fmt.Errorf("create network: %w", err)
	}
	c.network, r.nw = nw, nw
	cfg.logf("cluster %s: network %s", c.ID, nw.Name)
	starts := []func(context.Context) error{r.zooKeeper}
	if cfg.service {
		starts = append(starts, r.service)
	}
	if err := together(ctx, starts); err != nil {
		return err
	}
	cfg.logf("cluster %s: zookeeper up", c.ID)
	starts = []func(context.Context) error{r.nimbus}
	if cfg.ui {
		starts = append(starts, r.ui)
	}
	for _, s := range cfg.supervisors {
		starts = append(starts, func(ctx context.Context) error { return r.supervisor(ctx, s) })
	}
	if err := together(ctx, starts); err != nil {
		return err
	}
	if err := c.waitRegistered(ctx, cfg); err != nil {
		return err
	}
	c.Registered = time.Now()
	cfg.logf("cluster %s: %d supervisors registered %s after zookeeper", c.ID, len(cfg.supervisors), c.StartDuration().Round(time.Millisecond))
	return nil
}

// together runs the starts concurrently and joins their errors.
func together(ctx context.Context, starts []func(context.Context) error) error {
	errs := make([]error, len(starts))
	var wg sync.WaitGroup
	for i, start := range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = start(ctx)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// resolveImages takes the given images or builds each one once, and settles the service's image.
func (c *Cluster) resolveImages(ctx context.Context, cfg *config) error {
	if cfg.images != nil {
		c.Images = *cfg.images
	} else if err := c.buildImages(ctx, cfg); err != nil {
		return err
	}
	if cfg.service && cfg.serviceImage == "" {
		cfg.serviceImage = c.Images.Service
		if cfg.serviceImage == "" {
			return errors.New("WithService(\"\") needs the service image; build it (make images) or pass an image")
		}
	}
	return nil
}

func (c *Cluster) buildImages(ctx context.Context, cfg *config) (err error) {
	b, err := images.New(ctx, images.WithLogf(cfg.logf))
	if err != nil {
		return err
	}
	defer b.Close()
	if c.Images.ZooKeeper, err = b.Build(ctx, images.ZooKeeper); err != nil {
		return err
	}
	if c.Images.Storm, err = b.Build(ctx, images.Storm); err != nil {
		return err
	}
	if cfg.service && cfg.serviceImage == "" {
		if c.Images.Service, err = b.Build(ctx, images.Service); err != nil {
			return err
		}
	}
	return nil
}

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
	o := append(base, limits(s.CPUs, s.MemoryMB), confFile(conf), testcontainers.WithCmd("supervisor"),
		testcontainers.WithWaitStrategy(wait.ForLog("Starting supervisor with id").WithStartupTimeout(cfg.timeout).WithPollInterval(200*time.Millisecond)))
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

// waitRegistered waits until Nimbus lists every supervisor: through the UI's supervisor summary, or,
// without a UI, through ZooKeeper's /storm/supervisors.
func (c *Cluster) waitRegistered(ctx context.Context, cfg *config) error {
	want := len(cfg.supervisors)
	if ui := c.container(RoleUI); ui != nil {
		var last string
		st := wait.ForHTTP("/api/v1/supervisor/summary").WithPort(portName(UIPort)).
			WithStartupTimeout(cfg.timeout).WithPollInterval(250 * time.Millisecond).
			WithResponseMatcher(func(body io.Reader) bool {
				var s struct {
					Supervisors []struct{ Host string } `json:"supervisors"`
				}
				data, _ := io.ReadAll(body)
				last = string(data)
				return json.Unmarshal(data, &s) == nil && len(s.Supervisors) >= want
			})
		if err := st.WaitUntilReady(ctx, ui); err != nil {
			return fmt.Errorf("wait for %d supervisors to register: %w (last answer: %.300s)\n--- last lines of the nimbus log ---\n%s",
				want, err, last, tailLogs(context.WithoutCancel(ctx), c.container(RoleNimbus), 30))
		}
		return nil
	}
	zk := c.container(RoleZooKeeper)
	cmd := []string{"java", "-cp", "/opt/zookeeper/lib/*", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"org.apache.zookeeper.ZooKeeperMain", "-server", "localhost:2181", "ls", "/storm/supervisors"}
	st := wait.ForExec(cmd).WithStartupTimeout(cfg.timeout).WithPollInterval(time.Second).
		WithResponseMatcher(func(body io.Reader) bool {
			data, _ := io.ReadAll(body)
			m := regexp.MustCompile(`\[([^\]]*)\]\s*$`).FindSubmatch(bytes.TrimSpace(data))
			return m != nil && len(strings.Split(strings.TrimSpace(string(m[1])), ",")) >= want && len(bytes.TrimSpace(m[1])) > 0
		})
	if err := st.WaitUntilReady(ctx, zk); err != nil {
		return fmt.Errorf("wait for %d supervisors to register in zookeeper: %w", want, err)
	}
	return nil
}

func (c *Cluster) container(role string) *testcontainers.DockerContainer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.containers[role]
}

// Container returns the container of a role (RoleNimbus, ...) or a supervisor's hostname, or nil.
func (c *Cluster) Container(role string) *testcontainers.DockerContainer { return c.container(role) }

// Supervisors lists the running supervisors in spec order.
func (c *Cluster) Supervisors() []*Supervisor {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := append([]*Supervisor(nil), c.supervisors...)
	// Goroutines registered them in completion order; restore the spec order by hostname.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Spec.Host < out[j-1].Spec.Host; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// endpoint is http://127.0.0.1:<mapped port> of a role's published port.
func (c *Cluster) endpoint(ctx context.Context, role string, port int) (string, error) {
	ctr := c.container(role)
	if ctr == nil {
		return "", fmt.Errorf("no %s container in this cluster", role)
	}
	p, err := ctr.MappedPort(ctx, portName(port))
	if err != nil {
		return "", fmt.Errorf("%s port %d: %w", role, port, err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", p.Num()), nil
}

// UIURL is the base URL of the UI's REST API (http://127.0.0.1:<port>).
func (c *Cluster) UIURL(ctx context.Context) (string, error) { return c.endpoint(ctx, RoleUI, UIPort) }

// ServiceURL is the base URL of the scheduler service on 127.0.0.1.
func (c *Cluster) ServiceURL(ctx context.Context) (string, error) {
	return c.endpoint(ctx, RoleService, ServicePort)
}

// NimbusAddr is 127.0.0.1:<port> of Nimbus's Thrift port.
func (c *Cluster) NimbusAddr(ctx context.Context) (string, error) {
	u, err := c.endpoint(ctx, RoleNimbus, NimbusPort)
	return strings.TrimPrefix(u, "http://"), err
}

// Exec runs cmd in the container of role (or supervisor hostname) and returns its exit code and
// combined output.
func (c *Cluster) Exec(ctx context.Context, role string, cmd ...string) (int, string, error) {
	ctr := c.container(role)
	if ctr == nil {
		return -1, "", fmt.Errorf("exec: no %s container in this cluster", role)
	}
	code, r, err := ctr.Exec(ctx, cmd, tcexec.Multiplexed())
	if err != nil {
		return code, "", fmt.Errorf("exec in %s: %w", role, err)
	}
	out, err := io.ReadAll(r)
	return code, string(out), err
}

// Submit copies a topology jar into the Nimbus container and runs its main class there, the way
// `storm jar` does but without python: java -cp <storm lib>:<jar> -Dstorm.jar=<jar> mainClass args.
// The main class must call StormSubmitter.
func (c *Cluster) Submit(ctx context.Context, jarPath, mainClass string, args ...string) error {
	nimbus := c.container(RoleNimbus)
	if nimbus == nil {
		return errors.New("submit topology: no nimbus container")
	}
	if _, err := os.Stat(jarPath); err != nil {
		return fmt.Errorf("submit topology: jar: %w", err)
	}
	dst := "/tmp/stormlab-submit/" + path.Base(jarPath)
	if err := nimbus.CopyFileToContainer(ctx, jarPath, dst, 0o644); err != nil {
		return fmt.Errorf("submit topology: copy jar: %w", err)
	}
	cmd := []string{"java", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Dstorm.home=" + StormHome, "-Dstorm.jar=" + dst,
		"-Dlog4j.configurationFile=" + StormHome + "/log4j2/cluster.xml",
		"-Dstorm.log.dir=/tmp/stormlab-submit", "-Dlogfile.name=submit.log",
		"-cp", StormHome + "/lib/*:" + StormHome + "/extlib/*:" + StormHome + "/conf:" + dst,
		mainClass}
	cmd = append(cmd, args...)
	code, out, err := c.Exec(ctx, RoleNimbus, cmd...)
	if err != nil {
		return fmt.Errorf("submit topology %s: %w", mainClass, err)
	}
	if code != 0 {
		return fmt.Errorf("submit topology %s: exit code %d\n--- last lines of its output ---\n%s", mainClass, code, lastLines(out, 30))
	}
	c.logf("cluster %s: submitted %s", c.ID, mainClass)
	return nil
}

// UI is the client of the cluster's UI REST API (stormui: the project's one Storm UI client).
func (c *Cluster) UI(ctx context.Context) (*stormui.Client, error) {
	base, err := c.UIURL(ctx)
	if err != nil {
		return nil, err
	}
	return stormui.New(base), nil
}

// Kill kills a topology (by name or id) through the UI REST API, with no wait.
func (c *Cluster) Kill(ctx context.Context, topology string) error {
	ui, err := c.UI(ctx)
	if err != nil {
		return fmt.Errorf("kill topology %s: %w (Kill needs the UI)", topology, err)
	}
	return ui.Kill(ctx, topology, 0)
}

// LogNames lists the roles whose logs Log returns, in start order (supervisors by hostname): with Log,
// the cluster's logs as data (Jepsen's LogFiles).
func (c *Cluster) LogNames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.order...)
}

// Log returns the whole console log of a role's container (or a supervisor's, by hostname).
func (c *Cluster) Log(ctx context.Context, role string) (string, error) {
	ctr := c.container(role)
	if ctr == nil {
		return "", fmt.Errorf("logs: no %s container in this cluster", role)
	}
	rc, err := ctr.Logs(ctx)
	if err != nil {
		return "", fmt.Errorf("logs of %s: %w", role, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return "", fmt.Errorf("logs of %s: %w", role, err)
	}
	return string(data), nil
}

func tailLogs(ctx context.Context, ctr *testcontainers.DockerContainer, n int) string {
	if ctr == nil {
		return "(no container)"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rc, err := ctr.Logs(ctx)
	if err != nil {
		return fmt.Sprintf("(logs unavailable: %v)", err)
	}
	defer rc.Close()
	data, _ := io.ReadAll(rc)
	return lastLines(string(data), n)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
