package harness

import (
	"errors"
	"testing"
	"time"

	"github.com/stormlab/stormlab/infra/tail"
)

// TestSessionEnds runs both end conditions on one small cluster (native storm-even, so no bridge):
// a Timed run, then a Dataset run, then a spec the loop refuses. It checks what the loop records:
// the warm-up, Storm's cross-check, the dataset time, typed errors with the daemons' logs, and that
// nothing is left behind.
func TestSessionEnds(t *testing.T) {
	ctx := clusterTest(t)
	s := stormEvenSession(ctx, t, "homogeneous-2")
	jvm := []string{"--worker-childopts", "-XX:TieredStopAtLevel=1"}

	topo, err := StormTopology("throughput", "ends-timed", append([]string{"--workers", "2", "--interval-ms", "10", "--report-interval-secs", "2"}, jvm...)...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(ctx, RunSpec{Topology: topo, WarmUp: 30 * time.Second, Measure: 15 * time.Second})
	if err != nil {
		t.Fatalf("timed run: %v\n%s", err, logsOf(err))
	}
	if err := r.Validity.Err(); err != nil {
		t.Errorf("timed run does not count: %v", err)
	}
	t.Logf("timed: %.1f tuples/s; warm-up %+v; Storm %+v; validity %+v", r.Measurement.Throughput, r.WarmUp, r.Storm, r.Validity)
	if r.EndKind != "timed" || r.WarmUp.MaxS != 30 || r.WarmUp.S <= 0 || r.WarmUp.S > 31 {
		t.Errorf("timed run: end %q, warm-up %+v; want timed, max 30 s, waited (0, 31] s", r.EndKind, r.WarmUp)
	}
	if !r.Storm.Compared || r.Storm.Acked <= 0 {
		t.Errorf("timed run not cross-checked against Storm's statistics: %s", r.Storm.Note)
	}
	checkPhases(t, "timed", r, 15*time.Second)
	if r.Phases.ClusterS <= 0 || r.Phases.IdleS > 0.1 {
		t.Errorf("timed run, the session's first: cluster start %.1f s, idle wait %.1f s; want > 0 and none", r.Phases.ClusterS, r.Phases.IdleS)
	}

	topo, err = StormTopology("wordcount", "ends-dataset", append([]string{"--workers", "2", "--parallelism", "1", "--size-mb", "0.05",
		"--report-interval-secs", "1"}, jvm...)...)
	if err != nil {
		t.Fatal(err)
	}
	r, err = s.Run(ctx, RunSpec{Topology: topo, End: Dataset{Spout: "sentence", Quiet: 4 * time.Second, Max: 3 * time.Minute}})
	if err != nil {
		t.Fatalf("dataset run: %v\n%s", err, logsOf(err))
	}
	t.Logf("dataset: %d acked in %.1f s; Storm %+v; validity %+v", r.Measurement.Acked, r.DatasetS, r.Storm, r.Validity)
	if r.EndKind != "dataset" || r.DatasetS <= 0 || r.Measurement.Acked <= 0 {
		t.Errorf("dataset run: end %q, %.1f s, %d acked; want a dataset time and acks", r.EndKind, r.DatasetS, r.Measurement.Acked)
	}
	if !r.Storm.Compared || r.Storm.Quantity != "acked" {
		t.Errorf("dataset run not cross-checked by count: %+v", r.Storm)
	}
	checkPhases(t, "dataset", r, 0)
	if r.Phases.ClusterS != 0 || r.Phases.IdleS <= 0 {
		t.Errorf("dataset run, the session's second: cluster start %.1f s, idle wait %.1f s; want none and > 0 (the timed run's topology had to go)", r.Phases.ClusterS, r.Phases.IdleS)
	}

	// A refused spec: a typed error naming the stage; nothing was submitted.
	_, err = s.Run(ctx, RunSpec{Topology: topo, End: Dataset{Spout: "sentence"}})
	var re *RunError
	if !errors.As(err, &re) || re.Stage != stageSpec {
		t.Errorf("dataset run without Max: error %v, want a *RunError at stage %q", err, stageSpec)
	}
}

func logsOf(err error) string {
	var re *RunError
	if errors.As(err, &re) {
		return tail.Format(re.Logs)
	}
	return ""
}

// checkPhases asserts that a finished run's phases are measured and add up to its total (within
// 0.5 s: the total also holds the loop's bookkeeping between phases), and that its window lasted at
// least window.
func checkPhases(t *testing.T, name string, r *RunResult, window time.Duration) {
	t.Helper()
	p := r.Phases
	t.Logf("%s phases: %+v", name, p)
	sum := p.ClusterS + p.IdleS + p.SubmitS + p.StartS + p.WorkersS + p.WarmUpS + p.StormReadS + p.WindowS + p.CollectS + p.KillS + p.GoneS
	if p.SubmitS <= 0 || p.StartS <= 0 || p.WindowS < window.Seconds() || p.CollectS <= 0 || p.KillS <= 0 {
		t.Errorf("%s run: phases %+v; want submit, start, collect and kill measured and a window of at least %s", name, p, window)
	}
	if p.TotalS < sum-0.01 || p.TotalS > sum+0.5 {
		t.Errorf("%s run: phases add up to %.2f s, total %.2f s; want the total within [sum, sum+0.5 s]", name, sum, p.TotalS)
	}
}
