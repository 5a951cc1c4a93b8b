package experiments

import (
	"os"
	"path/filepath"
	"testing"
)

// The cluster experiments need a Docker engine (make test starts one) and
// take minutes: quick profile by default ($STORMLAB_PROFILE=full for the
// papers' scale). They fail on errors (an invalid run, zero throughput, a
// dataset not processed), never on whether a paper's claim holds.

func TestExperimentCommCost(t *testing.T) {
	rep := runForTest(t, "comm-cost")
	logPaperSummary(t, rep, "000")
}

func TestExperimentKPartCluster(t *testing.T) {
	rep := runForTest(t, "kpart-cluster")
	logPaperSummary(t, rep, "000")
}

func TestExperimentDeadline(t *testing.T) {
	rep := runForTest(t, "deadline")
	logPaperSummary(t, rep, "002")
}

// logPaperSummary prints the paper's summary table that the experiment
// rebuilt next to its output folder.
func logPaperSummary(t *testing.T, rep *Report, paper string) {
	t.Helper()
	path := filepath.Join(filepath.Dir(rep.Dir), "summary-"+paper+".md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("paper summary: %v", err)
	}
	t.Logf("%s:\n%s", path, data)
}
