package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/stormlab/stormlab/infra/control"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/infra/target"
)

// checkControl checks the target's control section item by item: its key and known_hosts files, then
// each host (its name is a supervisor Nimbus lists or a daemon's host; it resolves, answers, its host
// key is in known_hosts and matches; the key is accepted), then says which operations the control
// offers and which supervisors it does not reach. sups is nil when the UI did not answer (then host
// names are not compared with Nimbus's list).
func checkControl(ctx context.Context, t *target.Target, sups []stormui.Supervisor, item func(ok bool, name, detail, fix string), w io.Writer) {
	if t.Control == nil || t.Control.SSH == nil {
		fmt.Fprintf(w, "--    %-12s none: faults on this target are refused (add control.ssh: user, key, hosts; stormlab's docs/own-cluster.md)\n", "control")
		return
	}
	cfg := t.Control.SSH
	ctl, err := control.NewSSH(cfg)
	if err != nil {
		item(false, "control", "", err.Error())
		return
	}
	defer ctl.Close()
	listed := map[string]bool{}
	for _, s := range sups {
		listed[s.Host] = true
	}
	for _, h := range cfg.HostNames() {
		name := "ssh " + h
		addr, _ := cfg.Addr(h)
		if sups != nil && !listed[h] && !isDaemonHost(cfg, h) {
			item(false, name, "", fmt.Sprintf("unknown host: %s is not a supervisor Nimbus lists (%s) nor the host of commands.zookeeper or commands.service: fix control.ssh.hosts", h, hostList(sups)))
			continue
		}
		err := ctl.Check(ctx, h)
		item(err == nil, name, fmt.Sprintf("%s@%s: host key known, key accepted, commands run", cfg.User, addr), hostFix(err))
	}
	var missing []string
	for _, s := range sups {
		if _, ok := cfg.Addr(s.Host); !ok {
			missing = append(missing, s.Host)
		}
	}
	reach := "every supervisor"
	if len(missing) > 0 {
		reach = "not " + strings.Join(missing, ", ") + " (faults on them are refused: add them to control.ssh.hosts)"
	}
	fmt.Fprintf(w, "--    %-12s offers %s; reaches %s\n", "control", ctl.Ops(), reach)
}

// hostFix is the failure line of one host: the problem told apart (control.HostError) and its fix.
func hostFix(err error) string {
	var he *control.HostError
	if errors.As(err, &he) {
		return fmt.Sprintf("%s: %s (%v)", he.Problem, he.Fix, oneLine(he.Err.Error()))
	}
	if err != nil {
		return oneLine(err.Error())
	}
	return ""
}

func isDaemonHost(cfg *target.SSH, h string) bool {
	c := cfg.Commands
	return c.ZooKeeper != nil && c.ZooKeeper.Host == h || c.Service != nil && c.Service.Host == h
}

func hostList(sups []stormui.Supervisor) string {
	var hs []string
	for _, s := range sups {
		hs = append(hs, s.Host)
	}
	slices.Sort(hs)
	if len(hs) == 0 {
		return "none"
	}
	return strings.Join(hs, ", ")
}
