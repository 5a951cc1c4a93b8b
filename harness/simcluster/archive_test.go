package simcluster

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
	"github.com/stormlab/stormlab/internal/recorded"
)

// recordedRuns loads the tar.gz of recorded run folders at path (recorded.Runs).
func recordedRuns(t *testing.T, path string) []*harness.RunResult { return recorded.Runs(t, path) }

// TestShippedFromItsRuns: the cost model that ships (costs/containers.json: the topologies unpaced and
// the transfer design, recorded on heterogeneous-2, its runs kept in testdata/containers-runs.tar.gz;
// the bytes on a link from the interface counters of later runs of the topologies,
// testdata/containers-link-runs.tar.gz) is what `stormlab sim costs --from ... --link-from ...` measures
// from those runs: every component cost, transfer cost and size on the link, exactly. A change to how
// costs are read shows here as a changed model, to be written again from the runs (the command in the
// results log) rather than by hand.
func TestShippedFromItsRuns(t *testing.T) {
	f, err := costFiles.Open("costs/containers.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := sim.ReadCostModel(f)
	if err != nil {
		t.Fatal(err)
	}
	runs := recordedRuns(t, "testdata/containers-runs.tar.gz")
	got, err := MeasureCosts(want.Name, runs, want.Provenance)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FitTransfer(got, runs); err != nil {
		t.Fatal(err)
	}
	links := recordedRuns(t, "testdata/containers-link-runs.tar.gz")
	if n := FitWire(got, links); n != 2*len(links) {
		t.Errorf("bytes on a link from %d nodes, want the %d runs' 2 each", n, len(links))
	}
	// Compared as the file writes them (the file's floats are what it holds).
	gb, _ := json.Marshal(struct{ T, X any }{got.Topologies, got.Transfer})
	wb, _ := json.Marshal(struct{ T, X any }{want.Topologies, want.Transfer})
	if !bytes.Equal(gb, wb) {
		t.Errorf("measured from its %d runs:\n%s\nthe file holds:\n%s", len(runs), gb, wb)
	}
	if want.Provenance.HostCores != 2 || len(want.Provenance.Runs) != len(runs)+len(links) {
		t.Errorf("provenance: host cores %d, %d runs named; want 2 (the containers' host) and the %d runs and %d for the link", want.Provenance.HostCores, len(want.Provenance.Runs), len(runs), len(links))
	}
}

// TestThreadRunsArchive: the runs of testdata/containers-thread-runs.tar.gz (`stormlab sim costs
// --cluster containers:heterogeneous-2 --reps 3 --method counted`, the topologies unpaced and the
// transfer design; docs/results-log.md, "The messaging threads fitted through the twins", 2026-12-07)
// hold what `sim costs --method counted --messaging` reads: every worker's report in a window carries
// its thread groups and its executors' spinning, every node sample its packets; and the workers' other
// threads come out at the figure that entry gives, 0.02286 cores over 60 workers (StartMessaging, as
// its file writes it).
func TestThreadRunsArchive(t *testing.T) {
	runs := recordedRuns(t, "testdata/containers-thread-runs.tar.gz")
	if len(runs) != 36 {
		t.Fatalf("%d runs, want 36 (9 of the topologies, 27 of the transfer design)", len(runs))
	}
	var topo []*harness.RunResult
	for _, r := range runs {
		if !CountsSpin(r) {
			t.Errorf("%s: its workers did not count their spinning", r.Spec.Topology.Name)
		}
		for _, rep := range windowReports(r) {
			if len(rep.ThreadGroups) == 0 {
				t.Fatalf("%s: worker %s:%d reported without its thread groups", r.Spec.Topology.Name, rep.Host, rep.Port)
			}
		}
		for host, s := range r.NodeStats.To {
			if s.TxPackets == nil || s.RxPackets == nil {
				t.Errorf("%s: %s's sample without packets", r.Spec.Topology.Name, host)
			}
		}
		if !IsTransferRun(r) {
			topo = append(topo, r)
		}
	}
	m := &sim.CostModel{}
	said, err := StartMessaging(m, topo)
	if err != nil {
		t.Fatal(err)
	}
	if m.Transfer.WorkerOverheadCores != 0.02286 || !strings.Contains(said, "over 60 workers") {
		t.Errorf("workers' other threads %v cores (%s), want 0.02286 over 60 workers", m.Transfer.WorkerOverheadCores, said)
	}
}
