package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Reference values: scipy.special.polygamma(1, x) (SciPy 1.x), to 1e-12
// relative.
func TestTrigamma(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{0.5, 4.93480220054468}, // pi^2 / 2
		{1, 1.6449340668482266}, // pi^2 / 6
		{2.5, 0.4903577561002349},
		{7.3, 0.14679576813142703},
		{30, 0.033895060357739946},
	} {
		if got := trigamma(c.x); math.Abs(got-c.want) > 1e-12*c.want {
			t.Errorf("trigamma(%v) = %.16g, want %.16g", c.x, got, c.want)
		}
		if got := trigammaInverse(c.want); math.Abs(got-c.x) > 1e-9*c.x {
			t.Errorf("trigammaInverse(%v) = %.12g, want %v", c.want, got, c.x)
		}
	}
}

// fitPrior recovers the prior it is fitted to: 2000 variances drawn as
// s0 chi2(d0) / d0 of log values (d0 = 6, s0 = 0.0064, CV 8%), each with
// its row's own 8 df sampling noise on top, as Smyth's model states. Over
// seeds 1 to 30 the estimates fell in d0 5.6 to 6.5 and s0 within 4%; the
// tolerances are about twice that spread.
func TestFitPriorRecovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	const d0, s0, d = 6.0, 0.0064, 8.0
	chi := func(df float64) float64 { return distuv.ChiSquared{K: df, Src: rng}.Rand() }
	rows := make([]logSample, 2000)
	for i := range rows {
		sigma2 := s0 * d0 / chi(d0) // scaled inverse chi-square prior
		rows[i] = logSample{nA: 5, nB: 5, s2: sigma2 * chi(d) / d}
	}
	pr, ok := fitPrior(rows)
	if !ok || math.Abs(pr.d0-d0) > 1.5 || math.Abs(pr.s0/s0-1) > 0.08 || pr.dfSum != 2000*d {
		t.Errorf("prior %+v ok %v, want d0 %v ±1.5, s0 %v ±8%%, df sum %v", pr, ok, d0, s0, 2000*d)
	}
	// Equal variances: no spread beyond sampling, d0 = +Inf (full pooling).
	same := []logSample{{nA: 5, nB: 5, s2: 0.01}, {nA: 5, nB: 5, s2: 0.01}, {nA: 5, nB: 5, s2: 0.01}}
	if pr, ok := fitPrior(same); !ok || !math.IsInf(pr.d0, 1) {
		t.Errorf("equal variances: %+v, want d0 = +Inf", pr)
	}
	if _, ok := fitPrior(same[:2]); ok {
		t.Error("2 rows: a prior, want none (below 3)")
	}
}

// With full pooling the moderated t is a t-test with the pooled variance
// and the total df: for s0 = 0.01, n = 5 a side, diff = 0.1, t = 0.1 /
// sqrt(0.01 * 0.4) = 1.5811388, df = 24; scipy.stats.t.sf(1.5811388, 24) * 2
// = 0.12693.
func TestModeratedPFullPooling(t *testing.T) {
	p := moderatedP(logSample{meanA: 1, meanB: 1.1, nA: 5, nB: 5, s2: 0.5}, prior{d0: math.Inf(1), s0: 0.01, dfSum: 24})
	if math.Abs(p-0.12693) > 5e-5 {
		t.Errorf("p = %.6f, want 0.12693", p)
	}
}
