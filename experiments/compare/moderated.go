package compare

import (
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// logSample is one row's values on the log scale, where a common CV is a
// common variance.
type logSample struct {
	meanA, meanB float64
	nA, nB       int
	s2           float64 // pooled within-row variance, df = nA + nB - 2
}

// toLog returns a's and b's log values, ok false when a value is <= 0.
func toLog(a, b []float64) (logSample, bool) {
	la, lb := make([]float64, len(a)), make([]float64, len(b))
	for i, v := range a {
		if !(v > 0) {
			return logSample{}, false
		}
		la[i] = math.Log(v)
	}
	for i, v := range b {
		if !(v > 0) {
			return logSample{}, false
		}
		lb[i] = math.Log(v)
	}
	ma, va := stat.MeanVariance(la, nil)
	mb, vb := stat.MeanVariance(lb, nil)
	d := float64(len(a) + len(b) - 2)
	s2 := (float64(len(a)-1)*va + float64(len(b)-1)*vb) / d
	return logSample{ma, mb, len(a), len(b), s2}, true
}

func (s logSample) df() float64 { return float64(s.nA + s.nB - 2) }

// prior is the fitted distribution of the rows' variances (Smyth 2004):
// s2 ~ s0 * chi2(d0) / d0. d0 is +Inf when the variances vary no more than
// sampling alone explains: then every row gets the pooled variance s0.
type prior struct {
	d0, s0, dfSum float64
}

// fitPrior is limma's fitFDist by moments (Smyth, "Linear models and
// empirical Bayes methods for assessing differential expression in
// microarray experiments", 2004, section 6.2) over the rows with a positive
// variance. ok is false below 3 such rows.
func fitPrior(rows []logSample) (prior, bool) {
	var es, tris []float64
	dfSum := 0.0
	for _, r := range rows {
		dfSum += r.df()
		if !(r.s2 > 0) {
			continue
		}
		h := r.df() / 2
		es = append(es, math.Log(r.s2)-mathext.Digamma(h)+math.Log(h))
		tris = append(tris, trigamma(h))
	}
	if len(es) < 3 {
		return prior{}, false
	}
	eMean, eVar := stat.MeanVariance(es, nil)
	excess := eVar - stat.Mean(tris, nil)
	if excess <= 0 {
		return prior{d0: math.Inf(1), s0: math.Exp(eMean), dfSum: dfSum}, true
	}
	d0 := 2 * trigammaInverse(excess)
	s0 := math.Exp(eMean + mathext.Digamma(d0/2) - math.Log(d0/2))
	return prior{d0: d0, s0: s0, dfSum: dfSum}, true
}

// moderatedP is the two-sided p of the moderated t of one row: its
// variance shrunk toward the prior's, df = d0 + d capped at the total df of
// the rows (as limma's eBayes).
func moderatedP(r logSample, pr prior) float64 {
	s2, df := pr.s0, pr.dfSum
	if !math.IsInf(pr.d0, 1) {
		s2 = (pr.d0*pr.s0 + r.df()*r.s2) / (pr.d0 + r.df())
		df = math.Min(pr.d0+r.df(), pr.dfSum)
	}
	diff := r.meanB - r.meanA
	if diff == 0 {
		return 1
	}
	t := diff / math.Sqrt(s2*(1/float64(r.nA)+1/float64(r.nB)))
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
}

// trigamma is the derivative of the digamma function: the recurrence
// psi1(x) = psi1(x+1) + 1/x^2 up to x >= 20, then the asymptotic series
// (Abramowitz and Stegun 6.4.12).
func trigamma(x float64) float64 {
	acc := 0.0
	for ; x < 20; x++ {
		acc += 1 / (x * x)
	}
	x2 := 1 / (x * x)
	return acc + 1/x + x2/2 + x2/x*(1.0/6-x2*(1.0/30-x2*(1.0/42-x2/30)))
}

// trigammaInverse solves trigamma(x) = y > 0 by bisection on log x
// (trigamma decreases from +Inf at 0 to 0 at +Inf).
func trigammaInverse(y float64) float64 {
	lo, hi := math.Log(1e-8), math.Log(1e8)
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if trigamma(math.Exp(mid)) > y {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}
