package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness/hostspeed"
)

// testbedFolder writes dir/spd/ with the spd fixture's raw.csv (doctor,
// unscaled), a manifest whose host has cpu, and one kept run on cluster whose
// window's host speed read hostNs ns a probe step.
func testbedFolder(t *testing.T, cpu, cluster string, hostNs float64) string {
	t.Helper()
	dir := t.TempDir()
	doctor(t, dir, "ratio", 1)
	man := fmt.Sprintf(`{"experiment":"spd","profile":"quick","host":{"cpu_model":%q,"cores":4,"os":"linux/amd64"}}`, cpu)
	run := fmt.Sprintf(`{"cluster":%q,"measurement":{"node_cpu":{"sup1":25},"node_util":{"sup1":50}},"node_stats":{"host_speed":{"probe":%q,"ns_per_step":%g,"samples":20}}}`,
		cluster, hostspeed.Probe, hostNs)
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
// judging them. On a host that ran at another speed both warn, and the gate
// judges.
func TestCompareTestbeds(t *testing.T) {
	base := testbedFolder(t, "AMD EPYC 7763", "homogeneous-4", 10)
	const other, speed = "warning: measured on different testbeds: ", "warning: the host ran at another speed, a difference may be the host's: "
	for _, c := range []struct {
		name, cpu, cluster string
		hostNs             float64
		warn               string // "": no warning, and the gate passes
		gated              bool   // the gate refuses to judge
	}{
		{"same testbed", "AMD EPYC 7763", "homogeneous-4", 10.1, "", false},
		{"other CPU", "Intel Xeon 8370C", "homogeneous-4", 10, other + `spd: host CPU "AMD EPYC 7763" -> "Intel Xeon 8370C"`, true},
		{"other cluster", "AMD EPYC 7763", "lab", 10, other + "spd: cluster homogeneous-4 -> lab", true},
		{"slower host", "AMD EPYC 7763", "homogeneous-4", 20, speed + "spd: host 10.0 -> 20.0 ns a probe step (+100%; medians of 1 and 1 runs)", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			nw := testbedFolder(t, c.cpu, c.cluster, c.hostNs)
			code, out, errs := cli(t, "compare", base, nw, "--only-changed")
			if code != exitOK || !strings.Contains(out, "no changes") {
				t.Errorf("compare: exit %d stdout %q, want 0 and no changes", code, out)
			}
			if got := strings.Contains(errs, c.warn); c.warn != "" && (!got || strings.Count(errs, "\n") != 1) {
				t.Errorf("compare: stderr %q, want one warning line %q", errs, c.warn)
			} else if c.warn == "" && errs != "" {
				t.Errorf("compare: stderr %q, want nothing", errs)
			}
			code, out, errs = cli(t, "compare", base, nw, "--fail-on-regression")
			switch {
			case !c.gated && code != exitOK:
				t.Errorf("gate: exit %d stderr %q, want 0", code, errs)
			case c.gated && (code != exitBadInput || out != "" || !strings.Contains(errs, "the gate does not judge results measured on different testbeds (spd, warned above")):
				t.Errorf("gate: exit %d stdout %q stderr %q, want exit 2 refusing to judge", code, out, errs)
			}
		})
	}
}
