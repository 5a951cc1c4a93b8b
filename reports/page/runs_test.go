package page

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/internal/golden"
)

// TestValidityOnPage: a results folder built here, with one experiment whose
// raw.csv records an invalid and a suspect run, and a compare.json listing
// an invalid and a suspect run. The page names both kinds with their
// reasons (the invalid ones as left out, the suspect ones as kept) and marks
// the suspect count in the comparison's n.
func TestValidityOnPage(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir) // the page names the folder: a fixed one for the golden file
	os.MkdirAll("gamma", 0o755)
	files := map[string]string{
		"gamma/manifest.json": `{"experiment": "gamma", "description": "three runs of kpart, one invalid, one suspect"}`,
		"gamma/table.csv":     "scheduler,x,throughput,throughput ci95,runs\nkpart,1,100,,2\n",
		"gamma/raw.csv": "experiment,series,x,instance,instance_seed,rep,seed,validity,reasons,throughput\n" +
			"gamma,kpart,1,0,0,0,1,valid,,98\n" +
			"gamma,kpart,1,0,0,1,2,invalid,scheduler: the bridge fell back to EvenScheduler 2 times,500\n" +
			"gamma,kpart,1,0,0,2,3,suspect,storm-counts: throughput 102.0/s vs Storm's 80.0/s (27.5% apart),102\n",
		"compare.json": `{"base": "b", "new": "n", "threshold": 0.05, "alpha": 0.05, "test": "Welch", "compared": 1, "changed": 0, "regressed": 0,
 "rows": [{"experiment": "gamma", "series": "kpart", "x": "1", "metric": "throughput", "n_base": 2, "base_mean": 100, "n_new": 2, "new_mean": 101,
  "new_over_base": 1.01, "p_adjusted": 0.8, "suspect_new": 1, "verdict": "same"}],
 "invalid_runs": [{"side": "new", "where": "gamma/kpart/x=1 rep 1", "level": "invalid", "reasons": "scheduler: the bridge fell back to EvenScheduler 2 times"}],
 "suspect_runs": [{"side": "new", "where": "gamma/kpart/x=1 rep 2", "level": "suspect", "reasons": "storm-counts: throughput 102.0/s vs Storm's 80.0/s (27.5% apart)"}]}`,
	}
	for name, body := range files {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	e := f.Experiments[0]
	if len(e.Invalid) != 1 || e.Invalid[0].Where != "kpart x=1 rep 1" || len(e.Suspect) != 1 || !strings.HasPrefix(e.Suspect[0].Reasons, "storm-counts:") {
		t.Errorf("invalid %+v, suspect %+v: want rep 1 invalid and rep 2 suspect", e.Invalid, e.Suspect)
	}
	if len(f.Compare.Invalid) != 1 || len(f.Compare.Suspect) != 1 || f.Compare.Rows[0].SuspectNew != 1 {
		t.Errorf("compare.json lists %+v / %+v, row %+v: want one of each and the row's suspect count", f.Compare.Invalid, f.Compare.Suspect, f.Compare.Rows[0])
	}
	page := render(t, ".")
	t.Chdir(wd)
	golden.Assert(t, "testdata/validity.html", page)
}

// A raw.csv whose rows do not match its header is an error naming the file
// and the line; one without the validity columns (written before them)
// lists no run.
func TestLoadRunsErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "table.csv"), []byte("a,b\n1,2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "raw.csv"), []byte("experiment,series,x,rep,validity,reasons\ne,s,1,0,invalid\n"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "raw.csv line 2") {
		t.Errorf("short row: %v, want an error naming raw.csv line 2", err)
	}
	os.WriteFile(filepath.Join(dir, "raw.csv"), []byte("experiment,series,x,rep,m\ne,s,1,0,5\n"), 0o644)
	if f, err := Load(dir); err != nil || len(f.Experiments[0].Invalid)+len(f.Experiments[0].Suspect) != 0 {
		t.Errorf("old raw.csv: %v, want no runs listed", err)
	}
}
