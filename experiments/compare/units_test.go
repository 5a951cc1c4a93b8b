package compare

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/reports/metric"
)

// pairedP against hand-computed references; p of Student's t from the
// closed form for odd degrees of freedom (Abramowitz and Stegun 26.7.3).
func TestPairedP(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b []float64
		p    float64
		test string
		tol  float64
	}{
		// log(b/a) = (log 2, log 2, log 2, 0): mean 0.75 log 2, sd 0.5 log 2,
		// t = 0.75 / (0.5 / 2) = 3, df 3: p = 1 - (2/pi)(pi/3 + sqrt(3)/4) = 0.0576689.
		{"spread", []float64{1, 2, 4, 8}, []float64{2, 4, 8, 8}, 0.0576689, TestPairedLog, 1e-6},
		// every difference zero: no change.
		{"all zero", []float64{0.2, 0.3, 0.25}, []float64{0.2, 0.3, 0.25}, 1, TestPairedLog, 0},
		// every instance x1.25: no spread, a change: exact.
		{"constant", []float64{0.2, 0.3, 0.25}, []float64{0.25, 0.375, 0.3125}, 0, TestPairedLog, 0},
		// a zero value: no log; the paired t on the values, differences
		// (1, 1, 1) constant: exact.
		{"zero value", []float64{0, 1, 2}, []float64{1, 2, 3}, 0, TestPaired, 0},
		// zeros on both sides, equal: no change.
		{"all zeros", []float64{0, 0, 0}, []float64{0, 0, 0}, 1, TestPaired, 0},
	} {
		p, test := pairedP(c.a, c.b)
		if math.Abs(p-c.p) > c.tol || test != c.test {
			t.Errorf("%s: p %.7g (%s), want %.7g (%s)", c.name, p, test, c.p, c.test)
		}
	}
}

// writeRaw writes dir/raw.csv of experiment e: series s at x 1, instances
// 0..len(vals)-1 (seed 100 + i), each with its values as repetitions, and a
// manifest.json recording unit (none when "").
func writeRaw(t *testing.T, dir, unit string, vals [][]float64) {
	t.Helper()
	var b strings.Builder
	b.WriteString("experiment,series,x,instance,instance_seed,rep,seed,validity,reasons,cut_rate\n")
	for i, reps := range vals {
		for r, v := range reps {
			b.WriteString(strings.Join([]string{"e", "s", "1", itoa(i), itoa(100 + i), itoa(r), "1", "valid", "", ftoa(v)}, ",") + "\n")
		}
	}
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "raw.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if unit != "" {
		os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"experiment":"e","unit":"`+unit+`"}`), 0o644)
	}
}

// Rows of an instance experiment count instances, pair them when both
// sides hold the same ones, and fall back (with a note) where a folder
// records no unit.
func TestCompareUnits(t *testing.T) {
	// 4 instances x 3 repetitions; new: instance 0 x2 on every repetition.
	base := [][]float64{{1, 1.2, 0.8}, {2, 2, 2}, {4, 4.4, 3.6}, {8, 8, 8}}
	nw := [][]float64{{2, 2.4, 1.6}, {2, 2, 2}, {4, 4.4, 3.6}, {8, 8, 8}}
	for _, c := range []struct {
		name           string
		ub, un         string
		n              int
		paired         bool
		unit, notePart string
	}{
		{"both instance", metric.UnitInstance, metric.UnitInstance, 4, true, "instance", ""},
		{"old base", "", metric.UnitInstance, 4, true, "instance", "base records no unit"},
		{"neither", "", "", 12, false, "run", "neither folder records a unit"},
		{"disagree", metric.UnitRun, metric.UnitInstance, 0, false, "run/instance", `base records the unit "run", new "instance"`},
	} {
		dir := t.TempDir()
		writeRaw(t, filepath.Join(dir, "b"), c.ub, base)
		writeRaw(t, filepath.Join(dir, "n"), c.un, nw)
		res := Compare(read(t, filepath.Join(dir, "b")), read(t, filepath.Join(dir, "n")), Options{Threshold: 0.05})
		r := res.Rows[0]
		if c.name == "disagree" {
			c.n = 12 // base counts runs
			if r.NNew != 4 {
				t.Errorf("%s: n new %d, want 4 instances", c.name, r.NNew)
			}
		}
		if r.NBase != c.n || r.Paired != c.paired || r.Unit != c.unit {
			t.Errorf("%s: n base %d paired %v unit %q, want %d %v %q", c.name, r.NBase, r.Paired, r.Unit, c.n, c.paired, c.unit)
		}
		if note := strings.Join(res.Notes, "; "); !strings.Contains(note, c.notePart) || (c.notePart == "") != (note == "") {
			t.Errorf("%s: notes %q, want one containing %q", c.name, note, c.notePart)
		}
		// Paired: log differences (log 2, 0, 0, 0): mean log2/4, sd log2/2,
		// t = (1/4) / ((1/2) / 2) = 1, df 3: p = 1 - (2/pi)(pi/6 + sqrt(3)/4) = 0.391002.
		if c.paired && (math.Abs(r.P-0.391002) > 1e-6 || r.Test != TestPairedLog) {
			t.Errorf("%s: p %v test %q, want 0.391002 by %s", c.name, r.P, r.Test, TestPairedLog)
		}
	}
}

// A manifest naming an unknown unit is an error naming the file.
func TestCompareBadUnit(t *testing.T) {
	dir := t.TempDir()
	writeRaw(t, dir, "graph", [][]float64{{1}})
	_, err := ReadDir(dir)
	if err == nil || !strings.Contains(err.Error(), "manifest.json") || !strings.Contains(err.Error(), `statistical unit "graph"`) {
		t.Errorf("error %v, want one naming manifest.json and the unit", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
