package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/assets"
)

// TestSetupWorksOutsideCheckout: from a folder outside the checkout, with no home, a command that
// needs the built parts fails naming `stormlab setup`; after `stormlab setup --use-built` (the Maven builds are make setup's; into the user cache
// folder, here a temporary $XDG_CACHE_HOME) the same command works from that folder.
func TestSetupWorksOutsideCheckout(t *testing.T) {
	if _, err := exec.LookPath("mvn"); err != nil {
		t.Skip("mvn not installed (make setup installs it)")
	}
	repo := repoDir(t)
	t.Setenv(assets.Env, "")
	// Go's build cache lives under XDG_CACHE_HOME too: keep the warm one, or setup's build of the
	// service compiles everything again (2 minutes here).
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	outside := t.TempDir()
	installArgs := func(dir string) []string {
		return []string{"bridge", "install-files", filepath.Join(outside, dir), "--service", "http://10.0.0.5:8090"}
	}

	t.Chdir(outside)
	code, _, errOut := cli(t, installArgs("before")...)
	if code != 2 || !strings.Contains(errOut, "stormlab setup") {
		t.Fatalf("before setup: exit %d, %q; want exit 2 naming `stormlab setup`", code, errOut)
	}

	checkout, err := assets.Checkout()
	if err == nil {
		t.Fatalf("%s found a checkout from %s", checkout, outside)
	}
	t.Chdir(repo)
	code, out, errOut := cli(t, "setup", "--use-built")
	if code != 0 {
		t.Fatalf("setup: exit %d: %s", code, errOut)
	}
	home := strings.TrimSpace(strings.TrimPrefix(out, "stormlab home:"))
	for _, rel := range []string{assets.Marker, assets.BridgeJar, assets.TopologiesJar, assets.ServiceBinary, "bin/stormlab",
		"topologies/storm/target/submit-classpath.txt"} {
		if _, err := os.Stat(assets.Path(home, rel)); err != nil {
			t.Errorf("home lacks %s: %v", rel, err)
		}
	}

	t.Chdir(outside)
	if code, _, errOut := cli(t, installArgs("after")...); code != 0 {
		t.Fatalf("after setup: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(outside, "after", installBridgeJar)); err != nil {
		t.Errorf("install-files wrote no bridge jar: %v", err)
	}
}

// repoDir is the checkout this test runs in (the package folder is inside it).
func repoDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
