package experiments

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCommCostSupervisors(t *testing.T) {
	// Node i holds at most ceil(4/i) of the 4 workers (all 4 on sup1 in n1: 384 + 4*420 = 2,064 MB; 2 on
	// sup2 in n2: 1,224 -> the 1,280 floor; 1 on sup3 and sup4 in n4).
	s := commCostSupervisors()
	for i, mem := range []int{2064, 1280, 1280, 1280} {
		if len(s) != 4 || s[i].MemoryMB != mem || s[i].CPUs != 1 || s[i].Slots != 4 || s[i].Host != fmt.Sprintf("sup%d", i+1) {
			t.Fatalf("supervisors %+v, want sup1..sup4 of 1 core, 4 slots, sup%d with %d MB", s, i+1, mem)
		}
	}
}

// A cell of n nodes takes the n hosts with the most CPU (ties by name); counts above the cluster's
// supervisors are skipped, not run on fewer nodes.
func TestCommCells(t *testing.T) {
	for _, c := range []struct {
		name     string
		capacity map[string]float64
		nodes    []int
		want     string
		skipped  []int
	}{
		{"own cluster", map[string]float64{"sup3": 100, "sup1": 100, "sup4": 100, "sup2": 100}, []int{1, 2, 4},
			"1:[sup1] 2:[sup1 sup2] 4:[sup1 sup2 sup3 sup4]", nil},
		{"heterogeneous target", map[string]float64{"sup1": 50, "sup2": 100}, []int{1, 2, 4}, "1:[sup2] 2:[sup2 sup1]", []int{4}},
		{"no supervisor", map[string]float64{}, []int{1}, "", []int{1}},
	} {
		cells, skipped := commCells(c.capacity, c.nodes)
		var got []string
		for _, cell := range cells {
			got = append(got, fmt.Sprintf("%d:%v", cell.n, cell.hosts))
		}
		if strings.Join(got, " ") != c.want || !slices.Equal(skipped, c.skipped) {
			t.Errorf("%s: cells %q skipped %v, want %q and %v", c.name, strings.Join(got, " "), skipped, c.want, c.skipped)
		}
	}
}
