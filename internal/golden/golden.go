package golden

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files (and generated README tables) from the current output")

// Update reports whether the test binary runs with -update. Call it inside
// a test, after the testing package has parsed the flags.
func Update() bool { return *update }

// Assert compares got with the file at path (slash-separated, relative to
// the test's package directory, e.g. "testdata/table.md"), or writes got
// there when the test binary runs with -update.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	check(t, filepath.FromSlash(path), got, Update())
}

// check is Assert with the -update value passed in, so that its own tests
// can exercise both modes.
func check(t testing.TB, path string, got []byte, rewrite bool) {
	t.Helper()
	if rewrite {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("write golden file: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%v (run `%s` to create it)", err, rerun(t))
	}
	if err != nil {
		t.Fatalf("read golden file: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (-golden file +output); if the change is intended, run `%s` and review the rewritten file:\n%s",
			path, rerun(t), cmp.Diff(string(want), string(got)))
	}
}

// rerun is the command that reruns the current test with -update.
func rerun(t testing.TB) string {
	name := t.Name()
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name = name[:i] // -update of the whole test rewrites every subtest's file
	}
	return fmt.Sprintf("go test %s -run '^%s$' -update", packageDir(), name)
}

// packageDir is the test's package directory relative to the module root
// ("./reports/page"), or "." when the module root cannot be found.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}
