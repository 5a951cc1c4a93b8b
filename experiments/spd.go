package experiments

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/stormlab/stormlab/experiments/lab"

	"github.com/stormlab/stormlab/reports"
	"github.com/stormlab/stormlab/schedulers"
	"github.com/stormlab/stormlab/topologies"
)

// SPD regimes of the experiment: transfer weights b(e) relative to task
// weights w(v) in 1..100.
var spdRegimes = []struct {
	name    string
	maxEdge int
}{
	{"constrained", 5},       // b <= 5: transfers are small next to processing (Eidenbenz and Locher 2016, Def. II.2)
	{"transfer-heavy", 1000}, // b up to 10x the largest task weight
}

// spdAlgorithms are the series: A^disc, our A^disc variant and the graph
// partitioners, each splitting the tasks into c parts (= resources).
var spdAlgorithms = []string{"spd", "spd-shares", "kpart", "mpart", "even", "online"}

// SPDAllocation measures how close each allocation comes to the continuous
// lower bound of Eidenbenz and Locher 2016 on random SPD graphs: n = 10..1000
// tasks, c = 2..32 resources, computationally constrained and
// transfer-heavy graphs.
func SPDAllocation() *lab.Spec {
	return &lab.Spec{
		Name:        "spd",
		Description: "SPD allocation: streaming cost over the continuous lower bound, A^disc against the graph partitioners",
		Paper:       paperSPD,
		Source:      lab.Cite(paperSPD, "A^cont lower bound, A^disc"),
		Setup: fmt.Sprintf("random SPD graphs (topologies.RandomSPD: task weights 1..100, fan-out 2..4), n = 10, 30, "+
			"100, 300, 1000 tasks; %d graphs per n and regime (seeds 7000 + 100*regime + i, 7100 + ...), regimes: "+
			"constrained b(e) in 1..5 and transfer-heavy b(e) in 1..1000; c = 2, 4, 8, 16, 32 resources (c <= n); "+
			"every scheduler partitions into c parts, one run per instance (kpart seeded per instance). Metric ratio "+
			"= streaming cost d(G) / lower bound w(root)/c; proc_ratio uses d-hat(G) (transfer costs 0).", spdGraphs),
		SeriesLabel: "scheduler", XName: "tasks", XLabel: "tasks n",
		// The claims keep the regimes and c apart; so do the table and figures.
		Panel:      spdPanel,
		PanelLabel: "regime, c",
		Unit:       lab.UnitInstance, // a graph (one run each)
		Metrics: []lab.Metric{
			{Name: "ratio", Label: "streaming cost / lower bound"},
			{Name: "proc_ratio", Label: "processing-only cost / lower bound"},
			{Name: "used", Label: "resources used / c"},
		},
		// Cost: measured with `stormlab experiment NAME --scale S` (the
		// work does not depend on the scale), rounded up.
		Cost:      lab.Cost{CI: "~25 s", Quick: "~25 s", Full: "~25 s"},
		Needs:     lab.Needs{Need: lab.NeedsNothing, Why: "it runs the schedulers in process on generated graphs"},
		Run:       runSPD,
		FixedReps: "spd runs every instance once: its allocators are deterministic, kpart seeded per instance (--instances adds instances)",
		Claims:    spdClaims,
	}
}

// The spd experiment's sizes, resource counts and graphs per size and regime.
var (
	spdNs     = []float64{10, 30, 100, 300, 1000}
	spdCs     = []int{2, 4, 8, 16, 32}
	spdGraphs = 8
)

func runSPD(ctx context.Context, env lab.Env) (*lab.Results, error) {
	res := &lab.Results{Experiment: "spd"}
	graphs := spdGraphs
	if env.Instances > 99 {
		return nil, fmt.Errorf("spd: --instances %d: at most 99 per size and regime keep the instance numbers (regime x 10000 + graph x 100 + c) and seeds apart", env.Instances)
	} else if env.Instances > 0 {
		graphs = env.Instances
	}
	for _, x := range spdNs {
		start := time.Now()
		n := int(x)
		for ri, reg := range spdRegimes {
			for i := 0; i < graphs; i++ {
				seed := env.Seed + uint64(7000+100*ri+i)
				s, err := topologies.RandomSPD(n, seed, topologies.SPDOptions{MaxEdgeWeight: reg.maxEdge})
				if err != nil {
					return nil, err
				}
				for _, c := range spdCs {
					if c > n {
						continue
					}
					if err := spdAllocate(ctx, res, s, x, seed, ri, i, c); err != nil {
						return nil, err
					}
				}
			}
		}
		fmt.Fprintf(env.Log, "spd: n=%d done in %v\n", n, time.Since(start).Round(time.Millisecond))
	}
	return res, nil
}

// spdAllocate runs every allocator on SPD graph s (graph i of regime ri,
// n = x tasks) with c resources and adds a row each.
func spdAllocate(ctx context.Context, res *lab.Results, s *topologies.SPD, x float64, seed uint64, ri, i, c int) error {
	n := int(x)
	lb, err := schedulers.LowerBound(s, c)
	if err != nil {
		return err
	}
	for _, name := range spdAlgorithms {
		if err := ctx.Err(); err != nil {
			return err
		}
		aseed := partitionSeed(seed, c)
		sch, err := schedulers.New(name, schedulers.Options{Seed: aseed})
		if err != nil {
			return err
		}
		p, ok := sch.(schedulers.Partitioner)
		if !ok {
			return fmt.Errorf("scheduler %s does not partition graphs", name)
		}
		parts, err := p.Partition(ctx, s.Graph, c)
		if err != nil {
			return fmt.Errorf("%s on SPD graph n=%d seed=%d c=%d: %w", name, n, seed, c, err)
		}
		if err := checkParts(parts, n, c); err != nil {
			return fmt.Errorf("%s on SPD graph n=%d seed=%d c=%d: %w", name, n, seed, c, err)
		}
		d, err := schedulers.StreamingCost(s.Graph, parts)
		if err != nil {
			return err
		}
		dh, _ := schedulers.ProcessingCost(s.Graph, parts)
		// Instance encodes regime, graph and c so the claims can filter:
		// regime*10000 + graph*100 + c.
		res.Add(lab.Row{Series: name, X: x, Instance: ri*10000 + i*100 + c, InstanceSeed: seed, Seed: aseed,
			Values: map[string]float64{"ratio": d / lb, "proc_ratio": dh / lb,
				"used": float64(c-emptyParts(parts, c)) / float64(c)}})
	}
	return nil
}

// spdPanel is a row's regime and number of resources, e.g.
// "constrained, c = 4".
func spdPanel(r lab.Row) string {
	reg, c := spdRowInfo(r)
	return fmt.Sprintf("%s, c = %d", spdRegimes[reg].name, c)
}

// spdRowInfo decodes Row.Instance.
func spdRowInfo(r lab.Row) (regime, c int) { return r.Instance / 10000, r.Instance % 100 }

// spdUnits is one value per SPD graph (regime, n, graph): the mean ratio
// over the c values keep accepts. Every scheduler runs once per instance
// (kpart is seeded per instance), so there are no repetitions to average.
func spdUnits(r *lab.Results, series string, keep func(lab.Row) bool) []float64 {
	order, means := spdGraphMeans(r, series, keep)
	out := make([]float64, len(order))
	for i, k := range order {
		out[i] = means[k]
	}
	return out
}

// spdGraph names one SPD graph: its size x, graph number and regime.
type spdGraph struct {
	x         float64
	g, regime int
}

// spdGraphMeans is the mean ratio per SPD graph of series over the rows keep accepts, with the
// graphs in the order of their first row.
func spdGraphMeans(r *lab.Results, series string, keep func(lab.Row) bool) ([]spdGraph, map[spdGraph]float64) {
	sum := map[spdGraph][2]float64{}
	var order []spdGraph
	for _, row := range r.Rows {
		if row.Series != series || !keep(row) {
			continue
		}
		reg, _ := spdRowInfo(row)
		k := spdGraph{row.X, (row.Instance % 10000) / 100, reg}
		if _, ok := sum[k]; !ok {
			order = append(order, k)
		}
		v, ok := row.Values["ratio"]
		if !ok {
			v = math.NaN()
		}
		sum[k] = [2]float64{sum[k][0] + v, sum[k][1] + 1}
	}
	means := make(map[spdGraph]float64, len(order))
	for _, k := range order {
		means[k] = sum[k][0] / sum[k][1]
	}
	return order, means
}

// spdClaims: the unit is one SPD graph (mean ratio over its c values), n
// = 5 sizes x 8 graphs = 40 per regime. Every allocator runs on the same
// graphs, and each graph at every c, so comparisons between allocators or
// between two c values are paired by graph (spdPaired); sizes against
// sizes are different graphs (unpaired).
func spdClaims(r *lab.Results, a *lab.Aggregate) []lab.Claim {
	out := []lab.Claim{spdBoundClaim(r)}
	out = append(out, spdRegimeClaims(r)...)
	return append(out, spdConstantClaim(r), spdByCClaim(r))
}

// spdBoundClaim: the continuous lower bound holds on every row (a theorem).
func spdBoundClaim(r *lab.Results) lab.Claim {
	minRatio := math.Inf(1)
	var minAt string
	for _, row := range r.Rows {
		if v := row.Values["ratio"]; v < minRatio || math.IsNaN(v) {
			minRatio = v
			minAt = fmt.Sprintf("%s n=%v", row.Series, row.X)
		}
	}
	return lab.Claim{
		Statement: "A^cont's cost w(root)/c is a lower bound on the streaming cost of every discrete allocation",
		Source:    lab.Cite(paperSPD, "sec. III"), Kind: lab.SanityCheck,
		Evidence: fmt.Sprintf("smallest ratio %.4f (%s)", minRatio, minAt),
		Checks: []reports.Check{reports.ExactCheck("every ratio >= 1", "every row's ratio >= 1 - 1e-9 (a theorem: one violation is a bug)",
			minRatio >= 1-1e-9, len(r.Rows), 2, fmt.Sprintf("smallest ratio %.4f", minRatio))},
	}
}

// spdRegimeClaims: per regime, A^disc against every graph partitioner.
func spdRegimeClaims(r *lab.Results) []lab.Claim {
	var out []lab.Claim
	partitioners := []string{"kpart", "mpart", "even", "online"}
	for ri, reg := range spdRegimes {
		keep := func(row lab.Row) bool { g, _ := spdRowInfo(row); return g == ri }
		sp := spdUnits(r, "spd", keep)
		var ev []string
		var checks []reports.Check
		for _, s := range spdAlgorithms {
			ev = append(ev, fmt.Sprintf("%s %.3f", s, mean(spdUnits(r, s, keep))))
		}
		for _, s := range partitioners {
			mine, theirs := spdPaired(r, "spd", s, keep, keep)
			checks = append(checks, reports.PairedDifferenceCheck("spd < "+s, mine, theirs, reports.Less, ""))
		}
		out = append(out, lab.Claim{
			Statement: fmt.Sprintf("%s graphs: A^disc (spd) comes closer to the lower bound than every graph partitioner (our question; the paper compares with no partitioner)", reg.name),
			Source:    lab.Cite(paperSPD, "A^disc"), Kind: lab.ProjectClaim, Checks: checks,
			Evidence: fmt.Sprintf("mean ratio over %d graphs: %s", len(sp), list(ev)),
		})
	}
	return out
}

// spdConstantClaim: the approximation guarantee on constrained graphs with c >= log2 n.
func spdConstantClaim(r *lab.Results) lab.Claim {
	keep := func(lo bool) func(lab.Row) bool {
		return func(row lab.Row) bool {
			g, c := spdRowInfo(row)
			ok := g == 0 && float64(c) >= math.Log2(row.X)
			if lo {
				return ok && row.X <= 100
			}
			return ok && row.X > 100
		}
	}
	small, large := spdUnits(r, "spd", keep(true)), spdUnits(r, "spd", keep(false))
	return lab.Claim{
		Statement: "on computationally constrained graphs with c >= log n, A^disc is within a constant factor of the optimum (read: its ratio on n = 300..1000 is at most 2x that on n = 10..100)",
		Source:    lab.Cite(paperSPD, "abstract"),
		Evidence:  fmt.Sprintf("n <= 100: %.3f (%d graphs); n >= 300: %.3f (%d graphs)", mean(small), len(small), mean(large), len(large)),
		Checks:    []reports.Check{reports.RatioCheck("ratio large n / small n <= 2", large, small, reports.Below(2))},
	}
}

// spdByCClaim: per c, where A^disc stands (the factor 2 n^(2/c) shrinks with c).
func spdByCClaim(r *lab.Results) lab.Claim {
	cs := map[int]bool{}
	for _, row := range r.Rows {
		_, c := spdRowInfo(row)
		cs[c] = true
	}
	cl := slices.Sorted(maps.Keys(cs))
	var byC []string
	for _, c := range cl {
		kc := func(row lab.Row) bool { _, cc := spdRowInfo(row); return cc == c }
		byC = append(byC, fmt.Sprintf("c=%d: spd %.3f, spd-shares %.3f, kpart %.3f", c, mean(spdUnits(r, "spd", kc)), mean(spdUnits(r, "spd-shares", kc)), mean(spdUnits(r, "kpart", kc))))
	}
	var check reports.Check
	if len(cl) > 1 {
		lo, hi := cl[0], cl[len(cl)-1]
		both := func(c int) func(lab.Row) bool {
			return func(row lab.Row) bool { _, cc := spdRowInfo(row); return cc == c && row.X >= float64(hi) }
		}
		atHi, atLo := spdPaired(r, "spd", "spd", both(hi), both(lo))
		check = reports.PairedDifferenceCheck(fmt.Sprintf("ratio at c=%d < at c=%d (graphs with n >= %d)", hi, lo, hi), atHi, atLo, reports.Less, "")
	} else {
		check = reports.Missing("ratio at the largest c < at c = 2", "fewer than two values of c")
	}
	return lab.Claim{
		Statement: "A^disc's gap to the lower bound narrows as c grows (our expectation: its group size 2 n^(2/c)/x shrinks with c; the paper states no such claim)",
		Source:    lab.Cite(paperSPD, "A^disc"), Kind: lab.ProjectClaim, Checks: []reports.Check{check},
		Evidence: "mean ratio by c: " + list(byC) + ". " + spdOneResourceNote(r),
	}
}

// spdOneResourceNote explains A^disc's idle resources from the run's own rows (the by-c claim's
// note): the published group size leaves most resources empty below c = log n, which is why its
// ratio is far above spd-shares' and the partitioners' at small c.
func spdOneResourceNote(r *lab.Results) string {
	type tally struct{ used, rows, one float64 }
	byC := map[int]*tally{}
	worst := 0.0
	for _, row := range r.Rows {
		if row.Series != "spd" {
			continue
		}
		_, c := spdRowInfo(row)
		u, ok := row.Values["used"]
		if !ok {
			continue
		}
		if byC[c] == nil {
			byC[c] = &tally{}
		}
		t := byC[c]
		t.used, t.rows = t.used+u, t.rows+1
		if math.Round(u*float64(c)) == 1 {
			t.one++
		}
		worst = max(worst, row.Values["ratio"])
	}
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(byC)) {
		t := byC[c]
		parts = append(parts, fmt.Sprintf("c=%d %.3g (every task on one resource in %.0f of %.0f allocations)", c, t.used/t.rows, t.one, t.rows))
	}
	return fmt.Sprintf("Why: A^disc as published gives its first resource the ceil(2 n^(2/c)/x_1) tasks with the largest shares "+
		"(x_1 <= 1, the largest capped share), so at least 2 n^(2/c) tasks: at c = 2 that is 2n, every task on one resource "+
		"on every graph; at c = 4 it is all n tasks wherever x_1 <= 2/sqrt(n). The paper's analysis assumes c >= log n, where "+
		"the groups are small; below that the constant leaves resources idle and one resource carries almost all the "+
		"processing (spd-shares, groups of ceil(1/x), shows the constant's cost). spd's resources used / c (column "+
		"\"resources used / c\", figures used-<regime>-c-<c>): %s; its largest streaming cost / lower bound %.3g. "+
		"A faithful implementation of Algorithm 3, not a bug", list(parts), worst)
}
