package lab

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The manifest's revision comes from the binary, never from git in the working directory: run
// from inside another repository, the manifest must not name that repository's HEAD. A go test
// binary carries no VCS stamp, so here it says "unknown", once on stderr.
func TestManifestRevisionIgnoresGitInWorkingDir(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	other := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q"},
		{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "other"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", other}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	head, err := exec.Command("git", "-C", other, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(other)
	var stderr strings.Builder
	restore := swapUnknownOut(&stderr)
	defer restore()

	out := t.TempDir()
	spec := &Spec{Name: "rev", Metrics: []Metric{{Name: "m", Label: "m"}}, XName: "x", XLabel: "x",
		Cost: Cost{CI: "~1 s", Quick: "~2 s", Full: "~3 s"},
		Run: func(_ context.Context, env Env) (*Results, error) {
			r := &Results{}
			r.Add(Row{Series: "s", Values: map[string]float64{"m": 1}})
			return r, nil
		}}
	for range 2 { // twice: the stderr notice comes once per process
		if err := os.RemoveAll(filepath.Join(out, "rev")); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), spec, Options{Out: out, Log: io.Discard, Scale: "quick"}); err != nil {
			t.Fatal(err)
		}
	}
	var man map[string]any
	b, err := os.ReadFile(filepath.Join(out, "rev", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if rev := man["vcs_revision"]; rev == strings.TrimSpace(string(head)) {
		t.Fatalf("manifest names the working directory's repository: vcs_revision %v", rev)
	}
	if from := man["vcs_from"]; from == "git" {
		t.Errorf("vcs_from %q: the revision must come from the binary", from)
	}
	if rev, from := man["vcs_revision"], man["vcs_from"]; rev != UnknownRevision || from != nil {
		t.Errorf("a test binary has no stamp: got vcs_revision %v, vcs_from %v; want %q and none", rev, from, UnknownRevision)
	}
	if n := strings.Count(stderr.String(), "vcs_revision \"unknown\""); n != 1 {
		t.Errorf("stderr says the revision is unknown %d times, want once:\n%s", n, stderr.String())
	}
}

// The -ldflags stamp is used where the build info has none, with its modified flag.
func TestVCSRevisionFromLdflagsStamp(t *testing.T) {
	defer func(r, m string) { stampedRevision, stampedModified = r, m }(stampedRevision, stampedModified)
	stampedRevision, stampedModified = "0123456789abcdef0123456789abcdef01234567", "true"
	rev, modified, from := vcsRevision()
	if rev != stampedRevision || !modified || from != "ldflags" {
		t.Errorf("vcsRevision() = %q, %v, %q; want the stamp, true, \"ldflags\"", rev, modified, from)
	}
}

// The Makefile's -X flags name the variables this package declares, so a rename cannot silently
// turn every stamped build into "unknown".
func TestMakefileStampsRevisionVariables(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	const pkg = "github.com/stormlab/stormlab/experiments/lab"
	for _, v := range []string{"stampedRevision", "stampedModified"} {
		if !regexp.MustCompile(`-X ` + regexp.QuoteMeta(pkg+"."+v) + `=`).Match(b) {
			t.Errorf("Makefile does not stamp %s.%s with -ldflags -X", pkg, v)
		}
	}
}

func swapUnknownOut(w io.Writer) (restore func()) {
	old := unknownOut
	unknownOut = w
	unknownOnce = sync.Once{}
	return func() { unknownOut = old }
}
