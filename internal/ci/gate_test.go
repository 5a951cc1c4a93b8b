package ci

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// spdFixture is experiments/compare's spd fixture: synthetic, 3 series x c in
// {2, 4, 8} x 8 instances (how it was made: cmd/stormlab's doctor).
const spdFixture = "../../experiments/compare/testdata/spd/spd/raw.csv"

// smokeFixture is experiments/compare's smoke base: kpart and storm-even rows.
const smokeFixture = "../../experiments/compare/testdata/base/smoke/raw.csv"

// experimentDir writes dir/exp/ as an experiment's folder: raw.csv copied
// from fixture with metric's values times f (metric "" copies it as it
// is), manifest.json with host cpu, and claims.json with one claim.
func experimentDir(t *testing.T, dir, exp, fixture, metric string, f float64, cpu string) {
	t.Helper()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if metric != "" {
		j := slices.Index(recs[0], metric)
		if j < 0 {
			t.Fatalf("%s has no column %s", fixture, metric)
		}
		for _, r := range recs[1:] {
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil {
				t.Fatal(err)
			}
			r[j] = strconv.FormatFloat(v*f, 'g', -1, 64)
		}
	}
	var raw bytes.Buffer
	csv.NewWriter(&raw).WriteAll(recs)
	man := map[string]any{"experiment": exp, "profile": "quick", "host": map[string]any{"cpu_model": cpu, "cores": 4, "os": "linux/amd64"}}
	claims := fmt.Sprintf(`{"experiment":%q,"profile":"quick","claims":[{"statement":"%s holds","verdict":"holds"}]}`, exp, exp)
	d := filepath.Join(dir, exp)
	os.MkdirAll(d, 0o755)
	mb, _ := json.Marshal(man)
	for name, body := range map[string][]byte{"raw.csv": raw.Bytes(), "manifest.json": mb, "claims.json": []byte(claims)} {
		if err := os.WriteFile(filepath.Join(d, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// buildStormlab builds the CLI once into dir/bin/stormlab, where the
// workflow's gate command finds it.
func buildStormlab(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "bin", "stormlab")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/stormlab/stormlab/cmd/stormlab")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build stormlab: %v\n%s", err, out)
	}
	return bin
}

const epyc = "AMD EPYC 7763 64-Core Processor"

// The gate step of nightly.yml, run as the workflow runs it (the same
// command line, from a folder laid out as the job's checkout: bin/stormlab,
// .ci/nightly-gate.sh, baseline/, night/), on folders made from the compare
// fixtures. Reference numbers: spd's ratio is lower-better (reports/metric);
// every value x1.3 fails the gate (cmd/stormlab TestCompareGateScaledMetric:
// 9 of its 27 rows regressed), x1.02 stays within the 5% threshold, x0.7 is
// an improvement.
func TestNightlyGate(t *testing.T) {
	cmdLine := gateCommand(t, readNightly(t))
	script, err := filepath.Abs(filepath.Join(root, ".ci", "nightly-gate.sh"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildStormlab(t, t.TempDir())
	type side func(t *testing.T, dir string)
	spd := func(metric string, f float64, cpu string) side {
		return func(t *testing.T, dir string) { experimentDir(t, dir, "spd", spdFixture, metric, f, cpu) }
	}
	both := func(a, b side) side { return func(t *testing.T, dir string) { a(t, dir); b(t, dir) } }
	smoke := func(t *testing.T, dir string) { experimentDir(t, dir, "smoke", smokeFixture, "", 1, epyc) }
	for _, c := range []struct {
		name        string
		base, night side
		exit        int
		stdout      []string // in the gate's output
		stderr      string   // in its stderr ("" for no check)
		verdicts    bool     // both folders were read: verdicts.md written (both hold claims.json), compare.json kept
	}{
		{"no change", spd("", 1, epyc), spd("", 1, epyc), 0, []string{"nightly gate: passed", "| spd "}, "", true},
		{"within the threshold", spd("", 1, epyc), spd("ratio", 1.02, epyc), 0, []string{"nightly gate: passed"}, "", true},
		{"improved", spd("", 1, epyc), spd("ratio", 0.7, epyc), 0, []string{"improved", "nightly gate: passed"}, "", true},
		{"regressed", spd("", 1, epyc), spd("ratio", 1.3, epyc), 1, []string{"regressed"}, "nightly gate: FAILED", true},
		{"an experiment missing", both(spd("", 1, epyc), smoke), spd("", 1, epyc), 1, nil, "missing experiment smoke", true},
		{"another testbed", spd("", 1, epyc), spd("", 1, "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz"), 2, nil,
			"the gate does not judge results measured on different testbeds (spd", true},
		{"no results in the night", spd("", 1, epyc), func(*testing.T, string) {}, 2, nil, "no raw.csv", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			os.MkdirAll(filepath.Join(ws, ".ci"), 0o755)
			os.MkdirAll(filepath.Join(ws, "bin"), 0o755)
			for from, to := range map[string]string{script: ".ci/nightly-gate.sh", bin: "bin/stormlab"} {
				if err := os.Symlink(from, filepath.Join(ws, to)); err != nil {
					t.Fatal(err)
				}
			}
			for name, fill := range map[string]side{"baseline": c.base, "night": c.night} {
				os.MkdirAll(filepath.Join(ws, name), 0o755)
				fill(t, filepath.Join(ws, name))
			}
			cmd := exec.Command("bash", "-c", cmdLine)
			cmd.Dir, cmd.Env = ws, append(os.Environ(), "THRESHOLD=0.05")
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.exit {
				t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", cmdLine, code, c.exit, out.String(), errb.String())
			}
			for _, w := range c.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			if !strings.Contains(errb.String(), c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, errb.String())
			}
			checkNightFiles(t, filepath.Join(ws, "night"), c.exit, c.verdicts)
		})
	}
}

// checkNightFiles: a judged night (exit 0 or 1) keeps compare.md and
// compare.json; a testbed refusal keeps compare.json (the page shows the
// comparison) and says nothing in compare.md; bad input leaves no
// compare.json behind.
func checkNightFiles(t *testing.T, night string, exit int, verdicts bool) {
	t.Helper()
	_, errJSON := os.Stat(filepath.Join(night, "compare.json"))
	md, errMD := os.ReadFile(filepath.Join(night, "compare.md"))
	_, errV := os.Stat(filepath.Join(night, "verdicts.md"))
	switch {
	case exit < 2 && (errJSON != nil || errMD != nil || len(md) == 0):
		t.Errorf("judged night: compare.json %v, compare.md %v (%d bytes), want both", errJSON, errMD, len(md))
	case exit == 2 && verdicts && errJSON != nil:
		t.Errorf("refused night: no compare.json (%v), want the comparison kept for the page", errJSON)
	case exit == 2 && !verdicts && errJSON == nil:
		t.Error("bad input: compare.json left behind")
	}
	if (errV == nil) != verdicts {
		t.Errorf("verdicts.md written: %v, want %v", errV == nil, verdicts)
	}
}
