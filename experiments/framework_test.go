package experiments

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// stubPartitioner is a test-only Partitioner: vertex v goes to part
// (v + seed) mod k, or whatever fail says.
type stubPartitioner struct {
	seed uint64
	fail string // "error", "short", "range"
}

func (s stubPartitioner) Partition(_ context.Context, g *topologies.Graph, k int) ([]int, error) {
	switch s.fail {
	case "error":
		return nil, errors.New("stub failure")
	case "short":
		return make([]int, g.N()-1), nil
	}
	parts := make([]int, g.N())
	for v := range parts {
		parts[v] = (v + int(s.seed%7)) % k
	}
	if s.fail == "range" {
		parts[0] = k
	}
	return parts, nil
}

func stubSpec(fail string) *lab.Spec {
	sweep := PartitionSweep{
		Xs: []float64{2, 3}, Graphs: 2, Reps: 3,
		Graph: func(x float64, i int, offset uint64) (*topologies.Graph, uint64, error) {
			seed := offset + uint64(10*x) + uint64(i)
			g, err := topologies.RandomGraph(8, 10, seed)
			return g, seed, err
		},
		K: func(x float64) int { return int(x) },
		Algorithms: []Algorithm{
			{Label: "stub", New: func(o schedulers.Options) (schedulers.Partitioner, error) {
				return stubPartitioner{seed: o.Seed, fail: fail}, nil
			}},
			{Label: "stub-b", New: func(o schedulers.Options) (schedulers.Partitioner, error) {
				return stubPartitioner{seed: o.Seed + 1}, nil
			}},
		},
	}
	return &lab.Spec{
		Name: "stub", Description: "framework test", Source: "none", Setup: "two x values",
		SeriesLabel: "algorithm", XName: "k", XLabel: "k", Metrics: PartitionMetrics(), Unit: lab.UnitInstance,
		Run: func(ctx context.Context, env lab.Env) (*lab.Results, error) { return sweep.Run(ctx, env, "stub") },
		Claims: func(r *lab.Results, a *lab.Aggregate) []lab.Claim {
			return []lab.Claim{{Statement: "stub holds", Evidence: "n/a",
				Checks: []reports.Check{reports.ExactCheck("rows", "at least one row", len(r.Rows) > 0, len(r.Rows), 2, "")}}}
		},
	}
}

func TestRunWritesEveryFile(t *testing.T) {
	out := t.TempDir()
	rep, err := Run(context.Background(), stubSpec(""), lab.Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "stub")
	want := []string{"raw.csv", "table.md", "table.csv", "table.tex", "refs.bib", "claims.json", "notes.md", "manifest.json"}
	// Every figure file for each metric that varies; none for a flat one.
	for _, m := range PartitionMetrics() {
		if rep.Aggregate.Plot("", "", m).Constant() {
			if _, err := os.Stat(filepath.Join(out, "stub", m.Name+".svg")); err == nil {
				t.Errorf("constant metric %s has a figure", m.Name)
			}
			continue
		}
		for _, ff := range reports.FigureFiles {
			want = append(want, m.Name+ff.Suffix)
		}
		want = append(want, m.Name+".txt", m.Name+".tex")
	}
	for _, f := range want {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("output file %s: %v", f, err)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
	// raw.csv: header + 2 series x 2 x values x 2 graphs x 3 reps = 24 rows.
	f, err := os.Open(filepath.Join(dir, "raw.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 25 {
		t.Fatalf("raw.csv: %d records, %v; want 25", len(recs), err)
	}
	var man lab.Manifest
	b, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	if man.Experiment != "stub" || man.Rows != 24 || man.GoVersion == "" || man.ClaimsHold != 1 || man.ClaimsNot != 0 ||
		len(man.InstanceSeeds) != 4 || len(man.Seeds) == 0 || len(man.Files) != len(want) || len(man.CommandLine) == 0 ||
		man.Scale == "" || man.Host.Cores < 1 {
		t.Errorf("manifest = %+v", man)
	}
	notes, _ := os.ReadFile(filepath.Join(dir, "notes.md"))
	if !strings.Contains(string(notes), "stub holds** — **holds**") {
		t.Errorf("notes.md lacks the claim verdict:\n%s", notes)
	}
	// Aggregation: the stub with k=2 puts the 8 vertices 4 and 4; n counts
	// the 2 graphs (each the mean of its 3 repetitions), not the 6 rows.
	if s, ok := rep.Aggregate.Get("stub", 2, "empty_parts"); !ok || s.Mean != 0 || s.N != 2 {
		t.Errorf("aggregate stub k=2 empty_parts = %+v, %v; want mean 0 over 2 graphs", s, ok)
	}
	var buf bytes.Buffer
	var cf lab.ClaimsFile
	b, _ = os.ReadFile(filepath.Join(dir, "claims.json"))
	if err := json.Unmarshal(b, &cf); err != nil || cf.Experiment != "stub" || len(cf.Claims) != 1 || cf.Claims[0].Verdict != "holds" ||
		cf.Claims[0].Kind != "paper" || cf.Claims[0].N[0] != 24 || cf.Claims[0].Effect != nil {
		t.Errorf("claims.json = %s (%v)", b, err)
	}
	if err := rep.WriteSummary(&buf); err != nil || !strings.Contains(buf.String(), "[holds] stub holds") {
		t.Errorf("summary: %v\n%s", err, buf.String())
	}
}

func TestRunFailsOnRealErrors(t *testing.T) {
	for _, fail := range []string{"error", "short", "range"} {
		out := t.TempDir()
		if _, err := Run(context.Background(), stubSpec(fail), lab.Options{Out: out}); err == nil {
			t.Errorf("%s: Run succeeded", fail)
		}
		if _, err := os.Stat(filepath.Join(out, "stub")); !os.IsNotExist(err) {
			t.Errorf("%s: output folder written despite the failure", fail)
		}
	}
	nan := &lab.Spec{Name: "nan", Metrics: []lab.Metric{{Name: "m"}}, Run: func(context.Context, lab.Env) (*lab.Results, error) {
		r := &lab.Results{}
		r.Add(lab.Row{Series: "s", Values: map[string]float64{"m": math.NaN()}})
		return r, nil
	}}
	if _, err := Run(context.Background(), nan, lab.Options{}); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN metric gave %v", err)
	}
	missing := &lab.Spec{Name: "missing", Metrics: []lab.Metric{{Name: "m"}}, Run: func(context.Context, lab.Env) (*lab.Results, error) {
		r := &lab.Results{}
		r.Add(lab.Row{Series: "s", Values: map[string]float64{}})
		return r, nil
	}}
	if _, err := Run(context.Background(), missing, lab.Options{}); err == nil {
		t.Error("missing metric accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, stubSpec(""), lab.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run gave %v", err)
	}
}

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range List() {
		if seen[s.Name] || s.Name == "" || s.Run == nil || len(s.Metrics) == 0 || s.Description == "" {
			t.Errorf("bad or duplicate spec %q", s.Name)
		}
		seen[s.Name] = true
		if _, ok := LookupSuite(s.Name); ok {
			t.Errorf("experiment %q has a suite's name", s.Name)
		}
	}
	for _, su := range Suites() {
		for _, n := range su.Experiments {
			if !seen[n] {
				t.Errorf("suite %s lists unknown experiment %s", su.Name, n)
			}
		}
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "kpart-mul") {
		t.Errorf("Lookup(nope) = %v, want an error listing the names", err)
	}
}

func TestPartitionSeedDistinct(t *testing.T) {
	seen := map[uint64]bool{}
	for g := uint64(1); g <= 50; g++ {
		for r := 0; r < 10; r++ {
			s := partitionSeed(g, r)
			if seen[s] {
				t.Fatalf("seed collision at graph %d rep %d", g, r)
			}
			seen[s] = true
		}
	}
}

// Options.Reps reaches a cluster experiment's knobs (and only replaces the
// scale's repetitions when > 0); a negative count is refused before
// anything runs.
func TestRepsOverride(t *testing.T) {
	var seen commKnobs
	ran := false
	spec := &lab.Spec{Name: "reps", Metrics: []lab.Metric{{Name: "m"}}, Run: func(_ context.Context, env lab.Env) (*lab.Results, error) {
		_, k, _, err := knobsOf(env, commCostScales)
		seen, ran = k, true
		r := &lab.Results{}
		r.Add(lab.Row{Series: "s", Values: map[string]float64{"m": 1}})
		return r, err
	}}
	for _, c := range []struct {
		reps, want int
	}{{0, 3}, {7, 7}, {1, 1}} {
		if _, err := Run(context.Background(), spec, lab.Options{Scale: "quick", Reps: c.reps}); err != nil {
			t.Fatal(err)
		}
		if seen.Reps != c.want || seen.Scale != "quick" {
			t.Errorf("Reps %d: scale %s with %d reps, want quick with %d", c.reps, seen.Scale, seen.Reps, c.want)
		}
	}
	if commCostScales["quick"].Reps != 3 {
		t.Errorf("an override changed the scale table: %+v", commCostScales["quick"])
	}
	_, k, _, _ := knobsOf(lab.Env{Scale: "full", Reps: 5}, observerProfiles)
	if k.Pairs != 5 {
		t.Errorf("observer: Reps 5 gave %d pairs", k.Pairs)
	}
	ran = false
	if _, err := Run(context.Background(), spec, lab.Options{Scale: "quick", Reps: -1}); err == nil || !strings.Contains(err.Error(), "repetitions -1") || ran {
		t.Errorf("Reps -1: err %v, experiment ran: %v", err, ran)
	}
}

// Every registered experiment says what it needs from a cluster (and why)
// and what it costs at each scale: `stormlab experiment list`,
// --cluster target:FILE and the README's table read them.
func TestRegistryComplete(t *testing.T) {
	for _, s := range List() {
		if err := lab.CheckSpec(s); err != nil {
			t.Error(err)
		}
	}
	if err := lab.CheckSpec(&lab.Spec{Name: "bare", Needs: lab.Needs{Need: lab.NeedsContainers}}); err == nil ||
		!strings.Contains(err.Error(), "without a reason") || !strings.Contains(err.Error(), "no Cost for scale quick") {
		t.Errorf("a spec with a need but no reason and no cost: %v", err)
	}
}
