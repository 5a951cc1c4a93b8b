package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testbedFolder writes dir/spd/ with the spd fixture's raw.csv (doctor,
// unscaled), a manifest whose host has cpu, and one kept run on cluster.
func testbedFolder(t *testing.T, cpu, cluster string) string {
	t.Helper()
	dir := t.TempDir()
	doctor(t, dir, "ratio", 1)
	man := fmt.Sprintf(`{"experiment":"spd","profile":"quick","host":{"cpu_model":%q,"cores":4,"os":"linux/amd64"}}`, cpu)
	run := fmt.Sprintf(`{"cluster":%q,"measurement":{"node_cpu":{"sup1":25},"node_util":{"sup1":50}}}`, cluster)
	os.MkdirAll(filepath.Join(dir, "spd", "runs", "r0"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "spd", "manifest.json"), []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "spd", "runs", "r0", "run.json"), []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The same numbers measured on another CPU or cluster: compare warns and
// still compares; the gate refuses (exit 2, nothing on stdout) instead of
// judging them.
func TestCompareTestbeds(t *testing.T) {
	base := testbedFolder(t, "AMD EPYC 7763", "homogeneous-4")
	for _, c := range []struct {
		name, cpu, cluster string
		warn               string // "": no warning, and the gate passes
	}{
		{"same testbed", "AMD EPYC 7763", "homogeneous-4", ""},
		{"other CPU", "Intel Xeon 8370C", "homogeneous-4", `spd: host CPU "AMD EPYC 7763" -> "Intel Xeon 8370C"`},
		{"other cluster", "AMD EPYC 7763", "lab", "spd: cluster homogeneous-4 -> lab"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nw := testbedFolder(t, c.cpu, c.cluster)
			code, out, errs := cli(t, "compare", base, nw, "--only-changed")
			if code != exitOK || !strings.Contains(out, "no changes") {
				t.Errorf("compare: exit %d stdout %q, want 0 and no changes", code, out)
			}
			if got := strings.Contains(errs, "warning: measured on different testbeds: "+c.warn); c.warn != "" && (!got || strings.Count(errs, "\n") != 1) {
				t.Errorf("compare: stderr %q, want one warning line naming %q", errs, c.warn)
			} else if c.warn == "" && errs != "" {
				t.Errorf("compare: stderr %q, want nothing", errs)
			}
			code, out, errs = cli(t, "compare", base, nw, "--fail-on-regression")
			switch {
			case c.warn == "" && code != exitOK:
				t.Errorf("gate: exit %d stderr %q, want 0", code, errs)
			case c.warn != "" && (code != exitBadInput || out != "" || !strings.Contains(errs, "the gate does not judge results measured on different testbeds (spd, warned above")):
				t.Errorf("gate: exit %d stdout %q stderr %q, want exit 2 refusing to judge", code, out, errs)
			}
		})
	}
}
