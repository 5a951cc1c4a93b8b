package control_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/control/sshtest"
	"github.com/stormlab/stormlab/infra/target"
)

// TestSSHAgainstSshd drives the SSH control against a real OpenSSH server in a container: it runs a
// command, pauses and resumes a process (checked from the kernel's process state), writes and removes
// the delay file, runs a daemon's stop and start commands, and refuses a wrong host key, an unknown
// host key and a key the server does not accept, each told apart. Two host names map to the one
// server, as two supervisors would map to two. About 10 s once the image is built.
func TestSSHAgainstSshd(t *testing.T) {
	srv := sshtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := &target.SSH{User: sshtest.User, Key: srv.Key, KnownHosts: srv.KnownHosts,
		Hosts:    map[string]string{"sup1": srv.Addr, "sup2": srv.Addr},
		Commands: target.Commands{Supervisor: &target.DaemonCommands{Stop: "touch /tmp/stopped", Start: "rm /tmp/stopped"}}}
	ctl, err := control.NewSSH(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()

	out, err := ctl.Exec(ctx, "sup1", "id -un; echo $((6*7))")
	if err != nil || out != sshtest.User+"\n42\n" {
		t.Fatalf("exec: %q, %v; want %q", out, err, sshtest.User+"\n42\n")
	}
	if _, err := ctl.Exec(ctx, "sup1", "exit 3"); !control.IsExit(err) || !strings.Contains(err.Error(), "exit 3") {
		t.Errorf("exit 3: error %v, want an *ExitError with code 3", err)
	}
	t.Run("pause and resume", func(t *testing.T) { checkPause(t, ctx, ctl) })
	t.Run("delay", func(t *testing.T) { checkDelay(t, ctx, ctl) })
	t.Run("stop and start", func(t *testing.T) {
		undo, err := ctl.Stop(ctx, control.Supervisor, "sup2")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ctl.Exec(ctx, "sup2", "test -f /tmp/stopped"); err != nil {
			t.Errorf("after stop: %v", err)
		}
		if err := undo(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := ctl.Exec(ctx, "sup2", "test ! -e /tmp/stopped"); err != nil {
			t.Errorf("after start: %v", err)
		}
		if _, err := ctl.Stop(ctx, control.ZooKeeper, ""); !strings.Contains(errString(err), "add control.ssh.commands.zookeeper") {
			t.Errorf("stop zookeeper without its commands: %v, want the key to add", err)
		}
	})
	t.Run("refusals", func(t *testing.T) { checkRefusals(t, ctx, srv, cfg) })
}

// checkPause starts a sleep on the host, pauses it and resumes it; ps's STAT column is T while
// stopped by a signal and S while sleeping.
func checkPause(t *testing.T, ctx context.Context, ctl control.Control) {
	if _, err := ctl.Exec(ctx, "sup1", "setsid sleep 600 </dev/null >/dev/null 2>&1 &"); err != nil {
		t.Fatal(err)
	}
	defer ctl.Exec(context.WithoutCancel(ctx), "sup1", "pkill -f 'sleep 600'")
	pids, undo, err := ctl.Pause(ctx, "sup1", "sleep 600")
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) != 1 {
		t.Fatalf("paused %v, want the one sleep", pids)
	}
	stat := func() string {
		out, err := ctl.Exec(ctx, "sup1", "ps -o stat= -p "+pids[0])
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out)
	}
	if s := stat(); !strings.HasPrefix(s, "T") {
		t.Errorf("state after pause %q, want T (stopped)", s)
	}
	if err := undo(ctx); err != nil {
		t.Fatal(err)
	}
	if s := stat(); !strings.HasPrefix(s, "S") {
		t.Errorf("state after resume %q, want S (sleeping)", s)
	}
	if _, _, err := ctl.Pause(ctx, "sup1", "no-such-process-xyz"); err == nil {
		t.Error("pause of no process: no error")
	}
}

// checkDelay: both names map to one host, so the file holds the second write (sup1 as seen from sup2).
func checkDelay(t *testing.T, ctx context.Context, ctl control.Control) {
	undo, err := ctl.Delay(ctx, "sup1", "sup2", 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ctl.Exec(ctx, "sup1", "cat "+control.DelayFile)
	if err != nil || out != "sup1 50\n" {
		t.Errorf("delay file %q, %v; want %q", out, err, "sup1 50\n")
	}
	if err := undo(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.Exec(ctx, "sup1", "test ! -e "+control.DelayFile); err != nil {
		t.Errorf("delay file left after undo: %v", err)
	}
}

// checkRefusals: a changed host key, an unknown one, a refused login key and a closed port are each
// refused with their own problem.
func checkRefusals(t *testing.T, ctx context.Context, srv *sshtest.Server, good *target.SSH) {
	dir := t.TempDir()
	// known_hosts holding another key for the address: the server's own host key is not it.
	wrong := filepath.Join(dir, "wrong_known_hosts")
	write(t, wrong, knownhosts.Line([]string{srv.Addr}, publicOf(t, srv.OtherKey))+"\n")
	empty := filepath.Join(dir, "empty_known_hosts")
	write(t, empty, "")
	for _, c := range []struct {
		name  string
		edit  func(*target.SSH)
		want  control.Problem
		fixed string
	}{
		{"changed host key", func(s *target.SSH) { s.KnownHosts = wrong }, control.HostKeyMismatch, "does not hold"},
		{"unknown host key", func(s *target.SSH) { s.KnownHosts = empty }, control.UnknownHostKey, "ssh-keyscan"},
		{"refused key", func(s *target.SSH) { s.Key = srv.OtherKey }, control.RefusedKey, "authorized_keys"},
		{"closed port", func(s *target.SSH) { s.Hosts = map[string]string{"sup1": "127.0.0.1:1"} }, control.Unreachable, "start sshd"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := *good
			c.edit(&cfg)
			ctl, err := control.NewSSH(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer ctl.Close()
			err = ctl.Check(ctx, "sup1")
			t.Logf("%s: %v", c.name, err)
			var he *control.HostError
			if !errors.As(err, &he) || he.Problem != c.want || !strings.Contains(err.Error(), c.fixed) {
				t.Fatalf("error %v; want a %q HostError whose fix says %q", err, c.want, c.fixed)
			}
			if _, err := ctl.Exec(ctx, "sup1", "touch /tmp/should-not-run"); err == nil {
				t.Error("a command ran after a refused connection")
			}
		})
	}
	if code, _, err := srv.Exec(ctx, "test", "!", "-e", "/tmp/should-not-run"); err != nil || code != 0 {
		t.Errorf("a refused connection ran a command: exit %d %v", code, err)
	}
}

func publicOf(t *testing.T, keyFile string) ssh.PublicKey {
	t.Helper()
	pem, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		t.Fatal(err)
	}
	return k.PublicKey()
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
