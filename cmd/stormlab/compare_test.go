package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/internal/golden"
	"github.com/stormlab/stormlab/reports/page"
)

// TestCompareGolden renders the fixtures. The numbers in compare.golden, by hand:
//
//	Holm over the 3 tested rows with a direction (throughput 0.0036, latency 0.14, cut_rate 1):
//	  0.0036*3 = 0.0108; max(0.0108, 0.14*2) = 0.28; max(0.28, 1*1) = 1
//	95% CIs: n = 3, sd 2, t(0.975, 2) = 4.3027: 4.3027 * 2 / sqrt(3) = 4.97 -> "± 5.0"
//	kpart x=1 throughput: base 100,102,98 (mean 100, var 4), new 90,92,88 (mean 90, var 4):
//	  ratio 0.9, t = -6.1237, df 4, p = 0.0036 (Holm 0.0108) -> significant, -10% beyond 5% -> regressed
//	kpart x=1 latency_mean_ms: 10,12,14 -> 7,9,11: means 12 -> 9, ratio 0.75, t = -1.8371, df 4,
//	  p = 0.14 -> not significant -> same
//	kpart x=1 cut_rate: 0.5 x3 both: zero variances, equal means -> p = 1, same
//	kpart x=1 edges: 7,7,7 -> 7,8,9: means 7 -> 8, ratio 1.143, t = 1 / sqrt(1/3) = 1.7321, df =
//	  (1/3)^2 / ((1/3)^2 / 2) = 2, p = 1 - 1.7321 / sqrt(5) = 0.225; not in the metric registry ->
//	  "untested (unknown metric)", outside the Holm family
//	Every metric has a single series with 2+ values a side: Welch, not the moderated t.
//	storm-even x=1 throughput 50 -> 60 (n = 1): ratio 1.2, n/a, better (untested)
//	storm-even x=2 latency 20 -> 21: +5%, not beyond 5% -> same
//	online: only in new; storm-even x=2, x=10 edges: empty / NaN in base -> only in new
func TestCompareGolden(t *testing.T) {
	code, out, errs := cli(t, "compare", "testdata/compare/base", "testdata/compare/new")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	golden.Assert(t, "testdata/compare.golden", []byte(out))
	code, out, _ = cli(t, "compare", "testdata/compare/base", "testdata/compare/new", "--format", "markdown", "--metric", "throughput")
	if code != exitOK {
		t.Fatalf("markdown: exit %d", code)
	}
	golden.Assert(t, "testdata/compare-throughput.golden.md", []byte(out))
}

func TestCompareFailOnRegression(t *testing.T) {
	code, _, errs := cli(t, "compare", "testdata/compare/base", "testdata/compare/new", "--fail-on-regression")
	want := "gate failures (threshold 0.05):\n  regressed smoke/kpart/x=1/throughput\nstormlab: the gate failed: 1 failure(s) at threshold 0.05, listed above\n"
	if code != exitFailed || errs != want {
		t.Errorf("exit %d stderr %q: want exit 1 and %q", code, errs, want)
	}
	// The same data restricted to latency has no regression.
	code, _, errs = cli(t, "compare", "testdata/compare/base", "testdata/compare/new", "--fail-on-regression", "--metric", "latency_mean_ms")
	if code != exitOK {
		t.Errorf("latency only: exit %d stderr %q, want 0", code, errs)
	}
	// A threshold above the 10% drop makes it "same".
	code, _, errs = cli(t, "compare", "testdata/compare/base", "testdata/compare/new", "--fail-on-regression", "--threshold", "0.2")
	if code != exitOK {
		t.Errorf("threshold 0.2: exit %d stderr %q, want 0", code, errs)
	}
}

func TestCompareBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"one folder", []string{"compare", "testdata/compare/base"}, "needs BASE_DIR and NEW_DIR"},
		{"missing folder", []string{"compare", "testdata/compare/absent", "testdata/compare/new"}, "no such file"},
		{"file not folder", []string{"compare", "testdata/compare/base/smoke/raw.csv", "testdata/compare/new"}, "is a file"},
		{"not a raw.csv", []string{"compare", "testdata/compare/bad", "testdata/compare/new"}, "not a raw.csv"},
		{"unknown metric", []string{"compare", "testdata/compare/base", "testdata/compare/new", "--metric", "speed"}, `unknown --metric "speed"`},
		{"negative threshold", []string{"compare", "testdata/compare/base", "testdata/compare/new", "--threshold", "-1"}, "must be a relative change >= 0"},
		{"bad format", []string{"compare", "testdata/compare/base", "testdata/compare/new", "--format", "xml"}, `unknown --format "xml"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli(t, c.args...)
			if code != exitBadInput || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d stdout %q stderr %q: want exit 2, one line containing %q", code, out, errs, c.want)
			}
		})
	}
	// A folder without any raw.csv.
	empty := t.TempDir()
	code, _, errs := cli(t, "compare", empty, "testdata/compare/new")
	if code != exitBadInput || !strings.Contains(errs, "no raw.csv") {
		t.Errorf("empty folder: exit %d stderr %q", code, errs)
	}
	// A malformed number names the line and column.
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "raw.csv"), []byte("experiment,series,x,instance,instance_seed,rep,seed,throughput\ne,s,1,0,1,0,1,fast\n"), 0o644)
	code, _, errs = cli(t, "compare", bad, "testdata/compare/new")
	if code != exitBadInput || !strings.Contains(errs, `line 2, column throughput: "fast" is not a number`) {
		t.Errorf("bad number: exit %d stderr %q", code, errs)
	}
}

func TestCompareOnlyChangedJSON(t *testing.T) {
	code, out, errs := cli(t, "compare", "testdata/compare/base", "testdata/compare/new", "--only-changed", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var c page.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	// 20 rows (see TestCompareGolden): 6 only in new, not compared; of the
	// 14 compared, 3 changed: 1 untested beyond the threshold (kpart edges
	// 7 -> 8), 1 better (untested), 1 regressed.
	if c.Compared != 14 || c.Changed != 3 || c.Regressed != 1 || len(c.Rows) != 3 || !c.OnlyChange {
		t.Fatalf("compared %d changed %d regressed %d rows %d", c.Compared, c.Changed, c.Regressed, len(c.Rows))
	}
	for _, r := range c.Rows {
		if !r.Changed || r.Verdict == "same" {
			t.Errorf("unchanged row shown: %+v", r)
		}
		if r.Series == "kpart" && r.Metric == "throughput" {
			// CI: 4.3027 * 2 / sqrt(3) = 4.968; Holm p 3 * 0.0036022 = 0.0108066.
			if r.BaseCI95 == nil || math.Abs(*r.BaseCI95-4.968) > 1e-3 || r.PAdjusted == nil || math.Abs(*r.PAdjusted-0.0108066) > 1e-6 {
				t.Errorf("kpart throughput: ci %v, p adjusted %v", r.BaseCI95, r.PAdjusted)
			}
		}
	}
	code, out, _ = cli(t, "compare", "testdata/compare/base", "testdata/compare/new", "--only-changed")
	if code != exitOK || strings.Contains(out, "│ same ") || strings.Contains(out, "│ only in new ") ||
		!strings.Contains(out, "14 compared, 3 changed, 1 regressed; not compared: 0 only in base, 6 only in new") {
		t.Errorf("--only-changed table: exit %d\n%s", code, out)
	}
}

// Two folders with no metric in common give a clear error, not "0 regressed".
func TestCompareNoSharedMetric(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, "raw.csv"), []byte("experiment,series,x,instance,instance_seed,rep,seed,throughput\ne,s,1,0,1,0,1,5\n"), 0o644)
	os.WriteFile(filepath.Join(b, "raw.csv"), []byte("experiment,series,x,instance,instance_seed,rep,seed,cut_rate\ne,s,1,0,1,0,1,0.5\n"), 0o644)
	code, _, errs := cli(t, "compare", a, b)
	if code != exitBadInput || !strings.Contains(errs, "share no metric") {
		t.Errorf("exit %d stderr %q, want exit 2 and \"share no metric\"", code, errs)
	}
}

// Folders of `stormlab run --out` (run.json) compare as experiment "run",
// series the scheduler, x the topology's main class.
func TestCompareRunFolders(t *testing.T) {
	write := func(dir string, tp float64) {
		os.MkdirAll(dir, 0o755)
		js := fmt.Sprintf(`{"spec":{"Scheduler":"kpart","Topology":{"Name":"stormlab-wordcount","MainClass":"org.stormlab.WordCount"}},
			"measurement":{"throughput":%v,"latency_mean_ms":5,"cut_rate":0.2,"balance":3}}`, tp)
		os.WriteFile(filepath.Join(dir, "run.json"), []byte(js), 0o644)
	}
	base, nw := t.TempDir(), t.TempDir()
	for i, tp := range []float64{100, 102, 98} {
		write(filepath.Join(base, fmt.Sprint(i)), tp)
	}
	for i, tp := range []float64{90, 92, 88} {
		write(filepath.Join(nw, fmt.Sprint(i)), tp)
	}
	code, out, errs := cli(t, "compare", base, nw, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
	var c page.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range c.Rows {
		if r.Experiment == "run" && r.Series == "kpart" && r.X == "WordCount" && r.Metric == "throughput" {
			found = true
			// Same numbers as the first case of experiments/compare TestWelchP;
			// one series, so Welch; 6 registered metrics tested (throughput,
			// latency mean and p99, cut rate, balance, inter-node rate), the
			// other five constant and equal (p = 1): Holm 6 * 0.0036022.
			if r.NBase != 3 || r.NNew != 3 || r.Verdict != "regressed" || math.Abs(*r.PAdjusted-6*0.0036022) > 1e-6 {
				t.Errorf("run throughput row: %+v (p adjusted %v)", r, *r.PAdjusted)
			}
		}
	}
	if !found {
		t.Errorf("no run/kpart/WordCount/throughput row in %s", out)
	}
}

// A folder against itself with --only-changed: one line, no empty table.
func TestCompareOnlyChangedNone(t *testing.T) {
	code, out, errs := cli(t, "compare", "testdata/compare/base", "testdata/compare/base", "--only-changed")
	if code != exitOK || !strings.Contains(out, "no changes") || strings.Contains(out, "┌") {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errs)
	}
}

// Hand count over testdata/verdicts: three claims in both folders, two with
// the same verdict (one holds twice, one inconclusive twice).
func TestCompareVerdictsCommand(t *testing.T) {
	code, out, errs := cli(t, "compare", "--verdicts", "testdata/verdicts/base", "testdata/verdicts/new", "--format", "markdown")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
	golden.Assert(t, "testdata/verdicts.golden.md", []byte(out))
	// Decided in both: only the spd claim (holds twice): 1 of 1. Kappa: base
	// verdicts (holds, inconclusive, holds), new (inconclusive, inconclusive,
	// holds): po = 2/3, pe = (2/3)(1/3) + (1/3)(2/3) = 4/9, kappa = (2/3 -
	// 4/9) / (5/9) = 0.40.
	if !strings.Contains(out, "2 of 3 claims got the same verdict twice (67%); 1 of them decided") ||
		!strings.Contains(out, "decided alike when decided twice: 1 of 1 (100%); Cohen's kappa 0.40") {
		t.Errorf("summary line missing:\n%s", out)
	}
	code, out, _ = cli(t, "compare", "--verdicts", "testdata/verdicts/base", "testdata/verdicts/new", "--format", "json")
	var got struct {
		Compared, Agreed int
		Rate             float64
		Kappa            *float64
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Compared != 3 || got.Agreed != 2 ||
		got.Kappa == nil || math.Abs(*got.Kappa-0.4) > 1e-12 {
		t.Errorf("json: exit %d %v %+v", code, err, got)
	}
	// A folder without claims.json, and a broken one, are bad input.
	empty := t.TempDir()
	if code, _, errs := cli(t, "compare", "--verdicts", empty, "testdata/verdicts/new"); code != exitBadInput || !strings.Contains(errs, "no claims.json") {
		t.Errorf("empty folder: exit %d stderr %q", code, errs)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "claims.json"), []byte("{"), 0o644)
	if code, _, errs := cli(t, "compare", "--verdicts", "testdata/verdicts/base", bad); code != exitBadInput || !strings.Contains(errs, "claims.json") {
		t.Errorf("broken file: exit %d stderr %q", code, errs)
	}
}

// doctor copies testdata/compare-spd/spd/raw.csv into dir/spd/raw.csv with
// every value of metric multiplied by f. The fixture is synthetic, made once
// with Python's random.seed(20): 3 series (levels 1.20, 1.45, 1.30) x c in
// {2, 4, 8} x 8 instances, ratio = level (1 + N(0, 0.05)), proc_ratio =
// 0.9 ratio (1 + N(0, 0.03)), used = 0.7 (1 + N(0, 0.05)); experiments/compare
// keeps a copy as testdata/spd.
func doctor(t *testing.T, dir, metric string, f float64) {
	t.Helper()
	b, err := os.ReadFile("testdata/compare-spd/spd/raw.csv")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	j := slices.Index(recs[0], metric)
	for _, r := range recs[1:] {
		v, _ := strconv.ParseFloat(r[j], 64)
		r[j] = strconv.FormatFloat(v*f, 'g', -1, 64)
	}
	var buf bytes.Buffer
	csv.NewWriter(&buf).WriteAll(recs)
	os.MkdirAll(filepath.Join(dir, "spd"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "spd", "raw.csv"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A regression the gate once missed: an spd folder whose ratio was multiplied by 1.3
// passed "--only-changed --fail-on-regression" with "no changes".
func TestCompareGateScaledMetric(t *testing.T) {
	nw := t.TempDir()
	doctor(t, nw, "ratio", 1.3)
	code, out, errs := cli(t, "compare", "testdata/compare-spd", nw, "--only-changed", "--fail-on-regression")
	if code != exitFailed || !strings.Contains(errs, "regressed spd/Adisc/x=2/ratio") || !strings.Contains(out, "27 compared, 9 changed, 9 regressed") {
		t.Errorf("exit %d stdout %q stderr %q: want exit 1 naming the ratio regressions", code, out, errs)
	}
}

// A whole experiment missing from the new side fails the gate; the reverse
// is listed as new and passes.
func TestCompareGateMissing(t *testing.T) {
	suite := t.TempDir()
	doctor(t, suite, "ratio", 1)
	b, _ := os.ReadFile("testdata/compare/base/smoke/raw.csv")
	os.MkdirAll(filepath.Join(suite, "smoke"), 0o755)
	os.WriteFile(filepath.Join(suite, "smoke", "raw.csv"), b, 0o644)
	code, out, errs := cli(t, "compare", suite, "testdata/compare-spd", "--fail-on-regression", "--only-changed")
	if code != exitFailed || !strings.Contains(errs, "missing experiment smoke") || !strings.Contains(out, "missing in new (fails the gate): experiment smoke") {
		t.Errorf("missing: exit %d stdout %q stderr %q, want exit 1 naming experiment smoke", code, out, errs)
	}
	code, out, errs = cli(t, "compare", "testdata/compare-spd", suite, "--fail-on-regression", "--only-changed")
	if code != exitOK || !strings.Contains(out, "new (not in base): experiment smoke") {
		t.Errorf("added: exit %d stdout %q stderr %q, want exit 0 listing experiment smoke as new", code, out, errs)
	}
}

// A run.json of {"foo":1} was read as a run with every metric 0.
func TestCompareSchemalessRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r1", "run.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"foo":1}`), 0o644)
	code, out, errs := cli(t, "compare", dir, dir)
	if code != exitBadInput || out != "" || !strings.Contains(errs, path) || !strings.Contains(errs, "not a run.json") {
		t.Errorf("exit %d stdout %q stderr %q, want exit 2 naming %s", code, out, errs, path)
	}
}

// csv and json keep stdout to the data; the summary goes to stderr.
func TestComparePureOutput(t *testing.T) {
	code, out, errs := cli(t, "compare", "testdata/compare/base", "testdata/compare/new", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != exitOK || err != nil || len(recs) != 21 || !strings.Contains(errs, "14 compared, 3 changed, 1 regressed") {
		t.Errorf("csv: exit %d, %d records, parse error %v, stderr %q: want 21 records and the summary on stderr", code, len(recs), err, errs)
	}
	code, out, errs = cli(t, "compare", "testdata/compare/base", "testdata/compare/new", "--format", "json")
	d := json.NewDecoder(strings.NewReader(out))
	var c page.Comparison
	if err := d.Decode(&c); code != exitOK || err != nil || d.More() || !strings.Contains(errs, "14 compared") {
		t.Errorf("json: exit %d decode %v more %v stderr %q: want one JSON value and the summary on stderr", code, err, d.More(), errs)
	}
}

// --verdicts honours --only-changed and refuses the metric flags; folders
// with no claim in common are bad input, not "0 of 0 (0%)".
func TestCompareVerdictsFlags(t *testing.T) {
	vb, vn := "testdata/verdicts/base", "testdata/verdicts/new"
	for _, flag := range [][]string{{"--metric", "throughput"}, {"--threshold", "0.1"}, {"--fail-on-regression"}} {
		code, out, errs := cli(t, append([]string{"compare", "--verdicts", vb, vn}, flag...)...)
		if code != exitBadInput || out != "" || !strings.Contains(errs, flag[0]+" does not apply to --verdicts") {
			t.Errorf("%v: exit %d stdout %q stderr %q, want exit 2 refusing it", flag, code, out, errs)
		}
	}
	code, out, _ := cli(t, "compare", "--verdicts", vb, vn, "--only-changed", "--format", "markdown")
	if code != exitOK || strings.Count(out, "| kpart-cluster |") != 1 || strings.Contains(out, "| spd |") {
		t.Errorf("--only-changed: exit %d\n%s\nwant the one claim whose verdict differs", code, out)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "claims.json"), []byte(`{"experiment":"other","claims":[{"statement":"s","verdict":"holds"}]}`), 0o644)
	code, out, errs := cli(t, "compare", "--verdicts", vb, other)
	if code != exitBadInput || out != "" || !strings.Contains(errs, "no claim is in both") {
		t.Errorf("unrelated: exit %d stdout %q stderr %q, want exit 2 \"no claim is in both\"", code, out, errs)
	}
}

// writeClaims writes dir/exp/claims.json with one claim per verdict,
// statements "claim 1", "claim 2", ...
func writeClaims(t *testing.T, dir, exp string, verdicts ...string) {
	t.Helper()
	var cs []string
	for i, v := range verdicts {
		cs = append(cs, fmt.Sprintf(`{"statement":"claim %d","kind":"paper","verdict":%q}`, i+1, v))
	}
	os.MkdirAll(filepath.Join(dir, exp), 0o755)
	js := fmt.Sprintf(`{"experiment":%q,"profile":"quick","claims":[%s]}`, exp, strings.Join(cs, ","))
	if err := os.WriteFile(filepath.Join(dir, exp, "claims.json"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Kappa and agreement come from every claim judged on both sides;
// --only-changed filters the listing only. It printed a kappa of 4 here,
// computed on the one listed pair against the agreement of all five.
//
// Hand computation over the 5 claims: base (holds, holds, does not hold,
// inconclusive, inconclusive), new the same with claim 1 inconclusive.
// po = 4/5 = 0.8; base counts H 2, N 1, I 2; new H 1, N 1, I 3;
// pe = (2·1 + 1·1 + 2·3) / 25 = 9/25 = 0.36; kappa = (0.8 - 0.36) / 0.64 =
// 0.6875 ("0.69").
func TestCompareVerdictsKappaOnlyChanged(t *testing.T) {
	dir := t.TempDir()
	a, c := filepath.Join(dir, "A"), filepath.Join(dir, "C")
	writeClaims(t, a, "kpart-mul", "holds", "holds", "does not hold", "inconclusive", "inconclusive")
	writeClaims(t, c, "kpart-mul", "inconclusive", "holds", "does not hold", "inconclusive", "inconclusive")
	const want = 0.6875
	for _, only := range []bool{false, true} {
		args := []string{"compare", "--verdicts", a, c}
		if only {
			args = append(args, "--only-changed")
		}
		code, out, errs := cli(t, args...)
		if code != exitOK || !strings.Contains(out, "Cohen's kappa 0.69") || !strings.Contains(out, "4 of 5 claims got the same verdict twice (80%)") {
			t.Errorf("only-changed %v: exit %d stderr %q, want kappa 0.69 and 4 of 5 alike:\n%s", only, code, errs, out)
		}
		if only && (strings.Count(out, "claim 1") != 1 || strings.Contains(out, "claim 2")) {
			t.Errorf("--only-changed lists other claims than claim 1:\n%s", out)
		}
		code, out, _ = cli(t, append(args, "--format", "json")...)
		var got struct {
			Kappa *float64
			Pairs []struct{ Statement string }
		}
		if err := json.Unmarshal([]byte(out), &got); code != exitOK || err != nil || got.Kappa == nil || math.Abs(*got.Kappa-want) > 1e-12 {
			t.Errorf("only-changed %v, json: exit %d %v kappa %v, want %g", only, code, err, got.Kappa, want)
		}
		if wantPairs := map[bool]int{false: 5, true: 1}[only]; len(got.Pairs) != wantPairs {
			t.Errorf("only-changed %v, json: %d pairs listed, want %d", only, len(got.Pairs), wantPairs)
		}
	}
}

// The same folder on both sides is warned about, however it is spelled
// (here through a symbolic link), for the metrics and for --verdicts; two
// folders are not.
func TestCompareSameFolderWarns(t *testing.T) {
	link := filepath.Join(t.TempDir(), "base")
	abs, _ := filepath.Abs("testdata/compare/base")
	if err := os.Symlink(abs, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"compare", "testdata/compare/base", link},
		{"compare", "testdata/compare/base", "testdata/compare/base/", "--only-changed"},
		{"compare", "--verdicts", "testdata/verdicts/base", "testdata/verdicts/base"},
	} {
		code, _, errs := cli(t, args...)
		if code != exitOK || !strings.Contains(errs, "are the same folder: every value is compared with itself") {
			t.Errorf("%v: exit %d stderr %q, want a warning naming the same folder", args, code, errs)
		}
	}
	if _, _, errs := cli(t, "compare", "testdata/compare/base", "testdata/compare/new"); strings.Contains(errs, "same folder") {
		t.Errorf("two folders: stderr %q warns of the same folder", errs)
	}
}

// Rows one side lacks are "only in base" / "only in new", counted apart and
// never as changed: a series dropped from the new side gave "N changed".
func TestCompareOneSidedRowsNotChanged(t *testing.T) {
	dir := t.TempDir()
	hdr := "experiment,series,x,instance,instance_seed,rep,seed,throughput,latency_mean_ms\n"
	base := hdr + "e,a,1,0,0,0,1,100,5\ne,a,1,0,0,1,2,101,5\ne,b,1,0,0,0,1,50,9\ne,b,1,0,0,1,2,51,9\n"
	nw := hdr + "e,a,1,0,0,0,1,100,5\ne,a,1,0,0,1,2,101,5\ne,c,1,0,0,0,1,70,7\n"
	for name, body := range map[string]string{"base": base, "new": nw} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		os.WriteFile(filepath.Join(dir, name, "raw.csv"), []byte(body), 0o644)
	}
	code, out, errs := cli(t, "compare", filepath.Join(dir, "base"), filepath.Join(dir, "new"), "--only-changed", "--format", "json")
	var c struct {
		Compared, Changed, OnlyBase, OnlyNew int `json:",omitempty"`
		OB                                   int `json:"only_base"`
		ON                                   int `json:"only_new"`
		Rows                                 []struct{ Verdict string }
	}
	if err := json.Unmarshal([]byte(out), &c); code != exitOK || err != nil {
		t.Fatalf("exit %d %v stderr %q", code, err, errs)
	}
	// 2 rows compared (series a: same), 2 only in base (b), 2 only in new (c).
	if c.Compared != 2 || c.Changed != 0 || c.OB != 2 || c.ON != 2 || len(c.Rows) != 0 {
		t.Errorf("compared %d changed %d only base %d only new %d rows %v, want 2, 0, 2, 2 and no row listed", c.Compared, c.Changed, c.OB, c.ON, c.Rows)
	}
	if want := "2 compared, 0 changed, 0 regressed; not compared: 2 only in base, 2 only in new"; !strings.Contains(errs, want) {
		t.Errorf("summary %q, want %q", errs, want)
	}
	code, out, _ = cli(t, "compare", filepath.Join(dir, "base"), filepath.Join(dir, "new"))
	if code != exitOK || strings.Count(out, "only in base") < 2 || strings.Count(out, "only in new") < 2 {
		t.Errorf("full table: exit %d, want the one-sided rows named:\n%s", code, out)
	}
}

// A gate failure prints short lines: at most maxGateLines failures one per
// line, then how many more, then one line of error. It was one stderr line
// of about 1,300 characters.
func TestCompareGateFailureLines(t *testing.T) {
	nw := t.TempDir()
	doctor(t, nw, "ratio", 1.3) // 9 regressions
	b, _ := os.ReadFile(filepath.Join(nw, "spd", "raw.csv"))
	recs, _ := csv.NewReader(bytes.NewReader(b)).ReadAll()
	j := slices.Index(recs[0], "proc_ratio")
	for _, r := range recs[1:] {
		v, _ := strconv.ParseFloat(r[j], 64)
		r[j] = strconv.FormatFloat(v*1.3, 'g', -1, 64) // 9 more
	}
	var buf bytes.Buffer
	csv.NewWriter(&buf).WriteAll(recs)
	os.WriteFile(filepath.Join(nw, "spd", "raw.csv"), buf.Bytes(), 0o644)
	code, _, errs := cli(t, "compare", "testdata/compare-spd", nw, "--only-changed", "--fail-on-regression")
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if code != exitFailed || len(lines) != maxGateLines+3 || !strings.HasPrefix(lines[len(lines)-2], "  and 8 more:") ||
		lines[len(lines)-1] != "stormlab: the gate failed: 18 failure(s) at threshold 0.05, listed above" {
		t.Fatalf("exit %d stderr:\n%s\nwant a head, %d failures, \"and 8 more\" and the error line", code, errs, maxGateLines)
	}
	for _, l := range lines {
		if len(l) > 100 {
			t.Errorf("line of %d characters: %q", len(l), l)
		}
	}
}
