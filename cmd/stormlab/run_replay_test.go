package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replaySmall is the hand-written capture the replay tests share: source x2 -> work x2 -(fields)-> sink x1,
// 200 tuples/s, 300 µs of CPU per tuple in every component.
var replaySmall = filepath.Join("..", "..", "topologies", "testdata", "replay-small.json")

// Bad replay input is exit 2 with one line naming the problem and the fix, before Java or Docker is
// touched (DOCKER_HOST points nowhere: reaching the engine check would give exit 1), so nothing is submitted.
func TestRunReplayBadInput(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	data, err := os.ReadFile(replaySmall)
	if err != nil {
		t.Fatal(err)
	}
	// variant writes the fixture with each (from, to) pair of fromTo replaced once.
	variant := func(fromTo ...string) string {
		text := string(data)
		for i := 0; i < len(fromTo); i += 2 {
			if !strings.Contains(text, fromTo[i]) {
				t.Fatalf("fixture lacks %q", fromTo[i])
			}
			text = strings.Replace(text, fromTo[i], fromTo[i+1], 1)
		}
		p := filepath.Join(t.TempDir(), "captured.json")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	graph := filepath.Join("testdata", "small.json") // a plain graph file
	idle := variant(`"emit_per_s": 200, "execute_per_s": 0`, `"emit_per_s": 0, "execute_per_s": 0`,
		`"tuples_per_s": 200, "bytes_per_tuple": 100`, `"tuples_per_s": 0, "bytes_per_tuple": 100`)
	run := func(file string) []string {
		return []string{"run", "--scheduler", "kpart", "--topology", "replay:" + file}
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"file missing", run("/nonexistent/captured.json"), "not found: give the path of a file written by `stormlab capture`"},
		{"no file", run(""), "replay:FILE"},
		{"not a captured file", run(graph), "not a captured topology (no \"components\" and \"streams\"; a plain graph file?): capture one with `stormlab capture`"},
		{"format newer", run(variant(`"format": 1`, `"format": 3`)), "graph file format 3 is newer than this stormlab reads (1): upgrade stormlab"},
		{"parallelism 0", run(variant(`"parallelism": 1`, `"parallelism": 0`)), `component 2 ("sink") has parallelism 0: it must be >= 1`},
		{"rates 0 everywhere", run(idle), "rates <= 0 everywhere"},
		{"unknown topology", []string{"run", "--scheduler", "kpart", "--topology", "replay"}, "or replay:FILE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli(t, c.args...)
			if code != exitBadInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d stdout %q stderr %q: want exit 2 and one line containing %q", code, out, errs, c.want)
			}
		})
	}
}
