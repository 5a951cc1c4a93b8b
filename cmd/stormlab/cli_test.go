package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/schedulers"
)

// cli runs the command tree in process.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestBadInput(t *testing.T) {
	part := func(extra ...string) []string {
		return append([]string{"partition", "--scheduler", "kpart", "--k", "2"}, extra...)
	}
	for _, c := range []struct {
		name string
		args []string
		want string // part of the one-line error
	}{
		{"unknown scheduler", []string{"partition", "--graph", "random:6:5", "--k", "2", "--scheduler", "nope"}, `unknown scheduler "nope"`},
		{"k zero", []string{"partition", "--graph", "random:6:5", "--k", "0", "--scheduler", "kpart"}, "k = 0 is out of range"},
		{"k above |V|", []string{"partition", "--graph", "random:6:5", "--k", "7", "--scheduler", "kpart"}, "need 1 <= k <= 6"},
		{"k missing", []string{"partition", "--graph", "random:6:5", "--scheduler", "kpart"}, "k = 0 is out of range"},
		{"k not a number", part("--graph", "random:6:5", "--k", "two"), `invalid argument "two"`},
		{"duplicate ids", part("--graph", "testdata/duplicate-id.json"), "duplicate vertex id 0"},
		{"missing vertex", part("--graph", "testdata/missing-vertex.json"), "missing vertex 5"},
		{"negative vertex weight", part("--graph", "testdata/negative-weight.json"), "vertex 0 has weight -1"},
		{"negative edge weight", append([]string{"partition", "--scheduler", "kpart", "--k", "1"}, "--graph", "testdata/negative-edge.json"), "has weight -3"},
		{"truncated JSON", part("--graph", "testdata/truncated.json"), "malformed graph JSON"},
		{"vertex without weight", part("--graph", "testdata/no-weight.json"), `vertex 1 (index 1) has no "weight": give every vertex its CPU weight`},
		{"unknown field", part("--graph", "testdata/unknown-field.json"), `unknown field "extra"`},
		{"no vertices", part("--graph", "testdata/empty.json"), "graph has no vertices"},
		{"no such file", part("--graph", "testdata/absent.json"), "no such file"},
		{"random too few fields", part("--graph", "random:6"), "use random:N:M"},
		{"random not numbers", part("--graph", "random:a:b"), "must be integers"},
		{"random too many edges", part("--graph", "random:4:7"), "holds 0..6 edges"},
		{"random negative", part("--graph", "random:-1:0"), "at least 1 vertex"},
		{"graph missing", part(), "--graph is required"},
		{"scheduler missing", []string{"partition", "--graph", "random:6:5", "--k", "2"}, "--scheduler is required"},
		{"negative mul", part("--graph", "random:6:5", "--mul", "-1"), "negative"},
		{"vertices without id", part("--graph", "testdata/no-id.json"), `vertex at index 0 has no "id"`},
		{"epsilon above range", []string{"partition", "--graph", "random:6:5", "--k", "2", "--scheduler", "exact", "--epsilon", "5"}, "epsilon = 5 is out of range: use a max deviation rate in [0, 1)"},
		{"epsilon 1", []string{"partition", "--graph", "random:6:5", "--k", "2", "--scheduler", "mlfm", "--epsilon", "1"}, "epsilon = 1 is out of range"},
		{"epsilon negative", []string{"partition", "--graph", "random:6:5", "--k", "2", "--scheduler", "mlfm", "--epsilon", "-0.1"}, "epsilon = -0.1 is out of range"},
		{"bad format", part("--graph", "random:6:5", "--format", "xml"), `unknown --format "xml"`},
		{"unknown flag", part("--bogus"), "unknown flag: --bogus"},
		{"unknown experiment", []string{"experiment", "nope"}, `unknown experiment "nope"`},
		{"experiment without name", []string{"experiment"}, "exactly one NAME"},
		{"experiment --out a file", []string{"experiment", "kpart-mul", "--out", "testdata/small.json"}, "--out: mkdir testdata/small.json"},
		{"unknown command", []string{"partiton"}, `unknown command "partiton"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli(t, c.args...)
			if code != exitBadInput {
				t.Errorf("exit code %d, want %d; stderr %q", code, exitBadInput, errs)
			}
			if out != "" {
				t.Errorf("stdout not empty: %q", out)
			}
			if strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "stormlab: ") || !strings.Contains(errs, c.want) {
				t.Errorf("stderr %q: want one line starting 'stormlab: ' containing %q", errs, c.want)
			}
			if strings.Contains(errs, "Usage:") || strings.Contains(errs, "panic") {
				t.Errorf("stderr has a usage dump or panic: %q", errs)
			}
		})
	}
}

func TestPartitionNonPartitioner(t *testing.T) {
	// A scheduler without Partition (any cluster-only one in the list) is
	// bad input naming the partitioners.
	for _, i := range schedulers.List() {
		s, err := i.New(schedulers.Options{})
		if err != nil {
			continue
		}
		if _, ok := s.(schedulers.Partitioner); ok {
			continue
		}
		code, _, errs := cli(t, "partition", "--graph", "random:6:5", "--k", "2", "--scheduler", i.Name)
		if code != exitBadInput || !strings.Contains(errs, "does not partition graphs") {
			t.Errorf("%s: code %d stderr %q", i.Name, code, errs)
		}
		return
	}
	t.Skip("every registered scheduler partitions graphs")
}

// TestPartitionJSONHandChecked runs the EvenScheduler's round-robin on
// testdata/small.json (weights 10, 20, 30, 40; edges 0-1:5, 1-2:5, 2-3:10,
// 0-2:20) with k=2. By hand: parts {0,2} (weight 40) and {1,3} (60);
// expected weight 50, so std = 10, max_dev = 0.2, max_over = 1.2; cut edges
// 0-1, 1-2, 2-3 weigh 20 of 40, cut rate 0.5.
func TestPartitionJSONHandChecked(t *testing.T) {
	code, out, errs := cli(t, "partition", "--graph", "testdata/small.json", "--k", "2", "--scheduler", "even")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got partitionOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	const tol = 1e-12
	if got.Scheduler != "even" || got.K != 2 || got.Vertices != 4 || got.Edges != 4 ||
		len(got.Parts) != 2 || !slices.Equal(got.Parts[0], []int{0, 2}) || !slices.Equal(got.Parts[1], []int{1, 3}) ||
		math.Abs(got.CutRate-0.5) > tol || math.Abs(got.Std-10) > tol || math.Abs(got.MaxDev-0.2) > tol || math.Abs(got.MaxOver-1.2) > tol {
		t.Errorf("got %+v", got)
	}
	// The contract's field names, as other tools read them.
	var raw map[string]any
	json.Unmarshal([]byte(out), &raw)
	for _, f := range []string{"scheduler", "k", "parts", "cut_rate", "std", "max_dev", "max_over"} {
		if _, ok := raw[f]; !ok {
			t.Errorf("JSON lacks %q", f)
		}
	}
}

// TestPartitionRandomProperties: on random:24:36 every general graph
// partitioner puts each vertex in exactly one of k parts, and the same seed
// gives the same output. (spd needs series-parallel DAGs, not random graphs.)
func TestPartitionRandomProperties(t *testing.T) {
	for _, name := range []string{"even", "kpart", "mpart", "online", "tstorm"} {
		if _, err := schedulers.Lookup(name); err != nil {
			t.Errorf("%s not registered: %v", name, err)
			continue
		}
		args := []string{"partition", "--graph", "random:24:36", "--k", "3", "--scheduler", name, "--seed", "7", "--mul", "2"}
		code, out, errs := cli(t, args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, errs)
			continue
		}
		var got partitionOutput
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var all []int
		for _, p := range got.Parts {
			all = append(all, p...)
		}
		sort.Ints(all)
		ok := len(got.Parts) == 3 && len(all) == 24
		for i := range all {
			ok = ok && all[i] == i
		}
		if !ok || got.CutRate < 0 || got.CutRate > 1 {
			t.Errorf("%s: parts %v cut rate %v: want each of 0..23 once in 3 parts", name, got.Parts, got.CutRate)
		}
		if _, again, _ := cli(t, args...); again != out {
			t.Errorf("%s: same seed, different output", name)
		}
	}
}

func TestPartitionTableFormat(t *testing.T) {
	code, out, errs := cli(t, "partition", "--graph", "testdata/small.json", "--k", "2", "--scheduler", "even", "--format", "table")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"even, k=2, 4 vertices, 4 edges", "│    0 │    2 │     40 │ 0 2", "cut_rate 0.5000  std 10  max_dev 0.2000  max_over 1.2000"} {
		if !strings.Contains(out, want) {
			t.Errorf("table output lacks %q:\n%s", want, out)
		}
	}
}

func TestSchedulersCmd(t *testing.T) {
	t.Setenv("COLUMNS", "1000") // a row a line
	code, out, _ := cli(t, "schedulers")
	lines := tableRows(out)[1:] // under the header
	if code != 0 || len(lines) != len(schedulers.List()) {
		t.Fatalf("exit %d, %d lines for %d schedulers:\n%s", code, len(lines), len(schedulers.List()), out)
	}
	for i, info := range schedulers.List() {
		if !strings.HasPrefix(lines[i], info.Name+" ") || !strings.Contains(lines[i], info.Description) || !strings.Contains(lines[i], info.Source) {
			t.Errorf("line %q lacks name/description/source of %s", lines[i], info.Name)
		}
	}
}

func TestExperimentCmd(t *testing.T) {
	code, out, _ := cli(t, "experiment", "list")
	if code != 0 || !strings.Contains(out, "kpart-mul") || !strings.Contains(out, "default") {
		t.Errorf("experiment list: exit %d\n%s", code, out)
	}
	dir := t.TempDir()
	code, out, errs := cli(t, "experiment", "kpart-mul", "--out", dir)
	if code != 0 {
		t.Fatalf("experiment kpart-mul: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "cut rate") || !strings.Contains(out, "Fig. 5") {
		t.Errorf("no results table on stdout:\n%s", out)
	}
	for _, f := range []string{"manifest.json", "table.md", "cut_rate.svg"} {
		if _, err := os.Stat(filepath.Join(dir, "kpart-mul", f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	// The same folder again: refused without --force, nothing touched.
	before, _ := os.ReadFile(filepath.Join(dir, "kpart-mul", "manifest.json"))
	code, _, errs = cli(t, "experiment", "kpart-mul", "--out", dir)
	if code != exitBadInput || !strings.Contains(errs, "already holds results: rerun with --resume") || !strings.Contains(errs, "--force to replace") {
		t.Errorf("second run without --force: exit %d stderr %q", code, errs)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "kpart-mul", "manifest.json")); !bytes.Equal(before, after) {
		t.Error("refused run changed manifest.json")
	}
	if code, _, errs = cli(t, "experiment", "kpart-mul", "--out", dir, "--force"); code != exitOK {
		t.Errorf("--force: exit %d stderr %q", code, errs)
	}
	if code, _, errs = cli(t, "experiment", "kpart-mul", "--out", dir, "--resume"); code != exitOK {
		t.Errorf("--resume: exit %d stderr %q", code, errs)
	}
	if code, _, errs = cli(t, "experiment", "kpart-mul", "--out", dir, "--resume", "--force"); code != exitBadInput || !strings.Contains(errs, "exclude each other") {
		t.Errorf("--resume --force: exit %d stderr %q", code, errs)
	}
	if code, _, errs = cli(t, "experiment", "kpart-mul", "--out", dir, "--resume", "--reps", "-2"); code != exitBadInput || !strings.Contains(errs, "--reps -2") {
		t.Errorf("--reps -2: exit %d stderr %q", code, errs)
	}
	// A stated calibration: a positive rate, for an experiment that offers fractions of one.
	for _, c := range []struct{ name, rate, want string }{
		{"kpart-cluster", "-5", "--calibration -5"},
		{"kpart-cluster", "NaN", "--calibration NaN"},
		{"kpart-mul", "100", "applies to one experiment whose open-loop load"},
		{"default", "100", "not to default"},
	} {
		if code, _, errs = cli(t, "experiment", c.name, "--out", t.TempDir(), "--calibration", c.rate); code != exitBadInput || !strings.Contains(errs, c.want) {
			t.Errorf("%s --calibration %s: exit %d stderr %q, want exit 2 and %q", c.name, c.rate, code, errs, c.want)
		}
	}
	// The HTML page of that folder.
	code, out, errs = cli(t, "report", dir)
	if page := filepath.Join(dir, "index.html"); code != exitOK || strings.TrimSpace(out) != page {
		t.Errorf("report: exit %d stdout %q stderr %q, want the path %s", code, out, errs, page)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "index.html")); err != nil || !bytes.Contains(b, []byte(`id="exp-kpart-mul"`)) {
		t.Errorf("index.html: %v, no kpart-mul section", err)
	}
}

// Every experiment says whether it needs Docker and how long it takes.
func TestExperimentListCosts(t *testing.T) {
	t.Setenv("COLUMNS", "1000") // a row a line
	code, out, _ := cli(t, "experiment", "list")
	if code != exitOK || !strings.Contains(out, "NAME") || !strings.Contains(out, "DOCKER") {
		t.Fatalf("experiment list: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "?") {
		t.Errorf("an experiment lacks a cost or a need:\n%s", out)
	}
	for _, line := range tableRows(out) {
		if f := strings.Fields(line); len(f) > 1 && (f[0] == "smoke" || f[0] == "kpart-mul") {
			if want := map[string]string{"smoke": "yes", "kpart-mul": "no"}[f[0]]; f[1] != want {
				t.Errorf("%s: DOCKER %s, want %s", f[0], f[1], want)
			}
		}
	}
}

// TestExperimentListLastRun: the LAST RUN column reads each experiment's manifest.json in --out and
// says "over" when the wall time is above the declared cost by more than x1.5 (smoke: ~4 min).
func TestExperimentListLastRun(t *testing.T) {
	dir := t.TempDir()
	for name, wall := range map[string]float64{"smoke": 7 * 60, "kpart-mul": 2} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		m := fmt.Sprintf(`{"experiment": %q, "profile": "ci", "wall_seconds": %v}`, name, wall)
		if err := os.WriteFile(filepath.Join(dir, name, "manifest.json"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("COLUMNS", "1000") // a row a line
	code, out, _ := cli(t, "experiment", "list", "--out", dir)
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	want := map[string]string{"smoke": "7m0s (ci) over", "kpart-mul": "2s (ci)", "spd": " - "}
	for _, line := range tableRows(out) {
		if f := strings.Fields(line); len(f) > 0 && want[f[0]] != "" {
			if !strings.Contains(line, want[f[0]]) {
				t.Errorf("%s: %q lacks %q", f[0], line, want[f[0]])
			}
			delete(want, f[0])
		}
	}
	if len(want) > 0 {
		t.Errorf("not listed: %v", want)
	}
}

func TestVersionAndCompletion(t *testing.T) {
	code, out, _ := cli(t, "--version")
	if code != exitOK || !strings.HasPrefix(out, "stormlab ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: exit %d %q", code, out)
	}
	code, out, _ = cli(t, "completion", "bash")
	if code != exitOK || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d, %d bytes", code, len(out))
	}
}

// Flag help shows each flag's type, not a word cobra took from backquotes,
// and at most one default.
func TestFlagHelp(t *testing.T) {
	for _, cmd := range []string{"partition", "spd", "experiment", "run", "compare", "report", "capture", "whatif"} {
		_, out, _ := cli(t, cmd, "--help")
		for _, line := range strings.Split(out, "\n") {
			if strings.Count(line, "default") > 1 {
				t.Errorf("%s: two defaults in %q", cmd, line)
			}
			if f := strings.Fields(line); len(f) > 2 && strings.HasPrefix(f[0], "--") && f[1] == "stormlab" {
				t.Errorf("%s: placeholder in %q", cmd, line)
			}
		}
	}
}
