package simcluster

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/clusterref"
	"github.com/stormlab/stormlab/infra/sim"
)

// aValidation is a validation of model m as sim-validation would write one (the figures are made up:
// these tests are about the file and what it makes of a cluster, not about the model's errors).
func aValidation(m *sim.CostModel) Validation {
	return Validation{Results: "sim-validation", Date: "2026-12-05", Commit: "0123456789abcdef", CostModel: m.Name,
		CostCommit: m.Provenance.Commit, RealCluster: "containers:heterogeneous-4",
		Configurations: []ValidatedConfiguration{
			{Name: "wordcount x heterogeneous-4 x 50% x 0 ms", Topology: "wordcount", Shape: "heterogeneous-4", Load: "0.5",
				Schedulers: []string{"even", "kpart", "rstorm"}, Size: ClusterSize{Nodes: 4, Cores: 2}, Throughput: 0.05, LatencyP50: 0.1, LatencyP99: 0.2},
			{Name: "throughput x homogeneous-2 x saturation x 20 ms", Topology: "throughput", Shape: "homogeneous-2", Load: "saturation", DelayMs: 20,
				Schedulers: []string{"even", "kpart", "rstorm"}, Size: ClusterSize{Nodes: 2, Cores: 2}, Throughput: 0.09, LatencyP50: 0.14, LatencyP99: 0.3}},
		Errors:  ValidationErrors{ThroughputMAPE: 0.07, LatencyP50: 0.12, LatencyP99: 0.25},
		Largest: ClusterSize{Nodes: 4, Cores: 2},
	}
}

// TestValidationFile: a validation reads back as written, and a file that could not stand behind a
// model is refused on writing and on reading, naming what is wrong.
func TestValidationFile(t *testing.T) {
	m, err := ContainersCosts()
	if err != nil {
		t.Fatal(err)
	}
	v := aValidation(m)
	var b bytes.Buffer
	if err := WriteValidation(&b, v); err != nil {
		t.Fatal(err)
	}
	got, err := ReadValidation(&b)
	if err != nil || got.Format != ValidationFormat || got.Largest != v.Largest || len(got.Configurations) != 2 || got.Errors != v.Errors {
		t.Fatalf("read back %+v, %v", got, err)
	}
	for _, c := range []struct {
		name string
		bad  func(*Validation)
		want string
	}{
		{"no results", func(v *Validation) { v.Results = "" }, "give all four"},
		{"no configuration", func(v *Validation) { v.Configurations = nil }, "no configuration"},
		{"percent, not fraction", func(v *Validation) { v.Errors.ThroughputMAPE = -7 }, "fractions"},
		{"largest too small", func(v *Validation) { v.Largest = ClusterSize{Nodes: 2, Cores: 2} }, "more than the largest"},
		{"no largest", func(v *Validation) { v.Largest = ClusterSize{} }, "largest cluster"},
		{"future format", func(v *Validation) { v.Format = 9 }, "format 9"},
	} {
		w := aValidation(m)
		c.bad(&w)
		if err := WriteValidation(&bytes.Buffer{}, w); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: write: %v, want an error naming %q", c.name, err, c.want)
		}
	}
	if _, err := ReadValidation(strings.NewReader(`{"format": 1, "surprise": 1}`)); err == nil || !strings.Contains(err.Error(), "surprise") {
		t.Errorf("unknown field: %v", err)
	}
}

// TestStanding: with no validation every cluster is not validated; a validation of another cost model
// (or of this one measured at another commit) stands behind nothing; a cluster with more nodes than
// the largest validated one is extrapolated, and one with as many is validated.
func TestStanding(t *testing.T) {
	m, err := ContainersCosts()
	if err != nil {
		t.Fatal(err)
	}
	v := aValidation(m)
	other := aValidation(m)
	other.CostCommit = "fedcba9876543210"
	for _, c := range []struct {
		name  string
		v     *Validation
		nodes int
		want  string
		says  string
	}{
		{"none", nil, 4, NotValidated, "not validated: no sim-validation results"},
		{"another model", &other, 4, NotValidated, "not validated: the validation sim-validation is of cost model containers measured at commit fedcba987654"},
		{"as large", &v, 4, Validated, "validated: sim-validation sim-validation (2026-12-05, commit 0123456789ab) against containers:heterogeneous-4, 2 configurations: throughput MAPE 7.0%, latency p50 error 12.0%, p99 error 25.0%"},
		{"larger", &v, 10, Extrapolated, "extrapolated beyond the validated 4 nodes (this cluster has 10)"},
	} {
		got, says := standing(c.v, m, c.nodes)
		if got != c.want || !strings.HasPrefix(says, c.says) {
			t.Errorf("%s: %s, %q; want %s, starting %q", c.name, got, says, c.want, c.says)
		}
	}
}

// TestDescribeWithoutValidation: no validation ships yet, so every named simulated cluster says it is
// not validated, in its standing and its sentence.
func TestDescribeWithoutValidation(t *testing.T) {
	m, err := ContainersCosts()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := ShippedValidation(m); v != nil || err != nil {
		t.Skipf("a validation ships (%v, %v): TestStanding covers it", v, err)
	}
	for _, name := range Names() {
		src, err := Describe(clusterref.Ref{Kind: KindName, Arg: name})
		if err != nil {
			t.Fatal(err)
		}
		if src.Standing != NotValidated || !strings.HasPrefix(src.Validation, "not validated") || src.Nodes < 1 || src.ValidatedNodes != 0 {
			t.Errorf("%s: %+v", name, src)
		}
	}
	c, err := Open(harness.ClusterSpec{Where: clusterref.Ref{Kind: KindName, Arg: "nodes-16"}}, "even")
	if err != nil {
		t.Fatal(err)
	}
	if v := c.validation(); !strings.HasPrefix(v, "not validated") {
		t.Errorf("run.json's validation %q", v)
	}
}

// TestValidationFileDocumented: the example in docs/simulator.md ("Validation") is a file that reads.
func TestValidationFileDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/simulator.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(doc), "## Validation")
	_, blk, ok := strings.Cut(sec, "```json\n")
	blk, _, ok2 := strings.Cut(blk, "```")
	if !ok || !ok2 {
		t.Fatal("docs/simulator.md: no JSON example under Validation")
	}
	if v, err := ReadValidation(strings.NewReader(blk)); err != nil || v.Largest.Nodes != 4 {
		t.Errorf("the documented example: %+v, %v", v, err)
	}
}

// TestSummarize: the errors over configurations as the file defines them, computed by hand: the
// throughput's mean (0.05 + 0.09 + 0.10) / 3 = 0.08, the latency medians 0.14 and 0.3; the largest
// cluster has the most nodes (10) and cores (40) of any configuration.
func TestSummarize(t *testing.T) {
	m, err := ContainersCosts()
	if err != nil {
		t.Fatal(err)
	}
	v := aValidation(m)
	v.Configurations = append(v.Configurations, ValidatedConfiguration{Name: "kmeans x nodes-10", Size: ClusterSize{Nodes: 10, Cores: 40},
		Throughput: 0.10, LatencyP50: 0.5, LatencyP99: 0.4})
	v.Summarize()
	const tol = 1e-9
	e := v.Errors
	if math.Abs(e.ThroughputMAPE-0.08) > tol || math.Abs(e.LatencyP50-0.14) > tol || math.Abs(e.LatencyP99-0.3) > tol || v.Largest != (ClusterSize{Nodes: 10, Cores: 40}) {
		t.Errorf("summarized %+v, largest %+v", e, v.Largest)
	}
	if err := WriteValidation(&bytes.Buffer{}, v); err != nil {
		t.Errorf("a summarized validation does not write: %v", err)
	}
}
