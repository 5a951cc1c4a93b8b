package docker

import (
	"fmt"
	"time"

	"github.com/stormlab/stormlab/infra/images"
)

// Option configures Run. Options are applied in order over the defaults; an invalid option makes Run
// fail before it creates anything.
type Option func(*config) error

type config struct {
	supervisors  []SupervisorSpec
	shape        string
	delayMS      int
	ui           bool
	scheduler    string
	nimbusConf   map[string]any
	supConf      map[string]any
	service      bool
	serviceImage string
	serviceArgs  []string
	logf         func(format string, args ...any)
	images       *images.Set
	timeout      time.Duration
	runID        string
	standing     bool
	ssh          *sshKeys // WithSSH
	linkMbit     float64  // WithLinkRate
}

// DefaultShape is the cluster Run starts without WithShape or WithSupervisors.
const DefaultShape = "heterogeneous-2"

func defaults() *config {
	sups, _ := Shape(DefaultShape)
	return &config{
		supervisors: sups,
		shape:       DefaultShape,
		ui:          true,
		nimbusConf:  map[string]any{},
		supConf:     map[string]any{},
		logf:        func(string, ...any) {},
		timeout:     3 * time.Minute,
	}
}

// WithShape starts the supervisors of a named shape (see Shapes).
func WithShape(name string) Option {
	return func(c *config) error {
		sups, err := Shape(name)
		if err != nil {
			return err
		}
		c.supervisors, c.shape = sups, name
		return nil
	}
}

// WithSupervisors starts exactly these supervisors (hostnames must be distinct).
func WithSupervisors(specs ...SupervisorSpec) Option {
	return func(c *config) error {
		if len(specs) == 0 {
			return fmt.Errorf("WithSupervisors: no supervisors given; a cluster needs at least one")
		}
		seen := map[string]bool{}
		for _, s := range specs {
			if err := s.validate(); err != nil {
				return err
			}
			if seen[s.Host] {
				return fmt.Errorf("WithSupervisors: host %q given twice; hostnames must be distinct", s.Host)
			}
			seen[s.Host] = true
		}
		c.supervisors, c.shape = append([]SupervisorSpec(nil), specs...), "custom"
		return nil
	}
}

// WithNetworkDelay delays every message a worker sends to a worker on another node by ms; messages
// inside a node are not delayed. 0 (default) disables it. The kernels stormlab runs on lack sch_netem,
// so instead of tc netem the delay is applied by Storm's messaging layer (DelayTransport, set in
// storm.yaml); a topology that sets storm.messaging.transport itself overrides it.
func WithNetworkDelay(ms int) Option {
	return func(c *config) error {
		if ms < 0 || ms > 10000 {
			return fmt.Errorf("WithNetworkDelay: %d ms out of range [0, 10000]", ms)
		}
		c.delayMS = ms
		return nil
	}
}

// SupervisorsOf is the supervisors Run would start with opts, and the shape's name ("custom" after
// WithSupervisors): what a model of the cluster (a simulated twin) needs, without starting it.
func SupervisorsOf(opts ...Option) ([]SupervisorSpec, string, error) {
	cfg, err := configure(opts)
	if err != nil {
		return nil, "", err
	}
	return cfg.supervisors, cfg.shape, nil
}

// WithLinkRate limits the egress of every supervisor whose spec sets no LinkMbit of its own to mbit
// Mbit/s (0, the default, leaves them unlimited); see SupervisorSpec.LinkMbit. It applies to the
// supervisors of whichever shape or WithSupervisors the options end with.
func WithLinkRate(mbit float64) Option {
	return func(c *config) error {
		if !(mbit >= 0 && mbit <= MaxLinkMbit) {
			return fmt.Errorf("WithLinkRate: %g Mbit/s out of range [0, %d] (0 = unlimited)", mbit, MaxLinkMbit)
		}
		c.linkMbit = mbit
		return nil
	}
}

// WithUI starts (default) or leaves out the UI container. Without it, supervisor registration is read
// from ZooKeeper and Kill is unavailable.
func WithUI(on bool) Option { return func(c *config) error { c.ui = on; return nil } }

// WithScheduler sets Nimbus's storm.scheduler (an IScheduler class on its classpath), e.g.
// images.BridgeClass or "org.apache.storm.scheduler.resource.ResourceAwareScheduler".
func WithScheduler(class string) Option {
	return func(c *config) error {
		if class == "" {
			return fmt.Errorf("WithScheduler: empty class name")
		}
		c.scheduler = class
		return nil
	}
}

// WithNimbusConf merges entries into Nimbus's storm.yaml (later calls win per key).
func WithNimbusConf(conf map[string]any) Option {
	return func(c *config) error {
		for k, v := range conf {
			c.nimbusConf[k] = v
		}
		return nil
	}
}

// WithSupervisorConf merges entries into every supervisor's storm.yaml (e.g. worker.childopts).
func WithSupervisorConf(conf map[string]any) Option {
	return func(c *config) error {
		for k, v := range conf {
			c.supConf[k] = v
		}
		return nil
	}
}

// WithService runs the Go scheduler service on the cluster network under the alias ServiceAlias, port
// ServicePort (published on 127.0.0.1), before Nimbus starts. image "" means the stormlab service image
// built from cmd/stormlab-service; args are its command-line arguments (e.g. "--scheduler", "kpart").
// Nimbus gets ServiceURLConf = http://scheduler-service:7070/v1/schedule in its storm.yaml.
func WithService(image string, args ...string) Option {
	return func(c *config) error {
		if image == "" {
			// The cluster's network is private and the port published on 127.0.0.1 only: no token needed.
			args = append([]string{"--private-network"}, args...)
		}
		c.service, c.serviceImage, c.serviceArgs = true, image, append([]string(nil), args...)
		return nil
	}
}

// WithLogf receives progress lines (e.g. t.Logf or log.Printf).
func WithLogf(f func(format string, args ...any)) Option {
	return func(c *config) error {
		if f != nil {
			c.logf = f
		}
		return nil
	}
}

// WithImages uses already built images instead of building (or checking) them in Run.
func WithImages(set images.Set) Option {
	return func(c *config) error { c.images = &set; return nil }
}

// WithStartTimeout bounds the wait for each daemon (default 3 minutes).
func WithStartTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("WithStartTimeout: %s is not positive", d)
		}
		c.timeout = d
		return nil
	}
}

// WithRunID sets the run label value (default: random). Every container and network gets
// LabelRun=<id>.
func WithRunID(id string) Option {
	return func(c *config) error {
		if id == "" {
			return fmt.Errorf("WithRunID: empty id")
		}
		c.runID = id
		return nil
	}
}

// StandingNimbusPort is the host port (127.0.0.1) of a standing cluster's Nimbus: the same as inside the
// cluster network, because a Storm client reconnects to the leader at the port Nimbus advertises.
const StandingNimbusPort = NimbusPort

// WithStanding makes a standing cluster, one that outlives the process that started it (`stormlab
// cluster up --detach`): its containers carry LabelStanding, so they are never removed as a dead
// owner's leftovers (only RemoveStanding removes them), and Nimbus's Thrift port is published at
// 127.0.0.1:StandingNimbusPort so that a local Storm client reaches the leader Nimbus advertises.
func WithStanding() Option { return func(c *config) error { c.standing = true; return nil } }
