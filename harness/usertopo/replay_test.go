package usertopo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/infra/assets"
	"github.com/stormlab/stormlab/topologies"
)

// The contract between the Go and the Java side of a replay: the TopologyRun's main, run with --dry-run in
// a local JVM (storm-client's classpath, as the local submitter of a target run has it), builds the
// fixture's components with their captured parallelism and its groupings. Needs Java and the Maven build of
// topologies/storm (make setup).
func TestReplayTopologyDryRun(t *testing.T) {
	root, err := assets.Home()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, topologies.StormJar)); err != nil {
		t.Skipf("topologies jar not built (%v): make setup builds it", err)
	}
	file := filepath.Join(root, "topologies", "testdata", "replay-small.json")
	topo, warnings, err := Replay(file, "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	if topo.Name != "stormlab-replay-replay-small" || topo.MainClass != topologies.ReplayClass || len(warnings) != 0 {
		t.Errorf("name %q main %q warnings %q: want stormlab-replay-replay-small, %s, none", topo.Name, topo.MainClass, warnings, topologies.ReplayClass)
	}
	ctx := context.Background()
	cp, err := assets.SubmitClasspath(ctx, topo.Jar)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "java", append([]string{"-Xmx256m", "-XX:+UseSerialGC", "-cp", cp + string(os.PathListSeparator) + topo.Jar, topo.MainClass}, topo.Args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	for _, want := range []string{"topology stormlab-replay-replay-small", "spout source x2", "bolt work x2 inputs [GlobalStreamId(componentId:source, streamId:default)]",
		"bolt sink x1 inputs [GlobalStreamId(componentId:work, streamId:default)]", "conf topology.workers = 2", "conf stormlab.openloop.rate = 200.0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
}

// Bad replay input wraps ErrBadTopology (the CLI's exit 2), with nothing built.
func TestReplayTopologyBadInput(t *testing.T) {
	_, _, err := Replay(filepath.Join(t.TempDir(), "absent.json"))
	if !errors.Is(err, ErrBadTopology) || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing file: %v, want ErrBadTopology naming it not found", err)
	}
}
