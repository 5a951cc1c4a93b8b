package simcluster

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stormlab/stormlab/infra/sim"
)

// olsFit is an ordinary least-squares fit: the coefficients, their standard errors and the residual
// degrees of freedom.
type olsFit struct {
	coef, se []float64
	df       int
}

// ols fits y = X b by least squares. A design that cannot tell its terms apart (X'X singular or
// nearly: the runs do not vary what a term multiplies) is an error naming the terms.
func ols(x [][]float64, y []float64, names []string) (olsFit, error) {
	n, p := len(y), len(names)
	if n <= p {
		return olsFit{}, fmt.Errorf("%d observations for %d terms (%v): record more runs", n, p, names)
	}
	// Each column scaled to its largest magnitude: bytes per second (1e6) beside workers (1) would
	// make X'X look singular.
	scale := make([]float64, p)
	for _, row := range x {
		for j, v := range row {
			scale[j] = max(scale[j], math.Abs(v))
		}
	}
	X := mat.NewDense(n, p, nil)
	for i, row := range x {
		for j, v := range row {
			if scale[j] > 0 {
				X.Set(i, j, v/scale[j])
			}
		}
	}
	var xtx, inv mat.Dense
	xtx.Mul(X.T(), X)
	if slices.Contains(scale, 0) {
		return olsFit{}, fmt.Errorf("the runs do not vary the terms %v (record the placements and payloads of the transfer design)", names)
	}
	if err := inv.Inverse(&xtx); err != nil || mat.Cond(&xtx, 2) > 1e12 {
		return olsFit{}, fmt.Errorf("the runs do not tell the terms %v apart (record the placements and payloads of the transfer design)", names)
	}
	var xty, b mat.VecDense
	xty.MulVec(X.T(), mat.NewVecDense(n, y))
	b.MulVec(&inv, &xty)
	rss := 0.0
	for i := range n {
		r := y[i] - mat.Dot(X.RowView(i), &b)
		rss += r * r
	}
	f := olsFit{df: n - p}
	s2 := rss / float64(f.df)
	for j := range p {
		f.coef = append(f.coef, b.AtVec(j)/scale[j])
		f.se = append(f.se, math.Sqrt(s2*inv.At(j, j))/scale[j])
	}
	return f, nil
}

// transferMethod says how the transfer costs' intervals are computed, as the cost-model file says it.
const transferMethod = "transfer costs (ser_*, deser_*, *_latency_s) are least-squares coefficients over the runs of the " +
	"transfer design; each *_pi95 is the coefficient +- t(0.975, df) * sqrt(2) * se (se its standard error from the residuals, " +
	"df the residual degrees of freedom): where the coefficient of a second measurement of as many runs falls with 95% probability"

// stated is coefficient j as a cost: rounded, with its interval, or why it is not measured. A
// coefficient below zero is not a cost: it is charged as zero and listed as missing with its figure.
func (f olsFit) stated(j int, what string) (x float64, pi *sim.Interval, missing string) {
	c := f.coef[j]
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(f.df)}.Quantile(0.975) * math.Sqrt2 * f.se[j]
	if c <= 0 {
		return 0, nil, fmt.Sprintf("%s: fitted %.3g (95%% interval %.3g to %.3g), not above zero: these runs do not resolve it, charged as zero", what, c, c-half, c+half)
	}
	return round(c), &sim.Interval{Lo: roundDown(max(0, c-half)), Hi: roundUp(c + half)}, ""
}
