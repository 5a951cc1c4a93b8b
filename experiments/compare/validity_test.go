package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/internal/golden"
)

// withValidity rewrites a raw.csv of the old layout into the current one
// (validity and reasons after seed): judge gives each record's level and
// reasons; extra records (current layout) are appended.
func withValidity(t *testing.T, path string, judge func(rec []string) (string, string), extra ...[]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	n := len(rawFixed)
	out := [][]string{slices.Concat(recs[0][:n], rawValidity, recs[0][n:])}
	for _, r := range recs[1:] {
		level, why := judge(r)
		out = append(out, slices.Concat(r[:n], []string{level, why}, r[n:]))
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.WriteAll(append(out, extra...))
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestValidityRaw: doctored copies of the smoke fixture (numbers checked in
// TestCompareFixture and cmd/stormlab's compare.golden). The base's kpart
// rep 0 is suspect: kept, marked on every kpart row. The new side gains a
// kpart rep 3 judged invalid whose throughput (500) would turn the
// regression into an improvement were it counted, and its only storm-even
// x=2 run is invalid: that cell is missing, which fails the gate.
func TestValidityRaw(t *testing.T) {
	base, nw := copyTree(t, "testdata/base"), copyTree(t, "testdata/new")
	withValidity(t, filepath.Join(base, "smoke", "raw.csv"), func(r []string) (string, string) {
		if r[1] == "kpart" && r[5] == "0" {
			return "suspect", "storm-counts: throughput 100.0/s vs Storm's 80.0/s (25.0% apart)"
		}
		return "valid", ""
	})
	withValidity(t, filepath.Join(nw, "smoke", "raw.csv"), func(r []string) (string, string) {
		if r[1] == "storm-even" && r[2] == "2" {
			return "invalid", "unassigned: 2 executors stayed unassigned"
		}
		return "valid", ""
	}, []string{"smoke", "kpart", "1", "0", "1", "3", "4", "invalid", "scheduler: the bridge fell back to EvenScheduler 2 times", "500", "8", "0.5", "7"})
	res := Compare(read(t, base), read(t, nw), Options{Threshold: 0.05})
	rows := byKey(res.Rows)
	thr := rows[Key{"smoke", "kpart", "1", "throughput"}]
	if thr.NNew != 3 || thr.New != 90 || thr.Verdict != Regressed || thr.SuspectBase != 1 || thr.SuspectNew != 0 {
		t.Errorf("kpart throughput: n new %d, mean %v, %s, suspect %d/%d; want 3, 90 (invalid 500 left out), regressed, suspect 1/0",
			thr.NNew, thr.New, thr.Verdict, thr.SuspectBase, thr.SuspectNew)
	}
	if !slices.Contains(res.Failures(), "missing cell smoke/storm-even/x=2") {
		t.Errorf("failures %q: want the cell whose only new run is invalid missing", res.Failures())
	}
	if len(res.Invalid) != 2 || len(res.Suspect) != 1 || res.Invalid[0].Side != "new" || res.Suspect[0].Side != "base" {
		t.Errorf("invalid %+v, suspect %+v: want 2 new runs invalid, 1 base run suspect", res.Invalid, res.Suspect)
	}
	var out bytes.Buffer
	if err := Table("compare base -> new (validity fixture)", res.Rows).WriteText(&out); err != nil {
		t.Fatal(err)
	}
	out.WriteString(res.Summary())
	golden.Assert(t, "testdata/validity.golden", out.Bytes())
	// compare.json carries the lists to the page.
	b, err := json.Marshal(res.ToJSON("base", "new", 0.05, false, res.Rows))
	if err != nil || !strings.Contains(string(b), `{"side":"new","where":"smoke/kpart/x=1 rep 3","level":"invalid"`) ||
		!strings.Contains(string(b), `"suspect_base":1`) {
		t.Errorf("compare.json %s (%v): want the invalid runs listed and the suspect counts per row", b, err)
	}
}

// TestValidityRunJSON: run.json folders. An invalid run adds no value; a run
// suspect on latency only (counts agreed with Storm's) is marked on the
// latency metrics only; a bad level in raw.csv is an error naming the line.
func TestValidityRunJSON(t *testing.T) {
	dir := t.TempDir()
	latency := harness.Reason{Kind: harness.ReasonStormLatency, Level: harness.Suspect, Text: "mean complete latency 20% apart"}
	fell := harness.Reason{Kind: harness.ReasonScheduler, Level: harness.Invalid, Text: "bridge fell back"}
	for i, v := range []harness.Validity{{Level: harness.Valid}, {Level: harness.Suspect, Reasons: []harness.Reason{latency}}, {Level: harness.Invalid, Reasons: []harness.Reason{fell}}} {
		b, err := json.Marshal(harness.RunResult{Spec: harness.RunSpec{Scheduler: "kpart"}, Measurement: harness.Measurement{Throughput: float64(10 + i)}, Validity: v})
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, string(rune('a'+i))), 0o755)
		os.WriteFile(filepath.Join(dir, string(rune('a'+i)), "run.json"), b, 0o644)
	}
	s := read(t, dir)
	k := func(m string) Key { return Key{"run", "kpart", "", m} }
	if got := s.Values[k("throughput")]; !slices.Equal(got, []float64{10, 11}) {
		t.Errorf("throughput %v, want [10 11] (the invalid run's 12 left out)", got)
	}
	if s.SuspectN[k("throughput")] != 0 || s.SuspectN[k("latency_mean_ms")] != 1 {
		t.Errorf("suspect counts %v: want latency marked, throughput not", s.SuspectN)
	}
	if len(s.Invalid) != 1 || s.Invalid[0].Where != "run/kpart/x= (c/run.json)" || s.Invalid[0].Reasons != "scheduler: bridge fell back" {
		t.Errorf("invalid %+v: want c/run.json with its reason", s.Invalid)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "raw.csv"), []byte("experiment,series,x,instance,instance_seed,rep,seed,validity,reasons,m\ne,s,1,0,0,0,0,fine,,1\n"), 0o644)
	if _, err := ReadDir(bad); err == nil || !strings.Contains(err.Error(), `line 2, column validity: "fine"`) {
		t.Errorf("bad level: error %v, want one naming line 2 and the value", err)
	}
}
