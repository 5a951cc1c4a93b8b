package compare

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness/hostspeed"
)

// bed describes one experiment folder to write: its manifest's host and its
// runs' clusters and node measurements.
type bed struct {
	cores int
	cpu   string
	runs  []bedRun
}

type bedRun struct {
	cluster         string
	cpu, util       map[string]float64 // node_cpu (percent of one core), node_util (percent of capacity)
	omitMeasurement bool
	hostNs          float64 // node_stats.host_speed's median (0: not sampled)
	probe           string  // its probe's name ("": this stormlab's)
}

// writeBed writes dir/exp/manifest.json and dir/exp/runs/rI/run.json as
// lab.Manifest and harness.RunResult write them (only the fields read).
func writeBed(t *testing.T, dir, exp string, b bed) {
	t.Helper()
	d := filepath.Join(dir, exp)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	host := map[string]any{"cores": b.cores, "os": "linux/amd64"}
	if b.cpu != "" {
		host["cpu_model"] = b.cpu
	}
	writeJSONFile(t, filepath.Join(d, "manifest.json"), map[string]any{"experiment": exp, "profile": "quick", "host": host})
	for i, r := range b.runs {
		run := map[string]any{"cluster": r.cluster, "spec": map[string]any{"Scheduler": "kpart"}}
		if !r.omitMeasurement {
			run["measurement"] = map[string]any{"throughput": 1, "node_cpu": r.cpu, "node_util": r.util}
		}
		if r.hostNs > 0 {
			run["node_stats"] = map[string]any{"host_speed": map[string]any{"probe": cmp.Or(r.probe, hostspeed.Probe), "ns_per_step": r.hostNs, "samples": 20}}
		}
		rd := filepath.Join(d, "runs", fmt.Sprintf("r%d", i))
		os.MkdirAll(rd, 0o755)
		writeJSONFile(t, filepath.Join(rd, "run.json"), run)
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Two supervisors of 0.5 cores (homogeneous shapes' size): sup1 at 25% of
// one core is 50% of its capacity, so 0.25 / 0.5 = 0.5 cores.
var halfCore = bedRun{cluster: "homogeneous-4", cpu: map[string]float64{"sup1": 25, "sup2": 10}, util: map[string]float64{"sup1": 50, "sup2": 20}}

func TestTestbedDiffs(t *testing.T) {
	epyc, xeon := "AMD EPYC 7763 64-Core Processor", "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz"
	same := bed{cores: 4, cpu: epyc, runs: []bedRun{halfCore, halfCore}}
	oneCore := bedRun{cluster: "homogeneous-4", cpu: map[string]float64{"sup1": 25, "sup2": 10}, util: map[string]float64{"sup1": 25, "sup2": 10}}
	idle := bedRun{cluster: "homogeneous-4", cpu: map[string]float64{"sup1": 0, "sup2": 0}, util: map[string]float64{"sup1": 0, "sup2": 0}}
	for _, c := range []struct {
		name      string
		base, new bed
		want      []string // substrings of the one line for experiment "smoke"; none: no difference
	}{
		{"same testbed", same, same, nil},
		{"cores", same, bed{cores: 2, cpu: epyc, runs: same.runs}, []string{"host cores 4 -> 2"}},
		{"CPU model", same, bed{cores: 4, cpu: xeon, runs: same.runs}, []string{`host CPU "` + epyc + `" -> "` + xeon + `"`}},
		{"CPU and cores at once", same, bed{cores: 2, cpu: xeon, runs: same.runs}, []string{"host cores 4 -> 2; host CPU"}},
		// An older manifest without cpu_model, or no runs kept: unknown, not different.
		{"CPU unknown on one side", same, bed{cores: 4, runs: same.runs}, nil},
		{"no runs on one side", same, bed{cores: 4, cpu: epyc}, nil},
		{"run without a measurement", same, bed{cores: 4, cpu: epyc, runs: []bedRun{{cluster: "homogeneous-4", omitMeasurement: true}}}, nil},
		{"cluster shape", same, bed{cores: 4, cpu: epyc, runs: []bedRun{{cluster: "heterogeneous-4", cpu: halfCore.cpu, util: halfCore.util}}},
			[]string{"cluster homogeneous-4 -> heterogeneous-4"}},
		{"target instead of containers", same, bed{cores: 4, cpu: epyc, runs: []bedRun{{cluster: "lab", cpu: halfCore.cpu, util: halfCore.util}}},
			[]string{"cluster homogeneous-4 -> lab"}},
		{"supervisors", same, bed{cores: 4, cpu: epyc, runs: []bedRun{{cluster: "homogeneous-4", cpu: map[string]float64{"sup1": 1, "sup3": 1}, util: map[string]float64{"sup1": 2, "sup3": 2}}}},
			[]string{"supervisors sup1, sup2 -> sup1, sup3"}},
		// sup1 at 25% of one core and 25% of capacity: 1 core.
		{"capacity", same, bed{cores: 4, cpu: epyc, runs: []bedRun{oneCore}}, []string{"supervisor sup1 0.5 -> 1 cores", "supervisor sup2 0.5 -> 1 cores"}},
		// Idle nodes say nothing about their capacity: only the nodes' names count.
		{"capacity unmeasured", same, bed{cores: 4, cpu: epyc, runs: []bedRun{idle}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, n := t.TempDir(), t.TempDir()
			writeBed(t, b, "smoke", c.base)
			writeBed(t, n, "smoke", c.new)
			// An experiment on one side only is not compared.
			writeBed(t, n, "recovery", bed{cores: 64, cpu: "other"})
			got, _, err := CompareTestbeds(b, n)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.want) == 0 {
				if len(got) != 0 {
					t.Errorf("differences %q, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], "smoke: ") {
				t.Fatalf("differences %q, want one line for smoke", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("%q lacks %q", got[0], w)
				}
			}
		})
	}
}

// A suite folder: each experiment is compared with its own base, and the
// lines come sorted by experiment.
func TestTestbedDiffsPerExperiment(t *testing.T) {
	b, n := t.TempDir(), t.TempDir()
	for _, e := range []string{"smoke", "comm-cost", "deadline"} {
		writeBed(t, b, e, bed{cores: 4, cpu: "A", runs: []bedRun{halfCore}})
	}
	writeBed(t, n, "smoke", bed{cores: 4, cpu: "B", runs: []bedRun{halfCore}})
	writeBed(t, n, "comm-cost", bed{cores: 8, cpu: "A", runs: []bedRun{halfCore}})
	writeBed(t, n, "deadline", bed{cores: 4, cpu: "A", runs: []bedRun{halfCore}})
	got, _, err := CompareTestbeds(b, n)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"comm-cost: host cores 4 -> 8", `smoke: host CPU "A" -> "B"`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Folders without manifests (the compare fixtures, run folders) have no
// testbed; broken files are errors naming them.
func TestReadTestbedsInput(t *testing.T) {
	tbs, err := ReadTestbeds("testdata")
	if err != nil || len(tbs) != 0 {
		t.Errorf("fixtures without manifests: %v, %v; want none and no error", tbs, err)
	}
	for _, c := range []struct{ file, body, want string }{
		{"manifest.json", "{", "manifest.json: not a manifest.json"},
		{"manifest.json", `{"profile":"quick"}`, `names no "experiment"`},
		{filepath.Join("runs", "r0", "run.json"), "[1]", "run.json: not a run.json"},
	} {
		dir := t.TempDir()
		writeBed(t, dir, "smoke", bed{cores: 4})
		p := filepath.Join(dir, "smoke", c.file)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(c.body), 0o644)
		_, _, err := CompareTestbeds(dir, dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "base: ") {
			t.Errorf("%s %q: error %v, want one naming the file and %q", c.file, c.body, err, c.want)
		}
	}
}

// The host's speed, where the runs sampled it: a line where the medians are
// hostspeed.Apart (3%) or more apart, none below that, none where a side
// did not sample it or sampled another probe; never a testbed difference.
func TestSpeedDiffs(t *testing.T) {
	runs := func(probe string, ns ...float64) bed {
		b := bed{cores: 2, cpu: "A"}
		for _, x := range ns {
			r := halfCore
			r.hostNs, r.probe = x, probe
			b.runs = append(b.runs, r)
		}
		return b
	}
	base := runs("", 10.4, 10, 9.8) // median 10
	for _, c := range []struct {
		name string
		new  bed
		want string // "": no line
	}{
		{"same speed", runs("", 10.1, 9.9, 10), ""},
		{"2% apart", runs("", 10.2, 10.2, 10.3), ""},
		{"30% slower", runs("", 13, 12.9, 13.2), "smoke: host 10.0 -> 13.0 ns a probe step (+30%; medians of 3 and 3 runs)"},
		{"20% faster, one run", runs("", 8), "smoke: host 10.0 -> 8.0 ns a probe step (-20%; medians of 3 and 1 runs)"},
		{"another probe", runs("mul8/warm/v0", 13, 13, 13), ""},
		{"not sampled", bed{cores: 2, cpu: "A", runs: []bedRun{halfCore}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, n := t.TempDir(), t.TempDir()
			writeBed(t, b, "smoke", base)
			writeBed(t, n, "smoke", c.new)
			testbeds, speeds, err := CompareTestbeds(b, n)
			if err != nil {
				t.Fatal(err)
			}
			if len(testbeds) != 0 {
				t.Errorf("testbed differences %q, want none: the host's speed is not another testbed", testbeds)
			}
			if want := []string{c.want}; c.want == "" && len(speeds) != 0 || c.want != "" && !slices.Equal(speeds, want) {
				t.Errorf("speeds %q, want %q", speeds, c.want)
			}
		})
	}
}
