package experiments

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
)

// checkSPD is spd's check after its run (afterRun): the lower bound holds on every row (a violation is
// a bug, not a finding), and A^disc as published puts every task on one resource at c = 2 (its first
// group holds 2n tasks), which the notes say with the count.
func checkSPD(t *testing.T, rep *lab.Report) {
	if !rep.Claims[0].Holds() {
		t.Errorf("lower bound violated: %s", rep.Claims[0].Evidence)
	}
	n := 0
	for _, row := range rep.Results.Rows {
		if _, c := spdRowInfo(row); row.Series == "spd" && c == 2 {
			n++
			if u := row.Values["used"]; u != 0.5 {
				t.Errorf("spd at c = 2, n = %v: resources used / c %v, want 0.5 (one of two)", row.X, u)
			}
		}
	}
	last := rep.Claims[len(rep.Claims)-1]
	if want := fmt.Sprintf("c=2 0.5 (every task on one resource in %d of %d allocations)", n, n); !strings.Contains(last.Evidence, want) {
		t.Errorf("notes do not explain A^disc's single resource (want %q in the by-c claim):\n%s", want, last.Evidence)
	}
}
