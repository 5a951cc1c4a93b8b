package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/control/sshtest"
	"github.com/stormlab/stormlab/infra/protocol"
)

// TestTargetCheckControl: target check logs in to every host of the control section (a real OpenSSH
// server in a container stands for supervisor sup1 of the fake cluster) and fails item by item, exit 2,
// for a refused key, an unknown host key and a host Nimbus does not list.
func TestTargetCheckControl(t *testing.T) {
	srv := sshtest.Start(t)
	empty := filepath.Join(t.TempDir(), "empty_known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	withControl := func(key, known string, hosts ...string) string {
		file := fakeTarget(t, protocol.BridgeClass)
		var hs []string
		for _, h := range hosts {
			hs = append(hs, fmt.Sprintf("%s: %q", h, srv.Addr))
		}
		section := fmt.Sprintf("control:\n  ssh: {user: %s, key: %s, known_hosts: %s, hosts: {%s}}\n", sshtest.User, key, known, strings.Join(hs, ", "))
		f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(section); err != nil {
			t.Fatal(err)
		}
		return file
	}
	code, out, errs := cli(t, "target", "check", withControl(srv.Key, srv.KnownHosts, "sup1"))
	t.Logf("good control:\n%s", out)
	if code != exitOK || !strings.Contains(out, "ok    ssh sup1") || !strings.Contains(out, "offers exec, pause, delay; reaches every supervisor") {
		t.Errorf("good control: exit %d stdout %q stderr %q", code, out, errs)
	}
	for _, c := range []struct {
		name, key, known string
		hosts            []string
		want             []string
	}{
		{"refused key and unknown host", srv.OtherKey, srv.KnownHosts, []string{"sup1", "sup7"},
			[]string{"FAIL  ssh sup1     refused key: add the public key of control.ssh.key", "FAIL  ssh sup7     unknown host: sup7 is not a supervisor Nimbus lists (sup1)"}},
		{"unknown host key", srv.Key, empty, []string{"sup1"}, []string{"FAIL  ssh sup1     unknown host key: add sup1's host key"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli(t, "target", "check", withControl(c.key, c.known, c.hosts...))
			t.Logf("%s:\n%s%s", c.name, out, errs)
			if code != exitBadInput || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d stderr %q, want exit 2 and one line", code, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("no line containing %q in\n%s", w, out)
				}
			}
		})
	}
}
