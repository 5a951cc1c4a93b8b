package experiments

import (
	"testing"
)

func TestCommCostSupervisors(t *testing.T) {
	// 4 workers over n nodes: n1 holds 4 (384 + 4*420 = 2,064 MB), n2 2
	// (1,224 -> the 1,280 floor), n4 1.
	for _, tc := range []struct{ n, mem int }{{1, 2064}, {2, 1280}, {4, 1280}} {
		s := commCostSupervisors(tc.n)
		if len(s) != tc.n || s[0].MemoryMB != tc.mem || s[0].CPUs != 1 {
			t.Errorf("n%d: %+v, want %d nodes of 1 core and %d MB", tc.n, s, tc.n, tc.mem)
		}
	}
}
