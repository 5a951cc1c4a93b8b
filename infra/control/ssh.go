package control

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/stormlab/stormlab/infra/target"
)

// SSH controls a user's hosts over SSH (golang.org/x/crypto/ssh, the Go project's own client): one
// connection per host, opened on first use and kept; each command runs in its own session under sh -c.
// Host keys are checked against known_hosts, never skipped.
type SSH struct {
	cfg      *target.SSH
	signer   ssh.Signer
	hostKeys ssh.HostKeyCallback
	known    string // the known_hosts file, for messages
	timeout  time.Duration

	mu      sync.Mutex
	clients map[string]*ssh.Client
	shellOps
}

// NewSSH reads cfg's key and known_hosts (cfg.KnownHosts, else ~/.ssh/known_hosts). It connects to
// nothing yet.
func NewSSH(cfg *target.SSH) (*SSH, error) {
	pem, err := os.ReadFile(cfg.Key)
	if err != nil {
		return nil, fmt.Errorf("control.ssh.key: %w (give the private key file the harness logs in with)", err)
	}
	signer, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		return nil, fmt.Errorf("control.ssh.key %s: %w (give an unencrypted private key in OpenSSH or PEM form)", cfg.Key, err)
	}
	known := cfg.KnownHosts
	if known == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("find ~/.ssh/known_hosts: %w (give control.ssh.known_hosts)", err)
		}
		known = filepath.Join(home, ".ssh", "known_hosts")
	}
	cb, err := knownhosts.New(known)
	if err != nil {
		return nil, fmt.Errorf("known_hosts %s: %w (give control.ssh.known_hosts, a file holding the hosts' keys: ssh-keyscan HOST, after checking the fingerprints)", known, err)
	}
	s := &SSH{cfg: cfg, signer: signer, hostKeys: cb, known: known, timeout: 15 * time.Second, clients: map[string]*ssh.Client{}}
	s.shellOps = shellOps{exec: s.Exec}
	return s, nil
}

// Name is "ssh".
func (s *SSH) Name() string { return "ssh" }

// Ops is exec, pause and delay, and the ops whose commands the target file gives.
func (s *SSH) Ops() Ops {
	ops := Of(OpExec, OpPause, OpDelay)
	c := s.cfg.Commands
	if c.Supervisor != nil {
		ops |= Of(OpStopSupervisor)
	}
	if c.ZooKeeper != nil {
		ops |= Of(OpStopZooKeeper)
	}
	if c.Service != nil {
		ops |= Of(OpStopService)
	}
	if c.Drop != nil {
		ops |= Of(OpDrop)
	}
	return ops
}

// commandKey is the target-file key that adds an op's commands.
var commandKey = map[Op]string{
	OpStopSupervisor: "control.ssh.commands.supervisor: {stop: ..., start: ...}",
	OpStopZooKeeper:  "control.ssh.commands.zookeeper: {host: ..., stop: ..., start: ...}",
	OpStopService:    "control.ssh.commands.service: {host: ..., stop: ..., start: ...}",
	OpDrop:           "control.ssh.commands.drop: {drop: ..., heal: ...}",
}

// Can checks that op is offered and that host (when op acts on one) has an SSH address.
func (s *SSH) Can(op Op, host string) error {
	if !s.Ops().Has(op) {
		return &UnsupportedError{Control: s.Name(), Op: op, Host: host, Fix: "add " + commandKey[op] + " to the target file"}
	}
	if host == "" || op == OpStopZooKeeper || op == OpStopService {
		return nil
	}
	if _, ok := s.cfg.Addr(host); !ok {
		return &UnsupportedError{Control: s.Name(), Op: op, Host: host,
			Fix: fmt.Sprintf("add control.ssh.hosts.%s: ADDR:PORT (its SSH address) to the target file", host)}
	}
	return nil
}

// Exec runs cmd with sh -c on host.
func (s *SSH) Exec(ctx context.Context, host, cmd string) (string, error) {
	if err := s.Can(OpExec, host); err != nil {
		return "", err
	}
	c, err := s.client(ctx, host)
	if err != nil {
		return "", err
	}
	sess, err := c.NewSession()
	if err != nil { // the connection died (host rebooted, sshd restarted): connect once more
		s.forget(host, c)
		if c, err = s.client(ctx, host); err != nil {
			return "", err
		}
		if sess, err = c.NewSession(); err != nil {
			return "", fmt.Errorf("ssh session on %s: %w", host, err)
		}
	}
	defer sess.Close()
	return runSession(ctx, sess, host, cmd)
}

// runSession runs cmd in sess; ctx's end closes the session (the remote command gets SIGHUP).
func runSession(ctx context.Context, sess *ssh.Session, host, cmd string) (string, error) {
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := sess.CombinedOutput("sh -c " + quote(cmd))
		done <- result{out, err}
	}()
	select {
	case <-ctx.Done():
		sess.Close()
		return "", fmt.Errorf("%s on %s: %w", cmd, host, ctx.Err())
	case r := <-done:
		var xe *ssh.ExitError
		if errors.As(r.err, &xe) {
			return string(r.out), &ExitError{Host: host, Cmd: cmd, Code: xe.ExitStatus(), Out: string(r.out)}
		}
		if r.err != nil {
			return string(r.out), fmt.Errorf("%s on %s: %w", cmd, host, r.err)
		}
		return string(r.out), nil
	}
}

// Stop runs the daemon's stop command on its host; the undo runs its start command there.
func (s *SSH) Stop(ctx context.Context, d Daemon, host string) (Undo, error) {
	if err := s.Can(d.Op(), host); err != nil {
		return nil, err
	}
	var cmds *target.DaemonCommands
	switch d {
	case Supervisor:
		cmds = s.cfg.Commands.Supervisor
	case ZooKeeper:
		cmds, host = s.cfg.Commands.ZooKeeper, s.cfg.Commands.ZooKeeper.Host
	case Service:
		cmds, host = s.cfg.Commands.Service, s.cfg.Commands.Service.Host
	default:
		return nil, fmt.Errorf("stop %q: unknown daemon", d)
	}
	if _, err := s.Exec(ctx, host, cmds.Stop); err != nil {
		return nil, fmt.Errorf("stop %s: %w", d, err)
	}
	return func(ctx context.Context) error {
		if _, err := s.Exec(ctx, host, cmds.Start); err != nil {
			return fmt.Errorf("start %s again: %w", d, err)
		}
		return nil
	}, nil
}

// Pause SIGSTOPs the processes matching pattern on host.
func (s *SSH) Pause(ctx context.Context, host, pattern string) ([]string, Undo, error) {
	if err := s.Can(OpPause, host); err != nil {
		return nil, nil, err
	}
	return s.pause(ctx, host, pattern)
}

// Delay writes DelayFile on both hosts.
func (s *SSH) Delay(ctx context.Context, a, b string, d time.Duration) (Undo, error) {
	for _, h := range []string{a, b} {
		if err := s.Can(OpDelay, h); err != nil {
			return nil, err
		}
	}
	return s.delay(ctx, a, b, d)
}

// Drop runs the drop command on both hosts ({peer}: the other one); the undo runs the heal command.
func (s *SSH) Drop(ctx context.Context, a, b string) (Undo, error) {
	for _, h := range []string{a, b} {
		if err := s.Can(OpDrop, h); err != nil {
			return nil, err
		}
	}
	run := func(ctx context.Context, tmpl string) error {
		var errs []error
		for _, p := range [][2]string{{a, b}, {b, a}} {
			_, err := s.Exec(ctx, p[0], strings.ReplaceAll(tmpl, "{peer}", p[1]))
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	}
	heal := func(ctx context.Context) error { return run(ctx, s.cfg.Commands.Drop.Heal) }
	if err := run(ctx, s.cfg.Commands.Drop.Drop); err != nil {
		return nil, errors.Join(fmt.Errorf("drop: %w", err), heal(context.WithoutCancel(ctx)))
	}
	return heal, nil
}

// Close closes every connection.
func (s *SSH) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for h, c := range s.clients {
		errs = append(errs, c.Close())
		delete(s.clients, h)
	}
	return errors.Join(errs...)
}

// Check connects to host (TCP, host key, login) and runs `true` there: what target check reports.
func (s *SSH) Check(ctx context.Context, host string) error {
	_, err := s.Exec(ctx, host, "true")
	return err
}

func (s *SSH) client(ctx context.Context, host string) (*ssh.Client, error) {
	s.mu.Lock()
	c := s.clients[host]
	s.mu.Unlock()
	if c != nil {
		return c, nil
	}
	c, err := s.dial(ctx, host)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.clients[host]; old != nil { // another goroutine connected first
		c.Close()
		return old, nil
	}
	s.clients[host] = c
	return c, nil
}

func (s *SSH) forget(host string, c *ssh.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clients[host] == c {
		delete(s.clients, host)
	}
	c.Close()
}
