package experiments

import (
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness/simcluster"
	"github.com/stormlab/stormlab/infra/clusterref"
)

// TestPaperClusters: every experiment that names its paper's cluster names a simulated cluster that
// exists, and every cluster experiment reproducing a paper names one (--cluster sim:paper runs its full
// scale there).
func TestPaperClusters(t *testing.T) {
	for _, s := range List() {
		if s.PaperCluster != "" {
			if _, err := simcluster.Lookup(s.PaperCluster); err != nil {
				t.Errorf("%s: paper cluster: %v", s.Name, err)
			}
		}
		if s.Paper != "" && s.Needs.Need >= lab.NeedsCluster && s.PaperCluster == "" {
			t.Errorf("%s reproduces a paper on a cluster and names no paper cluster to simulate", s.Name)
		}
	}
}

// TestDeadlineRunsSimulated: the deadline experiment runs on a simulated cluster (clusterref.Caps.Model:
// the model streams its datasets and puts its background load), observer does not (it measures the
// instrumentation's cost on Storm's own counters).
func TestDeadlineRunsSimulated(t *testing.T) {
	model := clusterref.Caps{Delay: true, Model: true}
	if err := Deadline().Needs.On(model); err != nil {
		t.Errorf("deadline on a simulated cluster: %v", err)
	}
	for _, s := range List() {
		if s.Name == "observer" && s.Needs.On(model) == nil {
			t.Error("observer runs on a simulated cluster: want it refused")
		}
	}
}
