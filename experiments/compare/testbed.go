package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/montanaflynn/stats"

	"github.com/stormlab/stormlab/harness/hostspeed"
)

// Testbed is where one experiment's results were measured: the machine that
// ran stormlab (manifest.json's host) and the Storm cluster its runs used
// (each run.json's cluster and the supervisors its measurement names). A
// nightly runner's hardware can change between nights, and a throughput
// measured on other cores is no evidence of a regression, so compare warns
// and the gate refuses when the testbeds differ.
type Testbed struct {
	Cores    int    // the host's logical CPUs; 0 when the manifest does not say
	CPUModel string // the host's CPU model; "" when the manifest does not say
	// Clusters are the runs' clusters: a container shape ("homogeneous-4",
	// "custom" for an experiment's own supervisors) or a target's name.
	Clusters []string
	// Nodes maps each supervisor the runs measured to its CPU capacity in
	// cores (node_cpu / node_util of a run that used it; 0 when no run did).
	Nodes map[string]float64
	// HostNs are the runs' host speeds through their windows, ns of CPU a
	// step of this stormlab's probe (node_stats.host_speed; hostspeed), one
	// per run that sampled it: none on a target, or from before the probe.
	HostNs []float64
}

// ReadTestbeds reads the testbed of every experiment folder in dir or below
// it (a folder holding manifest.json), by the manifest's experiment name.
// Folders without a manifest (run folders, hand-made fixtures) have none:
// there is nothing to compare them by.
func ReadTestbeds(dir string) (map[string]Testbed, error) {
	out := map[string]Testbed{}
	_, err := walkFiles(dir, "manifest.json", func(rel string, r io.Reader) error {
		name, tb, err := readManifestHost(r)
		if err != nil {
			return err
		}
		expDir := filepath.Join(dir, filepath.Dir(rel))
		if err := readRunClusters(filepath.Join(expDir, "runs"), &tb); err != nil {
			return err
		}
		out[name] = tb
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readManifestHost reads the experiment's name and host from manifest.json.
func readManifestHost(r io.Reader) (string, Testbed, error) {
	var m struct {
		Experiment string `json:"experiment"`
		Host       struct {
			Cores    int    `json:"cores"`
			CPUModel string `json:"cpu_model"`
		} `json:"host"`
	}
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		return "", Testbed{}, fmt.Errorf("not a manifest.json of stormlab experiments: %w", err)
	}
	if m.Experiment == "" {
		return "", Testbed{}, fmt.Errorf(`not a manifest.json of stormlab experiments: it names no "experiment"`)
	}
	return m.Experiment, Testbed{Cores: m.Host.Cores, CPUModel: m.Host.CPUModel, Nodes: map[string]float64{}}, nil
}

// readRunClusters adds the cluster and supervisors of every run.json below
// runs (an experiment's kept runs) to tb; no runs folder adds nothing.
func readRunClusters(runs string, tb *Testbed) error {
	if _, err := os.Stat(runs); err != nil {
		return nil
	}
	_, err := walkFiles(runs, "run.json", func(_ string, r io.Reader) error {
		var run struct {
			Cluster     string `json:"cluster"`
			Measurement struct {
				NodeCPU  map[string]float64 `json:"node_cpu"`
				NodeUtil map[string]float64 `json:"node_util"`
			} `json:"measurement"`
			NodeStats struct {
				HostSpeed *hostspeed.Summary `json:"host_speed"`
			} `json:"node_stats"`
		}
		if err := json.NewDecoder(r).Decode(&run); err != nil {
			return fmt.Errorf("not a run.json of stormlab: %w", err)
		}
		if run.Cluster != "" && !slices.Contains(tb.Clusters, run.Cluster) {
			tb.Clusters = append(tb.Clusters, run.Cluster)
			slices.Sort(tb.Clusters)
		}
		for n, cpu := range run.Measurement.NodeCPU {
			if u := run.Measurement.NodeUtil[n]; u > 0 && cpu > 0 {
				tb.Nodes[n] = math.Round(cpu/u*100) / 100 // cores, to 0.01
			} else if _, ok := tb.Nodes[n]; !ok {
				tb.Nodes[n] = 0
			}
		}
		if h := run.NodeStats.HostSpeed; h != nil && h.Probe == hostspeed.Probe && h.NsPerStep > 0 {
			tb.HostNs = append(tb.HostNs, h.NsPerStep)
		}
		return nil
	})
	return err
}

// TestbedDiffs lists, for every experiment with a manifest on both sides,
// how its new testbed differs from its base one: one line per experiment,
// sorted. What a side does not record (a CPU model, a capacity no run
// measured) is not a difference.
func TestbedDiffs(base, new map[string]Testbed) []string {
	var out []string
	for _, name := range onBothSides(base, new) {
		if d := base[name].diff(new[name]); len(d) > 0 {
			out = append(out, name+": "+strings.Join(d, "; "))
		}
	}
	return out
}

// onBothSides are the experiments base and new both have, sorted.
func onBothSides(base, new map[string]Testbed) []string {
	return slices.DeleteFunc(slices.Sorted(maps.Keys(base)), func(name string) bool {
		_, ok := new[name]
		return !ok
	})
}

// diff names each way n differs from b.
func (b Testbed) diff(n Testbed) []string {
	var d []string
	if b.Cores > 0 && n.Cores > 0 && b.Cores != n.Cores {
		d = append(d, fmt.Sprintf("host cores %d -> %d", b.Cores, n.Cores))
	}
	if b.CPUModel != "" && n.CPUModel != "" && b.CPUModel != n.CPUModel {
		d = append(d, fmt.Sprintf("host CPU %q -> %q", b.CPUModel, n.CPUModel))
	}
	if len(b.Clusters) > 0 && len(n.Clusters) > 0 && !slices.Equal(b.Clusters, n.Clusters) {
		d = append(d, fmt.Sprintf("cluster %s -> %s", strings.Join(b.Clusters, ", "), strings.Join(n.Clusters, ", ")))
	}
	bn, nn := slices.Sorted(maps.Keys(b.Nodes)), slices.Sorted(maps.Keys(n.Nodes))
	if len(bn) > 0 && len(nn) > 0 && !slices.Equal(bn, nn) {
		return append(d, fmt.Sprintf("supervisors %s -> %s", strings.Join(bn, ", "), strings.Join(nn, ", ")))
	}
	for _, h := range bn {
		if cb, cn := b.Nodes[h], n.Nodes[h]; cb > 0 && cn > 0 && cb != cn {
			d = append(d, fmt.Sprintf("supervisor %s %s -> %s cores", h, fmtCores(cb), fmtCores(cn)))
		}
	}
	return d
}

func fmtCores(c float64) string { return strconv.FormatFloat(c, 'f', -1, 64) }

// SpeedDiffs lists, for every experiment whose runs sampled the host's
// speed on both sides, a line where the medians are another speed
// (hostspeed.Differ), sorted: "smoke: host 10.9 -> 14.2 ns a probe step
// (+30%; medians of 12 and 12 runs)". Unlike TestbedDiffs it is no other
// testbed: a shared machine's speed moves within minutes. It explains a
// difference in throughput, and says a compared difference may be the
// host's, not the code's.
func SpeedDiffs(base, new map[string]Testbed) []string {
	var out []string
	for _, name := range onBothSides(base, new) {
		b, errB := stats.Median(base[name].HostNs)
		m, errN := stats.Median(new[name].HostNs)
		if errB != nil || errN != nil || !hostspeed.Differ(b, m) {
			continue
		}
		out = append(out, fmt.Sprintf("%s: host %.1f -> %.1f ns a probe step (%+.0f%%; medians of %d and %d runs)",
			name, b, m, 100*(m/b-1), len(base[name].HostNs), len(new[name].HostNs)))
	}
	return out
}

// CompareTestbeds reads both folders' testbeds and lists their differences
// (TestbedDiffs) and where their host ran at another speed (SpeedDiffs).
// An unreadable manifest.json or run.json is an error naming the file.
func CompareTestbeds(baseDir, newDir string) (testbeds, speeds []string, err error) {
	base, err := ReadTestbeds(baseDir)
	if err != nil {
		return nil, nil, fmt.Errorf("base: %w", err)
	}
	nw, err := ReadTestbeds(newDir)
	if err != nil {
		return nil, nil, fmt.Errorf("new: %w", err)
	}
	return TestbedDiffs(base, nw), SpeedDiffs(base, nw), nil
}
