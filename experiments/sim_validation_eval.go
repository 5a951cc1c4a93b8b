package experiments

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/reports"
)

// valCell is one configuration under one scheduler: the unit of the validation goals. Its runs'
// values per metric come from the real cluster, the simulator and the analytic baseline.
type valCell struct {
	Config    int // 1-based, the rows' x
	Offered   string
	Scheduler string
	values    map[string]map[string][]float64 // where (svReal, svSim, svAnalytic) -> metric -> counted values
}

func (c valCell) of(where, metric string) []float64 { return c.values[where][metric] }

// valCells groups r's rows into cells, in configuration then scheduler order. A value counts where
// its run's validity lets it count for its metric (a suspect run feeds no goal on that metric).
func valCells(r *lab.Results) []valCell {
	var out []valCell
	index := map[string]int{}
	for _, row := range r.Rows {
		sched, where, ok := strings.Cut(row.Series, " ")
		if !ok {
			continue
		}
		key := fmt.Sprintf("%g/%s", row.X, sched)
		i, seen := index[key]
		if !seen {
			i = len(out)
			index[key] = i
			out = append(out, valCell{Config: int(row.X), Scheduler: sched, values: map[string]map[string][]float64{}})
		}
		c := &out[i]
		if where == svReal {
			c.Offered = row.Offered
		}
		if c.values[where] == nil {
			c.values[where] = map[string][]float64{}
		}
		for m, v := range row.Values {
			if row.Validity.Counts(m) && !math.IsNaN(v) {
				c.values[where][m] = append(c.values[where][m], v)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b valCell) int { return cmp.Compare(a.Config, b.Config) })
	return out
}

// valError is a cell's comparison on one metric.
type valError struct {
	N, M               int     // real and simulated runs
	RealMean, RealSD   float64 // over the real runs
	PILo, PIHi         float64 // the real runs' 95% prediction interval of one more run (NaN below 2 runs)
	SimMean, SimSD     float64
	AnaMean            float64 // the analytic baseline's mean prediction (NaN: none)
	SimErr, AnaErr     float64 // (prediction - real) / real
	Inside             bool    // the simulated mean lies inside the prediction interval
	RealCV, SpreadRate float64 // the real runs' coefficient of variation; simulated SD / real SD
}

// errorOf compares cell c's simulated and analytic values on metric with its real runs.
func (c valCell) errorOf(metric string) valError {
	re, si, an := c.of(svReal, metric), c.of(svSim, metric), c.of(svAnalytic, metric)
	e := valError{N: len(re), M: len(si), RealMean: nan(), RealSD: nan(), PILo: nan(), PIHi: nan(), SimMean: nan(), SimSD: nan(),
		AnaMean: nan(), SimErr: nan(), AnaErr: nan(), RealCV: nan(), SpreadRate: nan()}
	if len(re) > 0 {
		e.RealMean = stat.Mean(re, nil)
	}
	if len(re) > 1 {
		e.RealSD = stat.StdDev(re, nil)
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(re) - 1)}.Quantile(0.975)
		half := t * e.RealSD * math.Sqrt(1+1/float64(len(re)))
		e.PILo, e.PIHi = e.RealMean-half, e.RealMean+half
		if e.RealMean != 0 {
			e.RealCV = e.RealSD / math.Abs(e.RealMean)
		}
	}
	if len(si) > 0 {
		e.SimMean = stat.Mean(si, nil)
		e.SimErr = relErr(e.SimMean, e.RealMean)
		e.Inside = e.SimMean >= e.PILo && e.SimMean <= e.PIHi
	}
	if len(si) > 1 {
		e.SimSD = stat.StdDev(si, nil)
		if e.RealSD > 0 {
			e.SpreadRate = e.SimSD / e.RealSD
		}
	}
	if len(an) > 0 {
		e.AnaMean = stat.Mean(an, nil)
		e.AnaErr = relErr(e.AnaMean, e.RealMean)
	}
	return e
}

// relErr is (pred - real) / real, NaN where real is 0 or unknown.
func relErr(pred, real float64) float64 {
	if real == 0 || math.IsNaN(real) {
		return nan()
	}
	return (pred - real) / real
}

func nan() float64 { return math.NaN() }

// svCSVMetrics are validation.csv's metrics, in its order.
var svCSVMetrics = []string{"throughput", "latency_mean_ms", "latency_p50_ms", "latency_p99_ms", svCPUPerTuple, svBytesPerTuple}

// writeValidationCSV writes a line per cell and metric: the real runs, the prediction interval, the
// simulated and analytic means and their relative errors.
func writeValidationCSV(w io.Writer, cells []valCell) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"configuration", "offered", "scheduler", "metric", "real_n", "real_mean", "real_sd", "pi95_lo", "pi95_hi",
		"sim_n", "sim_mean", "sim_sd", "sim_error", "sim_inside_pi", "analytic_mean", "analytic_error"}); err != nil {
		return err
	}
	f := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	for _, c := range cells {
		for _, m := range svCSVMetrics {
			e := c.errorOf(m)
			if e.N == 0 && e.M == 0 {
				continue
			}
			rec := []string{strconv.Itoa(c.Config), c.Offered, c.Scheduler, m, strconv.Itoa(e.N), f(e.RealMean), f(e.RealSD), f(e.PILo), f(e.PIHi),
				strconv.Itoa(e.M), f(e.SimMean), f(e.SimSD), f(e.SimErr), strconv.FormatBool(e.Inside), f(e.AnaMean), f(e.AnaErr)}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// validationFigures draw each metric's simulated (and analytic) cell means against the real ones.
func validationFigures(cells []valCell) []lab.Figure {
	var out []lab.Figure
	for _, m := range simValMetrics {
		sim, ana := reports.Points{Name: "simulator"}, reports.Points{Name: "analytic (Jackson network)"}
		for _, c := range cells {
			e := c.errorOf(m.Name)
			if math.IsNaN(e.RealMean) {
				continue
			}
			if !math.IsNaN(e.SimMean) {
				sim.X, sim.Y = append(sim.X, e.RealMean), append(sim.Y, e.SimMean)
			}
			if !math.IsNaN(e.AnaMean) {
				ana.X, ana.Y = append(ana.X, e.RealMean), append(ana.Y, e.AnaMean)
			}
		}
		var pts []reports.Points
		for _, p := range []reports.Points{sim, ana} {
			if len(p.X) > 0 {
				pts = append(pts, p)
			}
		}
		if len(pts) == 0 {
			continue
		}
		out = append(out, lab.Figure{Name: "validation-" + m.Name, Plot: &reports.ScatterPlot{
			Title: "Predicted against real: " + m.Label, XLabel: "real: " + m.Label, YLabel: "predicted: " + m.Label, Points: pts,
			Caption: "Predicted against real " + m.Label + ", a point per configuration and scheduler (means over its runs). " +
				"Line: y = x (prediction equals measurement).",
		}})
	}
	return out
}
