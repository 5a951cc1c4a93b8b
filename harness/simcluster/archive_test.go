package simcluster

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/infra/sim"
	"github.com/stormlab/stormlab/internal/recorded"
)

// recordedRuns loads the tar.gz of recorded run folders at path (recorded.Runs).
func recordedRuns(t *testing.T, path string) []*harness.RunResult { return recorded.Runs(t, path) }

// TestThreadRunsArchive: the runs of testdata/containers-thread-runs.tar.gz (`stormlab sim costs
// --cluster containers:heterogeneous-2 --reps 3 --method counted`, the topologies unpaced and the
// transfer design, which the shipped cost model was measured from: experiments.TestShippedCostModel;
// docs/results-log.md, "The last park counted, and the messaging threads' wake-ups", 2026-12-07)
// hold what `sim costs --method counted --messaging` reads: every worker's report in a window carries
// its thread groups and its executors' spinning, every node sample its packets; and the workers' other
// threads come out at the figure that entry gives, 0.02307 cores over 60 workers (StartMessaging, as
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
	if m.Transfer.WorkerOverheadCores != 0.02307 || !strings.Contains(said, "over 60 workers") {
		t.Errorf("workers' other threads %v cores (%s), want 0.02307 over 60 workers", m.Transfer.WorkerOverheadCores, said)
	}
}
