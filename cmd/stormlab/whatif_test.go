package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/internal/golden"
)

// TestWhatifGolden: the table for a seeded K-PART-paper graph on the heterogeneous-4 shape is
// deterministic (every scheduler is seeded) and matches testdata/whatif.golden (go test -update).
func TestWhatifGolden(t *testing.T) {
	code, out, errOut := cli(t, "whatif", "random:24:36", "--cluster", "heterogeneous-4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Assert(t, "testdata/whatif.golden", []byte(out))
}

// TestWhatifJSON: every scheduler has a row; placed rows have node loads; a cluster file works.
func TestWhatifJSON(t *testing.T) {
	dir := t.TempDir()
	cl := filepath.Join(dir, "cluster.json")
	if err := os.WriteFile(cl, []byte(`{"nodes":[{"id":"a","cpu":4000,"memory_mb":8192,"ports":[6700,6701]},{"id":"b","cpu":8000,"memory_mb":8192,"ports":[6700,6701]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cli(t, "whatif", "random:40:80", "--cluster", cl, "--schedulers", "kpart,even,rstorm", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var o whatifOutput
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Rows) != 3 || o.Workers != 2 || o.Reference == nil {
		t.Fatalf("rows %d, workers %d, reference %v; want 3 rows, 2 workers, a reference", len(o.Rows), o.Workers, o.Reference)
	}
	for _, r := range o.Rows {
		if r.Err != "" || len(r.Nodes) != 2 {
			t.Errorf("%s: err %q, %d nodes", r.Scheduler, r.Err, len(r.Nodes))
		}
	}
}

func TestWhatifBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"nodes":[{"id":"a","cpu":0,"ports":[6700]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"whatif", "random:24:36"}, "give --cluster SHAPE"},
		{[]string{"whatif", "random:24:36", "--cluster", "nope"}, "neither a shape"},
		{[]string{"whatif", "random:24:36", "--profile", "heterogeneous-2", "--cluster", bad}, "give one"},
		{[]string{"whatif", "random:24:36", "--cluster", bad}, "cpu capacity > 0"},
		{[]string{"whatif", "random:24:36", "--cluster", "heterogeneous-2", "--schedulers", "kpart,zz"}, `unknown scheduler "zz"`},
		{[]string{"whatif", "random:24:36", "--cluster", "heterogeneous-2", "--workers", "-1"}, "workers = -1"},
		{[]string{"whatif", filepath.Join(dir, "missing.json"), "--cluster", "heterogeneous-2"}, "missing.json"},
	} {
		code, out, errOut := cli(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr containing %q", c.args, code, out, errOut, c.want)
		}
	}
}
