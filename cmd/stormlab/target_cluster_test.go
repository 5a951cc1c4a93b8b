package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/docker"
	"github.com/stormlab/stormlab/infra/stormui"
	"github.com/stormlab/stormlab/infra/target"
)

// helperCLI makes this test binary act as the stormlab CLI (arguments as JSON), so that a test can run
// the CLI in a process of its own, with its own environment.
const helperCLI = "STORMLAB_TEST_CLI_ARGS"

func TestMain(m *testing.M) {
	if a := os.Getenv(helperCLI); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			fmt.Fprintln(os.Stderr, "helper CLI:", err)
			os.Exit(3)
		}
		os.Exit(execute(context.Background(), args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// cliNoDocker runs the CLI in a child process that cannot reach a Docker engine (DOCKER_HOST points to
// a socket that does not exist).
func cliNoDocker(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperCLI+"="+string(a), "DOCKER_HOST=unix:///nonexistent/docker.sock")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatalf("run the CLI: %v", err)
	}
	return 0, out.String(), errb.String()
}

// A standing cluster used through its target file only: the runs' process cannot reach Docker; the
// cluster is healthy and has no topology afterwards; `cluster down` removes it.
func TestStandingClusterTarget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute) // mostly waiting for the cluster lock
	defer cancel()
	file := filepath.Join(t.TempDir(), "target.yaml")
	c, err := standUp(ctx, docker.DefaultProfile, "kpart", file, t.Logf)
	if err != nil {
		t.Fatalf("cluster up: %v", err)
	}
	t.Cleanup(func() {
		c.Release() // from here on only `cluster down` removes it, as after `cluster up --detach`
		code, out, errs := cli(t, "cluster", "down")
		if code != exitOK || !strings.Contains(out, "removed the standing cluster") {
			t.Errorf("cluster down: exit %d stdout %q stderr %q", code, out, errs)
		}
		if left, err := docker.Leftovers(context.Background(), docker.LabelStanding+"=true"); err != nil || len(left) > 0 {
			t.Errorf("after cluster down: left %v (%v)", left, err)
		}
	})
	tg, err := target.Load(file)
	if err != nil {
		t.Fatal(err)
	}

	code, out, errs := cliNoDocker(t, "target", "check", file)
	t.Logf("target check:\n%s%s", out, errs)
	if code != exitOK || !strings.Contains(out, "target ready") {
		t.Fatalf("target check: exit %d, want 0 and target ready", code)
	}
	// Nimbus runs the bridge: a native scheduler is refused before anything is submitted.
	code, _, errs = cliNoDocker(t, "run", "--target", file, "--scheduler", "storm-even", "--topology", "throughput")
	if code != exitBadInput || !strings.Contains(errs, "storm.scheduler") {
		t.Errorf("storm-even on a bridged Nimbus: exit %d stderr %q, want exit 2 naming storm.scheduler", code, errs)
	}
	code, out, errs = cliNoDocker(t, "run", "--target", file, "--scheduler", "kpart", "--topology", "throughput",
		"--warmup", "15s", "--measure", "15s", "--format", "json")
	t.Logf("run --target:\nstdout %s\nstderr (last lines) %s", out, lastN(errs, 15))
	if code != exitOK {
		t.Fatalf("run --target: exit %d", code)
	}
	var row runRow
	if err := json.Unmarshal([]byte(out), &row); err != nil {
		t.Fatalf("run row: %v", err)
	}
	if !row.Valid || row.Throughput <= 0 || len(row.RoundsMs) == 0 {
		t.Errorf("run row %+v: want a valid kpart run with throughput and bridge rounds", row)
	}

	// The cluster as it was found: no topology, every supervisor, no slot used.
	ui := stormui.New(tg.UI)
	deadline := time.Now().Add(90 * time.Second)
	for {
		tops, terr := ui.Topologies(ctx)
		cl, cerr := ui.Cluster(ctx)
		if terr == nil && cerr == nil && len(tops) == 0 && cl.Supervisors == 2 && cl.SlotsUsed == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("standing cluster after the run: topologies %v (%v), summary %+v (%v): want none, 2 supervisors, no slot used", tops, terr, cl, cerr)
		}
		time.Sleep(time.Second) // polling the UI, bounded by deadline
	}
}

func lastN(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
