package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/infra/protocol"
)

// install-files writes the two jars (the instrumentation one holding only the instrumentation
// package), the storm.yaml lines and the README into a new folder; it refuses a non-empty or
// unwritable folder with exit 2 and one line.
func TestBridgeInstallFiles(t *testing.T) {
	root, err := assets.Home()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(assets.Path(root, assets.BridgeJar)); err != nil {
		t.Skipf("bridge jar not built (%v): make setup builds it", err)
	}
	dir := filepath.Join(t.TempDir(), "install")
	code, out, errs := cli(t, "bridge", "install-files", dir, "--service", "http://10.0.0.5:7070")
	if code != exitOK {
		t.Fatalf("install-files: exit %d stdout %q stderr %q", code, out, errs)
	}
	for name, want := range map[string]string{
		installNimbusYAML:    `storm.scheduler: "` + protocol.BridgeClass + `"`,
		installSupervisorYML: "stormlab.scheduler.token",
		installReadme:        "extlib-daemon",
	} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s: %v; want it to contain %q, got\n%s", name, err, want, data)
		}
	}
	nimbus, _ := os.ReadFile(filepath.Join(dir, installNimbusYAML))
	if !strings.Contains(string(nimbus), "stormlab.scheduler.url: \"http://10.0.0.5:7070/v1/schedule\"") {
		t.Errorf("nimbus lines do not point the bridge at the service:\n%s", nimbus)
	}
	for _, jar := range []string{installBridgeJar, installInstrumentJar} {
		zr, err := zip.OpenReader(filepath.Join(dir, jar))
		if err != nil {
			t.Fatalf("%s: %v", jar, err)
		}
		classes := 0
		for _, f := range zr.File {
			if !strings.HasSuffix(f.Name, ".class") {
				continue
			}
			classes++
			if jar == installInstrumentJar && !strings.HasPrefix(f.Name, instrumentPrefix) {
				t.Errorf("%s holds %s, outside %s", jar, f.Name, instrumentPrefix)
			}
		}
		zr.Close()
		if classes == 0 {
			t.Errorf("%s holds no class", jar)
		}
	}

	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct{ dir, want string }{
		{dir, "is not empty"}, // the folder just written
		{filepath.Join(file, "sub"), "give a new or empty folder you can write to"}, // a file where a folder should be
	} {
		code, out, errs := cli(t, "bridge", "install-files", c.dir)
		if code != exitBadInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("install-files %s: exit %d stdout %q stderr %q, want exit 2 and one line containing %q", c.dir, code, out, errs, c.want)
		}
	}
	code, _, errs = cli(t, "bridge", "install-files", filepath.Join(t.TempDir(), "x"), "--service", "10.0.0.5:7070")
	if code != exitBadInput || !strings.Contains(errs, "not an http(s) URL") {
		t.Errorf("bad --service: exit %d stderr %q", code, errs)
	}
}
