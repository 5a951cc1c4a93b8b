package experiments

import (
	"context"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/topologies"
)

// TestBalanceAdjustmentCycles: on the K-PART paper's G(24,36) graphs
// (seeds 1..10, k = 3) the balance adjustment as the paper describes it
// repeats a partition with period 2 (rarely 4) within |V| moves, so the
// partition after Mul x |V| moves is the same for every Mul >= 1 (|V| even
// and a multiple of the period): more iterations cannot balance it more.
func TestBalanceAdjustmentCycles(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		g, err := topologies.RandomGraph(24, 36, seed)
		if err != nil {
			t.Fatal(err)
		}
		bc, err := traceBalance(context.Background(), g, 3, partitionSeed(seed, 0))
		if err != nil {
			t.Fatal(err)
		}
		if bc.Period != 2 && bc.Period != 4 {
			t.Errorf("graph %d: period %d, want 2 or 4", seed, bc.Period)
		}
		if bc.Onset+bc.Period > g.N() {
			t.Errorf("graph %d: cycle entered at move %d, later than |V| = %d", seed, bc.Onset, g.N())
		}
		if len(bc.Std) != traceMul*g.N()+1 {
			t.Errorf("graph %d: %d std values, want %d", seed, len(bc.Std), traceMul*g.N()+1)
		}
		for mul := 2; mul <= traceMul; mul++ {
			if bc.Std[mul*g.N()] != bc.Std[g.N()] {
				t.Errorf("graph %d: std after Mul=%d (%v) differs from Mul=1 (%v)", seed, mul, bc.Std[mul*g.N()], bc.Std[g.N()])
			}
		}
	}
}

// TestKPartMulTableOverGraphs: the kpart-mul table counts graphs, shows
// the optimum (the same at every Mul) once, and its ± is the CI over 10
// graphs (K-PART at Mul = 0: n = 10, not 100 rows).
func TestKPartMulTableOverGraphs(t *testing.T) {
	rep, err := Run(context.Background(), KPartMul(), lab.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.Table().WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "| optimum"); n != 1 {
		t.Errorf("optimum rows: %d, want 1:\n%s", n, b.String())
	}
	s, ok := rep.Aggregate.Get("K-PART", 0, "cut_rate")
	if !ok || s.N != 10 {
		t.Fatalf("K-PART Mul=0 cut rate over %d units, want 10 graphs", s.N)
	}
	// ±0.0207 at n = 10 is computed independently of this code (graph means,
	// Student's t, 9 df); pooling the 100 rows gave ±0.0078.
	if abs(s.CI95-0.0207) > 5e-5 {
		t.Errorf("K-PART Mul=0 cut rate ± %v, want 0.0207 (CI over 10 graphs)", s.CI95)
	}
	// The CI over the 10 graph means equals the CI of their mean (Student's t, 9 df).
	units := lab.GraphUnits(rep.Results, "K-PART", "cut_rate", func(r lab.Row) bool { return r.X == 0 }, false)
	if len(units) != 10 || abs(mean(units)-s.Mean) > 1e-12 {
		t.Errorf("units %d, mean %v vs table %v", len(units), mean(units), s.Mean)
	}
	var note string
	for _, c := range rep.Claims {
		if strings.HasPrefix(c.Statement, "more iterations give a more balanced partition") {
			note = c.Evidence
		}
	}
	if !strings.Contains(note, "back-and-forth cycle (cycle of period 2") || !strings.Contains(note, "figure balance-trace") {
		t.Errorf("the trend claim does not explain its verdict: %q", note)
	}
	if !strings.Contains(b.String(), "n graphs") || !strings.Contains(rep.Results.Knobs["balance_cycles"].(string), "period 2") {
		t.Errorf("table or knobs:\n%s\n%v", b.String(), rep.Results.Knobs)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
