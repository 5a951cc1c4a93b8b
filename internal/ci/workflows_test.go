package ci

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"
)

// root is the repository's top folder (this package is internal/ci).
const root = "../.."

// workflows lists .github/workflows/*.yml and *.yaml; a repository that
// ships the nightly has at least that one.
func workflows(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"*.yml", "*.yaml"} {
		m, err := filepath.Glob(filepath.Join(root, ".github", "workflows", pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if !slices.ContainsFunc(files, func(f string) bool { return filepath.Base(f) == "nightly.yml" }) {
		t.Fatalf("no .github/workflows/nightly.yml among %q", files)
	}
	return files
}

// Every workflow passes actionlint: syntax, expressions and their types,
// the inputs of the actions it knows, runner labels, cron syntax, and, with
// shellcheck on PATH (.ci/setup.sh installs it), the run: scripts.
func TestWorkflowsLint(t *testing.T) {
	files := workflows(t)
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	opts := &actionlint.LinterOptions{WorkingDir: abs, Oneline: true}
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		opts.Shellcheck = sc
	} else {
		t.Log("shellcheck not on PATH: the run: scripts are not checked (apt-get install shellcheck)")
	}
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, opts)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
}

// The linter finds a broken workflow: this test's own check that
// TestWorkflowsLint can fail.
func TestWorkflowsLintFindsErrors(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".github", "workflows"), 0o755)
	bad := "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n      - uses: actions/upload-artifact@v7\n        with:\n          nme: x\n"
	p := filepath.Join(dir, ".github", "workflows", "bad.yml")
	os.WriteFile(p, []byte(bad), 0o644)
	l, err := actionlint.NewLinter(&bytes.Buffer{}, &actionlint.LinterOptions{WorkingDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles([]string{p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range errs {
		kinds = append(kinds, e.Kind)
	}
	if !slices.Contains(kinds, "expression") || !slices.Contains(kinds, "action") {
		t.Errorf("findings %v, want an expression (matrix.nope) and an action input (nme) error", kinds)
	}
}

// nightlyWorkflow is the part of nightly.yml these tests read.
type nightlyWorkflow struct {
	Jobs map[string]struct {
		Strategy struct {
			Matrix struct {
				Experiment []string `yaml:"experiment"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Name string `yaml:"name"`
			Run  string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readNightly(t *testing.T) nightlyWorkflow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "nightly.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var w nightlyWorkflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("nightly.yml: %v", err)
	}
	return w
}

// makeVar is the value of `NAME ?= ...` in the Makefile.
func makeVar(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + name + `\s*\?=\s*(.*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("Makefile sets no %s", name)
	}
	return strings.TrimSpace(string(m[1]))
}

// The workflow runs, one job each, the experiments `make nightly` runs, and
// both run the one gate script.
func TestNightlyMatchesMake(t *testing.T) {
	w := readNightly(t)
	exps := w.Jobs["experiment"].Strategy.Matrix.Experiment
	if want := strings.Fields(makeVar(t, "NIGHTLY_EXPERIMENTS")); !slices.Equal(exps, want) {
		t.Errorf("workflow matrix %q, Makefile NIGHTLY_EXPERIMENTS %q: keep them alike", exps, want)
	}
	if cmd := gateCommand(t, w); !strings.Contains(cmd, "STORMLAB=bin/stormlab") {
		t.Errorf("the gate step runs %q, not with the binary the job built (STORMLAB=bin/stormlab)", cmd)
	}
	b, _ := os.ReadFile(filepath.Join(root, "Makefile"))
	if !strings.Contains(string(b), "STORMLAB=./bin/stormlab .ci/nightly-gate.sh $(NIGHTLY_BASELINE) $(NIGHTLY_DIR) $(NIGHTLY_THRESHOLD)") {
		t.Error("the Makefile's nightly target does not run .ci/nightly-gate.sh")
	}
}

// gateCommand is the line of the experiment job's one step that runs
// .ci/nightly-gate.sh, without what the step does with its exit status.
func gateCommand(t *testing.T, w nightlyWorkflow) string {
	t.Helper()
	var lines []string
	for _, s := range w.Jobs["experiment"].Steps {
		for _, l := range strings.Split(s.Run, "\n") {
			if strings.Contains(l, ".ci/nightly-gate.sh") {
				cmd, _, _ := strings.Cut(l, " ||")
				lines = append(lines, strings.TrimSpace(cmd))
			}
		}
	}
	if len(lines) != 1 {
		t.Fatalf("job experiment runs .ci/nightly-gate.sh in %d lines %q, want 1", len(lines), lines)
	}
	return lines[0]
}

// The gate script passes shellcheck too (where it is installed).
func TestGateScriptShellcheck(t *testing.T) {
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("shellcheck not on PATH (apt-get install shellcheck; .ci/setup.sh installs it)")
	}
	if out, err := exec.Command(sc, filepath.Join(root, ".ci", "nightly-gate.sh")).CombinedOutput(); err != nil {
		t.Errorf("shellcheck .ci/nightly-gate.sh: %v\n%s", err, out)
	}
}
