package experiments

import (
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness/simcluster"
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
