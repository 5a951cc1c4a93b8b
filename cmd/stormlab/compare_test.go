package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/reports/page"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./cmd/stormlab -run %s -update` to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file (run with -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// Reference p-values, computed by hand from the closed forms of Student's t
// CDF for small integer df (Welch's df is an integer when both sides have
// the same n and the same sample variance: df = 2(n-1)):
//
//	df = 2: two-sided p = 1 - |t| / sqrt(2 + t^2)
//	df = 4: F(t) = 1/2 + (3/8) u (1 - t^2 / (12 q)), q = 1 + t^2/4, u = t / sqrt(q);
//	        two-sided p = 2 (1 - F(|t|))   (check: t = 2.776445, the 97.5% quantile, gives 0.0500)
func TestWelch(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b []float64
		p    float64 // NaN: not testable
		ok   bool
	}{
		// means 100 and 90, sample variances 4 and 4: t = -10 / sqrt(4/3 + 4/3)
		// = -6.123724, df = 4, p = 2 (1 - F(6.123724)) = 0.0036022.
		{"n=3 df=4 significant", []float64{100, 102, 98}, []float64{90, 92, 88}, 0.0036022, true},
		// means 12 and 9, variances 4 and 4: t = -3 / sqrt(8/3) = -1.837117, df = 4, p = 0.1400660.
		{"n=3 df=4 not significant", []float64{10, 12, 14}, []float64{7, 9, 11}, 0.1400660, true},
		// means 1 and 5, variances 2 and 2: t = 4 / sqrt(2/2 + 2/2) = 2.828427,
		// df = 2, p = 1 - 2.828427 / sqrt(10) = 0.1055728.
		{"n=2 df=2", []float64{0, 2}, []float64{4, 6}, 0.1055728, true},
		{"constant equal", []float64{0.5, 0.5, 0.5}, []float64{0.5, 0.5}, 1, true},
		{"constant different", []float64{0.5, 0.5}, []float64{0.6, 0.6}, 0, true},
		{"n=1 base", []float64{1}, []float64{1, 2}, math.NaN(), false},
		{"n=1 new", []float64{1, 2}, []float64{3}, math.NaN(), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, ok := welch(c.a, c.b)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if math.IsNaN(c.p) {
				if !math.IsNaN(p) {
					t.Errorf("p = %v, want NaN", p)
				}
				return
			}
			if math.Abs(p-c.p) > 1e-6 {
				t.Errorf("p = %.7f, want %.7f (±1e-6)", p, c.p)
			}
		})
	}
}

func TestMetricDirection(t *testing.T) {
	for m, want := range map[string]direction{
		"latency_mean_ms": lowerBetter, "latency_p99_ms": lowerBetter, "cut_rate": lowerBetter,
		"balance": lowerBetter, "std": lowerBetter, "max_dev": lowerBetter, "qos_rate": lowerBetter,
		"processing_ms": lowerBetter, "throughput": higherBetter, "edges": noDirection, "ratio": noDirection,
	} {
		if got := metricDirection(m); got != want {
			t.Errorf("%s: direction %d, want %d", m, got, want)
		}
	}
}

// The fixtures testdata/compare/{base,new}/smoke/raw.csv are small enough
// to check by hand; see TestWelch for the p-values.
func TestCompareVerdicts(t *testing.T) {
	base, err := readRawDir("testdata/compare/base")
	if err != nil {
		t.Fatal(err)
	}
	nw, err := readRawDir("testdata/compare/new")
	if err != nil {
		t.Fatal(err)
	}
	rows := compareSamples(base, nw, nil, 0.05)
	byKey := map[sampleKey]comparison{}
	for _, r := range rows {
		byKey[r.key] = r
	}
	for _, c := range []struct {
		key         sampleKey
		base, new   float64
		verdict     string
		regressed   bool
		explanation string
	}{
		{sampleKey{"smoke", "kpart", "1", "throughput"}, 100, 90, "regressed", true,
			"-10% beyond 5%, p = 0.0036 < 0.05, higher is better"},
		{sampleKey{"smoke", "kpart", "1", "latency_mean_ms"}, 12, 9, "same", false,
			"-25% but p = 0.14: not significant"},
		{sampleKey{"smoke", "kpart", "1", "cut_rate"}, 0.5, 0.5, "same", false, "identical constants, p = 1"},
		{sampleKey{"smoke", "kpart", "1", "edges"}, 7, 8, "-", false, "unknown metric: no direction"},
		{sampleKey{"smoke", "storm-even", "1", "throughput"}, 50, 60, "better (untested)", false, "+20%, n = 1"},
		{sampleKey{"smoke", "storm-even", "2", "latency_mean_ms"}, 20, 21, "same", false, "+5% is not beyond 5%"},
		{sampleKey{"smoke", "online", "1", "throughput"}, math.NaN(), 70, "only in new", false, "series missing in base"},
	} {
		r, ok := byKey[c.key]
		if !ok {
			t.Errorf("%v: no row", c.key)
			continue
		}
		if r.verdict != c.verdict || r.regressed != c.regressed {
			t.Errorf("%v: verdict %q regressed %v, want %q %v (%s)", c.key, r.verdict, r.regressed, c.verdict, c.regressed, c.explanation)
		}
		if !(math.IsNaN(c.base) && math.IsNaN(r.base)) && math.Abs(r.base-c.base) > 1e-12 || math.Abs(r.new-c.new) > 1e-12 {
			t.Errorf("%v: means %v -> %v, want %v -> %v", c.key, r.base, r.new, c.base, c.new)
		}
	}
	// NaN and empty cells are skipped: storm-even x=10 edges has no base value.
	if r := byKey[sampleKey{"smoke", "storm-even", "10", "edges"}]; r.nBase != 0 || r.verdict != "only in new" {
		t.Errorf("NaN cell: n base %d verdict %q, want 0 and only in new", r.nBase, r.verdict)
	}
	// x sorts numerically: 1, 2, 10 for storm-even.
	var xs []string
	for _, r := range rows {
		if r.key.series == "storm-even" && r.key.metric == "throughput" {
			xs = append(xs, r.key.x)
		}
	}
	if strings.Join(xs, ",") != "1,2,10" {
		t.Errorf("storm-even x order %v, want 1,2,10", xs)
	}
}

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
//	  (1/3)^2 / ((1/3)^2 / 2) = 2, p = 1 - 1.7321 / sqrt(5) = 0.225; unknown metric -> "-"
//	storm-even x=1 throughput 50 -> 60 (n = 1): ratio 1.2, n/a, better (untested)
//	storm-even x=2 latency 20 -> 21: +5%, not beyond 5% -> same
//	online: only in new; storm-even x=2, x=10 edges: empty / NaN in base -> only in new
func TestCompareGolden(t *testing.T) {
	code, out, errs := cli(t, "compare", "testdata/compare/base", "testdata/compare/new")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	golden(t, "compare.golden", []byte(out))
	code, out, _ = cli(t, "compare", "testdata/compare/base", "testdata/compare/new", "--format", "markdown", "--metric", "throughput")
	if code != exitOK {
		t.Fatalf("markdown: exit %d", code)
	}
	golden(t, "compare-throughput.golden.md", []byte(out))
}

func TestCompareFailOnRegression(t *testing.T) {
	code, _, errs := cli(t, "compare", "testdata/compare/base", "testdata/compare/new", "--fail-on-regression")
	if code != exitFailed || !strings.Contains(errs, "smoke/kpart/x=1/throughput") || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d stderr %q: want exit 1 naming smoke/kpart/x=1/throughput in one line", code, errs)
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
	// 20 rows compared (see TestCompareGolden), 8 changed: 6 only in new,
	// 1 better (untested), 1 regressed.
	if c.Compared != 20 || c.Changed != 8 || c.Regressed != 1 || len(c.Rows) != 8 || !c.OnlyChange {
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
	if code != exitOK || strings.Contains(out, "│ same ") || !strings.Contains(out, "20 compared, 8 changed, 1 regressed") {
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
			// Same numbers as TestWelch's first case; 5 rows tested with a
			// direction (throughput, latency mean and p99, cut rate, balance;
			// inter_node_rate has none), the other four constant and equal
			// (p = 1): Holm 5 * 0.0036022.
			if r.NBase != 3 || r.NNew != 3 || r.Verdict != "regressed" || math.Abs(*r.PAdjusted-5*0.0036022) > 1e-6 {
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

// TestReadRunFaults: a run with faults is a sample of its own experiment, never pooled with the
// fault-free runs of the same scheduler and topology.
func TestReadRunFaults(t *testing.T) {
	rs := &rawSamples{values: map[sampleKey][]float64{}}
	for _, faults := range [][]harness.Fault{nil, {{Kind: harness.KillSupervisor, At: time.Second, Duration: time.Second, Target: "sup1"}}} {
		b, err := json.Marshal(harness.RunResult{Spec: harness.RunSpec{Scheduler: "kpart", Faults: faults}, Measurement: harness.Measurement{Throughput: 10}})
		if err != nil {
			t.Fatal(err)
		}
		if err := rs.readRun(bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
	}
	plain, faulty := rs.values[sampleKey{"run", "kpart", "", "throughput"}], rs.values[sampleKey{"run with faults kill-supervisor@1s+1s:sup1", "kpart", "", "throughput"}]
	if len(plain) != 1 || len(faulty) != 1 {
		t.Errorf("samples %v: want one fault-free and one with faults, apart", rs.values)
	}
}

// Hand count over testdata/verdicts: three claims in both folders, two with
// the same verdict (one holds twice, one inconclusive twice).
func TestCompareVerdictsCommand(t *testing.T) {
	code, out, errs := cli(t, "compare", "--verdicts", "testdata/verdicts/base", "testdata/verdicts/new", "--format", "markdown")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
	golden(t, "verdicts.golden.md", []byte(out))
	if !strings.Contains(out, "2 of 3 claims got the same verdict twice (67%); 1 of them decided") {
		t.Errorf("summary line missing:\n%s", out)
	}
	code, out, _ = cli(t, "compare", "--verdicts", "testdata/verdicts/base", "testdata/verdicts/new", "--format", "json")
	var got struct {
		Compared, Agreed int
		Rate             float64
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Compared != 3 || got.Agreed != 2 {
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
