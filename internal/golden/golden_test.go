package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what check reports instead of failing
// the real test; Fatalf ends the check with a panic that run recovers.
type recorder struct {
	testing.TB
	errs  []string
	fatal bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	panic(r) // caught by run
}

// run calls check on a recorder wrapping t and returns it.
func run(t *testing.T, path string, got []byte, rewrite bool) *recorder {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		check(r, path, got, rewrite)
	}()
	return r
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	long := strings.Repeat("same line\n", 40)

	if r := run(t, path, []byte("x\n"), false); !r.fatal || !strings.Contains(r.errs[0], "-run '^TestCheck$' -update") {
		t.Errorf("missing golden file: want a fatal error naming the -update command, got %q", r.errs)
	}
	if r := run(t, path, []byte(long+"old\n"), true); len(r.errs) != 0 {
		t.Fatalf("-update: %q", r.errs)
	}
	if b, _ := os.ReadFile(path); string(b) != long+"old\n" {
		t.Errorf("-update wrote %q", b)
	}
	if r := run(t, path, []byte(long+"old\n"), false); len(r.errs) != 0 {
		t.Errorf("equal output: %q", r.errs)
	}
	r := run(t, path, []byte(long+"new\n"), false)
	if len(r.errs) != 1 || r.fatal {
		t.Fatalf("changed output: want one non-fatal error, got %q (fatal %v)", r.errs, r.fatal)
	}
	msg := r.errs[0]
	for _, want := range []string{"identical lines", "./internal/golden -run '^TestCheck$' -update"} {
		if !strings.Contains(msg, want) {
			t.Errorf("mismatch message lacks %q:\n%s", want, msg)
		}
	}
	if !hasLine(msg, "- old") || !hasLine(msg, "+ new") {
		t.Errorf("mismatch message lacks the lines \"- old\" and \"+ new\":\n%s", msg)
	}
	if strings.Count(msg, "same line") > 3 {
		t.Errorf("mismatch message repeats the unchanged lines instead of folding them:\n%s", msg)
	}
}

func TestRerunSubtest(t *testing.T) {
	t.Run("case one", func(t *testing.T) {
		if got := rerun(t); got != "go test ./internal/golden -run '^TestRerunSubtest$' -update" {
			t.Errorf("rerun = %q", got)
		}
	})
}

// hasLine reports whether msg has a line of the words in want. Fields
// folds the spacing, which cmp.Diff varies on purpose (it mixes in
// non-breaking spaces so that no one parses its output).
func hasLine(msg, want string) bool {
	for _, l := range strings.Split(msg, "\n") {
		if strings.Join(strings.Fields(l), " ") == want {
			return true
		}
	}
	return false
}
