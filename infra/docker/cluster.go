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
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/stormlab/stormlab/infra/assets"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/stormlab/stormlab/infra/images"
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
	lock        *os.File           // machine-wide cluster lock, released by Terminate
	ssh         *sshKeys           // WithSSH, else nil
	links       map[string]float64 // each supervisor's link rate now, Mbit/s (0: unlimited)

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
	warnOversubscribed(cfg)
	if limited(cfg.supervisors) {
		if err := checkLinkTools(); err != nil { // before anything is created
			return nil, fmt.Errorf("storm cluster: %w", err)
		}
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
	c := &Cluster{ID: cfg.runID, Shape: cfg.shape, containers: map[string]*testcontainers.DockerContainer{}, logf: cfg.logf, lock: lock, ssh: cfg.ssh, links: map[string]float64{}}
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
	for i := range cfg.supervisors {
		if cfg.supervisors[i].LinkMbit == 0 {
			cfg.supervisors[i].LinkMbit = cfg.linkMbit
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
// checkBridge refuses a Nimbus whose scheduler is the bridge when the bridge's jar was never built:
// the image would start without it and Nimbus die with a ClassNotFoundException.
func checkBridge(home, scheduler string) error {
	if scheduler != images.BridgeClass {
		return nil
	}
	jar := filepath.Join(home, filepath.FromSlash(images.BridgeJar))
	if _, err := os.Stat(jar); err != nil {
		return fmt.Errorf("Nimbus's scheduler is the bridge (%s), but %s is missing: build it with `mvn -q -f infra/docker/bridge/pom.xml package` (make setup does)", images.BridgeClass, jar)
	}
	return nil
}

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
	if home, herr := assets.Home(); herr == nil {
		if err := checkBridge(home, cfg.scheduler); err != nil {
			return err
		}
	}
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
