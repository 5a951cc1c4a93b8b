package experiments

import (
	"testing"
)

// synthetic builds K-PART rows for the Mul sweep with the given per-Mul
// metric values (one row each).
func synthetic(cut, std func(mul float64) float64) *Results {
	r := &Results{Experiment: "kpart-mul", Metrics: PartitionMetrics()}
	for mul := 0.0; mul <= 9; mul++ {
		for rep := 0; rep < 2; rep++ {
			r.Add(Row{Series: "K-PART", X: mul, Rep: rep, Values: map[string]float64{
				"cut_rate": cut(mul), "std": std(mul), "max_dev": std(mul) / 100, "max_over": 1, "empty_parts": 0,
			}})
		}
	}
	return r
}

func TestKPartMulClaimsCanHoldAndFail(t *testing.T) {
	// Paper-like: cut 0.40 -> 0.44 (+10%), std 100 -> 100/(1+mul) falling.
	good := synthetic(func(m float64) float64 {
		if m == 0 {
			return 0.40
		}
		return 0.44
	}, func(m float64) float64 { return 100 / (1 + m) })
	// Opposite: cut falls, std rises.
	bad := synthetic(func(m float64) float64 { return 0.40 - 0.01*m }, func(m float64) float64 { return 100 + m })
	for name, c := range map[string]struct {
		r    *Results
		want bool
	}{"paper-like": {good, true}, "opposite": {bad, false}} {
		a, err := Summarise(c.r)
		if err != nil {
			t.Fatal(err)
		}
		for _, cl := range kpartMulClaims(c.r, a) {
			if cl.Holds != c.want {
				t.Errorf("%s: claim %q = %v (%s), want %v", name, cl.Statement, cl.Holds, cl.Evidence, c.want)
			}
		}
	}
}

func TestClaimHelpers(t *testing.T) {
	r := &Results{Metrics: []Metric{{Name: "m"}}}
	// Series a: 1, 2, 3 at x = 1, 2, 3; series b: 2, 2, 2.
	for x := 1.0; x <= 3; x++ {
		r.Add(Row{Series: "a", X: x, Values: map[string]float64{"m": x}})
		r.Add(Row{Series: "b", X: x, Values: map[string]float64{"m": 2}})
	}
	a, err := Summarise(r)
	if err != nil {
		t.Fatal(err)
	}
	if rho := spearman(a, "a", "m"); rho < 0.999 {
		t.Errorf("spearman(a) = %v, want 1", rho)
	}
	if rr := relRange(a, "a", "m"); rr != 1 { // (3-1)/2
		t.Errorf("relRange(a) = %v, want 1", rr)
	}
	if d := maxRelDev(a, "a", "m"); d != 0.5 { // |1-2|/2
		t.Errorf("maxRelDev(a) = %v, want 0.5", d)
	}
	// a is lowest at x=1 (1<2), tied at x=2, higher at x=3.
	if w, n, lost := best(a, "a", "m"); w != 2 || n != 3 || len(lost) != 1 || lost[0] != "3" {
		t.Errorf("best(a) = %d/%d lost %v, want 2/3 lost [3]", w, n, lost)
	}
	if p := pooled(r, "a", "m", func(x float64) bool { return x > 1 }); p != 2.5 {
		t.Errorf("pooled = %v, want 2.5", p)
	}
}
