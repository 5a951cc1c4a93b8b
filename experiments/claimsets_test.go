package experiments

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stormlab/stormlab/experiments/lab"
	"github.com/stormlab/stormlab/harness"
	"github.com/stormlab/stormlab/reports"
)

// Table tests of every claim set's verdict logic on synthetic rows built to
// give each of the three verdicts. "holds" rows follow the paper with small
// noise; "does not hold" rows show the opposite effect clearly;
// "inconclusive" rows are pure noise or too few units. Sanity checks are
// not paper claims and are checked separately where they matter.

// noise is a seeded generator of small deviations.
type noise struct{ r *rand.Rand }

func newNoise(seed uint64) *noise { return &noise{rand.New(rand.NewPCG(seed, 1))} }

// rel returns v * (1 + u) with u uniform in [-f, f].
func (n *noise) rel(v, f float64) float64 { return v * (1 + f*(2*n.r.Float64()-1)) }

// judged runs a claim set and judges it.
func judged(cs []lab.Claim, noVerdict string) []lab.Claim {
	lab.JudgeClaims(cs, noVerdict)
	return cs
}

// wantAll fails unless every paper claim has the verdict want.
func wantAll(t *testing.T, name string, cs []lab.Claim, want reports.Verdict) {
	t.Helper()
	papers := 0
	for _, c := range cs {
		if c.Kind == lab.SanityCheck {
			continue
		}
		papers++
		if c.Verdict != want {
			t.Errorf("%s: claim %q is %q, want %q\n  %s\n  evidence: %s", name, c.Statement, c.Verdict, want, c.Line(), c.Evidence)
		}
	}
	if papers == 0 {
		t.Errorf("%s: no paper claims", name)
	}
}

type claimCase struct {
	name string
	rows func() (*lab.Results, *lab.Aggregate)
	want reports.Verdict
}

func runClaimCases(t *testing.T, claims func(*lab.Results, *lab.Aggregate) []lab.Claim, cases []claimCase) {
	t.Helper()
	for _, tc := range cases {
		r, a := tc.rows()
		wantAll(t, tc.name, judged(claims(r, a), ""), tc.want)
	}
}

func agg(t *testing.T, r *lab.Results) (*lab.Results, *lab.Aggregate) {
	t.Helper()
	if s, err := Lookup(r.Experiment); err == nil && r.Unit == "" {
		r.Unit = s.Unit // as lab.Run sets it
	}
	a, err := lab.Summarise(r)
	if err != nil {
		t.Fatal(err)
	}
	return r, a
}

func partRow(series string, x float64, seed uint64, inst, rep int, cut, std, maxDev, empty float64) lab.Row {
	return lab.Row{Series: series, X: x, Instance: inst, InstanceSeed: seed, Rep: rep, Values: map[string]float64{
		"cut_rate": cut, "std": std, "max_dev": maxDev, "max_over": 1, "empty_parts": empty}}
}

func TestKPartMulClaimVerdicts(t *testing.T) {
	build := func(graphs int, cut, std func(mul float64, n *noise) float64) func() (*lab.Results, *lab.Aggregate) {
		return func() (*lab.Results, *lab.Aggregate) {
			n := newNoise(1)
			r := &lab.Results{Experiment: "kpart-mul", Metrics: PartitionMetrics()}
			for g := 0; g < graphs; g++ {
				for mul := 0.0; mul <= 9; mul++ {
					for rep := 0; rep < 2; rep++ {
						s := std(mul, n)
						r.Add(partRow("K-PART", mul, uint64(g+1), g, rep, cut(mul, n), s, s/100, 0))
					}
				}
			}
			return agg(t, r)
		}
	}
	runClaimCases(t, kpartMulClaims, []claimCase{
		{"paper-like", build(10, func(m float64, n *noise) float64 {
			if m == 0 {
				return n.rel(0.40, 0.02)
			}
			return n.rel(0.44, 0.02)
		}, func(m float64, n *noise) float64 { return n.rel(100/(1+m), 0.02) }), reports.Holds},
		{"opposite", build(10, func(m float64, n *noise) float64 { return n.rel(0.40-0.02*m, 0.02) },
			func(m float64, n *noise) float64 { return n.rel(100+5*m, 0.01) }), reports.DoesNotHold},
		{"noise, two graphs", build(2, func(m float64, n *noise) float64 { return n.rel(0.4, 0.3) },
			func(m float64, n *noise) float64 { return n.rel(60, 0.9) }), reports.Inconclusive},
	})
}

var partitionAlgs = []string{labelKPart0, labelKPart5, labelTPart, labelMPart}

// partitionKRows builds partition-k rows from f(alg index, k, graph, noise).
func partitionKRows(t *testing.T, ks []float64, graphs int, f func(a int, k float64, n *noise) (cut, std, maxDev, empty float64)) func() (*lab.Results, *lab.Aggregate) {
	return func() (*lab.Results, *lab.Aggregate) {
		n := newNoise(2)
		r := &lab.Results{Experiment: "partition-k", Metrics: PartitionMetrics()}
		for _, k := range ks {
			for g := 0; g < graphs; g++ {
				for ai, s := range partitionAlgs {
					reps := 2
					if s == labelTPart {
						reps = 1
					}
					for rep := 0; rep < reps; rep++ {
						c, sd, md, e := f(ai, k, n)
						r.Add(partRow(s, k, uint64(101+g), g, rep, c, sd, md, e))
					}
				}
			}
		}
		return agg(t, r)
	}
}

func kRange(lo, hi int) []float64 {
	var out []float64
	for k := lo; k <= hi; k++ {
		out = append(out, float64(k))
	}
	return out
}

func TestPartitionKClaimVerdicts(t *testing.T) {
	base := []float64{0.10, 0.15, 0.20, 0.05}
	paper := func(a int, k float64, n *noise) (float64, float64, float64, float64) {
		cut := n.rel(base[a]+(1-base[a])*(k-2)/22, 0.005)
		std := []float64{10, 8, 12, 0}[a] + 0.01*k
		if a == 3 {
			std = 10 + 2*k
		}
		empty := 0.0
		if a == 3 {
			empty = n.rel(2, 0.2)
		}
		return cut, n.rel(std, 0.01), n.rel(0.05*k, 0.01), empty
	}
	opposite := func(a int, k float64, n *noise) (float64, float64, float64, float64) {
		cut := n.rel([]float64{0.95, 0.9, 0.85, 0.9}[a]-0.03*k, 0.005)
		std := []float64{8, 12, 10, 10}[a] + 2*k
		if a == 3 {
			std = 10
		}
		empty := n.rel(2, 0.2)
		if a == 3 {
			empty = 0
		}
		return cut, n.rel(std, 0.01), n.rel(2-0.05*k, 0.01), empty
	}
	pure := func(a int, k float64, n *noise) (float64, float64, float64, float64) {
		return n.rel(0.5, 0.5), n.rel(10, 0.5), n.rel(0.5, 0.5), n.rel(1, 0.9)
	}
	runClaimCases(t, partitionKClaims, []claimCase{
		{"paper-like", partitionKRows(t, kRange(2, 24), 10, paper), reports.Holds},
		{"opposite", partitionKRows(t, kRange(2, 24), 10, opposite), reports.DoesNotHold},
		{"noise, few graphs and k", partitionKRows(t, kRange(2, 5), 2, pure), reports.Inconclusive},
	})
	// The k = |V| sanity check is not a paper claim.
	r, a := partitionKRows(t, kRange(2, 24), 10, paper)()
	for _, c := range judged(partitionKClaims(r, a), "") {
		if strings.Contains(c.Statement, "k = |V|") && (c.Kind != lab.SanityCheck || !c.Holds()) {
			t.Errorf("k = |V| claim: kind %q verdict %q, want a holding sanity check", c.Kind, c.Verdict)
		}
	}
}

func TestPartitionDensityClaimVerdicts(t *testing.T) {
	build := func(edges []float64, graphs int, f func(a int, m float64, n *noise) (float64, float64, float64)) func() (*lab.Results, *lab.Aggregate) {
		return func() (*lab.Results, *lab.Aggregate) {
			n := newNoise(3)
			r := &lab.Results{Experiment: "partition-density", Metrics: PartitionMetrics()}
			for _, m := range edges {
				for g := 0; g < graphs; g++ {
					for ai, s := range partitionAlgs {
						for rep := 0; rep < 2; rep++ {
							c, sd, md := f(ai, m, n)
							r.Add(partRow(s, m, uint64(100*int(m)+g), g, rep, c, sd, md, 0))
						}
					}
				}
			}
			return agg(t, r)
		}
	}
	var edges []float64
	for m := 15; m <= 66; m += 3 {
		edges = append(edges, float64(m))
	}
	runClaimCases(t, partitionDensityClaims, []claimCase{
		{"paper-like", build(edges, 10, func(a int, m float64, n *noise) (float64, float64, float64) {
			return n.rel([]float64{0.2, 0.3, 0.35, 0.4}[a], 0.1), n.rel([]float64{20, 10, 25, 30}[a], 0.1), n.rel([]float64{0.2, 0.1, 0.25, 0.3}[a], 0.1)
		}), reports.Holds},
		{"opposite", build(edges, 10, func(a int, m float64, n *noise) (float64, float64, float64) {
			return n.rel([]float64{0.4, 0.3, 0.3, 0.2}[a]+0.01*m, 0.02), n.rel([]float64{20, 30, 20, 10}[a]+m, 0.02), n.rel([]float64{0.2, 0.3, 0.2, 0.1}[a]+0.01*m, 0.02)
		}), reports.DoesNotHold},
		{"noise, few graphs", build(edges[:2], 2, func(a int, m float64, n *noise) (float64, float64, float64) {
			return n.rel(0.3, 0.5), n.rel(20, 0.5), n.rel(0.2, 0.5)
		}), reports.Inconclusive},
	})
}

func TestSPDClaimVerdicts(t *testing.T) {
	sizes := []float64{10, 30, 100, 300, 1000}
	build := func(graphs int, f func(s string, x float64, c int, n *noise) float64) func() (*lab.Results, *lab.Aggregate) {
		return func() (*lab.Results, *lab.Aggregate) {
			n := newNoise(4)
			r := &lab.Results{Experiment: "spd", Metrics: []lab.Metric{{Name: "ratio"}, {Name: "proc_ratio"}, {Name: "used"}}}
			for _, x := range sizes {
				for ri := range spdRegimes {
					for i := 0; i < graphs; i++ {
						for _, c := range []int{2, 4, 8, 16, 32} {
							if float64(c) > x {
								continue
							}
							for _, s := range spdAlgorithms {
								v := f(s, x, c, n)
								r.Add(lab.Row{Series: s, X: x, Instance: ri*10000 + i*100 + c, InstanceSeed: uint64(7000 + 100*ri + i),
									Values: map[string]float64{"ratio": v, "proc_ratio": v, "used": 1}})
							}
						}
					}
				}
			}
			return agg(t, r)
		}
	}
	isSPD := func(s string) bool { return s == "spd" || s == "spd-shares" }
	runClaimCases(t, spdClaims, []claimCase{
		{"paper-like", build(8, func(s string, x float64, c int, n *noise) float64 {
			if isSPD(s) {
				return n.rel(1.1+0.8/float64(c), 0.02)
			}
			return n.rel(2.5, 0.05)
		}), reports.Holds},
		{"opposite", build(8, func(s string, x float64, c int, n *noise) float64 {
			if isSPD(s) {
				return n.rel((1+x/50)*(1+float64(c)/4), 0.02)
			}
			return n.rel(1.5, 0.05)
		}), reports.DoesNotHold},
	})
	// One graph of n = 10 per regime: one unit per side everywhere.
	sizes = []float64{10}
	runClaimCases(t, spdClaims, []claimCase{
		{"one small graph", build(1, func(s string, x float64, c int, n *noise) float64 { return 1 + n.r.Float64()*2 }), reports.Inconclusive},
	})
	sizes = []float64{10, 30, 100, 300, 1000}
	// The lower bound is a sanity check, refuted by one ratio below 1.
	r, a := build(2, func(s string, x float64, c int, n *noise) float64 { return 0.9 })()
	c := judged(spdClaims(r, a), "")[0]
	if c.Kind != lab.SanityCheck || c.Verdict != reports.DoesNotHold {
		t.Errorf("lower bound below 1: %q %q, want a refuted sanity check", c.Kind, c.Verdict)
	}
}

func clusterRow(series string, x float64, rep int, v map[string]float64) lab.Row {
	return lab.Row{Series: series, X: x, Rep: rep, Values: v}
}

func TestCommCostClaimVerdicts(t *testing.T) {
	build := func(reps int, l1, l2, l4 float64, delay bool) func() (*lab.Results, *lab.Aggregate) {
		return func() (*lab.Results, *lab.Aggregate) {
			n := newNoise(5)
			r := &lab.Results{Experiment: "comm-cost", Metrics: commCostMetrics}
			series := []string{commSeries(0)}
			if delay {
				series = append(series, commSeries(2))
			}
			for _, s := range series {
				for _, c := range []struct{ x, l float64 }{{1, l1}, {2, l2}, {4, l4}} {
					for rep := 0; rep < reps; rep++ {
						r.Add(clusterRow(s, c.x, rep, map[string]float64{"latency_mean_ms": n.rel(c.l, 0.02), "latency_p99_ms": 1, "throughput": 50, "cut_rate": 0.5, "nodes_used": c.x}))
					}
				}
			}
			return agg(t, r)
		}
	}
	runClaimCases(t, commCostClaims, []claimCase{
		{"x2.0 and growing", build(3, 10, 15, 20, false), reports.Holds},
		{"falling, x0.5", build(3, 20, 15, 10, false), reports.DoesNotHold},
		{"one run per cell", build(1, 10, 15, 20, false), reports.Inconclusive},
	})
	// Growing but x4: the band claim does not hold, the growth claim holds.
	r, a := build(3, 10, 20, 40, false)()
	cs := judged(commCostClaims(r, a), "")
	if cs[0].Verdict != reports.Holds || cs[1].Verdict != reports.DoesNotHold {
		t.Errorf("x4: %q / %q, want holds / does not hold", cs[0].Verdict, cs[1].Verdict)
	}
	// The delay series is labelled forced; the no-delay one is not.
	r, a = build(3, 10, 15, 20, true)()
	for _, c := range commCostClaims(r, a) {
		if forced := strings.Contains(c.Statement, "delay 2 ms"); forced != (c.Forced != "") {
			t.Errorf("claim %q: forced label %q", c.Statement, c.Forced)
		}
	}
	// The ci scale's single run: inconclusive whatever the numbers say.
	r, a = build(3, 10, 15, 20, false)()
	for _, c := range judged(commCostClaims(r, a), "profile ci runs 1 repetition(s)") {
		if c.Verdict != reports.Inconclusive || !strings.Contains(c.Reason, "profile ci") {
			t.Errorf("no-verdict scale: %q (%s)", c.Verdict, c.Reason)
		}
	}
}

func TestKPartClusterClaimVerdicts(t *testing.T) {
	// openThr: the acked rate in the open-loop cell, which offers 0.5 x the calibration (1000 tuples/s
	// for EvenScheduler's saturated throughput).
	type cell struct{ cut, thr, bal, lat, openThr float64 }
	build := func(reps int, kp, on, ev cell) func() (*lab.Results, *lab.Aggregate) {
		return func() (*lab.Results, *lab.Aggregate) {
			n := newNoise(6)
			r := &lab.Results{Experiment: "kpart-cluster", Metrics: kpartClusterMetrics, Knobs: map[string]any{"kpart_calibration_tps": 1000.0}}
			for i, s := range kpartClusterSchedulers {
				c := []cell{kp, on, ev}[i]
				for rep := 0; rep < reps; rep++ {
					for _, x := range []float64{0, 0.5} {
						thr, lat := c.thr, 3*c.lat
						if x > 0 {
							thr, lat = c.openThr, c.lat
						}
						r.Add(clusterRow(s, x, rep, map[string]float64{
							"throughput": n.rel(thr, 0.01), "latency_mean_ms": n.rel(lat, 0.01), "latency_p99_ms": 1,
							"cut_rate": n.rel(c.cut, 0.01), "inter_node_tps": 1, "balance": n.rel(c.bal, 0.01)}))
					}
				}
			}
			return agg(t, r)
		}
	}
	good := []cell{{0.70, 1200, 5, 10, 500}, {0.72, 1050, 6, 12, 500}, {0.80, 1000, 10, 12, 500}}
	bad := []cell{{0.80, 900, 10, 14, 500}, {0.72, 1050, 6, 12, 500}, {0.70, 1000, 5, 12, 500}}
	runClaimCases(t, kpartClusterClaims, []claimCase{
		{"paper-like", build(3, good[0], good[1], good[2]), reports.Holds},
		{"opposite", build(3, bad[0], bad[1], bad[2]), reports.DoesNotHold},
		{"one run per cell", build(1, good[0], good[1], good[2]), reports.Inconclusive},
	})
	// online's open-loop runs were unsteady (it kept migrating: harness SteadySpan marks them
	// suspect): the latency claim, which compares K-PART with online too, is inconclusive and names
	// them; balance (K-PART vs Even) is still judged.
	r, a := build(3, good[0], good[1], good[2])()
	for i := range r.Rows {
		if row := &r.Rows[i]; row.Series == "online" && row.X > 0 {
			row.Validity = suspectOf(harness.ReasonUnsteady, "acked 445 of the 641 tuples/s offered")
		}
	}
	for _, c := range judged(kpartClusterClaims(r, a), "") {
		switch {
		case strings.Contains(c.Statement, "latency") && (c.Verdict != reports.Inconclusive || !strings.Contains(c.Reason, "online x=0.5")):
			t.Errorf("online unsteady in the open-loop cell: latency claim %q (%s), want inconclusive naming online's runs", c.Verdict, c.Reason)
		case strings.Contains(c.Statement, "balances") && c.Verdict != reports.Holds:
			t.Errorf("online unsteady in the open-loop cell: balance claim %q (%s), want holds (K-PART vs Even only)", c.Verdict, c.Reason)
		}
	}
}

// TestKPartClusterClaimsUnpacedOnly: without an open-loop cell (scale ci) balance and the inter-node
// rate are judged on the unpaced cell and the latency claim is inconclusive, saying why.
func TestKPartClusterClaimsUnpacedOnly(t *testing.T) {
	n := newNoise(6)
	r := &lab.Results{Experiment: "kpart-cluster", Metrics: kpartClusterMetrics}
	for i, s := range kpartClusterSchedulers {
		cut, bal := []float64{0.70, 0.72, 0.80}[i], []float64{5, 6, 10}[i]
		for rep := range 3 {
			r.Add(clusterRow(s, 0, rep, map[string]float64{"throughput": n.rel([]float64{1200, 1050, 1000}[i], 0.01),
				"latency_mean_ms": 30, "latency_p99_ms": 1, "cut_rate": n.rel(cut, 0.01), "inter_node_tps": 1, "balance": n.rel(bal, 0.01)}))
		}
	}
	_, a := agg(t, r)
	for _, c := range judged(kpartClusterClaims(r, a), "") {
		latency := strings.Contains(c.Statement, "latency")
		if latency && (c.Verdict != reports.Inconclusive || !strings.Contains(c.Reason, "no open-loop runs")) {
			t.Errorf("latency claim without an open-loop cell: %q (%s), want inconclusive", c.Verdict, c.Reason)
		}
		if !latency && (c.Verdict != reports.Holds || strings.Contains(c.Evidence, "open loop")) {
			t.Errorf("%q without an open-loop cell: %q (%s; %s), want holds on the unpaced cell", c.Statement, c.Verdict, c.Reason, c.Evidence)
		}
	}
}

// TestKPartCalibration: the open-loop cell's calibration is the median of EvenScheduler's unpaced rows
// (the other schedulers' rows, open-loop rows and runs that acked nothing aside), and an experiment
// without one is an error that says so.
func TestKPartCalibration(t *testing.T) {
	r := &lab.Results{Experiment: "kpart-cluster", Metrics: kpartClusterMetrics}
	for _, c := range []struct {
		s   string
		x   float64
		thr float64
	}{{"storm-even", 0, 900}, {"storm-even", 0, 1400}, {"storm-even", 0, 1000}, {"storm-even", 0, 0},
		{"storm-even", 0.5, 500}, {"kpart-dynamic", 0, 5000}} {
		r.Add(clusterRow(c.s, c.x, 0, map[string]float64{"throughput": c.thr}))
	}
	if got, err := kpartCalibration(r); err != nil || got != 1000 {
		t.Errorf("kpartCalibration = %v, %v; want 1000 (median of 900, 1000, 1400), nil", got, err)
	}
	empty := &lab.Results{Experiment: "kpart-cluster", Metrics: kpartClusterMetrics}
	empty.Add(clusterRow("kpart-dynamic", 0, 0, map[string]float64{"throughput": 1000}))
	if _, err := kpartCalibration(empty); err == nil || !strings.Contains(err.Error(), "EvenScheduler") {
		t.Errorf("kpartCalibration without an EvenScheduler run: %v, want an error naming EvenScheduler", err)
	}
}

func TestDeadlineClaimVerdicts(t *testing.T) {
	type sched struct{ ds, qosMax, misses float64 }
	build := func(reps int, d, ras, ad sched, kmBaseQoS, load20, load80 float64) func() (*lab.Results, *lab.Aggregate) {
		return func() (*lab.Results, *lab.Aggregate) {
			n := newNoise(7)
			r := &lab.Results{Experiment: "deadline", Metrics: deadlineMetrics}
			add := func(series string, x float64, rep int, ds, qos, misses float64) {
				r.Add(clusterRow(series, x, rep, map[string]float64{"dataset_s": n.rel(ds, 0.01), "proc_ms": 100, "qos_pct": 50,
					"qos_node_max_pct": n.rel(qos, 0.01), "misses": misses, "throughput": 100, "migrations": 0}))
			}
			for rep := 0; rep < reps; rep++ {
				for _, topo := range []string{"wordcount", "kmeans"} {
					add("deadline "+topo, 0.5, rep, d.ds, d.qosMax, d.misses)
					q := ras.qosMax
					if topo == "kmeans" {
						q = kmBaseQoS
					}
					add("storm-ras "+topo, 0.5, rep, ras.ds, q, 0)
					add("adaptive "+topo, 0.5, rep, ad.ds, q, 0)
				}
				add(loadSeries("wordcount"), 20, rep, load20, d.qosMax, d.misses)
				add(loadSeries("wordcount"), 80, rep, load80, d.qosMax, d.misses)
			}
			return agg(t, r)
		}
	}
	runClaimCases(t, deadlineClaims, []claimCase{
		{"paper-like", build(3, sched{10, 80, 0}, sched{14, 90, 0}, sched{12, 90, 0}, 120, 10, 14), reports.Holds},
		{"opposite", build(3, sched{14, 120, 5}, sched{10, 90, 0}, sched{12, 90, 0}, 80, 14, 10), reports.DoesNotHold},
		{"one run per cell", build(1, sched{10, 80, 0}, sched{14, 90, 0}, sched{12, 90, 0}, 100, 10, 14), reports.Inconclusive},
	})
}

// Probes of the statistics on whole claim sets: a graph's difficulty that
// every algorithm shares cancels in the paired checks, and a claim of a
// small effect can be refuted by data showing none.
func TestGraphClaimsPairedAndEquivalence(t *testing.T) {
	// partition-density: graphs differ by ±40% in cut rate, K-PART Mul=0
	// is 3% below every other algorithm on each graph. Unpaired, the graph
	// spread hides the 3%; paired by graph it is plain.
	r := &lab.Results{Experiment: "partition-density", Metrics: PartitionMetrics()}
	n := newNoise(5)
	for m := 15.0; m <= 66; m += 3 {
		for g := 0; g < 10; g++ {
			base := n.rel(0.4, 0.4)
			for ai, s := range partitionAlgs {
				cut := base * []float64{0.97, 1, 1, 1}[ai] * n.rel(1, 0.002)
				r.Add(partRow(s, m, uint64(100*int(m)+g), g, 0, cut, 10, 0.1, 0))
			}
		}
	}
	_, a := agg(t, r)
	cs := judged(partitionDensityClaims(r, a), "")
	var smallest lab.Claim
	for _, c := range cs {
		if strings.HasPrefix(c.Statement, "K-PART (Mul=0) has the smallest cut rate") {
			smallest = c
		}
	}
	if smallest.Verdict != reports.Holds {
		t.Errorf("paired smallest cut rate: %s\n  %s", smallest.Verdict, smallest.Line())
	}
	k0, o := lab.GraphUnits(r, labelKPart0, "cut_rate", nil, true), lab.GraphUnits(r, labelTPart, "cut_rate", nil, true)
	unpaired := reports.DifferenceCheck("", k0, o, reports.Less, "")
	reports.Judge([]*reports.Check{&unpaired})
	if unpaired.Verdict == reports.Holds {
		t.Errorf("test data: the unpaired test already holds (p %g); the probe needs the graph spread to hide the effect", unpaired.P)
	}

	// kpart-mul: Mul has no effect at all on the cut rate (every Mul gives
	// the same partition). "Mul>0 raises the cut rate a little" (at least
	// 1%) does not hold: the ratio is exactly 1, outside [1.01, 1.5].
	r = &lab.Results{Experiment: "kpart-mul", Metrics: PartitionMetrics()}
	for g := 0; g < 10; g++ {
		cut := n.rel(0.25, 0.3)
		for mul := 0.0; mul <= 9; mul++ {
			for rep := 0; rep < 3; rep++ {
				r.Add(partRow("K-PART", mul, uint64(g+1), g, rep, cut, 40, 0.1, 0))
			}
		}
	}
	_, a = agg(t, r)
	c := judged(kpartMulClaims(r, a), "")[0]
	if c.Verdict != reports.DoesNotHold || c.Decider().Kind != reports.KindEquivalence {
		t.Errorf("no effect on the cut rate: %s by %s, want does not hold by equivalence\n  %s", c.Verdict, c.Decider().Kind, c.Line())
	}
}
