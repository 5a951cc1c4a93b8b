package experiments

import (
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
)

// The spd notes say why A^disc leaves resources idle, with the counts from the run's own rows and
// the figure that shows it. Rows built here: instance = regime*10000 + graph*100 + c.
func TestSPDOneResourceNote(t *testing.T) {
	r := &lab.Results{Experiment: "spd"}
	add := func(series string, graph, c int, used, ratio float64) {
		r.Add(lab.Row{Series: series, X: 100, Instance: graph*100 + c, Values: map[string]float64{"used": used, "ratio": ratio}})
	}
	add("spd", 0, 2, 0.5, 4.0)
	add("spd", 1, 2, 0.5, 4.2)
	add("spd", 0, 4, 0.25, 10.6) // the largest ratio of these rows
	add("spd", 0, 8, 0.375, 6.0)
	add("kpart", 0, 2, 1, 2.0) // other series do not count
	note := spdOneResourceNote(r)
	for _, want := range []string{
		"Why: A^disc as published",
		"c=2 0.5 (every task on one resource in 2 of 2 allocations)",
		"c=4 0.25 (every task on one resource in 1 of 1 allocations)",
		"c=8 0.375 (every task on one resource in 0 of 1 allocations)",
		"figures used-<regime>-c-<c>",
		"largest streaming cost / lower bound 10.6",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	if claim := spdByCClaim(r); !strings.Contains(claim.Evidence, note) {
		t.Errorf("the by-c claim's evidence does not carry the note:\n%s", claim.Evidence)
	}
}
