package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/reports/metric"
)

// night simulates one nightly: series series of runs runs a side, normal
// noise at CV cv, the first nReg series' throughput multiplied by factor in
// the new side. Each series has its own level (50 to 5000 tuples/s), so a
// test that pools raw variances instead of relative ones would fail.
func night(rng *rand.Rand, series, runs, nReg int, cv, factor float64) (base, nw *Samples) {
	base, nw = nightSides()
	for s := 0; s < series; s++ {
		mu := 50 * math.Pow(100, rng.Float64())
		muNew := mu
		if s < nReg {
			muNew = mu * factor
		}
		k := Key{"nightly", fmt.Sprintf("s%02d", s), "1", "throughput"}
		for r := 0; r < runs; r++ {
			base.add(k, mu*(1+cv*rng.NormFloat64()))
			nw.add(k, muNew*(1+cv*rng.NormFloat64()))
		}
	}
	return base, nw
}

// nightSides are the two empty sides of a nightly whose folders record
// their unit, as every experiment's manifest.json does: the nightly's
// cluster experiments count runs.
func nightSides() (base, nw *Samples) {
	base, nw = newSamples(), newSamples()
	base.Units["nightly"], nw.Units["nightly"] = metric.UnitRun, metric.UnitRun
	return base, nw
}

// gateRates runs nights simulated nights and returns the share of the true
// regressions the gate found and the share of nights with a false one, for
// Compare and, as the contrast, per-series Welch + Holm.
func gateRates(t *testing.T, seed uint64, nights, series, runs, nReg int, cv, factor float64) (power, falseNights, welchPower float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	found, welchFound, falseN := 0, 0, 0
	for n := 0; n < nights; n++ {
		base, nw := night(rng, series, runs, nReg, cv, factor)
		res := Compare(base, nw, Options{Threshold: 0.05})
		if len(res.Notes) > 0 || res.Rows[0].Unit != metric.UnitRun || res.Rows[0].NBase != runs {
			t.Fatalf("unit notes %q, row unit %q n %d: want runs, as recorded", res.Notes, res.Rows[0].Unit, res.Rows[0].NBase)
		}
		isFalse := false
		ps := make([]float64, len(res.Rows))
		for i, r := range res.Rows {
			reg := r.Series < fmt.Sprintf("s%02d", nReg)
			switch {
			case r.Fails && reg:
				found++
			case r.Fails:
				isFalse = true
			}
			ps[i], _ = welchP(r.base, r.new)
		}
		if isFalse {
			falseN++
		}
		for i, p := range reports.Holm(ps) {
			if r := res.Rows[i]; p < Alpha && r.New < r.Base*0.95 && r.Series < fmt.Sprintf("s%02d", nReg) {
				welchFound++
			}
		}
	}
	total := float64(nights * nReg)
	return float64(found) / total, float64(falseN) / float64(nights), float64(welchFound) / total
}

// TestGatePower: the nightly the gate is built for (42 series of 5 runs,
// CV 8%, two series 25% slower every night: throughput x 0.75, a 3-sigma
// drop per run) over 200 seeded nights: the gate must find >= 90% of the
// true regressions and raise a false one on at most 1 night in 10. Reading
// "25% slower" as 25% more time per tuple (throughput / 1.25, a 2.5-sigma
// drop) is below what 5 runs can promise at this alpha; that case checks
// the false nights only. The measured rates are logged (go test -v).
func TestGatePower(t *testing.T) {
	const nights, series, runs, cv = 200, 42, 5, 0.08
	for _, c := range []struct {
		name      string
		nReg      int
		factor    float64
		wantPower float64 // 0: not asserted
	}{
		{"throughput x0.75", 2, 0.75, 0.9},
		{"throughput x1/1.25", 2, 1 / 1.25, 0},
		{"no regression", 0, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			power, falseNights, welch := gateRates(t, 20, nights, series, runs, c.nReg, cv, c.factor)
			t.Logf("%s: power %.3f (Welch + Holm alone %.3f), false nights %.3f over %d nights", c.name, power, welch, falseNights, nights)
			if power < c.wantPower {
				t.Errorf("power %.3f, want >= %g", power, c.wantPower)
			}
			if falseNights > 0.1 {
				t.Errorf("false nights %.3f, want <= 0.1", falseNights)
			}
		})
	}
}

// TestGateFalseNightsUnequalCV: pooling must not let a quiet series lend its
// variance to a noisy one. Series CVs spread from 2% to 32% (log-uniform
// around 8%), no regression, 200 seeded nights: false nights stay <= 1 in
// 10.
func TestGateFalseNightsUnequalCV(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	falseN := 0
	for n := 0; n < 200; n++ {
		base, nw := nightSides()
		for s := 0; s < 42; s++ {
			mu, cv := 50*math.Pow(100, rng.Float64()), 0.08*math.Pow(4, 2*rng.Float64()-1)
			k := Key{"nightly", fmt.Sprintf("s%02d", s), "1", "throughput"}
			for r := 0; r < 5; r++ {
				base.add(k, mu*math.Exp(cv*rng.NormFloat64()))
				nw.add(k, mu*math.Exp(cv*rng.NormFloat64()))
			}
		}
		if len(Compare(base, nw, Options{Threshold: 0.05}).Failures()) > 0 {
			falseN++
		}
	}
	t.Logf("unequal CVs: false nights %d of 200", falseN)
	if falseN > 20 {
		t.Errorf("false nights %d of 200, want <= 20", falseN)
	}
}
