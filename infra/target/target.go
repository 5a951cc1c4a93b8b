package target

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Target is an existing Storm cluster as the harness uses it. Without Control only its endpoints are
// used and nothing on its hosts is touched; with Control the harness may inject faults on its hosts.
type Target struct {
	Nimbus  Nimbus  `yaml:"nimbus"`
	UI      string  `yaml:"ui"` // base URL of the Storm UI's REST API, e.g. http://ui-host:8080
	Service Service `yaml:"service"`
	// Capacity overrides the CPU capacity (100 = one core) of supervisors by hostname; without an
	// entry a supervisor's capacity is what Nimbus reports (supervisor.cpu.capacity).
	Capacity map[string]float64 `yaml:"capacity,omitempty"`
	// Token authenticates the harness to the scheduler service (optional).
	Token string `yaml:"token,omitempty"`
	// Name labels results (e.g. "lab-cluster"); optional.
	Name string `yaml:"name,omitempty"`
	// Control, when set, is how the harness reaches the cluster's hosts to inject faults (optional).
	Control *Control `yaml:"control,omitempty"`
}

// Nimbus is how a Storm client reaches Nimbus.
type Nimbus struct {
	Seeds []string `yaml:"seeds"` // nimbus.seeds
	Port  int      `yaml:"port"`  // nimbus.thrift.port
	// Resolve maps host names Nimbus advertises (its leader's storm.local.hostname) to addresses this
	// machine can reach, for a cluster whose names this machine cannot resolve (NAT, containers).
	Resolve map[string]string `yaml:"resolve,omitempty"`
}

// Service is the stormlab scheduler service.
type Service struct {
	// Cluster is its base URL as Nimbus's bridge and the workers reach it (they POST to it).
	Cluster string `yaml:"cluster"`
	// Harness is its base URL as this machine reaches it (reports, state, decisions).
	Harness string `yaml:"harness"`
}

// Load reads and checks a target file.
func Load(path string) (*Target, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("target file: %w (give the path of a target YAML file; `stormlab cluster up --detach` writes one)", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("target file %s: %w", path, err)
	}
	if t.Control != nil && t.Control.SSH != nil {
		t.Control.SSH.resolvePaths(filepath.Dir(path))
	}
	return t, nil
}

var yamlField = regexp.MustCompile(`field (\S+) not found in type target\.(\w+)`)

// Parse decodes a target description strictly: unknown keys and missing fields are errors.
func Parse(data []byte) (*Target, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty: give nimbus, ui and service (see stormlab's docs/own-cluster.md)")
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var t Target
	if err := dec.Decode(&t); err != nil && !errors.Is(err, io.EOF) {
		if m := yamlField.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("unknown key %q%s: remove it (known keys: %s)", m[1], inSection(m[2]), knownKeys(m[2]))
		}
		return nil, fmt.Errorf("not a valid target description: %s", oneLine(err.Error()))
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

func inSection(typ string) string {
	switch typ {
	case "Nimbus":
		return " under nimbus"
	case "Service":
		return " under service"
	case "Control":
		return " under control"
	case "SSH":
		return " under control.ssh"
	case "Commands":
		return " under control.ssh.commands"
	case "DaemonCommands", "DropCommands":
		return " in a command of control.ssh.commands"
	}
	return ""
}

func knownKeys(typ string) string {
	switch typ {
	case "Nimbus":
		return "seeds, port, resolve"
	case "Service":
		return "cluster, harness"
	case "Control":
		return "ssh"
	case "SSH":
		return "user, key, known_hosts, hosts, commands"
	case "Commands":
		return "supervisor, zookeeper, service, drop"
	case "DaemonCommands":
		return "host, stop, start"
	case "DropCommands":
		return "drop, heal"
	}
	return "nimbus, ui, service, capacity, token, name, control"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Validate checks that every required field is there and well formed.
func (t *Target) Validate() error {
	switch {
	case len(t.Nimbus.Seeds) == 0:
		return errors.New("missing nimbus.seeds: list Nimbus's host names, e.g. nimbus: {seeds: [nimbus1.example.org], port: 6627}")
	case t.Nimbus.Port == 0:
		return errors.New("missing nimbus.port: give Nimbus's Thrift port (nimbus.thrift.port, 6627 by default)")
	case t.Nimbus.Port < 0 || t.Nimbus.Port > 65535:
		return fmt.Errorf("nimbus.port %d is not a TCP port: give 1-65535", t.Nimbus.Port)
	}
	for _, s := range t.Nimbus.Seeds {
		if strings.TrimSpace(s) == "" || strings.ContainsAny(s, ":/ ") {
			return fmt.Errorf("nimbus.seeds entry %q is not a host name: give bare host names (the port goes in nimbus.port)", s)
		}
	}
	for name, addr := range t.Nimbus.Resolve {
		if strings.TrimSpace(addr) == "" {
			return fmt.Errorf("nimbus.resolve.%s is empty: give the address this machine reaches %s at", name, name)
		}
	}
	if err := checkURL("ui", t.UI, "the Storm UI's base URL, e.g. http://ui-host:8080"); err != nil {
		return err
	}
	if err := checkURL("service.cluster", t.Service.Cluster, "the scheduler service's base URL as Nimbus and the workers reach it, e.g. http://10.0.0.5:7070"); err != nil {
		return err
	}
	if err := checkURL("service.harness", t.Service.Harness, "the scheduler service's base URL as this machine reaches it, e.g. http://10.0.0.5:7070"); err != nil {
		return err
	}
	for h, c := range t.Capacity {
		if c <= 0 {
			return fmt.Errorf("capacity.%s is %g: give the supervisor's CPU capacity, > 0 (100 = one core)", h, c)
		}
	}
	if t.Control != nil {
		return t.Control.validate()
	}
	return nil
}

func checkURL(key, v, what string) error {
	if v == "" {
		return fmt.Errorf("missing %s: give %s", key, what)
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %q is not an http(s) URL: give %s", key, v, what)
	}
	return nil
}

// Write writes t as YAML to path (mode 0600: it may hold a token).
func (t *Target) Write(path string) error {
	data, err := yaml.Marshal(t)
	if err != nil {
		return err
	}
	head := "# stormlab target: an existing Storm cluster's endpoints (see stormlab's docs/own-cluster.md)\n"
	return os.WriteFile(path, append([]byte(head), data...), 0o600)
}

// Trim returns u without a trailing slash.
func Trim(u string) string { return strings.TrimRight(u, "/") }
