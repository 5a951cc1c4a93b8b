package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/reports/metric"
)

// Tests of rows whose unit is the instance and whose sides hold the same
// instances.
const (
	TestPairedLog = "paired t, logs" // on the log of each instance's mean
	TestPaired    = "paired t"       // on the means themselves (a value <= 0)
)

// sideUnits is the unit each side of experiment exp is summarised in, and
// a note for the reader when a folder records none or the two disagree:
//   - both record one: each its own (a paired test needs them equal);
//   - one records it: both sides use it (raw.csv names every row's
//     instance, so an older folder's rows can be grouped the same way);
//     a side without the experiment at all takes the other's, unnoted;
//   - neither: every row counts as a run of its own, as compare did before
//     units were recorded.
func sideUnits(exp string, base, new *Samples) (ub, un, note string) {
	b, okB := base.Units[exp]
	n, okN := new.Units[exp]
	switch {
	case !base.exps[exp] || !new.exps[exp]:
		u := cmp.Or(b, n, metric.UnitRun)
		return u, u, ""
	case okB && okN && b != n:
		return b, n, fmt.Sprintf("experiment %s: base records the unit %q, new %q: each side is summarised in its own, unpaired", exp, b, n)
	case okB && okN:
		return b, n, ""
	case okB:
		return b, b, fmt.Sprintf("experiment %s: new records no unit (written before units were recorded); its rows are grouped as base's: %s", exp, b)
	case okN:
		return n, n, fmt.Sprintf("experiment %s: base records no unit (written before units were recorded); its rows are grouped as new's: %s", exp, n)
	}
	return metric.UnitRun, metric.UnitRun, fmt.Sprintf("experiment %s: neither folder records a unit (written before units were recorded), "+
		"so every row counts as a run; rerun a graph experiment to count graphs", exp)
}

// unitValues folds one side's values of a key into one per unit: under
// metric.UnitInstance the mean of each instance's values (its repetitions),
// instances sorted by name; otherwise every value, in file order, with no
// names.
func unitValues(vals []float64, inst []string, unit string) (ids []string, out []float64) {
	if unit != metric.UnitInstance {
		return nil, vals
	}
	sums := map[string][2]float64{}
	for i, v := range vals {
		t := sums[inst[i]]
		sums[inst[i]] = [2]float64{t[0] + v, t[1] + 1}
	}
	for id := range sums {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		out = append(out, sums[id][0]/sums[id][1])
	}
	return ids, out
}

// setUnits replaces the row's values by one per unit of each side and
// marks it paired when both sides hold the same 2 or more instances.
func (r *Row) setUnits(ub, un string, instBase, instNew []string) {
	idsB, b := unitValues(r.base, instBase, ub)
	idsN, n := unitValues(r.new, instNew, un)
	r.base, r.new = b, n
	r.Unit = ub
	if ub != un {
		r.Unit = ub + "/" + un
	}
	r.Paired = ub == metric.UnitInstance && un == metric.UnitInstance && len(idsB) >= 2 && slices.Equal(idsB, idsN)
}

// logExact is the spread of log differences below which they are constant
// up to rounding: log values are relative changes, and 1e-12 is far below
// any change a gate is about and far above the rounding of a log (about
// 1e-16 relative).
const logExact = 1e-12

// pairedP is the two-sided p of the paired t-test of new against base (a[i]
// and b[i] the same instance) on log values, or on the values themselves
// when one is <= 0 (the log is undefined). Differences constant up to
// rounding have no spread to test against and are decided exactly: none
// (p = 1) when they are zero, else p = 0.
func pairedP(a, b []float64) (float64, string) {
	la, lb := logs(a), logs(b)
	if la == nil || lb == nil {
		r, err := reports.PairedT(b, a) // its rounding rule decides constant differences the same way
		if err != nil {
			return math.NaN(), ""
		}
		return r.PTwoSided, TestPaired
	}
	d := make([]float64, len(la))
	for i := range la {
		d[i] = lb[i] - la[i]
	}
	mean, sd := meanSD(d)
	switch {
	case sd/math.Sqrt(float64(len(d))) > logExact:
		r, err := reports.PairedT(lb, la)
		if err != nil {
			return math.NaN(), ""
		}
		return r.PTwoSided, TestPairedLog
	case math.Abs(mean) <= logExact:
		return 1, TestPairedLog
	}
	return 0, TestPairedLog
}

// logs is the log of every value, nil when one is not > 0 and finite.
func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return nil
		}
		out[i] = math.Log(x)
	}
	return out
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x / float64(len(xs))
	}
	if len(xs) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}
