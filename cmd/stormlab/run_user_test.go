package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/internal/golden"
	"github.com/stormlab/stormlab/topologies"
)

// userJar writes a jar holding the entries named (empty class files) and returns its path.
func userJar(t *testing.T, entries ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "user.jar")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range entries {
		if _, err := zw.Create(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// Bad user-topology flags are exit 2 with one line naming the problem, before Java or Docker is
// touched (DOCKER_HOST points nowhere: reaching the engine check would give exit 1).
func TestRunUserTopologyBadFlags(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	jar := userJar(t, "com/acme/Main.class")
	notJar := filepath.Join(t.TempDir(), "notes.jar")
	if err := os.WriteFile(notJar, []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	flux := filepath.Join("testdata", "flux")
	run := func(a ...string) []string { return append([]string{"run", "--scheduler", "kpart"}, a...) }
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no topology at all", run(), "--topology is required"},
		{"built-in and flux", run("--topology", "throughput", "--topology-file", flux+"/wordcount.yaml"), "exclude each other"},
		{"flux and jar topology", run("--topology-file", flux+"/wordcount.yaml", "--topology-jar", jar), "exclude each other"},
		{"jar without flux", run("--jar", jar), "--jar holds a Flux topology's classes"},
		{"class without jar", run("--class", "com.acme.Main"), "--class and --name go with --topology-jar"},
		{"missing flux file", run("--topology-file", flux+"/nope.yaml"), "cannot read the Flux file"},
		{"flux not yaml", run("--topology-file", flux+"/not-yaml.yaml"), "is not valid YAML"},
		{"flux without name", run("--topology-file", flux+"/no-name.yaml"), "has no `name:`"},
		{"flux stream to nothing", run("--topology-file", flux+"/no-stream-target.yaml"), `names "nowhere", which is no spout or bolt`},
		{"flux with class", run("--topology-file", flux+"/wordcount.yaml", "--class", "com.acme.Main"), "--class is for a compiled topology"},
		{"flux with main args", run("--topology-file", flux+"/wordcount.yaml", "--", "x"), "a Flux topology takes none"},
		{"flux other name", run("--topology-file", flux+"/wordcount.yaml", "--name", "other"), `--name "other" differs`},
		{"flux with rate", run("--topology-file", flux+"/wordcount.yaml", "--rate", "100"), "--rate drives stormlab's own spouts"},
		{"flux jar missing", run("--topology-file", flux+"/wordcount.yaml", "--jar", "/nonexistent/user.jar"), "jar /nonexistent/user.jar not found"},
		{"jar without class", run("--topology-jar", jar, "--name", "t"), "--topology-jar needs --class"},
		{"jar without name", run("--topology-jar", jar, "--class", "com.acme.Main"), "--topology-jar needs --name"},
		{"jar not found", run("--topology-jar", "/nonexistent/user.jar", "--class", "com.acme.Main", "--name", "t"), "jar /nonexistent/user.jar not found"},
		{"not a jar", run("--topology-jar", notJar, "--class", "com.acme.Main", "--name", "t"), "is not a jar"},
		{"unknown class", run("--topology-jar", jar, "--class", "com.acme.Other", "--name", "t"), "class com.acme.Other is not in"},
		{"bad name", run("--topology-jar", jar, "--class", "com.acme.Main", "--name", "a/b"), "is not a Storm topology name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli(t, c.args...)
			if code != exitBadInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d stdout %q stderr %q: want exit 2 and one line containing %q", code, out, errs, c.want)
			}
		})
	}
}

// A Flux file that Flux itself rejects (a class not on the classpath) is exit 2 naming the class,
// found by Flux's dry run in a local JVM before the Docker engine is asked (DOCKER_HOST points
// nowhere). Needs Java and the Maven build of topologies/storm (make setup).
func TestRunFluxRejected(t *testing.T) {
	root, err := assets.Home()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, topologies.StormJar)); err != nil {
		t.Skipf("topologies jar not built (%v): make setup builds it", err)
	}
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	code, out, errs := cli(t, "run", "--scheduler", "storm-even", "--topology-file", filepath.Join("testdata", "flux", "unknown-class.yaml"))
	if code != exitBadInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "Flux rejects") || !strings.Contains(errs, "org.example.NoSuchBolt") {
		t.Errorf("exit %d stdout %q stderr %q: want exit 2 and one line saying Flux rejects the file for org.example.NoSuchBolt", code, out, errs)
	}
}

// A topology that never acks: the row shows its sink throughput with the basis, and latency as not
// measured (null in JSON, "not measured" in the table with the reason), never as 0.
func TestRunRowNotMeasured(t *testing.T) {
	why := "no spout tuple was acked or failed in the run"
	m := harness.Measurement{Throughput: 19.5, ThroughputBasis: harness.BasisSinkExecuted, CutRate: 0.25, Balance: 3,
		NotMeasured: map[string]string{harness.MetricLatency: why}}
	o := runOptions{scheduler: "storm-even", fluxFile: filepath.Join("testdata", "flux", "wordcount.yaml"), shape: "heterogeneous-2"}
	row := newRunRow(o, &harness.RunResult{Measurement: m})
	var b strings.Builder
	if err := row.write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatal(err)
	}
	if back["latency_mean_ms"] != nil || back["latency_p99_ms"] != nil || back["throughput"] != 19.5 ||
		back["throughput_basis"] != harness.BasisSinkExecuted || back["topology"] != "stormlab-flux-wordcount" {
		t.Errorf("json row %s: want null latencies, throughput 19.5 at the sinks, topology named from the file", b.String())
	}
	b.Reset()
	if err := row.write(&b, "table"); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/run-row-not-measured.golden", []byte(b.String()))
}
