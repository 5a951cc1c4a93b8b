package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// kpartMulRun runs kpart-mul once into a temporary folder and returns its
// experiment folder (raw.csv, manifest.json recording unit "instance").
func kpartMulRun(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	if code, _, errs := cli(t, "experiment", "kpart-mul", "--out", out); code != exitOK {
		t.Fatalf("stormlab experiment kpart-mul: exit %d stderr %q", code, errs)
	}
	return filepath.Join(out, "kpart-mul")
}

// doctorKPartMul copies run's raw.csv (and manifest.json, when manifest)
// into a new folder with K-PART's cut_rate at Mul = 7 multiplied by f on
// the instances listed (every instance when none).
func doctorKPartMul(t *testing.T, run string, manifest bool, f float64, instances ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(run, "raw.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	hdr := recs[0]
	s, x, inst, cut := slices.Index(hdr, "series"), slices.Index(hdr, "x"), slices.Index(hdr, "instance"), slices.Index(hdr, "cut_rate")
	n := 0
	for _, r := range recs[1:] {
		if r[s] == "K-PART" && r[x] == "7" && (len(instances) == 0 || slices.Contains(instances, r[inst])) {
			v, _ := strconv.ParseFloat(r[cut], 64)
			r[cut] = strconv.FormatFloat(v*f, 'g', -1, 64)
			n++
		}
	}
	want := 100 // 10 repetitions on each of 10 graphs
	if len(instances) > 0 {
		want = 10 * len(instances)
	}
	if n != want {
		t.Fatalf("doctored %d rows, want %d", n, want)
	}
	dir := filepath.Join(t.TempDir(), "kpart-mul")
	os.MkdirAll(dir, 0o755)
	var buf bytes.Buffer
	csv.NewWriter(&buf).WriteAll(recs)
	if err := os.WriteFile(filepath.Join(dir, "raw.csv"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if manifest {
		m, err := os.ReadFile(filepath.Join(run, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "manifest.json"), m, 0o644)
	}
	return dir
}

// compareRow is a row of `compare --format json` with the unit fields.
type compareRow struct {
	Experiment, Series, X, Metric string
	NBase                         int      `json:"n_base"`
	NNew                          int      `json:"n_new"`
	P                             *float64 `json:"p"`
	Unit, Verdict, Test           string
	Paired                        bool
}

// cutRow runs compare base new --metric cut_rate --format json and returns
// the K-PART x = 7 row and stderr.
func cutRow(t *testing.T, base, nw string) (compareRow, string) {
	t.Helper()
	code, out, errs := cli(t, "compare", base, nw, "--metric", "cut_rate", "--format", "json")
	var c struct{ Rows []compareRow }
	if err := json.Unmarshal([]byte(out), &c); code != exitOK || err != nil {
		t.Fatalf("exit %d %v stderr %q", code, err, errs)
	}
	for _, r := range c.Rows {
		if r.Series == "K-PART" && r.X == "7" {
			return r, errs
		}
	}
	t.Fatalf("no K-PART x=7 row in %s", out)
	return compareRow{}, ""
}

// The statistical unit of kpart-mul is the graph (10 of them, 10 K-PART
// runs each, the same graphs and seeds on both sides). Doctored: cut rate
// x1.5 on graphs 0 and 1 at Mul = 7. Counting the 100 runs as independent
// called it "regressed", p = 7.8e-05, n = 100. Per graph and paired, the
// log differences are log 1.5 on 2 graphs and 0 on 8: t = 0.2 / sqrt(0.2 *
// 0.8 * 10/9 / 10) = 1.5 whatever the factor, df 9, p = 0.167851 (Student's
// t, closed form for odd df, Abramowitz and Stegun 26.7.3): not significant.
// Every repetition of every graph x1.25: log differences all log 1.25, no
// spread: an exact change, a regression.
func TestCompareKPartMulUnits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kpart-mul (about 2 s)")
	}
	run := kpartMulRun(t)
	var man struct{ Unit string }
	if b, err := os.ReadFile(filepath.Join(run, "manifest.json")); err != nil || json.Unmarshal(b, &man) != nil || man.Unit != "instance" {
		t.Fatalf("manifest.json unit %q (%v), want instance: the unit kpart-mul declares", man.Unit, err)
	}
	r, errs := cutRow(t, run, doctorKPartMul(t, run, true, 1.5, "0", "1"))
	if r.NBase != 10 || r.NNew != 10 || r.Unit != "instance" || !r.Paired || r.Test != "paired t, logs" ||
		r.P == nil || math.Abs(*r.P-0.167851) > 1e-5 || r.Verdict != "same" || strings.Contains(errs, "unit:") {
		t.Errorf("graphs 0 and 1 x1.5: %+v (p %v) stderr %q; want n 10/10 instances, paired t on logs, p 0.167851, same", r, deref(r.P), errs)
	}
	all := doctorKPartMul(t, run, true, 1.25)
	r, _ = cutRow(t, run, all)
	if r.NBase != 10 || !r.Paired || r.P == nil || *r.P != 0 || r.Verdict != "regressed" {
		t.Errorf("every graph x1.25: %+v (p %v), want paired, p 0, regressed", r, deref(r.P))
	}
	code, _, errs := cli(t, "compare", run, all, "--fail-on-regression", "--only-changed")
	if code != exitFailed || !strings.Contains(errs, "  regressed kpart-mul/K-PART/x=7/cut_rate\n") {
		t.Errorf("gate: exit %d stderr %q, want exit 1 naming the regression", code, errs)
	}
	// A folder written before units were recorded (no manifest.json) is
	// grouped as the other side records, with a note.
	r, errs = cutRow(t, run, doctorKPartMul(t, run, false, 1.5, "0", "1"))
	if r.NNew != 10 || !r.Paired || !strings.Contains(errs, "unit: experiment kpart-mul: new records no unit") {
		t.Errorf("new without manifest: %+v stderr %q, want n 10 paired and a note", r, errs)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
