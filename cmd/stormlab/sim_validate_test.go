package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimValidateCommand: bad input is refused with exit 2 and nothing written; recorded runs are
// validated into OUT/sim-validation, but not against a cost model they measured (the recorded run is
// harness/simcluster's testdata, measured into a cost model first: it is skipped and named, so the
// command fails naming why).
func TestSimValidateCommand(t *testing.T) {
	empty, out := t.TempDir(), t.TempDir()
	const run = "../../harness/simcluster/testdata/wordcount-even"
	own := filepath.Join(t.TempDir(), "own.json")
	if code, _, stderr := cli(t, "sim", "costs", "--from", run, "--out", own); code != 0 {
		t.Fatalf("sim costs --from %s: exit %d, %s", run, code, stderr)
	}
	existing := t.TempDir()
	if err := os.Mkdir(filepath.Join(existing, "sim-validation"), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "costs.json")
	if err := os.WriteFile(bad, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sim", "validate", "--out", out}, 2, "needs --from DIR"},
		{[]string{"sim", "validate", "--from", empty, "--out", out}, 2, "no recorded run"},
		{[]string{"sim", "validate", "--from", empty, "--out", existing}, 2, "already holds results"},
		{[]string{"sim", "validate", "--from", "../../harness/simcluster/testdata", "--out", out, "--costs", bad}, 2, "write one with stormlab sim costs"},
		{[]string{"sim", "validate", "--from", run, "--out", out, "--costs", own}, 1, "measured into the cost model"},
	} {
		code, _, stderr := cli(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "sim-validation")); !os.IsNotExist(err) {
		t.Errorf("a refused or failed sim validate left %s: %v", filepath.Join(out, "sim-validation"), err)
	}
}

// TestSimCostsMethod: an unknown --method is refused with exit 2, naming the methods; --method counted on
// runs recorded before the workers counted their idle CPU fails naming spin_ns. Neither writes a file.
func TestSimCostsMethod(t *testing.T) {
	out := filepath.Join(t.TempDir(), "costs.json")
	for _, c := range []struct {
		method string
		code   int
		want   string
	}{
		{"guess", 2, "give one of ratio, fit, work, counted"},
		{"counted", 2, "spin_ns"},
	} {
		code, _, stderr := cli(t, "sim", "costs", "--from", "../../harness/simcluster/testdata/wordcount-even", "--out", out, "--method", c.method)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("--method %s: exit %d, stderr %q: want %d and %q", c.method, code, stderr, c.code, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--method %s: a refused sim costs wrote %s", c.method, out)
		}
	}
}
