package experiments

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
)

// logPaperSummary prints the paper's summary table that the experiment
// rebuilt next to its output folder.
func logPaperSummary(t *testing.T, rep *lab.Report) {
	t.Helper()
	path := filepath.Join(filepath.Dir(rep.Dir), "summary-"+rep.Spec.Paper+".md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("paper summary: %v", err)
	}
	t.Logf("%s:\n%s", path, data)
}
