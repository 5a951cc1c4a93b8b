package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/harness/fault"
	"github.com/stormlab/stormlab/reports/metric"
	"github.com/stormlab/stormlab/reports/page"
)

// Reference p-values, computed by hand from the closed forms of Student's t
// CDF for small integer df (Welch's df is an integer when both sides have
// the same n and the same sample variance: df = 2(n-1)):
//
//	df = 2: two-sided p = 1 - |t| / sqrt(2 + t^2)
//	df = 4: F(t) = 1/2 + (3/8) u (1 - t^2 / (12 q)), q = 1 + t^2/4, u = t / sqrt(q);
//	        two-sided p = 2 (1 - F(|t|))   (check: t = 2.776445, the 97.5% quantile, gives 0.0500)
func TestWelchP(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b []float64
		p    float64 // NaN: not testable
	}{
		// means 100 and 90, sample variances 4 and 4: t = -10 / sqrt(4/3 + 4/3)
		// = -6.123724, df = 4, p = 2 (1 - F(6.123724)) = 0.0036022.
		{"n=3 df=4 significant", []float64{100, 102, 98}, []float64{90, 92, 88}, 0.0036022},
		// means 12 and 9, variances 4 and 4: t = -3 / sqrt(8/3) = -1.837117, df = 4, p = 0.1400660.
		{"n=3 df=4 not significant", []float64{10, 12, 14}, []float64{7, 9, 11}, 0.1400660},
		// means 1 and 5, variances 2 and 2: t = 4 / sqrt(2/2 + 2/2) = 2.828427,
		// df = 2, p = 1 - 2.828427 / sqrt(10) = 0.1055728.
		{"n=2 df=2", []float64{0, 2}, []float64{4, 6}, 0.1055728},
		{"constant equal", []float64{0.5, 0.5, 0.5}, []float64{0.5, 0.5}, 1},
		{"n=1 base", []float64{1}, []float64{1, 2}, math.NaN()},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, test := welchP(c.a, c.b)
			if math.IsNaN(c.p) {
				if !math.IsNaN(p) || test != "" {
					t.Errorf("p = %v test %q, want NaN and no test", p, test)
				}
				return
			}
			if test != TestWelch || math.Abs(p-c.p) > 1e-6 {
				t.Errorf("p = %.7f (%s), want %.7f (±1e-6, Welch)", p, test, c.p)
			}
		})
	}
}

func read(t *testing.T, dir string) *Samples {
	t.Helper()
	s, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func byKey(rows []Row) map[Key]Row {
	m := map[Key]Row{}
	for _, r := range rows {
		m[r.Key] = r
	}
	return m
}

// The fixtures testdata/{base,new}/smoke/raw.csv are small enough to check
// by hand; see TestWelchP for the p-values.
func TestCompareFixture(t *testing.T) {
	res := Compare(read(t, "testdata/base"), read(t, "testdata/new"), Options{Threshold: 0.05})
	rows := byKey(res.Rows)
	for _, c := range []struct {
		key         Key
		base, new   float64
		verdict     string
		fails       bool
		explanation string
	}{
		{Key{"smoke", "kpart", "1", "throughput"}, 100, 90, Regressed, true, "-10% beyond 5%, p = 0.0036 < 0.05, higher is better"},
		{Key{"smoke", "kpart", "1", "latency_mean_ms"}, 12, 9, Same, false, "-25% but p = 0.14: not significant"},
		{Key{"smoke", "kpart", "1", "cut_rate"}, 0.5, 0.5, Same, false, "identical constants, p = 1"},
		{Key{"smoke", "kpart", "1", "edges"}, 7, 8, Untested, false, "not in the metric registry"},
		{Key{"smoke", "storm-even", "1", "throughput"}, 50, 60, BetterUntested, false, "+20%, n = 1"},
		{Key{"smoke", "storm-even", "2", "latency_mean_ms"}, 20, 21, Same, false, "+5% is not beyond 5%"},
		{Key{"smoke", "online", "1", "throughput"}, math.NaN(), 70, OnlyNew, false, "series missing in base"},
	} {
		r, ok := rows[c.key]
		if !ok {
			t.Errorf("%v: no row", c.key)
			continue
		}
		if r.Verdict != c.verdict || r.Fails != c.fails {
			t.Errorf("%v: verdict %q fails %v, want %q %v (%s)", c.key, r.Verdict, r.Fails, c.verdict, c.fails, c.explanation)
		}
		if !(math.IsNaN(c.base) && math.IsNaN(r.Base)) && math.Abs(r.Base-c.base) > 1e-12 || math.Abs(r.New-c.new) > 1e-12 {
			t.Errorf("%v: means %v -> %v, want %v -> %v", c.key, r.Base, r.New, c.base, c.new)
		}
	}
	// NaN and empty cells are skipped: storm-even x=10 edges has no base value.
	if r := rows[Key{"smoke", "storm-even", "10", "edges"}]; r.NBase != 0 || r.Verdict != OnlyNew {
		t.Errorf("NaN cell: n base %d verdict %q, want 0 and only in new", r.NBase, r.Verdict)
	}
	var xs []string
	for _, r := range res.Rows {
		if r.Series == "storm-even" && r.Metric == "throughput" {
			xs = append(xs, r.X)
		}
	}
	if strings.Join(xs, ",") != "1,2,10" {
		t.Errorf("storm-even x order %v, want 1,2,10 (numeric)", xs)
	}
	want := []string{"series smoke/online", "metric smoke/storm-even/x=2/edges", "metric smoke/storm-even/x=10/edges"}
	if len(res.Missing) != 0 || !slices.Equal(res.Added, want) || !slices.Equal(res.Untested, []string{"edges"}) {
		t.Errorf("missing %v added %v untested %v, want none, %v, [edges]", res.Missing, res.Added, res.Untested, want)
	}
}

// copyTree copies the fixture folder src to a temporary folder.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// editCSV rewrites a raw.csv: edit gets each record (header excluded) and
// returns it changed, or nil to drop it.
func editCSV(t *testing.T, path string, edit func(hdr, rec []string) []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := [][]string{recs[0]}
	for _, r := range recs[1:] {
		if r = edit(recs[0], r); r != nil {
			out = append(out, r)
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.WriteAll(out)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// scale multiplies metric m by f in every record.
func scale(m string, f float64) func(hdr, rec []string) []string {
	return func(hdr, rec []string) []string {
		j := slices.Index(hdr, m)
		v, _ := strconv.ParseFloat(rec[j], 64)
		rec[j] = strconv.FormatFloat(v*f, 'g', -1, 64)
		return rec
	}
}

// A regression compare once missed: an spd folder whose ratio was multiplied by 1.3 gave
// "no changes". Every ratio cell (3 series x 3 c, 8 instances a side, CV
// about 5%) must now regress; the other metrics stay the same.
func TestScaledMetricFound(t *testing.T) {
	nw := copyTree(t, "testdata/spd")
	editCSV(t, filepath.Join(nw, "spd", "raw.csv"), scale("ratio", 1.3))
	res := Compare(read(t, "testdata/spd"), read(t, nw), Options{Threshold: 0.05})
	reg := 0
	for _, r := range res.Rows {
		switch {
		case r.Metric == "ratio" && (r.Verdict != Regressed || !r.Fails || r.Test != TestModerated):
			t.Errorf("%v: verdict %q test %q p %v, want regressed by the moderated t", r.Key, r.Verdict, r.Test, r.PAdj)
		case r.Metric == "ratio":
			reg++
		case r.Verdict != Same:
			t.Errorf("%v: verdict %q, want same (unchanged)", r.Key, r.Verdict)
		}
	}
	if reg != 9 || len(res.Failures()) != 9 {
		t.Errorf("%d ratio rows regressed, %d failures, want 9 and 9", reg, len(res.Failures()))
	}
}

// What the base has and the new side lacks is listed at its coarsest level
// and fails the gate; the reverse is listed as new and does not.
func TestMissingAndAdded(t *testing.T) {
	drop := func(keep func(hdr, rec []string) bool) func(hdr, rec []string) []string {
		return func(hdr, rec []string) []string {
			if keep(hdr, rec) {
				return rec
			}
			return nil
		}
	}
	blank := func(hdr, rec []string) []string {
		if rec[1] == "ffd" && rec[2] == "4" {
			rec[slices.Index(hdr, "used")] = ""
		}
		return rec
	}
	for _, c := range []struct {
		name string
		edit func(hdr, rec []string) []string
		want string
	}{
		{"series", drop(func(_, r []string) bool { return r[1] != "greedy" }), "series spd/greedy"},
		{"cell", drop(func(_, r []string) bool { return r[1] != "Adisc" || r[2] != "8" }), "cell spd/Adisc/x=8"},
		{"metric", blank, "metric spd/ffd/x=4/used"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nw := copyTree(t, "testdata/spd")
			editCSV(t, filepath.Join(nw, "spd", "raw.csv"), c.edit)
			res := Compare(read(t, "testdata/spd"), read(t, nw), Options{Threshold: 0.05})
			if !slices.Equal(res.Missing, []string{c.want}) || !slices.Contains(res.Failures(), "missing "+c.want) || len(res.Added) != 0 {
				t.Errorf("missing %v failures %v added %v, want [%s] failing", res.Missing, res.Failures(), res.Added, c.want)
			}
			back := Compare(read(t, nw), read(t, "testdata/spd"), Options{Threshold: 0.05})
			if !slices.Equal(back.Added, []string{c.want}) || len(back.Failures()) != 0 {
				t.Errorf("reversed: added %v failures %v, want [%s] and no failure", back.Added, back.Failures(), c.want)
			}
		})
	}
	// A whole experiment missing: a suite folder with smoke and spd against spd alone.
	suite := copyTree(t, "testdata/spd")
	os.MkdirAll(filepath.Join(suite, "smoke"), 0o755)
	b, _ := os.ReadFile("testdata/base/smoke/raw.csv")
	os.WriteFile(filepath.Join(suite, "smoke", "raw.csv"), b, 0o644)
	res := Compare(read(t, suite), read(t, "testdata/spd"), Options{Threshold: 0.05})
	if !slices.Equal(res.Missing, []string{"experiment smoke"}) {
		t.Errorf("missing %v, want [experiment smoke]", res.Missing)
	}
}

// A run.json or raw.csv without the expected shape is an error naming the
// file, never a run with every metric 0.
func TestReadRejectsSchemaless(t *testing.T) {
	for _, c := range []struct{ file, body, want string }{
		{"run.json", `{"foo":1}`, `needs "spec" with a "Scheduler"`},
		{"run.json", `{"spec":{"Scheduler":"kpart"}}`, `"measurement" with a "throughput"`},
		{"run.json", `[1,2]`, "not a run.json"},
		{"raw.csv", "foo,bar\n1,2\n", "not a raw.csv"},
		{"raw.csv", "experiment,series,x,instance,instance_seed,rep,seed\n", "not a raw.csv"},
		{"raw.csv", "", "read header"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "sub", c.file)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(c.body), 0o644)
		_, err := ReadDir(dir)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: error %v, want one naming %s and %q", c.file, c.body, err, path, c.want)
		}
	}
	// An unreadable file (a dangling link) is named too.
	dir := t.TempDir()
	os.Symlink(filepath.Join(dir, "absent"), filepath.Join(dir, "raw.csv"))
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "raw.csv")) {
		t.Errorf("dangling raw.csv: error %v, want one naming it", err)
	}
}

// A run with faults is a sample of its own experiment, never pooled with
// the fault-free runs of the same scheduler and topology.
func TestReadRunFaults(t *testing.T) {
	s := newSamples()
	for _, faults := range [][]fault.Fault{nil, {{Kind: fault.KillSupervisor, At: time.Second, Duration: time.Second, Arg: "sup1"}}} {
		b, err := json.Marshal(harness.RunResult{Spec: harness.RunSpec{Scheduler: "kpart", Faults: faults}, Measurement: harness.Measurement{Throughput: 10}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.readRun("run.json", bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
	}
	plain, faulty := s.Values[Key{"run", "kpart", "", "throughput"}], s.Values[Key{"run with faults kill-supervisor@1s+1s:sup1", "kpart", "", "throughput"}]
	if len(plain) != 1 || len(faulty) != 1 {
		t.Errorf("samples %v: want one fault-free and one with faults, apart", s.Values)
	}
}

// The run.json fields compare reads are registered metrics.
func TestRunFieldsRegistered(t *testing.T) {
	if err := metric.Check(runFields...); err != nil {
		t.Error(err)
	}
}

// The JSON output is what the HTML page reads from a nightly folder's
// compare.json: the page loads it with the gate's lists beside.
func TestJSONReadByPage(t *testing.T) {
	res := Compare(read(t, "testdata/base"), read(t, "testdata/new"), Options{Threshold: 0.05})
	b, err := json.Marshal(res.ToJSON("b", "n", 0.05, false, res.Rows))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "compare.json"), b, 0o644)
	f, err := page.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// 20 rows, 6 of them only in new: 14 compared.
	if c := f.Compare; c == nil || c.Compared != 14 || c.Regressed != 1 || len(c.Rows) != 20 || !strings.Contains(c.Test, "Holm-corrected over 3 tests") {
		t.Errorf("page read %+v", f.Compare)
	}
}

// A metric that should not change (nodes_used) and changes significantly
// beyond the threshold is "changed" and fails the gate, whichever way it
// moved; with one value a side it is "changed (untested)" and does not.
func TestStableMetricChanged(t *testing.T) {
	base, nw := newSamples(), newSamples()
	for _, v := range []float64{3, 3.1, 2.9} { // Welch t = 12.2, df 4: p = 2.6e-4
		base.add(Key{"comm-cost", "kpart", "1", "nodes_used"}, v)
		nw.add(Key{"comm-cost", "kpart", "1", "nodes_used"}, v+1)
	}
	base.add(Key{"comm-cost", "even", "1", "nodes_used"}, 3)
	nw.add(Key{"comm-cost", "even", "1", "nodes_used"}, 2)
	rows := byKey(Compare(base, nw, Options{Threshold: 0.05}).Rows)
	if r := rows[Key{"comm-cost", "kpart", "1", "nodes_used"}]; r.Verdict != Changed || !r.Fails {
		t.Errorf("kpart: verdict %q fails %v p %v, want changed and failing", r.Verdict, r.Fails, r.PAdj)
	}
	if r := rows[Key{"comm-cost", "even", "1", "nodes_used"}]; r.Verdict != ChangeUntested || r.Fails {
		t.Errorf("even: verdict %q fails %v, want changed (untested), not failing", r.Verdict, r.Fails)
	}
}
