package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"

	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/infra/tail"
)

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
		return fmt.Errorf("submit topology %s: exit code %d\n--- last lines of its output ---\n%s", mainClass, code, tail.Lines(out, 30))
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
	return tail.Lines(string(data), n)
}
