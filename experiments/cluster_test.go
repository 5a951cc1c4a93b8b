package experiments

import (
	"os"
	"path/filepath"
	"testing"
)

// The cluster experiments need a Docker engine (make test starts one) and
// take minutes: the ci profile by default (one run per cell, every claim
// inconclusive); $STORMLAB_PROFILE=quick for 3 runs per cell and verdicts,
// full for the papers' scale. They fail on errors (an invalid run, zero
// throughput, a dataset not processed), never on a claim's verdict.

// TestExperimentCommCost runs on containers under quick and full. Under the ci profile (make test) it is
// left to cmd/stormlab's TestCommCostTarget, which runs it through the standing 2-node cluster's target
// file (1 and 2 nodes, the ci cells): the same code on one cluster start fewer.
func TestExperimentCommCost(t *testing.T) {
	if p := os.Getenv(ProfileEnv); p != "quick" && p != "full" && os.Getenv("STORMLAB_COMM_COST") == "" {
		t.Skipf("comm-cost: run through a target by cmd/stormlab's TestCommCostTarget under ci (set %s=quick, or STORMLAB_COMM_COST=1, to run it on containers here)", ProfileEnv)
	}
	rep := runForTest(t, "comm-cost")
	logPaperSummary(t, rep)
}

// TestExperimentKPartCluster runs on containers under quick and full. Under the ci profile (make test) it
// is left to cmd/stormlab's TestKPartClusterTarget, which runs this experiment through a standing
// cluster's target file: the same code (one harness.Cluster path) on one cluster start fewer.
func TestExperimentKPartCluster(t *testing.T) {
	if p := os.Getenv(ProfileEnv); p != "quick" && p != "full" && os.Getenv("STORMLAB_KPART_CLUSTER") == "" {
		t.Skipf("kpart-cluster: run through a target by cmd/stormlab's TestKPartClusterTarget under ci (set %s=quick, or STORMLAB_KPART_CLUSTER=1, to run it on containers here)", ProfileEnv)
	}
	rep := runForTest(t, "kpart-cluster")
	logPaperSummary(t, rep)
}

// TestExperimentDeadline runs on containers under quick and full. Under the ci profile (make test) it is
// left to cmd/stormlab's TestDeadlineTarget, which runs it through a standing cluster's target file,
// background load and whole-node CPU over SSH: the same code on one cluster start fewer.
func TestExperimentDeadline(t *testing.T) {
	if p := os.Getenv(ProfileEnv); p != "quick" && p != "full" && os.Getenv("STORMLAB_DEADLINE") == "" {
		t.Skipf("deadline: run through a target by cmd/stormlab's TestDeadlineTarget under ci (set %s=quick, or STORMLAB_DEADLINE=1, to run it on containers here)", ProfileEnv)
	}
	rep := runForTest(t, "deadline")
	logPaperSummary(t, rep)
}

// TestExperimentRecovery runs on containers (one cluster per scheduler) under quick and full. Under the
// ci profile (make test) it is left to cmd/stormlab's TestRecoveryTarget, which runs it through the
// standing cluster's target file, the supervisor stopped and started over SSH.
func TestExperimentRecovery(t *testing.T) {
	if p := os.Getenv(ProfileEnv); p != "quick" && p != "full" && os.Getenv("STORMLAB_RECOVERY") == "" {
		t.Skipf("recovery: run through a target by cmd/stormlab's TestRecoveryTarget under ci (set %s=quick, or STORMLAB_RECOVERY=1, to run it on containers here)", ProfileEnv)
	}
	runForTest(t, "recovery")
}

// logPaperSummary prints the paper's summary table that the experiment
// rebuilt next to its output folder.
func logPaperSummary(t *testing.T, rep *Report) {
	t.Helper()
	path := filepath.Join(filepath.Dir(rep.Dir), "summary-"+rep.Spec.Paper+".md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("paper summary: %v", err)
	}
	t.Logf("%s:\n%s", path, data)
}

// TestExperimentLoadCurve runs load-curve under quick or full only (or ci when asked by name with
// STORMLAB_LOAD_CURVE=1): a capacity search and 12 or more open-loop runs are beyond make test's budget.
func TestExperimentLoadCurve(t *testing.T) {
	if p := os.Getenv(ProfileEnv); p != "quick" && p != "full" && os.Getenv("STORMLAB_LOAD_CURVE") == "" {
		t.Skipf("load-curve: a capacity search and 12+ cluster runs; not run under the ci profile (set %s=quick, or STORMLAB_LOAD_CURVE=1 for ci)", ProfileEnv)
	}
	runForTest(t, "load-curve")
}
